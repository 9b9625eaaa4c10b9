// Characters built in code as glTF loads one (TransformNodes linked to Bones under a model root, with a
// skinned mesh), for rigs no file at hand has (not a test file).
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import type { Loaded } from "./characters.js";

type V = [number, number, number];

/** Joint nodes by name: a Rigify-style T-pose (Y up, facing +Z, its left along +X), identity rest rotations. */
export function buildRigifyCharacter(scene: Scene): { model: Mesh; nodes: Map<string, TransformNode> } {
  const model = new Mesh("__root__", scene);
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

/**
 * A 1.66 m Rigify-style humanoid (its deforming `DEF-` bones, each upper arm, forearm, thigh and shin split in
 * two) in a NullEngine scene with a camera, as `loadCharacter` gives a file.
 */
export function rigifyCharacter(): Loaded {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  new FreeCamera("camera", new Vector3(0, 1, -5), scene);
  return { engine, scene, root: buildRigifyCharacter(scene).model };
}
