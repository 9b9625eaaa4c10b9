import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { jointDepths } from "../rig/index.js";
import type { SkeletonRig } from "./skeletonRig.js";

/**
 * Candidate end effectors: joints with no child joint. That covers child-less bones and bones whose only
 * children are non-joint nodes (glTF `_end` sites outside the skin, attached props), since neither of those
 * is a joint of the rig. Returned in joint order.
 */
export function findEndEffectors(parents: ArrayLike<number>): number[] {
  const hasChild = new Uint8Array(parents.length);
  for (let j = 0; j < parents.length; j++) if (parents[j] >= 0) hasChild[parents[j]] = 1;
  const leaves: number[] = [];
  for (let j = 0; j < parents.length; j++) if (hasChild[j] === 0) leaves.push(j);
  return leaves;
}

/** A candidate end effector of a Babylon rig. */
export interface EndEffectorInfo {
  readonly joint: number;
  readonly name: string;
  /** Bones between this joint and its root (0 for a root). */
  readonly depth: number;
  /**
   * A child node marking where the last bone ends (glTF `Head_end`, `Middle2.L_end`): a non-joint,
   * non-mesh TransformNode without children. `null` when the joint has none; it then ends at itself.
   */
  readonly endSite: TransformNode | null;
}

function isMesh(node: TransformNode): boolean {
  return (node as { getTotalVertices?: unknown }).getTotalVertices !== undefined;
}

/** The end site below `joint`, see {@link EndEffectorInfo.endSite}. */
export function findEndSite(rig: SkeletonRig, joint: number): TransformNode | null {
  const node = rig.nodes[joint];
  if (node === null) return null;
  for (const child of node.getChildTransformNodes(true)) {
    if (rig.indexOf(child) >= 0 || isMesh(child) || child.getChildren().length > 0) continue;
    return child;
  }
  return null;
}

/** The rig's candidate end effectors with their depth and end site, in joint order. */
export function discoverEndEffectors(rig: SkeletonRig): EndEffectorInfo[] {
  const depths = jointDepths(rig.parents);
  return findEndEffectors(rig.parents).map((joint) => ({
    joint,
    name: rig.names[joint],
    depth: depths[joint],
    endSite: findEndSite(rig, joint),
  }));
}
