import { LIMIT_FIXED, LIMIT_HINGE, LIMIT_STRETCH } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import { quatMultiply, quatNormalize, quatRotate } from "./quaternion.js";

/*
 * A two-bone limb whose bones are split by rigid segments: fixed joints with one moving child (the humanoid
 * preset holds Rigify's DEF-thigh.L.001 or Daz Genesis' lThighTwist fixed to the bone above). The closed form
 * (twoBoneLimb.ts) solves it as the limb of two rigid links it is: root to middle joint, middle joint to tip,
 * each over its segments; the segments ride along. FABRIK moving each segment on its own line bent the leg
 * beside its knee, and a straight one could not fold at all.
 */

/** This file's temporaries. */
const temp = new Float64Array(7);
const V = 0; // a running offset (3)
const W = 3; // a vector (3)

/** True for a rigid segment: a fixed, unstretched joint with exactly one moving child. */
function isRigidSegment(plan: SolvePlan, k: number): boolean {
  const ri = plan.scratch.rotatingIndex[k];
  return (
    (plan.scratch.flags[k] & (LIMIT_FIXED | LIMIT_STRETCH)) === LIMIT_FIXED &&
    ri >= 0 &&
    plan.activeChildStart[ri + 1] - plan.activeChildStart[ri] === 1
  );
}

/**
 * The index in effectorPath of the middle joint of effector e's own chain when it is two bones split by
 * rigid segments only ([segments] hinge [segments] tip) below a root that is no hinge, else -1. A chain of two
 * bones is no such limb, nor is a robot arm's (its fixed links between revolute joints are its geometry).
 */
export function segmentedMiddle(plan: SolvePlan, e: number): number {
  const first = plan.effectorChainStart[e],
    end = plan.effectorPathStart[e + 1];
  if (end - first <= 2 || plan.effectorHasPole[e] !== 0) return -1;
  const path = plan.effectorPath,
    flags = plan.scratch.flags;
  if (flags[plan.rig.parents[path[first]]] & (LIMIT_HINGE | LIMIT_FIXED)) return -1;
  let middle = -1;
  for (let k = first; k < end - 1; k++) {
    if (isRigidSegment(plan, path[k])) continue;
    if (middle >= 0) return -1;
    middle = k;
  }
  return middle >= 0 && flags[path[middle]] & LIMIT_HINGE ? middle : -1;
}

/**
 * Into `vec[vo..]` the offset from `top` to its descendant `j` in top's frame, over the rigid segments between
 * (their input turns).
 */
export function limbLink(plan: SolvePlan, top: number, j: number, vec: Float64Array, vo: number): void {
  const { boneLength, localOffset, inputLocal } = plan.scratch;
  const parents = plan.rig.parents;
  for (let i = 0; i < 3; i++) temp[V + i] = boneLength[j] * localOffset[3 * j + i];
  for (let k = parents[j]; k !== top && k >= 0; k = parents[k]) {
    quatRotate(temp, W, inputLocal, 4 * k, temp, V);
    for (let i = 0; i < 3; i++) temp[V + i] = temp[W + i] + boneLength[k] * localOffset[3 * k + i];
  }
  for (let i = 0; i < 3; i++) vec[vo + i] = temp[V + i];
}

/** Into `turn[to..]` the turn from `top`'s frame to its descendant j's parent's: the segments' input turns. */
export function segmentTurn(plan: SolvePlan, top: number, j: number, turn: Float64Array, to: number): void {
  const inputLocal = plan.scratch.inputLocal;
  const parents = plan.rig.parents;
  turn[to] = 0;
  turn[to + 1] = 0;
  turn[to + 2] = 0;
  turn[to + 3] = 1;
  for (let k = parents[j]; k !== top && k >= 0; k = parents[k])
    quatMultiply(turn, to, inputLocal, 4 * k, turn, to);
}

/** The rigid segments from the joint above `below` up to (not including) `top`, placed and turned from top. */
export function placeLinkSegments(
  plan: SolvePlan,
  top: number,
  below: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  const { boneLength, localOffset, inputLocal } = plan.scratch;
  const parents = plan.rig.parents;
  // Top-down: walk from top to below through each segment's one moving child.
  let k = top;
  while (k !== parents[below]) {
    const ri = plan.scratch.rotatingIndex[k];
    const next = plan.activeChildren[plan.activeChildStart[ri]];
    quatRotate(temp, W, orientations, 4 * k, localOffset, 3 * next);
    for (let i = 0; i < 3; i++)
      positions[3 * next + i] = positions[3 * k + i] + boneLength[next] * temp[W + i];
    quatMultiply(orientations, 4 * next, orientations, 4 * k, inputLocal, 4 * next);
    quatNormalize(orientations, 4 * next);
    k = next;
  }
}
