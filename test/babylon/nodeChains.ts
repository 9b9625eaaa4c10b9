// Hand-made node hierarchies for the world-matrix and pose-reader tests (not a test file).
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";

/** a ← b (a Mesh, Euler rotation) ← c (quaternion, mirrored), mixed and non-uniform scales: every kind once. */
export function mixedNodeChain(scene: Scene): [TransformNode, Mesh, TransformNode] {
  const a = new TransformNode("a", scene);
  a.position.set(1, 2, 3);
  a.rotationQuaternion = Quaternion.RotationAxis(new Vector3(1, 1, 0).normalize(), 0.7);
  a.scaling.set(2, 2, -2);
  const b = new Mesh("b", scene);
  b.parent = a;
  b.position.set(-0.5, 0.25, 4);
  b.rotation.set(0.3, -1.1, 2.0);
  b.scaling.set(1, 3, 0.5);
  const c = new TransformNode("c", scene);
  c.parent = b;
  c.position.set(0.1, 0.2, 0.3);
  c.rotationQuaternion = new Quaternion(0.1, 0.2, 0.3, 0.9).normalize();
  c.scalingDeterminant = -1;
  return [a, b, c];
}

/**
 * Three joints under `model`, each a TransformNode linked to a Bone (as glTF loads them), Euler-rotated, and
 * a skinned Mesh under `model`: the smallest rig `buildSkeletonRig(model)` accepts. Returns the joint nodes.
 */
export function linkedJointChain(scene: Scene, model: TransformNode): TransformNode[] {
  const skeleton = new Skeleton("s", "s", scene);
  let parent: Bone | null = null;
  const nodes: TransformNode[] = [];
  for (let i = 0; i < 3; i++) {
    const node = new TransformNode(`j${i}`, scene);
    node.parent = i === 0 ? model : nodes[i - 1];
    node.position.set(0, 1, 0.2 * i);
    node.rotation.set(0.2, 0.1 * i, 0);
    parent = new Bone(node.name, skeleton, parent);
    parent.linkTransformNode(node);
    nodes.push(node);
  }
  const mesh = new Mesh("body", scene);
  mesh.parent = model;
  mesh.skeleton = skeleton;
  return nodes;
}
