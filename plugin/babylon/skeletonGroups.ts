import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { FabrikError } from "../solver/errors.js";

/**
 * One joint of a skeleton group. With glTF, a joint *is* its linked TransformNode: several Bones (one per
 * Skeleton that uses the node) stand for it. Without a linked node, the joint is the Bone itself.
 */
export interface GroupJoint {
  /** The linked TransformNode, or `null` when the bone has none (e.g. `.babylon` skeletons). */
  readonly node: TransformNode | null;
  /** Every Bone that stands for this joint; the first one's skeleton was found first. */
  readonly bones: Bone[];
  /** Index of the parent joint in the group's `joints`, -1 for a root. */
  parent: number;
}

/**
 * Skeletons that move one shared set of joints, found under one node. Joints are listed parents first.
 *
 * Skeletons fall into one group when they link to the same TransformNodes (two glTF skins over one joint
 * set, RobotExpressive) or when one skeleton's root node hangs below a joint of another (nested skins,
 * RecursiveSkeletons): either way they form one kinematic tree, and two IK solvers over it would fight.
 */
export interface SkeletonGroup {
  readonly skeletons: Skeleton[];
  /** The skinned meshes found for these skeletons, in discovery order. */
  readonly meshes: AbstractMesh[];
  readonly joints: GroupJoint[];
}

function describeNode(node: { name: string; getClassName(): string }): string {
  return `${node.getClassName()} "${node.name}"`;
}

function isSkinnedMesh(node: unknown): node is AbstractMesh {
  return (node as Partial<AbstractMesh> | null)?.skeleton != null;
}

/** The skinned meshes at or under `node`, the node itself first. */
export function findSkinnedMeshes(node: TransformNode): AbstractMesh[] {
  if (node == null || typeof (node as Partial<TransformNode>).getChildMeshes !== "function") {
    throw new FabrikError(
      `skeleton: expected a TransformNode or AbstractMesh, got ${node === null ? "null" : typeof node}`,
      undefined,
      "node",
    );
  }
  const found: AbstractMesh[] = [];
  if (isSkinnedMesh(node)) found.push(node);
  for (const mesh of node.getChildMeshes(false)) if (isSkinnedMesh(mesh)) found.push(mesh);
  return found;
}

/** Union-find over joint indices; groups are read back in order of first appearance. */
function makeUnionFind(size: number): { find(i: number): number; union(a: number, b: number): void } {
  const up = new Int32Array(size);
  for (let i = 0; i < size; i++) up[i] = i;
  const find = (i: number): number => {
    while (up[i] !== i) {
      up[i] = up[up[i]];
      i = up[i];
    }
    return i;
  };
  return {
    find,
    union(a, b) {
      const ra = find(a),
        rb = find(b);
      // Keeping the smaller index as representative keeps groups in discovery order.
      if (ra < rb) up[rb] = ra;
      else if (rb < ra) up[ra] = rb;
    },
  };
}

/**
 * Finds the skinned meshes at or under `node`, their skeletons, and groups them into kinematic trees.
 * Throws a {@link FabrikError} naming the node when there is no usable skeleton.
 */
export function findSkeletonGroups(node: TransformNode): SkeletonGroup[] {
  const meshes = findSkinnedMeshes(node);
  if (meshes.length === 0) {
    throw new FabrikError(
      `skeleton: no skinned mesh (a mesh with a skeleton) at or under ${describeNode(node)}; attach to the ` +
        "character's skinned mesh or to a node above it, such as the glTF `__root__`",
      undefined,
      "node",
    );
  }
  const skeletons: Skeleton[] = [];
  const meshesOf = new Map<Skeleton, AbstractMesh[]>();
  for (const mesh of meshes) {
    const skeleton = mesh.skeleton!;
    let list = meshesOf.get(skeleton);
    if (list === undefined) {
      list = [];
      meshesOf.set(skeleton, list);
      skeletons.push(skeleton);
    }
    list.push(mesh);
  }

  // One joint per linked TransformNode (or per unlinked Bone), in discovery order.
  const joints: GroupJoint[] = [];
  const jointOfKey = new Map<TransformNode | Bone, number>();
  const keyOf = (bone: Bone): TransformNode | Bone => bone.getTransformNode() ?? bone;
  for (const skeleton of skeletons) {
    if (skeleton.bones.length === 0) {
      throw new FabrikError(
        `skeleton: skeleton "${skeleton.name}" of mesh "${meshesOf.get(skeleton)![0].name}" has no bones`,
        undefined,
        "node",
      );
    }
    for (const bone of skeleton.bones) {
      const key = keyOf(bone);
      const index = jointOfKey.get(key);
      if (index === undefined) {
        jointOfKey.set(key, joints.length);
        joints.push({ node: bone.getTransformNode(), bones: [bone], parent: -1 });
      } else if (!joints[index].bones.includes(bone)) {
        joints[index].bones.push(bone);
      }
    }
  }

  // Skinning composes bones along the bone hierarchy, so that is the parent; a root bone whose node hangs
  // below another group's joint node is nested under that joint.
  const sets = makeUnionFind(joints.length);
  for (let j = 0; j < joints.length; j++) {
    const joint = joints[j];
    const parentBone = joint.bones[0].getParent();
    let parent = -1;
    if (parentBone !== null) parent = jointOfKey.get(keyOf(parentBone)) ?? -1;
    else if (joint.node?.parent instanceof TransformNode) parent = jointOfKey.get(joint.node.parent) ?? -1;
    joint.parent = parent;
    if (parent >= 0) sets.union(j, parent);
  }
  // A skeleton is one skinning unit: never split it, even if it has several root bones.
  for (const skeleton of skeletons) {
    const first = jointOfKey.get(keyOf(skeleton.bones[0]))!;
    for (const bone of skeleton.bones) sets.union(first, jointOfKey.get(keyOf(bone))!);
  }

  const groupOfRoot = new Map<number, number>();
  const members: number[][] = [];
  for (let j = 0; j < joints.length; j++) {
    const root = sets.find(j);
    let g = groupOfRoot.get(root);
    if (g === undefined) {
      g = members.length;
      groupOfRoot.set(root, g);
      members.push([]);
    }
    members[g].push(j);
  }

  return members.map((list) => {
    const ordered = orderParentsFirst(joints, list);
    const newIndex = new Map<number, number>();
    ordered.forEach((j, i) => newIndex.set(j, i));
    const groupJoints = ordered.map((j) => ({
      node: joints[j].node,
      bones: joints[j].bones,
      parent: joints[j].parent < 0 ? -1 : newIndex.get(joints[j].parent)!,
    }));
    const groupSkeletons = skeletons.filter((s) => newIndex.has(jointOfKey.get(keyOf(s.bones[0]))!));
    return {
      skeletons: groupSkeletons,
      meshes: groupSkeletons.flatMap((s) => meshesOf.get(s)!),
      joints: groupJoints,
    };
  });
}

/**
 * Orders joints so every parent comes before its children, keeping the discovery order wherever it
 * already is parent-first (so a single glTF skeleton keeps its bone order). Throws on a parent cycle.
 */
function orderParentsFirst(joints: readonly GroupJoint[], list: readonly number[]): number[] {
  const state = new Map<number, 1 | 2>(); // 1: on the current path, 2: emitted
  const out: number[] = [];
  const path: number[] = [];
  for (const start of list) {
    let j = start;
    while (j >= 0 && state.get(j) === undefined) {
      state.set(j, 1);
      path.push(j);
      j = joints[j].parent;
    }
    if (j >= 0 && state.get(j) === 1) {
      const name = joints[j].bones[0].name;
      throw new FabrikError(
        `skeleton: joint "${name}" is its own ancestor (a parent cycle)`,
        undefined,
        "node",
      );
    }
    while (path.length > 0) {
      const k = path.pop()!;
      state.set(k, 2);
      out.push(k);
    }
  }
  return out;
}
