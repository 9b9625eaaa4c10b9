import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { describe, expect, it } from "vitest";
import { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { FootPlacement } from "../../plugin/helpers/footPlacement.js";
import { createStep } from "../helpers/helperHarness.js";
import { rigifyJoints } from "../rig/rigifyLayout.js";
import { buildJointCharacter, preciseEngine } from "./codeCharacters.js";
import { random } from "./fabrikHarness.js";

/*
 * Tools lay a bone's local axes their own way: Blender along +Y, Maya and 3ds Max along +X, some with the roll
 * left wherever it fell. None of that moves a joint, and none of it may change what the behavior does: the
 * roles, the humanoid limits and the answer are the skeleton's, not its axes'. The same Rigify-style humanoid
 * is built with its joints' rest frames laid each way, given the same targets, and compared joint by joint
 * with the one whose frames are the model's.
 */

type Frames = (name: string) => Quaternion;
const HEIGHT = 1.62;

/** Each joint's frame: `axis` (+X or +Y) along the bone to its first child, rolled by `roll(name)` about it. */
function alongBones(axis: Vector3, roll: (name: string) => number): Frames {
  const joints = rigifyJoints();
  const at = new Map(joints.map(([name, , p]) => [name, new Vector3(...p)]));
  const child = new Map<string, string>();
  for (const [name, parent] of joints) if (parent !== null && !child.has(parent)) child.set(parent, name);
  return (name) => {
    const next = child.get(name);
    const bone = next === undefined ? new Vector3(0, 1, 0) : at.get(next)!.subtract(at.get(name)!);
    const from = axis.normalizeToNew();
    const to = bone.normalizeToNew();
    const aim = new Quaternion();
    Quaternion.FromUnitVectorsToRef(from, to, aim);
    return aim.multiply(Quaternion.RotationAxis(from, roll(name)));
  };
}

function seeded(seed: number): Frames {
  const rand = random(seed);
  const cache = new Map<string, Quaternion>();
  return (name) => {
    if (!cache.has(name)) {
      const axis = new Vector3(rand() - 0.5, rand() - 0.5, rand() - 0.5).normalize();
      cache.set(name, Quaternion.RotationAxis(axis, 2 * Math.PI * rand()));
    }
    return cache.get(name)!.clone();
  };
}

const CONVENTIONS: [string, Frames][] = [
  ["Blender: +Y along each bone, no roll", alongBones(new Vector3(0, 1, 0), () => 0)],
  ["Blender with random rolls", alongBones(new Vector3(0, 1, 0), (n) => 7.3 * n.length)],
  ["Maya: +X along each bone", alongBones(new Vector3(1, 0, 0), () => 0)],
  ["random frames (seed 1)", seeded(1)],
  ["random frames (seed 2)", seeded(2)],
];

/** Frames solved toward the targets, with FootPlacement on a bump; every joint's world position after each. */
function solve(frames: Frames): Vector3[][] {
  const engine = preciseEngine();
  const scene = new Scene(engine);
  new FreeCamera("camera", new Vector3(0, 1, -5), scene);
  const { model, nodes } = buildJointCharacter(scene, rigifyJoints(), [], frames);
  const ik = new FabrikBehavior();
  model.addBehavior(ik, true);
  ik.setTarget("leftHand", new Vector3(0.35, 1.1, 0.3));
  ik.setTarget("rightHand", new Vector3(-0.2, 1.35, 0.4));
  ik.setTarget("head", new Vector3(0.03, 1.6, 0.06));
  // A step under the left foot, 10 cm up; the right stands on the flat ground.
  createStep(scene, "step", 0.1, 0, 0.3, -0.2, 0.3);
  createStep(scene, "floor", 0, -2, 0);
  const feet = new FootPlacement(ik);
  const joints: TransformNode[] = [...nodes.values()];
  const out: Vector3[][] = [];
  const observer = ik.onSolvedObservable.add(() => {
    scene.incrementRenderId();
    out.push(joints.map((n) => n.computeWorldMatrix(true).getTranslation()));
  });
  for (let f = 0; f < 40; f++) scene.render();
  observer.remove();
  feet.dispose();
  engine.dispose();
  return out;
}

describe("the answer does not depend on the bones' local axes", () => {
  const reference = solve(() => Quaternion.Identity());
  it("the model-axes rig itself: hands and head on their targets, the left foot up on the step", () => {
    const names = rigifyJoints().map(([name]) => name);
    const at = (name: string) => reference[reference.length - 1][names.indexOf(name)];
    expect(Vector3.Distance(at("DEF-hand.L"), new Vector3(0.35, 1.1, 0.3))).toBeLessThan(2e-3);
    expect(Vector3.Distance(at("DEF-hand.R"), new Vector3(-0.2, 1.35, 0.4))).toBeLessThan(2e-3);
    expect(at("DEF-foot.L").y - at("DEF-foot.R").y).toBeGreaterThan(0.09);
  });
  it.each(CONVENTIONS)("%s: every joint where the model-axes rig puts it", (_, frames) => {
    const frames_ = solve(frames);
    expect(frames_.length).toBe(reference.length);
    let worst = 0;
    frames_.forEach((pose, f) =>
      pose.forEach((p, j) => (worst = Math.max(worst, Vector3.Distance(p, reference[f][j])))),
    );
    expect(worst / HEIGHT).toBeLessThan(1e-6);
  });
});
