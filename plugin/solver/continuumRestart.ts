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
import { quatMultiply, quatNormalize, quatRotate, quatRotateInverse } from "./quaternion.js";

/*
 * Where a component with continuum sections stalls within its length, its passes have settled in a poor
 * arrangement of arcs (one section curled to its limit against the next, say), and the usual ways out do not
 * apply: lock escapes and damped steps turn joints one by one, which breaks the arcs, and the restarts of
 * restart.ts leave unlimited joints (every joint of a section) as they were. So the component starts again
 * from whole arcs laid out another way, and the passes run from there (the caller keeps the best pose of all
 * starts). The first start is the nearest to the pose the passes stalled in, so that a limb followed from
 * frame to frame moves the least when it leaves a stall:
 *
 * - start 0: every section keeps its bend plane, bent half as much as it was;
 * - start 1: every section straight, along the direction entering it;
 * - start 2: every section bent halfway to its limit toward the target, in the plane of its entering
 *   direction and the target as seen from its base;
 * - start 3: the same, alternating sides (toward, away, toward, ...) by the sections' index in the option.
 *
 * Each start is a pure function of the component's pose and its first effector's target, so a solve is still
 * a pure function of its input.
 */

/** How many different starts restartContinuum has. */
export const CONTINUUM_STARTS = 4;

// Slots of continuum.startBend, per section.
const THETA_SLOT = 0;
const SIDE_SLOT = 1;

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
  if (k === 0) measureBends(plan, c, orientations);
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
 * Reads the bend of every section in component c, and the side it bends toward in its base's parent's frame,
 * into continuum.startBend (from the direction entering its base and its first bone, as keepsArcs does).
 */
function measureBends(plan: SolvePlan, c: number, orientations: Float64Array): void {
  const { count, jointStart, joints, startBend } = plan.continuum;
  const { localOffset } = plan.scratch;
  const parents = plan.rig.parents;
  const start = plan.componentStart[c],
    end = plan.componentStart[c + 1];
  for (let s = 0; s < count; s++) {
    const first = jointStart[s],
      last = jointStart[s + 1] - 1;
    const k = plan.activeIndex[joints[last]];
    if (k < start || k >= end) continue;
    enteringDirection(plan, s, orientations);
    quatRotate(temp, E2, orientations, 4 * joints[first], localOffset, 3 * joints[first + 1]);
    dot(E2, E1);
    const cos = temp[SCALAR];
    for (let d = 0; d < 3; d++) temp[E2 + d] -= cos * temp[E1 + d];
    const o = 4 * s;
    startBend[o + THETA_SLOT] = Math.acos(Math.max(-1, Math.min(1, cos))) * (last - first);
    if (!normalize(E2)) startBend[o + THETA_SLOT] = 0;
    const p = parents[joints[first]];
    if (p >= 0) quatRotateInverse(startBend, o + SIDE_SLOT, orientations, 4 * p, temp, E2);
    else for (let d = 0; d < 3; d++) startBend[o + SIDE_SLOT + d] = temp[E2 + d];
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
  const { bendsIn, jointStart, joints, maxBend, startBend } = plan.continuum;
  const s = bendsIn[j];
  if (s < 0) return;
  const first = jointStart[s],
    last = jointStart[s + 1] - 1;
  let m = first;
  while (joints[m] !== j) m++;
  enteringDirection(plan, s, orientations);
  let theta = 0;
  if (k === 0) {
    // The side it bent toward turns with its base's parent, as the entering direction does.
    const p = plan.rig.parents[joints[first]];
    if (p >= 0) quatRotate(temp, E2, orientations, 4 * p, startBend, 4 * s + SIDE_SLOT);
    else for (let d = 0; d < 3; d++) temp[E2 + d] = startBend[4 * s + SIDE_SLOT + d];
    theta = 0.5 * startBend[4 * s + THETA_SLOT];
  } else {
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
    if (k >= 2) theta = 0.5 * maxBend[s];
    if (k === 3 && (s & 1) === 1) theta = -theta;
  }
  const angle = ((m + 1 - first) * theta) / (last - first);
  const cos = Math.cos(angle),
    sin = Math.sin(angle);
  for (let d = 0; d < 3; d++) temp[NEW + d] = cos * temp[E1 + d] + sin * temp[E2 + d];
  turnBone(orientations, 4 * j, plan.scratch.localOffset, 3 * joints[m + 1]);
}
