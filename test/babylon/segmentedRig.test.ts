// The behavior on a skeleton whose limbs have more bones than roles (Rigify's deforming bones, split in two
// along each upper arm, forearm, thigh and shin), built in code as glTF loads one: TransformNodes linked to
// Bones, under a model root, with a skinned mesh.
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it } from "vitest";
import { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";

type V = [number, number, number];

let engine: NullEngine | undefined;
afterEach(() => engine?.dispose());

/** Joint nodes by name: a Rigify-style T-pose (Y up, facing +Z, its left along +X), identity rest rotations. */
function buildRigifyCharacter(scene: Scene): { model: TransformNode; nodes: Map<string, TransformNode> } {
  const model = new TransformNode("model", scene);
  const skeleton = new Skeleton("rig", "rig", scene);
  const nodes = new Map<string, TransformNode>();
  const bones = new Map<string, Bone>();
  const world = new Map<string, V>();
  const add = (name: string, parent: string | null, at: V): void => {
    const node = new TransformNode(name, scene);
    node.parent = parent === null ? model : nodes.get(parent)!;
    const from = parent === null ? [0, 0, 0] : world.get(parent)!;
    node.position.set(at[0] - from[0], at[1] - from[1], at[2] - from[2]);
    node.rotationQuaternion = Quaternion.Identity();
    // The rest pose is the bone's (glTF's bind pose), not the node's: both start the same.
    const rest = Matrix.Translation(node.position.x, node.position.y, node.position.z);
    const bone = new Bone(name, skeleton, parent === null ? null : bones.get(parent)!, rest, rest);
    bone.linkTransformNode(node);
    nodes.set(name, node);
    bones.set(name, bone);
    world.set(name, at);
  };
  add("DEF-spine", null, [0, 1, 0]);
  const spine = ["DEF-spine.001", "DEF-spine.002", "DEF-spine.003", "DEF-spine.004", "DEF-spine.005"];
  spine.forEach((name, i) => add(name, i === 0 ? "DEF-spine" : spine[i - 1], [0, 1.1 + 0.12 * i, 0]));
  add("DEF-spine.006", "DEF-spine.005", [0, 1.66, 0]);
  for (const [s, x] of [
    ["L", 1],
    ["R", -1],
  ] as const) {
    add(`DEF-shoulder.${s}`, "DEF-spine.003", [0.03 * x, 1.45, 0]);
    const arm = [
      `DEF-upper_arm.${s}`,
      `DEF-upper_arm.${s}.001`,
      `DEF-forearm.${s}`,
      `DEF-forearm.${s}.001`,
      `DEF-hand.${s}`,
    ];
    arm.forEach((name, i) =>
      add(name, i === 0 ? `DEF-shoulder.${s}` : arm[i - 1], [(0.17 + 0.125 * i) * x, 1.45, 0]),
    );
    const leg: [string, number][] = [
      [`DEF-thigh.${s}`, 0.95],
      [`DEF-thigh.${s}.001`, 0.72],
      [`DEF-shin.${s}`, 0.5],
      [`DEF-shin.${s}.001`, 0.3],
      [`DEF-foot.${s}`, 0.08],
    ];
    leg.forEach(([name, y], i) => add(name, i === 0 ? "DEF-spine" : leg[i - 1][0], [0.1 * x, y, 0]));
    add(`DEF-toe.${s}`, `DEF-foot.${s}`, [0.1 * x, 0.02, 0.12]);
  }
  const mesh = new Mesh("body", scene);
  mesh.parent = model;
  mesh.skeleton = skeleton;
  return { model, nodes };
}

/** How far (radians) a node's local rotation turns the +X axis (the left arm's bones at rest). */
function swingOfX(node: TransformNode): number {
  const v = new Vector3(1, 0, 0).applyRotationQuaternion(node.rotationQuaternion!);
  return Math.acos(Math.min(1, v.x));
}

describe("FabrikBehavior on a limb split into more bones than roles", () => {
  it("a hand reaching from the straight T-pose bends its elbow; the arm's segments only twist", () => {
    engine = new NullEngine();
    const scene = new Scene(engine);
    new FreeCamera("camera", new Vector3(0, 1, -5), scene);
    const { model, nodes } = buildRigifyCharacter(scene);
    const ik = new FabrikBehavior();
    model.addBehavior(ik, true);
    expect(ik.rig!.names[ik.roles.leftUpperArm!]).toBe("DEF-upper_arm.L");
    expect(ik.rig!.names[ik.roles.leftLowerArm!]).toBe("DEF-forearm.L");
    expect(ik.getLimit("DEF-upper_arm.L.001")?.pivot).toBeDefined();
    expect(ik.getLimit("DEF-forearm.L.001")?.pivot).toBeDefined();
    // In front of the chest, within reach with the elbow bent.
    const target = new Vector3(0.25, 1.3, 0.35);
    ik.setTarget("leftHand", target);
    let largest = 0;
    for (let f = 0; f < 5; f++) {
      scene.onBeforeRenderObservable.notifyObservers(scene);
      for (const name of ["DEF-upper_arm.L.001", "DEF-forearm.L.001"])
        largest = Math.max(largest, swingOfX(nodes.get(name)!));
      const reader = new PoseReader(ik.rig!);
      reader.read();
      const hand = reader.getWorldPositionToRef(ik.jointIndex("leftHand"), new Vector3());
      expect(Vector3.Distance(hand, target)).toBeLessThan(2e-3);
      // The elbow bends (the hand is nearer the shoulder than the arm's length).
      expect(swingOfX(nodes.get("DEF-forearm.L")!)).toBeGreaterThan(0.3);
      scene.onAfterRenderObservable.notifyObservers(scene);
    }
    expect(largest).toBeLessThan(1e-6);
  });
});
