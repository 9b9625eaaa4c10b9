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
import { rigifyJoints, type Vec3 } from "../rig/rigifyLayout.js";
import type { Loaded } from "./characters.js";

type V = Vec3;

/** One joint: its name, its parent's (null for a root) and where it stands in the model. */
export type JointLayout = readonly [name: string, parent: string | null, at: V];

/**
 * Joint nodes by name, placed as `joints` lists them (parents first); `ends` are plain nodes below joints,
 * outside the skin (glTF `_end` sites). Each joint's rest frame (its world orientation) is `frameOf(name)`,
 * identity by default: the local axes a tool lays along its bones, which moves no joint; its scale is
 * `scaleOf(name)`, taken out of its children's offsets, so that no joint moves either.
 */
export function buildJointCharacter(
  scene: Scene,
  joints: Iterable<JointLayout>,
  ends: Iterable<JointLayout> = [],
  frameOf: (name: string) => Quaternion = () => Quaternion.Identity(),
  scaleOf: (name: string) => V = () => [1, 1, 1],
): { model: Mesh; nodes: Map<string, TransformNode> } {
  const model = new Mesh("__root__", scene);
  const skeleton = new Skeleton("rig", "rig", scene);
  const nodes = new Map<string, TransformNode>();
  const bones = new Map<string, Bone>();
  const frames = new Map<string, Quaternion>();
  /** Where `at` (model space) lies in the frame of joint `parent`, its rotation and scale taken out. */
  const inFrameOf = (parent: string | null, at: V): Vector3 => {
    if (parent === null) return new Vector3(...at);
    const inverse = nodes.get(parent)!.computeWorldMatrix(true).clone().invert();
    return Vector3.TransformCoordinates(new Vector3(...at), inverse);
  };
  const add = (name: string, parent: string | null, at: V): void => {
    const node = new TransformNode(name, scene);
    node.parent = parent === null ? model : nodes.get(parent)!;
    const frame = frameOf(name).normalize();
    frames.set(name, frame);
    node.position.copyFrom(inFrameOf(parent, at));
    node.rotationQuaternion =
      parent === null ? frame.clone() : Quaternion.Inverse(frames.get(parent)!).multiply(frame);
    node.scaling.set(...scaleOf(name));
    // The rest pose is the bone's (glTF's bind pose), not the node's: both start the same.
    const rest = Matrix.Compose(node.scaling, node.rotationQuaternion, node.position);
    const bone = new Bone(name, skeleton, parent === null ? null : bones.get(parent)!, rest, rest);
    bone.linkTransformNode(node);
    nodes.set(name, node);
    bones.set(name, bone);
  };
  for (const [name, parent, at] of joints) add(name, parent, at);
  for (const [name, parent, at] of ends) {
    const node = new TransformNode(name, scene);
    node.parent = nodes.get(parent!)!;
    node.position.copyFrom(inFrameOf(parent, at));
  }
  const mesh = new Mesh("body", scene);
  mesh.parent = model;
  mesh.skeleton = skeleton;
  return { model, nodes };
}

/** Joint nodes by name: a Rigify-style T-pose (Y up, facing +Z, its left along +X), identity rest rotations. */
export function buildRigifyCharacter(scene: Scene): { model: Mesh; nodes: Map<string, TransformNode> } {
  return buildJointCharacter(scene, rigifyJoints());
}

/** A NullEngine whose matrices are doubles, so a test sees the solve's rounding rather than Float32's. */
export function preciseEngine(): NullEngine {
  return new NullEngine({
    renderHeight: 256,
    renderWidth: 256,
    textureSize: 256,
    deterministicLockstep: false,
    lockstepMaxSteps: 1,
    useHighPrecisionMatrix: true,
  });
}

/** A character of `joints` (and `ends`) in a NullEngine scene with a camera, as `loadCharacter` gives a file. */
export function jointCharacter(joints: Iterable<JointLayout>, ends: Iterable<JointLayout> = []): Loaded {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  new FreeCamera("camera", new Vector3(0, 1, -5), scene);
  return { engine, scene, root: buildJointCharacter(scene, joints, ends).model };
}

/**
 * The Rigify-style humanoid of `rigifyJoints` (limbs split in two) in a NullEngine scene with a camera, as
 * `loadCharacter` gives a file.
 */
export function rigifyCharacter(): Loaded {
  return jointCharacter(rigifyJoints());
}
