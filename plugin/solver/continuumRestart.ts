import { clearOnLimit } from "./componentPose.js";
import {
  E1,
  E2,
  NEW,
  SCALAR,
  arcScratch as temp,
  bendSide,
  dot,
  enteringDirection,
  lengthOf,
  normalize,
  sectionLength,
  turnBone,
} from "./continuumFit.js";
import type { SolvePlan } from "./plan.js";
import { quatMultiply, quatNormalize, quatRotate } from "./quaternion.js";

/*
 * Where a component with continuum sections stalls within its length, its passes have settled in a poor
 * arrangement of arcs (one section curled against the next, say), and the usual ways out do not apply: lock
 * escapes and damped steps turn joints one by one, which breaks the arcs, and the restarts of restart.ts
 * leave unlimited joints (every joint of a section) as they were. So the component starts again from whole
 * arcs laid out another way, and the passes run from there (the caller keeps the best pose of all starts):
 *
 * - start 0: every section straight, along the direction entering it;
 * - start 1: every section bent halfway to its limit toward the target, in the plane of its entering
 *   direction and the target as seen from its base;
 * - start 2: the same, alternating sides (toward, away, toward, ...) section after section;
 * - start 3: every section bent a quarter of its limit toward the target.
 *
 * Each start is a pure function of the component's pose above it and its first effector's target, so a solve
 * is still a pure function of its input.
 */

/** How many different starts restartContinuum has. */
export const CONTINUUM_STARTS = 4;

/** Starts component c again from whole arcs laid out as start `k` (0 ≤ k < CONTINUUM_STARTS) describes. */
export function restartContinuum(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  k: number,
): void {
  const { activeJoints } = plan;
  const parents = plan.rig.parents;
  const { localOffset, boneLength, inputLocal } = plan.scratch;
  const e3 = 3 * plan.componentEffectors[plan.componentEffectorStart[c]];
  clearOnLimit(plan, c);
  const b = plan.componentBase[c];
  const p = parents[b];
  if (p >= 0) quatMultiply(orientations, 4 * b, orientations, 4 * p, inputLocal, 4 * b);
  else for (let i = 0; i < 4; i++) orientations[4 * b + i] = inputLocal[4 * b + i];
  quatNormalize(orientations, 4 * b);
  bendJoint(plan, b, positions, orientations, targets, e3, k);
  // Parents come before their children, so each joint hangs from a joint already placed and turned.
  for (let i = plan.componentStart[c]; i < plan.componentStart[c + 1]; i++) {
    const j = activeJoints[i];
    const q = parents[j];
    const j3 = 3 * j;
    quatRotate(temp, NEW, orientations, 4 * q, localOffset, j3);
    const len = boneLength[j];
    for (let d = 0; d < 3; d++) positions[j3 + d] = positions[3 * q + d] + len * temp[NEW + d];
    quatMultiply(orientations, 4 * j, orientations, 4 * q, inputLocal, 4 * j);
    quatNormalize(orientations, 4 * j);
    bendJoint(plan, j, positions, orientations, targets, e3, k);
  }
}

/**
 * When joint j bends in a section, turns it so that its bone down the section lies on that section's arc
 * for start k (its position and its parent's orientation are final by now).
 */
function bendJoint(
  plan: SolvePlan,
  j: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  e3: number,
  k: number,
): void {
  const { bendsIn, jointStart, joints, maxBend } = plan.continuum;
  const s = bendsIn[j];
  if (s < 0) return;
  const first = jointStart[s],
    last = jointStart[s + 1] - 1;
  let m = first;
  while (joints[m] !== j) m++;
  enteringDirection(plan, s, orientations);
  // The side: the target as seen from the section's base, across the entering direction.
  const b3 = 3 * joints[first];
  for (let d = 0; d < 3; d++) temp[E2 + d] = targets[e3 + d] - positions[b3 + d];
  dot(E2, E1);
  const along = temp[SCALAR];
  for (let d = 0; d < 3; d++) temp[E2 + d] -= along * temp[E1 + d];
  lengthOf(E2);
  const across = temp[SCALAR];
  sectionLength(plan, s);
  if (across > 1e-9 * (temp[SCALAR] + Math.abs(along))) normalize(E2);
  else bendSide(plan, s, positions, E1, E2);
  let theta = 0;
  if (k === 1 || k === 2) theta = 0.5 * maxBend[s];
  else if (k === 3) theta = 0.25 * maxBend[s];
  // Sections alternate sides in start 2, by their index in the option.
  if (k === 2 && (s & 1) === 1) theta = -theta;
  const angle = ((m + 1 - first) * theta) / (last - first);
  const cos = Math.cos(angle),
    sin = Math.sin(angle);
  for (let d = 0; d < 3; d++) temp[NEW + d] = cos * temp[E1 + d] + sin * temp[E2 + d];
  turnBone(orientations, 4 * j, plan.scratch.localOffset, 3 * joints[m + 1]);
}
