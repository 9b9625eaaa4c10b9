import type { SolvePlan } from "./plan.js";

/*
 * A component's pose set aside and put back: the best pose a solve has seen, the pose a damped step starts
 * from. The on-limit flags travel with the pose they describe, so a restored pose reports its own clamps.
 */

/** Copies the component's pose (its active joints and base orientation) and its on-limit flags aside. */
export function savePose(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  copyPose(plan, c, positions, orientations, plan.scratch.savedPositions, plan.scratch.savedOrientations);
  copyOnLimit(plan, c, plan.report.onLimit, plan.scratch.savedOnLimit);
}

/** Puts back what {@link savePose} kept. */
export function restorePose(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  copyPose(plan, c, plan.scratch.savedPositions, plan.scratch.savedOrientations, positions, orientations);
  copyOnLimit(plan, c, plan.scratch.savedOnLimit, plan.report.onLimit);
}

/** Copies component c's pose (its active joints and base orientation) from one pair of arrays to another. */
export function copyPose(
  plan: SolvePlan,
  c: number,
  fromPositions: Float64Array,
  fromOrientations: Float64Array,
  toPositions: Float64Array,
  toOrientations: Float64Array,
): void {
  const b4 = 4 * plan.componentBase[c];
  for (let i = 0; i < 4; i++) toOrientations[b4 + i] = fromOrientations[b4 + i];
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
    const j = plan.activeJoints[k];
    for (let i = 0; i < 3; i++) toPositions[3 * j + i] = fromPositions[3 * j + i];
    for (let i = 0; i < 4; i++) toOrientations[4 * j + i] = fromOrientations[4 * j + i];
  }
}

/** Clears the on-limit flags of component c's rotating joints. */
export function clearOnLimit(plan: SolvePlan, c: number): void {
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++)
    plan.report.onLimit[plan.rotatingJoints[ri]] = 0;
}

/** The on-limit flags travel with the pose they describe: a restored pose reports its own clamps. */
export function copyOnLimit(plan: SolvePlan, c: number, from: Uint8Array, to: Uint8Array): void {
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const r = plan.rotatingJoints[ri];
    to[r] = from[r];
  }
}
