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

/**
 * Sets aside what the two-bone closed form (twoBoneLimb.ts) may change for effector e, whose own chain is
 * two bones: the root's orientation, the middle joint's and the tip's pose, and the root's and the middle
 * joint's on-limit flags. For a component that is that chain alone, this is all {@link savePose} keeps, at
 * a fraction of its cost.
 */
export function saveTwoBoneLimb(
  plan: SolvePlan,
  e: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  const { savedPositions, savedOrientations, savedOnLimit } = plan.scratch;
  copyTwoBoneLimb(
    plan,
    e,
    positions,
    orientations,
    plan.report.onLimit,
    savedPositions,
    savedOrientations,
    savedOnLimit,
  );
}

/** Puts back what {@link saveTwoBoneLimb} kept. */
export function restoreTwoBoneLimb(
  plan: SolvePlan,
  e: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  const { savedPositions, savedOrientations, savedOnLimit } = plan.scratch;
  copyTwoBoneLimb(
    plan,
    e,
    savedPositions,
    savedOrientations,
    savedOnLimit,
    positions,
    orientations,
    plan.report.onLimit,
  );
}

function copyTwoBoneLimb(
  plan: SolvePlan,
  e: number,
  fromPositions: Float64Array,
  fromOrientations: Float64Array,
  fromOnLimit: Uint8Array,
  toPositions: Float64Array,
  toOrientations: Float64Array,
  toOnLimit: Uint8Array,
): void {
  const first = plan.effectorChainStart[e],
    end = plan.effectorPathStart[e + 1];
  const path = plan.effectorPath;
  const b = plan.rig.parents[path[first]];
  const b4 = 4 * b;
  for (let i = 0; i < 4; i++) toOrientations[b4 + i] = fromOrientations[b4 + i];
  // The middle joint and the tip, and any rigid segments between (limbSegments.ts).
  for (let k = first; k < end; k++) {
    const j = path[k];
    for (let i = 0; i < 4; i++) toOrientations[4 * j + i] = fromOrientations[4 * j + i];
    for (let i = 0; i < 3; i++) toPositions[3 * j + i] = fromPositions[3 * j + i];
    toOnLimit[j] = fromOnLimit[j];
  }
  toOnLimit[b] = fromOnLimit[b];
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
