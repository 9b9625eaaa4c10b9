import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Scene } from "@babylonjs/core/scene.js";
import { describe, expect, it } from "vitest";
import { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { FootPlacement } from "../../plugin/helpers/footPlacement.js";
import { LookAt } from "../../plugin/helpers/lookAt.js";
import { TrackedBody } from "../../plugin/helpers/trackedBody.js";
import { TwoHandGrip } from "../../plugin/helpers/twoHandGrip.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
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

type Scales = (name: string) => [number, number, number];
const unscaled: Scales = () => [1, 1, 1];
/** Mirrors and half turns written as scale on one side, as some exporters leave them (scaleFold.ts). */
const mirrors: Scales = (name) =>
  name.endsWith(".L") && !name.includes(".0")
    ? [-1, 1, 1]
    : name === "DEF-spine.004"
      ? [1, -1, -1]
      : name === "DEF-spine"
        ? [-1, -1, -1]
        : [1, 1, 1];

const CONVENTIONS: [string, Frames, Scales][] = [
  ["Blender: +Y along each bone, no roll", alongBones(new Vector3(0, 1, 0), () => 0), unscaled],
  ["Blender with random rolls", alongBones(new Vector3(0, 1, 0), (n) => 7.3 * n.length), unscaled],
  ["Maya: +X along each bone", alongBones(new Vector3(1, 0, 0), () => 0), unscaled],
  ["random frames (seed 1)", seeded(1), unscaled],
  ["random frames (seed 2)", seeded(2), unscaled],
  [
    "the left side mirrored, the neck's base a half turn, the hips a uniform -1",
    () => Quaternion.Identity(),
    mirrors,
  ],
  ["random frames and those mirrors", seeded(3), mirrors],
];

type Scenario = "reach" | "look" | "tracked" | "grip";

/**
 * 40 frames of one scenario, every joint's world position after each: "reach" (hands and head targets, and
 * FootPlacement with a step under the left foot), "look" (LookAt, and the step), "tracked" (TrackedBody from
 * a head and two hands, turned).
 */
function solve(frames: Frames, scales: Scales, scenario: Scenario, negated = false): Vector3[][] {
  const engine = preciseEngine();
  const scene = new Scene(engine);
  new FreeCamera("camera", new Vector3(0, 1, -5), scene);
  const { model, nodes } = buildJointCharacter(scene, rigifyJoints(), [], frames, scales);
  // The same rotations with the other sign, as glTF keys and exporters may hand them out (w < 0).
  if (negated) for (const node of nodes.values()) node.rotationQuaternion!.scaleInPlace(-1);
  const ik = new FabrikBehavior();
  model.addBehavior(ik, true);
  // A step under the left foot, 10 cm up; the right stands on the flat ground.
  createStep(scene, "step", 0.1, 0, 0.3, -0.2, 0.3);
  createStep(scene, "floor", 0, -2, 0);
  // Every helper stepped by hand, 1/60 s a frame: a NullEngine's frames outside a render loop last 0 s.
  const helpers: { dispose(): void; update(dt: number): void }[] = [];
  if (scenario === "reach") {
    ik.setTarget("leftHand", new Vector3(0.35, 1.1, 0.3));
    ik.setTarget("rightHand", new Vector3(-0.2, 1.35, 0.4));
    ik.setTarget("head", new Vector3(0.03, 1.6, 0.06));
  }
  if (scenario !== "tracked") helpers.push(new FootPlacement(ik, { autoUpdate: false }));
  if (scenario === "grip") {
    // A box carried before the chest in both hands (Rigify's arms carry `.001` segments), each held as the hand
    // is turned at rest: a handle's rotation is in the hand's own frame, which each convention lays its way.
    const restHand = (name: string) => {
      const node = nodes.get(name)!;
      node.computeWorldMatrix(true);
      return node.absoluteRotationQuaternion.clone();
    };
    const box = new TransformNode("box", scene);
    box.rotationQuaternion = Quaternion.Identity();
    box.position.set(0, 1.05, 0.3);
    const carry = new TransformNode("carry", scene);
    carry.rotationQuaternion = Quaternion.RotationYawPitchRoll(0.2, 0.1, 0);
    carry.position.set(0.05, 1.1, 0.32);
    const grip = new TwoHandGrip(ik, {
      object: box,
      left: { position: new Vector3(0.18, 0, 0), rotation: restHand("DEF-hand.L") },
      right: { position: new Vector3(-0.18, 0, 0), rotation: restHand("DEF-hand.R") },
      target: carry,
    });
    helpers.push({ dispose: () => grip.dispose(), update: () => {} });
  }
  if (scenario === "look") {
    const look = new LookAt(ik, { autoUpdate: false });
    look.target = new Vector3(0.6, 1.8, 1);
    helpers.push(look);
  }
  if (scenario === "tracked") {
    const body = new TrackedBody(ik, { autoUpdate: false });
    body.head.position.set(0.02, 1.52, 0.08);
    body.head.rotation.copyFrom(Quaternion.RotationYawPitchRoll(0.2, 0.2, 0));
    body.leftHand.position.set(0.2, 1.2, 0.25);
    body.leftHand.rotation.copyFrom(Quaternion.RotationYawPitchRoll(0.3, 0.3, -0.2));
    body.rightHand.position.set(-0.2, 1.25, 0.25);
    body.rightHand.rotation.copyFrom(Quaternion.RotationYawPitchRoll(-0.2, 0.1, 0.2));
    helpers.push(body);
  }
  const joints: TransformNode[] = [...nodes.values()];
  const out: Vector3[][] = [];
  const observer = ik.onSolvedObservable.add(() => {
    scene.incrementRenderId();
    out.push(joints.map((n) => n.computeWorldMatrix(true).getTranslation()));
  });
  for (let f = 0; f < 40; f++) {
    for (const h of helpers) h.update(1 / 60);
    scene.render();
  }
  observer.remove();
  for (const h of helpers) h.dispose();
  engine.dispose();
  return out;
}

describe("the answer does not depend on the bones' local axes, or on mirrors inside the skeleton", () => {
  const references = new Map<Scenario, Vector3[][]>();
  const reference = (scenario: Scenario) => {
    if (!references.has(scenario))
      references.set(
        scenario,
        solve(() => Quaternion.Identity(), unscaled, scenario),
      );
    return references.get(scenario)!;
  };
  it("the model-axes rig itself: hands and head on their targets, the left foot up on the step", () => {
    const names = rigifyJoints().map(([name]) => name);
    const last = reference("reach")[reference("reach").length - 1];
    const at = (name: string) => last[names.indexOf(name)];
    expect(Vector3.Distance(at("DEF-hand.L"), new Vector3(0.35, 1.1, 0.3))).toBeLessThan(2e-3);
    expect(Vector3.Distance(at("DEF-hand.R"), new Vector3(-0.2, 1.35, 0.4))).toBeLessThan(2e-3);
    expect(at("DEF-foot.L").y - at("DEF-foot.R").y).toBeGreaterThan(0.09);
  });
  it("the model-axes rig itself turns its head in look", () => {
    const names = rigifyJoints().map(([name]) => name);
    const head = names.indexOf("DEF-spine.006"),
      neck = names.indexOf("DEF-spine.005");
    const frames = reference("look");
    const last = frames[frames.length - 1];
    // The head's bone points straight up at rest; looking up at (0.6, 1.8, 1) and to its left, it tips back
    // (the turn to the side leaves an upright bone upright): 4.4°, where a look that never faded in left 0.
    const bone = last[head].subtract(last[neck]).normalize();
    expect(Math.acos(bone.y)).toBeGreaterThan((2 * Math.PI) / 180);
  });
  it("the model-axes rig itself carries the box: each hand on its handle at the target", () => {
    const names = rigifyJoints().map(([name]) => name);
    const last = reference("grip")[reference("grip").length - 1];
    const carry = Quaternion.RotationYawPitchRoll(0.2, 0.1, 0);
    const handle = (x: number) =>
      new Vector3(x, 0, 0).applyRotationQuaternion(carry).add(new Vector3(0.05, 1.1, 0.32));
    expect(Vector3.Distance(last[names.indexOf("DEF-hand.L")], handle(0.18))).toBeLessThan(0.005);
    expect(Vector3.Distance(last[names.indexOf("DEF-hand.R")], handle(-0.18))).toBeLessThan(0.005);
  });
  it.each(["look", "tracked"] as const)("the model-axes rig itself moves in %s", (scenario) => {
    const frames = reference(scenario);
    const rest = rigifyJoints().map(([, , p]) => new Vector3(...p));
    const moved = Math.max(...frames[frames.length - 1].map((p, j) => Vector3.Distance(p, rest[j])));
    expect(moved).toBeGreaterThan(0.02);
  });
  const cases = (["reach", "look", "grip"] as const).flatMap((scenario) => [
    ...CONVENTIONS.map(([name, frames, scales]) => [scenario, name, frames, scales, false] as const),
    [scenario, "every quaternion negated", () => Quaternion.Identity(), unscaled, true] as const,
    [scenario, "random frames, mirrors, every quaternion negated", seeded(4), mirrors, true] as const,
  ]);
  it.each(cases)(
    "%s, %s: every joint where the model-axes rig puts it",
    (scenario, _, frames, scales, negated) => {
      const solved = solve(frames, scales, scenario, negated);
      const expected = reference(scenario);
      expect(solved.length).toBe(expected.length);
      let worst = 0;
      solved.forEach((pose, f) =>
        pose.forEach((p, j) => (worst = Math.max(worst, Vector3.Distance(p, expected[f][j])))),
      );
      expect(worst / HEIGHT).toBeLessThan(1e-6);
    },
  );
  // TrackedBody's solves take other branches on rounding alone (damped steps, the elbows' swivel), so its
  // poses are compared by what it promises: the head and hands on their trackers, under any axes or mirrors.
  it.each([
    ...CONVENTIONS.map(([name, frames, scales]) => [name, frames, scales, false] as const),
    ["every quaternion negated", () => Quaternion.Identity(), unscaled, true] as const,
  ])("tracked, %s: head and hands on their trackers", (_, frames, scales, negated) => {
    const last = solve(frames, scales, "tracked", negated).at(-1)!;
    const names = rigifyJoints().map(([name]) => name);
    const at = (name: string) => last[names.indexOf(name)];
    expect(Vector3.Distance(at("DEF-hand.L"), new Vector3(0.2, 1.2, 0.25)) / HEIGHT).toBeLessThan(2e-3);
    expect(Vector3.Distance(at("DEF-hand.R"), new Vector3(-0.2, 1.25, 0.25)) / HEIGHT).toBeLessThan(2e-3);
    expect(Vector3.Distance(at("DEF-spine.006"), new Vector3(0.02, 1.52, 0.08)) / HEIGHT).toBeLessThan(2e-3);
  });
});
