import type { Rig } from "./rig.js";

/**
 * A pose of a rig in model space: `positions` (x y z per joint) and `orientations` (unit quaternions x y z w
 * per joint, in the same convention as the rig's rest orientations). The solver reads and writes both in
 * place; they always describe the same rigid skeleton.
 */
export interface Pose {
  readonly positions: Float64Array;
  readonly orientations: Float64Array;
}

/** A copy of the rig's rest pose. */
export function createPose(rig: Rig): Pose {
  return { positions: rig.restPositions.slice(), orientations: rig.restOrientations.slice() };
}

/** Copies one pose into another of the same rig (no allocation). */
export function copyPose(from: Pose, to: Pose): void {
  to.positions.set(from.positions);
  to.orientations.set(from.orientations);
}
