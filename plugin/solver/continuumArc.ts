import type { SolvePlan } from "./plan.js";
import { quatMultiply, quatRotate } from "./quaternion.js";
import {
  E1,
  E2,
  NEW,
  P,
  SCALAR,
  TAU,
  THETA,
  V,
  WEIGHT,
  arcScratch as temp,
  dot,
  enteringDirection,
  fitArc,
  lengthOf,
  normalize,
  sectionLength,
  turnBone,
} from "./continuumFit.js";

/*
 * The arc of a continuum section (see continuumSections.ts). Its n bones bend at its n joints (its base
 * and every joint above its tip) by one angle α = θ/n each, all in one plane: bone k points along
 * cos(kα)·t + sin(kα)·u, where t is the direction of the bone entering the base and u the direction it bends
 * toward. With equal bones the joints lie on one circle; the bend is even whatever the lengths. Two numbers
 * (θ and the plane's turn about t) place the whole section, and the passes move it as one unit, as FABRIK
 * moves a bone:
 *
 * - backward (from the base): the base and t are fixed; the section takes the arc whose tip lies nearest the
 *   forward pass's tip and whose last bone best continues into the next section as the forward pass left it;
 * - forward (from the tip): the tip and the direction of the last bone (the next section's entering
 *   direction, or toward where the bone was) are fixed; the section takes the arc whose base lies nearest
 *   where it was and whose entering direction best matches the bone entering it.
 *
 * Both are one problem: an arc hanging from a point along an axis, its far end nearest a goal and its far
 * direction nearest a wanted one. For a given θ the best plane has a closed form, so only θ is searched, in
 * [0, maxBend]: its far end has no closed form for unequal bones, so by sampling, then golden-section search
 * around the best sample.
 */

/** Vectors shorter than this fraction of the section's length have no direction. */
const DEGENERATE_EPSILON = 1e-9;
/**
 * How much a section's fit counts the direction its tip leaves by against where its tip lies, as a fraction
 * of the next section's length squared: the backward pass follows the forward pass's shape, but only loosely,
 * since a fit that keeps each section's last direction stiffly locks one section at its limit while the next
 * stays straight (docs/continuum.md has the numbers).
 */
const BACKWARD_DIRECTION_WEIGHT = 0.1;
/** The same for the forward pass, against the direction entering the section's base (as a fraction of its length squared). */
const FORWARD_DIRECTION_WEIGHT = 0.05;

/**
 * Backward pass over section s: its base stays, and its joints are placed on the arc fitted to the forward
 * pass's tip (and, when the next section starts at its tip, to the direction that section entered by there).
 */
export function placeSectionFromBase(
  plan: SolvePlan,
  s: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  const { jointStart, joints, maxBend, atBase, entering } = plan.continuum;
  const { boneLength, localOffset } = plan.scratch;
  const first = jointStart[s],
    last = jointStart[s + 1] - 1;
  const b3 = 3 * joints[first],
    t3 = 3 * joints[last];
  enteringDirection(plan, s, orientations);
  for (let d = 0; d < 3; d++) temp[V + d] = positions[t3 + d] - positions[b3 + d];
  const next = atBase[joints[last]];
  if (next >= 0) {
    for (let d = 0; d < 3; d++) temp[TAU + d] = entering[3 * next + d];
    sectionLength(plan, next);
    const length = temp[SCALAR];
    temp[WEIGHT] = BACKWARD_DIRECTION_WEIGHT * length * length;
  } else {
    temp[WEIGHT] = 0;
  }
  fitArc(plan, s, positions, 0);
  const alpha = temp[THETA] / (last - first);
  for (let d = 0; d < 3; d++) temp[P + d] = positions[b3 + d];
  for (let i = first + 1; i <= last; i++) {
    const j = joints[i];
    const c = Math.cos((i - first) * alpha),
      sn = Math.sin((i - first) * alpha);
    for (let d = 0; d < 3; d++) {
      temp[NEW + d] = c * temp[E1 + d] + sn * temp[E2 + d];
      temp[P + d] += boneLength[j] * temp[NEW + d];
      positions[3 * j + d] = temp[P + d];
    }
    turnBone(orientations, 4 * joints[i - 1], localOffset, 3 * j);
  }
  // A leaf tip turns with the joint above it, as in the backward pass.
  const tip = joints[last];
  if (plan.scratch.rotatingIndex[tip] < 0)
    quatMultiply(orientations, 4 * tip, orientations, 4 * joints[last - 1], plan.scratch.inputLocal, 4 * tip);
  const onLimit = plan.report.onLimit;
  const clamped = temp[THETA] >= maxBend[s] * (1 - 1e-6) ? 1 : 0;
  for (let i = first; i < last; i++) onLimit[joints[i]] = clamped;
}

/**
 * Forward pass over section s: its tip stays where the pass put it, its last bone along the direction the
 * next section enters by (when one starts at its tip) or toward where the joint above the tip was, and the
 * section takes the arc fitted to where its base was and to the direction entering it. A base that moves and
 * is an effector is then blended with its target, as any such joint.
 */
export function placeSectionFromTip(
  plan: SolvePlan,
  s: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
): void {
  const { jointStart, joints, atBase, entering } = plan.continuum;
  const { boneLength, localOffset, movable } = plan.scratch;
  const first = jointStart[s],
    last = jointStart[s + 1] - 1;
  const base = joints[first];
  const b3 = 3 * base,
    t3 = 3 * joints[last];
  sectionLength(plan, s);
  const length = temp[SCALAR];
  // The direction entering the base as it is, reversed, is the far direction wanted.
  enteringDirection(plan, s, orientations);
  for (let d = 0; d < 3; d++) temp[TAU + d] = -temp[E1 + d];
  temp[WEIGHT] = FORWARD_DIRECTION_WEIGHT * length * length;
  const next = atBase[joints[last]];
  if (next >= 0) {
    for (let d = 0; d < 3; d++) temp[E1 + d] = -entering[3 * next + d];
  } else {
    const a3 = 3 * joints[last - 1];
    for (let d = 0; d < 3; d++) temp[E1 + d] = positions[a3 + d] - positions[t3 + d];
    lengthOf(E1);
    if (temp[SCALAR] > DEGENERATE_EPSILON * length) normalize(E1);
    else {
      quatRotate(temp, E1, orientations, 4 * joints[last - 1], localOffset, t3);
      for (let d = 0; d < 3; d++) temp[E1 + d] = -temp[E1 + d];
    }
  }
  for (let d = 0; d < 3; d++) temp[V + d] = positions[b3 + d] - positions[t3 + d];
  fitArc(plan, s, positions, 2);
  // From the tip up: the k-th bone back turns (k - 1)α from E1; the entering direction, reversed, θ.
  const alpha = temp[THETA] / (last - first);
  for (let d = 0; d < 3; d++) temp[P + d] = positions[t3 + d];
  for (let i = last; i > first; i--) {
    const j = joints[i],
      above = joints[i - 1];
    const c = Math.cos((last - i) * alpha),
      sn = Math.sin((last - i) * alpha);
    for (let d = 0; d < 3; d++) {
      temp[NEW + d] = -(c * temp[E1 + d] + sn * temp[E2 + d]);
      temp[P + d] -= boneLength[j] * temp[NEW + d];
    }
    if (i - 1 > first || movable[above] === 1)
      for (let d = 0; d < 3; d++) positions[3 * above + d] = temp[P + d];
    turnBone(orientations, 4 * above, localOffset, 3 * j);
  }
  const c = Math.cos(temp[THETA]),
    sn = Math.sin(temp[THETA]);
  for (let d = 0; d < 3; d++) entering[3 * s + d] = -(c * temp[E1 + d] + sn * temp[E2 + d]);
  const e = plan.scratch.effectorOf[base];
  if (movable[base] === 1 && e >= 0) {
    const we = plan.effectorWeights[e];
    const wb = plan.scratch.branchWeight[base] - we;
    for (let d = 0; d < 3; d++)
      positions[b3 + d] = (wb * positions[b3 + d] + we * targets[3 * e + d]) / (wb + we);
  }
  // The joint above a moving base goes back along the direction the section now enters by, not toward where
  // it was: the bone entering the base is the arc's tangent there, and the backward pass hangs the arc from it.
  const p = plan.rig.parents[base];
  if (movable[base] === 1 && p >= 0 && movable[p] === 1) {
    const len = boneLength[base];
    for (let d = 0; d < 3; d++) positions[3 * p + d] = positions[b3 + d] - len * entering[3 * s + d];
  }
}

/**
 * True when every section of component c bends as one arc within its limit in `orientations` (to 1e-9): each
 * bone is the one before it turned by the same angle in the same plane, starting from the entering bone.
 */
export function keepsArcs(plan: SolvePlan, c: number, orientations: Float64Array): boolean {
  const { count, jointStart, joints, maxBend } = plan.continuum;
  const localOffset = plan.scratch.localOffset;
  const activeIndex = plan.activeIndex;
  const start = plan.componentStart[c],
    end = plan.componentStart[c + 1];
  for (let s = 0; s < count; s++) {
    const first = jointStart[s],
      last = jointStart[s + 1] - 1;
    const k = activeIndex[joints[last]];
    if (k < start || k >= end) continue;
    enteringDirection(plan, s, orientations);
    // Bone directions d(k-1) in E1, d(k) in E2: then d(k+1) + d(k-1) = 2 cos α d(k) for a planar even turn.
    quatRotate(temp, E2, orientations, 4 * joints[first], localOffset, 3 * joints[first + 1]);
    dot(E1, E2);
    const cos = temp[SCALAR];
    if (Math.acos(Math.min(1, cos)) * (last - first) > maxBend[s] + 1e-9) return false;
    for (let i = first + 1; i < last; i++) {
      quatRotate(temp, V, orientations, 4 * joints[i], localOffset, 3 * joints[i + 1]);
      let off = 0;
      for (let d = 0; d < 3; d++) {
        const r = temp[V + d] + temp[E1 + d] - 2 * cos * temp[E2 + d];
        off += r * r;
      }
      if (off > 1e-18) return false;
      for (let d = 0; d < 3; d++) {
        temp[E1 + d] = temp[E2 + d];
        temp[E2 + d] = temp[V + d];
      }
    }
  }
  return true;
}

/** The direction of the bone entering section s's base, into E1 (for a root: its first bone's at rest). */
