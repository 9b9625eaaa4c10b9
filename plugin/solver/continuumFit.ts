import type { SolvePlan } from "./plan.js";
import {
  quatFromUnitVectors,
  quatMultiply,
  quatNormalize,
  quatRotate,
  quatRotateInverse,
} from "./quaternion.js";

/*
 * Fitting a continuum section's arc (see continuumArc.ts for the passes that use it): given where the arc
 * hangs from and along which axis, the bend θ and the side u that best meet a goal. For a given θ the best
 * side has a closed form, so only θ is searched, in [0, maxBend]: the arc's far end has no closed form for
 * unequal bones, so by sampling, then golden-section search around the best sample. Everything goes
 * through `arcScratch` (slots below), so no double crosses a call.
 */

const SAMPLES = 24;
/** Golden-section steps: each keeps 0.618 of the bracket, so 40 shrink two samples' width below 1e-8 of it. */
const GOLDEN_STEPS = 40;
const GOLDEN = (Math.sqrt(5) - 1) / 2;
/** Vectors shorter than this fraction of the section's length have no direction. */
const DEGENERATE_EPSILON = 1e-9;

/** Vectors, and scalars handed between helpers (never bare doubles). */
export const arcScratch = new Float64Array(42);
const temp = arcScratch;
export const E1 = 0; // the axis the arc hangs along
export const E2 = 3; // the side it bends toward
export const EA = 6; // the goal's side of E1, and E1 × EA: the frame the plane's turn is found in
export const EB = 9;
export const V = 12; // the goal, from where the arc hangs
export const TAU = 15; // the far direction wanted
export const Q = 18; // a turn (4)
export const CUR = 22; // a bone's direction before
export const NEW = 25; // and after
export const P = 28; // the joint being placed
export const GOAL_T = 31; // the goal along E1, and its distance from E1's line
export const GOAL_B = 32;
export const TAU_T = 33; // the wanted direction along E1, EA, EB
export const TAU_A = 34;
export const TAU_B = 35;
export const WEIGHT = 36; // squared length: how far a unit of direction counts against a unit of distance
export const THETA = 37; // the bend being tried, then the one found
export const FAR_X = 38; // the arc's far end for THETA, in its plane
export const FAR_Y = 39;
export const COST = 40;
export const SCALAR = 41; // what dot, lengthOf and sectionLength give (never returned: a returned double is boxed)

/**
 * The arc of section s hanging along E1, its far end nearest V and its far direction nearest TAU (weighted
 * by WEIGHT): THETA, and the side it bends toward in E2. Walking from the base (mode 0) bone k turns kα
 * from E1; from the tip (mode 2), (k - 1)α. Either way the far direction turns θ.
 *
 * With the goal across E1 by b along EA, and TAU = (τt, τa, τb) in (E1, EA, EB), the cost of far end (x, y)
 * and far direction (cos θ, sin θ) in the plane of E1 and u is
 *   (x - vt)² + |y u - b EA|² + w (cos θ - τt)² + w |sin θ u - (τa EA + τb EB)|²,
 * whose best u lies along (y b + w sin θ τa) EA + w sin θ τb EB.
 */
export function fitArc(plan: SolvePlan, s: number, positions: Float64Array, mode: number): void {
  dot(V, E1);
  const t = temp[SCALAR];
  for (let d = 0; d < 3; d++) temp[EA + d] = temp[V + d] - t * temp[E1 + d];
  lengthOf(EA);
  const b = temp[SCALAR];
  sectionLength(plan, s);
  if (b > DEGENERATE_EPSILON * (temp[SCALAR] + Math.abs(t))) {
    normalize(EA);
    orthogonalize(EA, E1);
  } else bendSide(plan, s, positions, E1, EA);
  temp[EB] = temp[E1 + 1] * temp[EA + 2] - temp[E1 + 2] * temp[EA + 1];
  temp[EB + 1] = temp[E1 + 2] * temp[EA] - temp[E1] * temp[EA + 2];
  temp[EB + 2] = temp[E1] * temp[EA + 1] - temp[E1 + 1] * temp[EA];
  temp[GOAL_T] = t;
  temp[GOAL_B] = b;
  const weighted = temp[WEIGHT] > 0;
  dot(TAU, E1);
  temp[TAU_T] = weighted ? temp[SCALAR] : 0;
  dot(TAU, EA);
  temp[TAU_A] = weighted ? temp[SCALAR] : 0;
  dot(TAU, EB);
  temp[TAU_B] = weighted ? temp[SCALAR] : 0;
  fitBend(plan, s, mode);
  const w = temp[WEIGHT] * Math.sin(temp[THETA]);
  const ua = temp[FAR_Y] * b + w * temp[TAU_A],
    ub = w * temp[TAU_B];
  const ul = Math.sqrt(ua * ua + ub * ub);
  for (let d = 0; d < 3; d++)
    temp[E2 + d] = ul > 0 ? (ua * temp[EA + d] + ub * temp[EB + d]) / ul : temp[EA + d];
}

/**
 * The direction of the bone entering section s's base, into E1: the base's offset from its parent, turned
 * with the parent (see measureSections), or for a root that offset itself, in model space.
 */
export function enteringDirection(plan: SolvePlan, s: number, orientations: Float64Array): void {
  const { joints, jointStart, enteringLocal } = plan.continuum;
  const p = plan.rig.parents[joints[jointStart[s]]];
  if (p >= 0) {
    quatRotate(temp, E1, orientations, 4 * p, enteringLocal, 3 * s);
  } else {
    for (let d = 0; d < 3; d++) temp[E1 + d] = enteringLocal[3 * s + d];
  }
}

/**
 * Reads, from the input pose, the direction entering each section's base in its parent's frame: toward the
 * base from its parent; where the two coincide, the section's first bone at rest (so a section hanging from a
 * zero-length bone counts as straight when its first bone is as at rest). A root's is in model space: its
 * first bone at rest. A base's offset is not among what measurePose reads (it reads the joints a solve moves).
 */
export function measureSections(plan: SolvePlan, positions: Float64Array, orientations: Float64Array): void {
  const { count, joints, jointStart, enteringLocal } = plan.continuum;
  const { parents, restPositions, restOrientations } = plan.rig;
  for (let s = 0; s < count; s++) {
    const base = joints[jointStart[s]],
      first = joints[jointStart[s] + 1];
    const p = parents[base];
    const b3 = 3 * base,
      p3 = 3 * p;
    let fromPose = false;
    if (p >= 0) {
      for (let d = 0; d < 3; d++) temp[E1 + d] = positions[b3 + d] - positions[p3 + d];
      sectionLength(plan, s);
      const length = temp[SCALAR];
      lengthOf(E1);
      fromPose = length > 0 && temp[SCALAR] > DEGENERATE_EPSILON * length;
    }
    if (fromPose) {
      normalize(E1);
      quatRotateInverse(enteringLocal, 3 * s, orientations, 4 * p, temp, E1);
      continue;
    }
    for (let d = 0; d < 3; d++) temp[E1 + d] = restPositions[3 * first + d] - restPositions[b3 + d];
    if (!normalize(E1)) for (let d = 0; d < 3; d++) temp[E1 + d] = d === 1 ? 1 : 0;
    if (p >= 0) quatRotateInverse(enteringLocal, 3 * s, restOrientations, 4 * p, temp, E1);
    else for (let d = 0; d < 3; d++) enteringLocal[3 * s + d] = temp[E1 + d];
  }
}

/**
 * A unit vector at `to` across the unit vector at `from`: the side section s's middle joint lies on now,
 * else the axis least aligned with `from`.
 */
export function bendSide(
  plan: SolvePlan,
  s: number,
  positions: Float64Array,
  from: number,
  to: number,
): void {
  const { joints, jointStart } = plan.continuum;
  const first = jointStart[s],
    last = jointStart[s + 1] - 1;
  const b3 = 3 * joints[first],
    m3 = 3 * joints[(first + last + 1) >> 1];
  for (let d = 0; d < 3; d++) temp[to + d] = positions[m3 + d] - positions[b3 + d];
  dot(to, from);
  const along = temp[SCALAR];
  for (let d = 0; d < 3; d++) temp[to + d] -= along * temp[from + d];
  sectionLength(plan, s);
  const scale = DEGENERATE_EPSILON * (temp[SCALAR] + Math.abs(along));
  lengthOf(to);
  if (temp[SCALAR] > scale) {
    normalize(to);
    orthogonalize(to, from);
    return;
  }
  const ax = Math.abs(temp[from]),
    ay = Math.abs(temp[from + 1]),
    az = Math.abs(temp[from + 2]);
  const axis = ax <= ay && ax <= az ? 0 : ay <= az ? 1 : 2;
  for (let d = 0; d < 3; d++) temp[to + d] = (d === axis ? 1 : 0) - temp[from + axis] * temp[from + d];
  normalize(to);
}

/**
 * Finds θ in [0, maxBend] into THETA, with the far end it gives in FAR_X, FAR_Y (see fitArc).
 */
export function fitBend(plan: SolvePlan, s: number, mode: number): void {
  const max = plan.continuum.maxBend[s];
  let best = 0,
    bestCost = Infinity;
  for (let i = 0; i <= SAMPLES; i++) {
    temp[THETA] = (max * i) / SAMPLES;
    costAt(plan, s, mode);
    if (temp[COST] < bestCost) {
      bestCost = temp[COST];
      best = i;
    }
  }
  let lo = (max * Math.max(0, best - 1)) / SAMPLES,
    hi = (max * Math.min(SAMPLES, best + 1)) / SAMPLES;
  let x1 = hi - GOLDEN * (hi - lo),
    x2 = lo + GOLDEN * (hi - lo);
  temp[THETA] = x1;
  costAt(plan, s, mode);
  let f1 = temp[COST];
  temp[THETA] = x2;
  costAt(plan, s, mode);
  let f2 = temp[COST];
  for (let step = 0; step < GOLDEN_STEPS; step++) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - GOLDEN * (hi - lo);
      temp[THETA] = x1;
      costAt(plan, s, mode);
      f1 = temp[COST];
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + GOLDEN * (hi - lo);
      temp[THETA] = x2;
      costAt(plan, s, mode);
      f2 = temp[COST];
    }
  }
  // The search's answer, unless a sample (an end of the range above all) was better.
  const found = f1 <= f2 ? x1 : x2;
  temp[THETA] = found;
  costAt(plan, s, mode);
  if (temp[COST] > bestCost) {
    temp[THETA] = (max * best) / SAMPLES;
    costAt(plan, s, mode);
  }
}

/** The far end for THETA (FAR_X, FAR_Y) and its cost (COST), the plane turned its best way; see fitArc. */
function costAt(plan: SolvePlan, s: number, mode: number): void {
  const { jointStart, joints } = plan.continuum;
  const boneLength = plan.scratch.boneLength;
  const first = jointStart[s],
    last = jointStart[s + 1] - 1;
  const theta = temp[THETA];
  const alpha = theta / (last - first);
  const ca = Math.cos(alpha),
    sa = Math.sin(alpha);
  // Mode 0 walks from the base, the first bone turned by α; mode 2 from the tip, the first unturned.
  let c = mode === 2 ? 1 : ca,
    sn = mode === 2 ? 0 : sa,
    x = 0,
    y = 0;
  for (let i = first + 1; i <= last; i++) {
    const len = boneLength[joints[mode === 2 ? last + first + 1 - i : i]];
    x += len * c;
    y += len * sn;
    const nc = c * ca - sn * sa;
    sn = sn * ca + c * sa;
    c = nc;
  }
  temp[FAR_X] = x;
  temp[FAR_Y] = y;
  const w = temp[WEIGHT];
  const cos = Math.cos(theta),
    sin = Math.sin(theta);
  const b = temp[GOAL_B],
    ta = temp[TAU_A],
    tb = temp[TAU_B];
  const dx = x - temp[GOAL_T],
    dc = cos - temp[TAU_T];
  const ua = y * b + w * sin * ta,
    ub = w * sin * tb;
  temp[COST] =
    dx * dx +
    y * y +
    b * b +
    w * (dc * dc + sin * sin + ta * ta + tb * tb) -
    2 * Math.sqrt(ua * ua + ub * ub);
}

/** The length of section s, into SCALAR. */
export function sectionLength(plan: SolvePlan, s: number): void {
  const { jointStart, joints } = plan.continuum;
  let length = 0;
  for (let i = jointStart[s] + 1; i < jointStart[s + 1]; i++) length += plan.scratch.boneLength[joints[i]];
  temp[SCALAR] = length;
}

/** a · b, into SCALAR. */
export function dot(a: number, b: number): void {
  temp[SCALAR] = temp[a] * temp[b] + temp[a + 1] * temp[b + 1] + temp[a + 2] * temp[b + 2];
}

/** |a|, into SCALAR. */
export function lengthOf(a: number): void {
  temp[SCALAR] = Math.sqrt(temp[a] * temp[a] + temp[a + 1] * temp[a + 1] + temp[a + 2] * temp[a + 2]);
}

/**
 * Takes the unit vector `from` out of the unit vector at a once more, and normalises it again. A vector that
 * was a difference of two nearly parallel ones (a goal almost straight along the axis) keeps the rounding of
 * the two, divided by their small difference, across the axis: a bone placed along cos·axis + sin·side would
 * then change length by that much (up to 1e-8 of it, found by the fuzzer). A second pass leaves 1e-16.
 */
function orthogonalize(a: number, from: number): void {
  dot(a, from);
  const along = temp[SCALAR];
  for (let d = 0; d < 3; d++) temp[a + d] -= along * temp[from + d];
  normalize(a);
}

/** Normalises the vector at a in place; false (and unchanged) when it is zero. */
export function normalize(a: number): boolean {
  const l = Math.sqrt(temp[a] * temp[a] + temp[a + 1] * temp[a + 1] + temp[a + 2] * temp[a + 2]);
  if (!(l > 0)) return false;
  for (let d = 0; d < 3; d++) temp[a + d] /= l;
  return true;
}

/** Turns the joint at orientation offset o4 by the shortest arc taking its bone (offset c3) onto NEW. */
export function turnBone(
  orientations: Float64Array,
  o4: number,
  localOffset: Float64Array,
  c3: number,
): void {
  quatRotate(temp, CUR, orientations, o4, localOffset, c3);
  quatFromUnitVectors(temp, Q, temp, CUR, temp, NEW);
  quatMultiply(orientations, o4, temp, Q, orientations, o4);
  quatNormalize(orientations, o4);
}
