import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { FabrikError } from "../solver/errors.js";
import type { RigDescription } from "../solver/rig.js";
import { forwardKinematics } from "../rig/index.js";
import { foldAxis, foldJoint } from "./scaleFold.js";
import { findSkeletonGroups, type SkeletonGroup } from "./skeletonGroups.js";

/**
 * A Babylon skeleton seen as the solver sees it: joints listed parents first, with their Babylon objects,
 * the rest pose, and the node whose local space is "model space".
 *
 * Model space is the space of {@link SkeletonRig.modelRoot}: for glTF, the parent of the top joint's
 * TransformNode (below the mirrored `__root__` and any armature scale, which therefore never enter the
 * joint arrays); for skeletons without linked nodes, the skinned mesh whose space the bones live in.
 */
export interface SkeletonRig {
  readonly jointCount: number;
  /** Parent joint per joint, -1 for a root; every parent comes before its children. */
  readonly parents: Int32Array;
  /** Joint names: the Bone names (equal to the glTF node names for named nodes). */
  readonly names: readonly string[];
  /** Per joint, every Bone standing for it: several when skins share joints. Write through the node if any. */
  readonly bones: readonly (readonly Bone[])[];
  /** Per joint, the linked TransformNode (the source of truth each frame), or `null` for a bare Bone. */
  readonly nodes: readonly (TransformNode | null)[];
  /** The skeletons and skinned meshes this rig covers. */
  readonly skeletons: readonly Skeleton[];
  readonly meshes: readonly AbstractMesh[];
  /** The node whose local space is model space; `null` when the top joints sit at the scene root. */
  readonly modelRoot: TransformNode | null;
  /** Rest pose from `bone.getRestMatrix()`, local to the parent joint: translation (3n), rotation (4n, x y z w), scale (3n). */
  readonly restTranslations: Float64Array;
  readonly restRotations: Float64Array;
  readonly restScales: Float64Array;
  /** Rest pose in model space, by forward kinematics: positions (3n) and unit orientations (4n). */
  readonly restPositions: Float64Array;
  readonly restOrientations: Float64Array;
  /** Joint index of a name, a joint TransformNode or a Bone; -1 when it is not part of the rig. */
  indexOf(joint: string | TransformNode | Bone): number;
  /** The solver's view of this rig (fresh arrays each call), for `createRig`. */
  toRigDescription(): RigDescription;
}

/** How {@link buildSkeletonRig} chooses when several unrelated skeletons lie under the node. */
export interface SkeletonRigOptions {
  /** Build the rig of the group holding this skeleton (or the skeleton with this name). */
  skeleton?: Skeleton | string;
}

/**
 * Builds the rig of the character at or under `node` (a skinned mesh, or any node above one).
 *
 * Meshes sharing a skeleton, and skeletons sharing or nesting joint nodes, make one rig. When the node holds
 * several unrelated skeleton groups (e.g. a scene root with several characters), pass `options.skeleton` to
 * pick one, or use {@link buildSkeletonRigs} to get one rig per group: guessing would attach IK to the
 * wrong character without a word.
 */
export function buildSkeletonRig(node: TransformNode, options: SkeletonRigOptions = {}): SkeletonRig {
  const groups = findSkeletonGroups(node);
  const wanted = options.skeleton;
  if (wanted === undefined) {
    if (groups.length > 1) {
      const list = groups
        .slice(0, 4)
        .map((g) => `"${g.skeletons[0].name}" (${g.joints.length} joints)`)
        .join(", ");
      throw new FabrikError(
        `skeleton: ${groups.length} unrelated skeleton groups under "${node.name}": ${list}` +
          `${groups.length > 4 ? ", …" : ""}; pass { skeleton } to pick one, or use buildSkeletonRigs`,
        undefined,
        "skeleton",
      );
    }
    return rigFromGroup(groups[0]);
  }
  const group = groups.find((g) =>
    g.skeletons.some((s) => (typeof wanted === "string" ? s.name === wanted : s === wanted)),
  );
  if (group === undefined) {
    const name = typeof wanted === "string" ? wanted : wanted?.name;
    throw new FabrikError(
      `skeleton: no skeleton ${JSON.stringify(name)} among the skinned meshes under "${node.name}"`,
      undefined,
      "skeleton",
    );
  }
  return rigFromGroup(group);
}

/** One rig per independent skeleton group at or under `node`, in discovery order. */
export function buildSkeletonRigs(node: TransformNode): SkeletonRig[] {
  return findSkeletonGroups(node).map(rigFromGroup);
}

function findModelRoot(group: SkeletonGroup): TransformNode | null {
  let chosen: TransformNode | null | undefined;
  let chosenBy = "";
  for (const joint of group.joints) {
    if (joint.parent >= 0) continue;
    const bone = joint.bones[0];
    let root: TransformNode | null;
    if (joint.node !== null) {
      const parent = joint.node.parent;
      root = parent instanceof TransformNode ? parent : null;
    } else {
      // Bare bones live in the space of the mesh they skin.
      root = group.meshes.find((m) => m.skeleton === bone.getSkeleton()) ?? null;
    }
    if (chosen === undefined) {
      chosen = root;
      chosenBy = bone.name;
    } else if (chosen !== root) {
      throw new FabrikError(
        `skeleton: root joints "${chosenBy}" and "${bone.name}" hang below different nodes ` +
          `("${chosen?.name ?? "scene root"}" and "${root?.name ?? "scene root"}"), so they share no model ` +
          "space; give the skeleton a single root node",
        undefined,
        "skeleton",
      );
    }
  }
  return chosen ?? null;
}

function rigFromGroup(group: SkeletonGroup): SkeletonRig {
  const n = group.joints.length;
  const parents = new Int32Array(n);
  const names: string[] = [];
  const bones: Bone[][] = [];
  const nodes: (TransformNode | null)[] = [];
  const restTranslations = new Float64Array(3 * n);
  const restRotations = new Float64Array(4 * n);
  const restScales = new Float64Array(3 * n);
  const scale = new Vector3();
  const rotation = new Quaternion();
  const translation = new Vector3();
  group.joints.forEach((joint, j) => {
    parents[j] = joint.parent;
    const bone = joint.bones[0];
    names.push(bone.name);
    bones.push(joint.bones);
    nodes.push(joint.node);
    bone.getRestMatrix().decompose(scale, rotation, translation);
    restTranslations.set([translation.x, translation.y, translation.z], 3 * j);
    restRotations.set([rotation.x, rotation.y, rotation.z, rotation.w], 4 * j);
    restScales.set([scale.x, scale.y, scale.z], 3 * j);
    // A decomposed mirror carries its sign on y: folded as the pose reads fold a node's scale.
    foldJoint(foldAxis(restScales, 3 * j), restRotations, 4 * j, restScales, 3 * j);
  });
  const restPositions = new Float64Array(3 * n);
  const restOrientations = new Float64Array(4 * n);
  forwardKinematics(
    parents,
    restTranslations,
    restRotations,
    restScales,
    restPositions,
    restOrientations,
    new Float64Array(9 * n),
  );

  const indexOfKey = new Map<string | TransformNode | Bone, number>();
  for (let j = n - 1; j >= 0; j--) {
    // Looping backwards leaves the first joint of a repeated name in the map.
    indexOfKey.set(names[j], j);
    if (nodes[j] !== null) indexOfKey.set(nodes[j]!, j);
    for (const bone of bones[j]) indexOfKey.set(bone, j);
  }
  // Node names differ from bone names only for unnamed glTF nodes ("node3" against "joint3"); they never
  // shadow a bone name.
  const boneNames = new Set(names);
  for (let j = n - 1; j >= 0; j--) {
    const nodeName = nodes[j]?.name;
    if (nodeName !== undefined && !boneNames.has(nodeName)) indexOfKey.set(nodeName, j);
  }

  return {
    jointCount: n,
    parents,
    names,
    bones,
    nodes,
    skeletons: group.skeletons,
    meshes: group.meshes,
    modelRoot: findModelRoot(group),
    restTranslations,
    restRotations,
    restScales,
    restPositions,
    restOrientations,
    indexOf: (joint) => indexOfKey.get(joint) ?? -1,
    toRigDescription: () => ({
      parents: parents.slice(),
      restPositions: restPositions.slice(),
      restOrientations: restOrientations.slice(),
      names: names.slice(),
    }),
  };
}
