import { measureHingeAngle } from "./hingeJoint.js";
import { projectRotation } from "./jointLimitProjection.js";
import { limbLink, placeLinkSegments, segmentedMiddle, segmentTurn } from "./limbSegments.js";
import { LIMIT_FIXED, LIMIT_HINGE, LIMIT_ROTATION, LIMIT_STRETCH } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import {
  quatConjugateMultiply,
  quatFromUnitVectors,
  quatMultiply,
  quatNormalize,
  quatRotate,
  quatRotateInverse,
} from "./quaternion.js";

/*
 * A limb of two bones that bends at a hinge (upper arm, elbow, hand; thigh, knee, foot) has a closed-form
 * answer: the distance to the target fixes the hinge angle, and what is left is the swivel, the turn of the
 * whole limb about the line from its root to the target. Its root's swing and twist limits decide which
 * swivels are allowed. FABRIK under limits finds such an answer only by creeping along the limit boundaries,
 * and locks where the boundary bends away; this finds it at once: the swivel that turns the limb least from
 * the pose it has (which keeps an animated limb's elbow or knee where the animation points it), else, when
 * that one breaks the root's limits, the allowed swivel nearest to it.
 */

// This file's temporaries.
const temp = new Float64Array(75);
const PARENT = 0; // the root's parent orientation
const VEC = 4; // a vector
const AIM = 8; // unit direction from the root to the target
const ARC = 12; // the least turn of the root, then the root's orientation at swivel 0
const SPIN = 16; // the swivel about AIM
const ROOT = 20; // the root's candidate orientation
const DELTA = 24; // its rotation relative to rest, then projected
const BEND = 28; // the middle joint's new local rotation
const ANGLE = 32; // the hinge angle now
const AXIS = 56; // the bend, a rotation about the hinge (or bend) axis
const GIVEN = 60; // the root as given, below its parent as it is now
const ALLOWED = 64; // the turn (radians) the joint being checked may be held back by its limits
// A limb split by rigid segments (limbSegments.ts): its links' directions and the segments' turns.
const UPPER = 65; // root to middle joint, unit, in the root's frame
const LOWER = 68; // middle joint to tip, unit, in the middle joint's frame
const TURN_UP = 71; // from the root's frame to the middle joint's parent's
const LIMIT = 36; // projectRotation scratch (16)
const FRAME = 52; // the frame the middle joint bends from
const SAMPLES = 48;
/** Steps per sample searched within the first sample on each side of none, by a limb followed from last frame. */
const FINE = 8;
/** The largest turn (radians) a joint's limits may take off it for it still to count as keeping them. */
const ALLOWANCE = 1e-6;
/**
 * The root may be held back by its limits as far as moves the tip by this fraction of the tolerance. A limb
 * bending from straight with its root on a swing limit must bend to the side that swings the root inward:
 * the allowed swivels start a quarter turn from the bend it has, and the exact answer jumped there at the
 * first frame the limb bent. Within this allowance the swivel turns as the bend grows, frame by frame.
 */
const ROOT_ALLOWANCE = 0.5;
const KEPT = 0,
  PROJECTED = 1,
  REFUSED = 2;

/**
 * Places effector e's own chain on its target when it is such a limb (the last two bones of its path, the
 * root turning this limb alone, free or limited by swing and twist, the middle joint a hinge or a joint that
 * bends in the plane it bent in as given, within its limits, nothing fixed or stretching, no pole) and a
 * swivel within the root's limits allows it: exactly when the target is within the limb's reach, else as near
 * as the bend allows. The limb is turned from its given pose, hung from its parent as it is now. `nearOnly`:
 * the given pose is last frame's answer, and only a swivel within one sample of it is taken. Returns false,
 * leaving the pose untouched, otherwise.
 */
export function placeTwoBoneLimb(
  plan: SolvePlan,
  e: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  nearOnly = false,
): boolean {
  const { effectorPath, limits } = plan;
  if (!hasTwoBoneShape(plan, e)) return false;
  const first = plan.effectorChainStart[e],
    end = plan.effectorPathStart[e + 1];
  const flags = plan.scratch.flags;
  // Two bones, or two links of bones split by rigid segments (limbSegments.ts).
  const split = end - first !== 2;
  const m = effectorPath[split ? segmentedMiddle(plan, e) : first],
    t = effectorPath[end - 1];
  const b = plan.rig.parents[effectorPath[first]];
  if (flags[m] & LIMIT_FIXED) return false;
  const hinged = (flags[m] & LIMIT_HINGE) !== 0;
  if (split && !hinged) return false;
  if (flags[b] & (LIMIT_HINGE | LIMIT_FIXED) || (flags[m] | flags[t]) & LIMIT_STRETCH) return false;
  // A continuum section bends its joints evenly, which the closed form does not.
  if (plan.continuum.bendsIn[b] >= 0 || plan.continuum.bendsIn[m] >= 0) return false;
  // The root must turn this limb and nothing else.
  const rb = plan.scratch.rotatingIndex[b];
  if (rb < 0 || plan.activeChildStart[rb + 1] - plan.activeChildStart[rb] !== 1) return false;
  const { boneLength, localOffset, inputLocal, rotatingIndex } = plan.scratch;
  let lm = boneLength[m],
    lt = boneLength[t];
  const b3 = 3 * b,
    m3 = 3 * m,
    t3 = 3 * t,
    m4 = 4 * m;
  // The links' directions: the bones' own, or over the segments.
  const up = split ? temp : localOffset,
    upAt = split ? UPPER : m3,
    low = split ? temp : localOffset,
    lowAt = split ? LOWER : t3;
  if (split) {
    limbLink(plan, b, m, temp, UPPER);
    limbLink(plan, m, t, temp, LOWER);
    segmentTurn(plan, b, m, temp, TURN_UP);
    lm = Math.sqrt(temp[UPPER] ** 2 + temp[UPPER + 1] ** 2 + temp[UPPER + 2] ** 2);
    lt = Math.sqrt(temp[LOWER] ** 2 + temp[LOWER + 1] ** 2 + temp[LOWER + 2] ** 2);
    for (let i = 0; i < 3; i++) {
      temp[UPPER + i] /= lm;
      temp[LOWER + i] /= lt;
    }
  }
  if (!(lm > 0) || !(lt > 0) || rotatingIndex[t] >= 0) return false;

  let ux = targets[3 * e] - positions[b3],
    uy = targets[3 * e + 1] - positions[b3 + 1],
    uz = targets[3 * e + 2] - positions[b3 + 2];
  const d = Math.sqrt(ux * ux + uy * uy + uz * uz);
  if (!(d > 1e-9 * (lm + lt))) return false;
  ux /= d;
  uy /= d;
  uz /= d;

  // The limb as it was given, hung from where its parent is now: every answer is a turn of that, so the limb
  // follows from its parent and its target alone, whatever passes ran before.
  const p = plan.rig.parents[b];
  if (p >= 0) for (let i = 0; i < 4; i++) temp[PARENT + i] = orientations[4 * p + i];
  else {
    temp[PARENT] = 0;
    temp[PARENT + 1] = 0;
    temp[PARENT + 2] = 0;
    temp[PARENT + 3] = 1;
  }
  quatMultiply(temp, GIVEN, temp, PARENT, inputLocal, 4 * b);

  // The bend: a hinge turns about its axis from its rest frame; any other middle joint bends in the plane it
  // bent in as given, about the axis across both its bones, from its local rotation as given.
  const wx = low[lowAt],
    wy = low[lowAt + 1],
    wz = low[lowAt + 2];
  let hx: number, hy: number, hz: number;
  if (hinged) {
    if (split) quatMultiply(temp, FRAME, temp, TURN_UP, limits.restLocal, m4);
    else for (let i = 0; i < 4; i++) temp[FRAME + i] = limits.restLocal[m4 + i];
    hx = limits.hingeAxis[m3];
    hy = limits.hingeAxis[m3 + 1];
    hz = limits.hingeAxis[m3 + 2];
  } else {
    for (let i = 0; i < 4; i++) temp[FRAME + i] = inputLocal[m4 + i];
    quatRotateInverse(temp, VEC, temp, FRAME, localOffset, m3);
    hx = temp[VEC + 1] * wz - temp[VEC + 2] * wy;
    hy = temp[VEC + 2] * wx - temp[VEC] * wz;
    hz = temp[VEC] * wy - temp[VEC + 1] * wx;
    const hl = Math.sqrt(hx * hx + hy * hy + hz * hz);
    if (!(hl > 1e-6)) return false; // straight: no plane to bend in
    hx /= hl;
    hy /= hl;
    hz /= hl;
  }
  // The angle φ that puts the tip at distance d: in the bend's frame, with o the upper bone's direction seen
  // from there, |v|² = lm² + lt² + 2 lm lt o·R(h, φ) w, and o·R(h, φ) w = A + B cos φ + C sin φ.
  quatRotateInverse(temp, VEC, temp, FRAME, up, upAt);
  const ox = temp[VEC],
    oy = temp[VEC + 1],
    oz = temp[VEC + 2];
  const A = (ox * hx + oy * hy + oz * hz) * (hx * wx + hy * wy + hz * wz);
  const B = ox * wx + oy * wy + oz * wz - A;
  const C = ox * (hy * wz - hz * wy) + oy * (hz * wx - hx * wz) + oz * (hx * wy - hy * wx);
  const R = Math.sqrt(B * B + C * C);
  if (!(R > 1e-9)) return false; // the hinge turns the lower bone about its own line: no bend to choose
  const cos = ((d * d - lm * lm - lt * lt) / (2 * lm * lt) - A) / R;
  if (cos !== cos) return false;
  const psi = Math.atan2(C, B);
  const spread = Math.acos(cos > 1 ? 1 : cos < -1 ? -1 : cos);
  // The bend the limb has now: φ = 0 for a joint that is not a hinge.
  const min = hinged ? limits.hinge[2 * m] : -Math.PI,
    max = hinged ? limits.hinge[2 * m + 1] : Math.PI;
  // A hinge's bend now is measured only when it is needed, to choose between bends that tie (below).
  temp[ANGLE] = 0;
  let angleKnown = !hinged;
  // The bends that put the tip at distance d, the straightest and most folded bends, and the ends of the
  // hinge's range: of those within the range, whichever comes nearest to d, then nearest the bend it has now.
  // (A straight limb's hinge rests at the end of its range, where rounding alone would refuse the exact bend.)
  let phi = NaN,
    best = Infinity;
  const slack = 1e-9 * (lm + lt) * (lm + lt);
  const wanted = (d * d - lm * lm - lt * lt) / (2 * lm * lt);
  const rounding = 1e-12 * (Math.abs(A) + R + Math.abs(wanted) + 1);
  for (let k = 0; k < 6; k++) {
    let a = bendCandidate(k, psi, spread, min, max);
    a = a > Math.PI ? a - 2 * Math.PI : a <= -Math.PI ? a + 2 * Math.PI : a;
    if (a < min || a > max) continue;
    // The straightest and most folded bends reach A ± R: one that misses by more than the best so far
    // (beyond rounding) changes nothing, and its trigonometry is skipped.
    if (k >= 4 && 2 * lm * lt * (Math.abs(A + (k === 4 ? R : -R) - wanted) - rounding) > best + slack)
      continue;
    const miss = Math.abs(
      2 * lm * lt * (A + B * Math.cos(a) + C * Math.sin(a) - (d * d - lm * lm - lt * lt) / (2 * lm * lt)),
    );
    const nearer = miss < best - slack;
    // The bend the limb has now only breaks ties: measured at the first one.
    if (!nearer && miss <= best + slack && !angleKnown) {
      quatConjugateMultiply(temp, DELTA, limits.restLocal, m4, inputLocal, m4);
      measureHingeAngle(limits, m, temp, DELTA, temp, ANGLE);
      angleKnown = true;
    }
    if (nearer || (miss <= best + slack && Math.abs(a - temp[ANGLE]) < Math.abs(phi - temp[ANGLE]))) {
      if (miss < best) best = miss;
      phi = a;
    }
  }
  if (phi !== phi) return false;

  // The hinge's local rotation, and v, root to tip in the root's frame.
  const s = Math.sin(0.5 * phi);
  temp[AXIS] = hx * s;
  temp[AXIS + 1] = hy * s;
  temp[AXIS + 2] = hz * s;
  temp[AXIS + 3] = Math.cos(0.5 * phi);
  quatMultiply(temp, BEND, temp, FRAME, temp, AXIS);
  if (!hinged && flags[m] & LIMIT_ROTATION) {
    // A middle joint limited by swing and twist: the bend must keep them.
    quatConjugateMultiply(temp, DELTA, limits.restLocal, m4, temp, BEND);
    temp[ALLOWED] = ALLOWANCE;
    const kept = keepsLimits(plan, m);
    if (kept === REFUSED) return false;
    if (kept === PROJECTED) quatMultiply(temp, BEND, limits.restLocal, m4, temp, DELTA);
  }
  quatRotate(temp, VEC, temp, BEND, low, lowAt);
  temp[VEC] = lm * up[upAt] + lt * temp[VEC];
  temp[VEC + 1] = lm * up[upAt + 1] + lt * temp[VEC + 1];
  temp[VEC + 2] = lm * up[upAt + 2] + lt * temp[VEC + 2];
  const vl = Math.sqrt(temp[VEC] ** 2 + temp[VEC + 1] ** 2 + temp[VEC + 2] ** 2);
  if (!(vl > 0)) return false;
  // Where the given root points v (world), and the least turn taking it onto the target's direction.
  quatRotate(temp, VEC, temp, GIVEN, temp, VEC);
  for (let i = 0; i < 3; i++) temp[VEC + i] /= vl;
  temp[AIM] = ux;
  temp[AIM + 1] = uy;
  temp[AIM + 2] = uz;
  quatFromUnitVectors(temp, ARC, temp, VEC, temp, AIM);
  quatMultiply(temp, ARC, temp, ARC, temp, GIVEN);

  // The swivel: none if the root's limits allow it, else the allowed one nearest to none (searched on a
  // ring of samples, then narrowed toward none by bisection).
  temp[ALLOWED] = Math.max(ALLOWANCE, (ROOT_ALLOWANCE * plan.scratch.tolerance[0]) / d);
  if (!swivelAllowed(plan, b, 0)) {
    // A joint that is not a hinge already bends as it was found; searching swivels for it made limbs jump.
    if (!hinged) return false;
    // Followed from last frame's answer (`nearOnly`), only swivels within one sample of none, in finer steps:
    // the nearest allowed swivel further away (a root pressing its limit with the limb nearly straight, as
    // the target moves on) turned the root farther in one frame than damped steps and the passes
    // from the pose as given do.
    let found = 0,
      step = 1;
    if (nearOnly) {
      step = 1 / FINE;
      for (let k = 1; k <= FINE && found === 0; k++) {
        if (swivelAllowed(plan, b, k * step)) found = k * step;
        else if (swivelAllowed(plan, b, -k * step)) found = -k * step;
      }
    } else {
      for (let k = 1; k <= SAMPLES / 2 && found === 0; k++) {
        if (swivelAllowed(plan, b, k)) found = k;
        else if (swivelAllowed(plan, b, -k)) found = -k;
      }
    }
    if (found === 0) return false;
    // Bisect between the allowed sample and the refused one before it, in units of samples.
    let allowed = found,
      refused = found > 0 ? found - step : found + step;
    for (let i = 0; i < 24; i++) {
      const mid = 0.5 * (allowed + refused);
      if (swivelAllowed(plan, b, mid)) allowed = mid;
      else refused = mid;
    }
    if (!swivelAllowed(plan, b, allowed)) return false;
  }

  // temp[ROOT] holds the root's orientation at the chosen swivel: write the limb.
  for (let i = 0; i < 4; i++) orientations[4 * b + i] = temp[ROOT + i];
  quatNormalize(orientations, 4 * b);
  quatMultiply(orientations, m4, orientations, 4 * b, temp, BEND);
  quatNormalize(orientations, m4);
  quatRotate(temp, VEC, orientations, 4 * b, up, upAt);
  for (let i = 0; i < 3; i++) positions[m3 + i] = positions[b3 + i] + lm * temp[VEC + i];
  quatRotate(temp, VEC, orientations, m4, low, lowAt);
  for (let i = 0; i < 3; i++) positions[t3 + i] = positions[m3 + i] + lt * temp[VEC + i];
  if (split) {
    placeLinkSegments(plan, b, m, positions, orientations);
    placeLinkSegments(plan, m, t, positions, orientations);
    quatMultiply(orientations, 4 * t, orientations, 4 * plan.rig.parents[t], inputLocal, 4 * t);
  } else quatMultiply(orientations, 4 * t, orientations, m4, inputLocal, 4 * t);
  quatNormalize(orientations, 4 * t);
  const onLimit = plan.report.onLimit;
  onLimit[b] = 0;
  onLimit[m] = phi <= min + 1e-9 || phi >= max - 1e-9 ? 1 : 0;
  return true;
}

/**
 * Whether effector e's own chain is two bones without a pole: the first thing {@link placeTwoBoneLimb} asks,
 * cheap enough to ask before setting the pose aside for it.
 */
export function hasTwoBoneShape(plan: SolvePlan, e: number): boolean {
  const bones = plan.effectorPathStart[e + 1] - plan.effectorChainStart[e];
  if (plan.effectorHasPole[e] !== 0) return false;
  return bones === 2 || (bones > 2 && segmentedMiddle(plan, e) >= 0);
}

/**
 * Sets temp[ROOT..] to the root's orientation at swivel `k` samples (of 2π / SAMPLES each) from none, and
 * says whether the root's limits hold there.
 */
function swivelAllowed(plan: SolvePlan, b: number, k: number): boolean {
  const limits = plan.limits;
  const half = (Math.PI * k) / SAMPLES;
  const s = Math.sin(half);
  temp[SPIN] = temp[AIM] * s;
  temp[SPIN + 1] = temp[AIM + 1] * s;
  temp[SPIN + 2] = temp[AIM + 2] * s;
  temp[SPIN + 3] = Math.cos(half);
  quatMultiply(temp, ROOT, temp, SPIN, temp, ARC);
  if ((plan.scratch.flags[b] & LIMIT_ROTATION) === 0) return true;
  // Δ = rest⁻¹ · parent⁻¹ · root.
  quatConjugateMultiply(temp, DELTA, temp, PARENT, temp, ROOT);
  quatConjugateMultiply(temp, DELTA, limits.restLocal, 4 * b, temp, DELTA);
  const kept = keepsLimits(plan, b);
  if (kept === PROJECTED) {
    quatMultiply(temp, ROOT, temp, PARENT, limits.restLocal, 4 * b);
    quatMultiply(temp, ROOT, temp, ROOT, temp, DELTA);
  }
  return kept !== REFUSED;
}

/**
 * Whether joint j's Δ (temp[DELTA..], its rotation from rest) keeps its limits: KEPT untouched, PROJECTED
 * onto them by less than temp[ALLOWED] (Δ is left projected), else REFUSED. A target taken from a pose on a
 * limit's boundary puts the answer there, on one side or the other by rounding alone.
 */
function keepsLimits(plan: SolvePlan, j: number): number {
  for (let i = 0; i < 4; i++) temp[SPIN + i] = temp[DELTA + i];
  if (!projectRotation(plan.limits, j, temp, DELTA, temp, LIMIT)) return KEPT;
  let same = 0,
    opposite = 0;
  for (let i = 0; i < 4; i++) {
    same += (temp[DELTA + i] - temp[SPIN + i]) ** 2;
    opposite += (temp[DELTA + i] + temp[SPIN + i]) ** 2;
  }
  // |Δ' ∓ Δ| is half the angle between them, for small angles.
  return 4 * Math.min(same, opposite) <= temp[ALLOWED] * temp[ALLOWED] ? PROJECTED : REFUSED;
}

/** The bend tried `k`-th: the two meeting the distance, the range's ends, the straightest, the most folded. */
function bendCandidate(k: number, psi: number, spread: number, min: number, max: number): number {
  switch (k) {
    case 0:
      return psi + spread;
    case 1:
      return psi - spread;
    case 2:
      return min;
    case 3:
      return max;
    case 4:
      return psi;
    default:
      return psi + Math.PI;
  }
}
