import { normalize3, quatAxisAngle } from "./arrayMath.js";
import { projectRotation } from "../solver/jointLimitProjection.js";
import { LIMIT_FIXED, LIMIT_HINGE, LIMIT_ROTATION, type JointLimits } from "../solver/limits.js";
import {
  quatConjugateMultiply,
  quatFromUnitVectors,
  quatMultiply,
  quatRotate,
  quatRotateInverse,
} from "../solver/quaternion.js";

/*
 * The knee of a leg whose foot hangs elsewhere (rigs made for Blender's IK keep the feet under the root, each
 * where its shin ends): given the hip, the animated knee and shin end, and where the shin's end must go, the
 * knee's place and the shin's orientation that put it there. Everything is model space, in one Float64Array
 * at these slots (V8 boxes doubles passed to calls it does not inline). Engine-free: FootPlacement and the
 * behavior's `setTarget` on such a foot both place knees with it.
 */

/** In: the thigh's joint (the hip, after any lowering of the hips). */
export const KNEE_HIP = 0;
/** In: the animated knee (the shin's joint). */
export const KNEE_ANIMATED = 3;
/** In: the animated end of the shin (where the foot sits). */
export const KNEE_END = 6;
/** In: where the shin's end must go. */
export const KNEE_GOAL = 9;
/** In: the shin's animated orientation (unit quaternion). */
export const KNEE_SHIN = 12;
/**
 * In: the axis the knee bends about (unit). With `KNEE_HINGE` 0, only used when the animated leg is straight
 * (then any direction not along the thigh); with 1, always: a knee limited to a hinge turns about it alone.
 */
export const KNEE_BEND = 16;
/** In: 1 to bend about `KNEE_BEND` whatever the animated bend, 0 to bend in the animation's plane. */
export const KNEE_HINGE = 19;
/** In: the least and the most the knee may turn from its animated angle, radians (±Infinity: free). */
export const KNEE_MIN = 20;
export const KNEE_MAX = 21;
/** Out ({@link placeKnee}): the knee's place. */
export const KNEE_OUT = 22;
/** Out ({@link placeKnee}): the shin's orientation. */
export const KNEE_SHIN_OUT = 25;
/** Out ({@link kneeReach}): the farthest from the hip the shin's end gets, bending within the range. */
export const KNEE_REACH = 29;

const L1 = 30;
const L2 = 31;
const T_PAR = 32;
const S_PAR = 33;
const T_PERP = 34;
const S_PERP = 35;
const PHI = 36;
/** 1 when turning about the axis changes the leg's length at all. */
const PLANE = 37;
const T0 = 38;
const S0 = 41;
const N = 44;
const E1 = 47;
const E2 = 50;
const U = 53;
const BEND = 56;
const V = 60;
const DIR = 63;
const T = 66;
const F = 69;
const W = 73;
const R = 77;
const ANGLE = 81;
const Q = 82;
/** Out ({@link animatedKnee}): where the foot sits in the animated shin's frame (model units). */
export const KNEE_FOOT_LOCAL = 86;
const DELTA = 89;
const VECTOR = 93;
const PROJECTION = 97;
/** Slots the functions here use. */
export const KNEE_SLOTS = 113;

/**
 * The thigh and shin, the bend axis, and how the leg's length depends on the turn about it: thigh and shin
 * split along the axis and square to it, turning the shin about the axis changes only the angle φ between
 * their square parts, and |thigh + shin|² = l1² + l2² + 2 (t∥ s∥ + |t⊥| |s⊥| cos φ). False when there is no
 * leg to bend (a bone of zero length, or numbers that are not finite).
 */
function bendPlane(w: Float64Array): boolean {
  let l1 = 0,
    l2 = 0;
  for (let k = 0; k < 3; k++) {
    w[T0 + k] = w[KNEE_ANIMATED + k] - w[KNEE_HIP + k];
    w[S0 + k] = w[KNEE_END + k] - w[KNEE_ANIMATED + k];
    l1 += w[T0 + k] * w[T0 + k];
    l2 += w[S0 + k] * w[S0 + k];
  }
  l1 = Math.sqrt(l1);
  l2 = Math.sqrt(l2);
  w[L1] = l1;
  w[L2] = l2;
  if (!(l1 > 0 && l2 > 0 && Number.isFinite(l1 + l2))) return false;
  for (let k = 0; k < 3; k++) w[U + k] = w[T0 + k] / l1;
  const ux = w[U],
    uy = w[U + 1],
    uz = w[U + 2];
  const sx = w[S0],
    sy = w[S0 + 1],
    sz = w[S0 + 2];
  // The bend axis: the given hinge; else thigh × shin, or the given axis for a straight leg.
  let given = w[KNEE_HINGE] === 1;
  if (!given) {
    w[N] = uy * sz - uz * sy;
    w[N + 1] = uz * sx - ux * sz;
    w[N + 2] = ux * sy - uy * sx;
    const bent = Math.sqrt(w[N] * w[N] + w[N + 1] * w[N + 1] + w[N + 2] * w[N + 2]) > 1e-6 * l2;
    given = !bent || !normalize3(w, N, w, N);
  }
  if (given && !normalize3(w, N, w, KNEE_BEND)) {
    // No usable axis given: any axis square to the thigh.
    const x = Math.abs(ux) < 0.9;
    w[N] = x ? 0 : -uz;
    w[N + 1] = x ? uz : 0;
    w[N + 2] = x ? -uy : ux;
    normalize3(w, N, w, N);
  }
  const nx = w[N],
    ny = w[N + 1],
    nz = w[N + 2];
  const tPar = w[T0] * nx + w[T0 + 1] * ny + w[T0 + 2] * nz;
  const sPar = sx * nx + sy * ny + sz * nz;
  for (let k = 0; k < 3; k++) w[E1 + k] = w[T0 + k] - tPar * w[N + k];
  const tPerp = Math.sqrt(w[E1] * w[E1] + w[E1 + 1] * w[E1 + 1] + w[E1 + 2] * w[E1 + 2]);
  const sPerp = Math.sqrt(Math.max(0, l2 * l2 - sPar * sPar));
  w[T_PAR] = tPar;
  w[S_PAR] = sPar;
  w[T_PERP] = tPerp;
  w[S_PERP] = sPerp;
  w[PHI] = 0;
  w[PLANE] = tPerp > 1e-9 * l1 && sPerp > 1e-9 * l2 ? 1 : 0;
  if (w[PLANE] === 1) {
    for (let k = 0; k < 3; k++) w[E1 + k] /= tPerp;
    const e1x = w[E1],
      e1y = w[E1 + 1],
      e1z = w[E1 + 2];
    // e2 = n × e1: the shin's square part lies at the angle φ from e1 toward e2.
    w[E2] = ny * e1z - nz * e1y;
    w[E2 + 1] = nz * e1x - nx * e1z;
    w[E2 + 2] = nx * e1y - ny * e1x;
    w[PHI] = Math.atan2(sx * w[E2] + sy * w[E2 + 1] + sz * w[E2 + 2], sx * e1x + sy * e1y + sz * e1z);
  }
  return true;
}

/**
 * Into `w[KNEE_REACH]`: how far from the hip the shin's end gets at most, the knee turning about its axis
 * within `KNEE_MIN..KNEE_MAX` (reads the same inputs as {@link placeKnee} but the goal).
 */
export function kneeReach(w: Float64Array): void {
  if (!bendPlane(w)) {
    w[KNEE_REACH] = w[L1] + w[L2];
    return;
  }
  let cos = 1;
  if (w[PLANE] === 1) {
    // Straightest: φ = 0, or the end of the range nearest to it.
    let turn = -w[PHI];
    if (turn < w[KNEE_MIN]) turn = w[KNEE_MIN];
    if (turn > w[KNEE_MAX]) turn = w[KNEE_MAX];
    cos = Math.cos(w[PHI] + turn);
  }
  const l1 = w[L1],
    l2 = w[L2];
  const squared = l1 * l1 + l2 * l2 + 2 * (w[T_PAR] * w[S_PAR] + w[T_PERP] * w[S_PERP] * cos);
  w[KNEE_REACH] = Math.sqrt(Math.max(0, squared));
}

/**
 * Into `w[KNEE_OUT..]` and `w[KNEE_SHIN_OUT..]`: the two-bone answer for the thigh (hip to knee) and the shin
 * (knee to its end), both of their animated lengths, that puts the shin's end on `w[KNEE_GOAL..]`.
 *
 * The knee bends about one axis (the animation's bend axis, or a hinge's), to the side the animation bends
 * it to, only as much as the distance from hip to goal needs and the range `KNEE_MIN..KNEE_MAX` allows: the
 * shin's rotation relative to the thigh changes about that axis alone, so a knee on its hinge stays on it.
 * The thigh then swings, with no twist of its own, so the leg points at the goal: the behavior, given the
 * knee as a target with the thigh as its chain, turns the thigh by that same twist-free swing, and the
 * shin's orientation, matched, is exactly the one found here. A goal out of reach straightens the leg
 * toward it (as far as the range allows).
 */
export function placeKnee(w: Float64Array): void {
  let d = 0;
  for (let k = 0; k < 3; k++) {
    w[DIR + k] = w[KNEE_GOAL + k] - w[KNEE_HIP + k];
    d += w[DIR + k] * w[DIR + k];
  }
  d = Math.sqrt(d);
  if (!bendPlane(w) || !Number.isFinite(d)) {
    // No leg to bend: the knee and the shin stay as animated.
    for (let k = 0; k < 3; k++) w[KNEE_OUT + k] = w[KNEE_ANIMATED + k];
    for (let k = 0; k < 4; k++) w[KNEE_SHIN_OUT + k] = w[KNEE_SHIN + k];
    return;
  }
  const l1 = w[L1],
    l2 = w[L2];
  w[ANGLE] = 0;
  if (w[PLANE] === 1) {
    // The angle that makes hip-to-end as long as hip-to-goal (law of cosines), on the animated side.
    const phi = w[PHI];
    let cos = (d * d - l1 * l1 - l2 * l2 - 2 * w[T_PAR] * w[S_PAR]) / (2 * w[T_PERP] * w[S_PERP]);
    if (cos > 1) cos = 1;
    else if (cos < -1) cos = -1;
    let turn = (phi < 0 ? -Math.acos(cos) : Math.acos(cos)) - phi;
    if (turn < w[KNEE_MIN]) turn = w[KNEE_MIN];
    if (turn > w[KNEE_MAX]) turn = w[KNEE_MAX];
    w[ANGLE] = turn;
  }
  quatAxisAngle(w, BEND, w, N, w, ANGLE);
  // The bent leg, hip to end: thigh + bent shin.
  quatRotate(w, V, w, BEND, w, S0);
  for (let k = 0; k < 3; k++) w[V + k] += w[T0 + k];
  if (!normalize3(w, DIR, w, DIR)) {
    // The goal sits on the hip: no direction to swing to.
    for (let k = 0; k < 3; k++) w[DIR + k] = w[V + k];
    if (!normalize3(w, DIR, w, DIR)) for (let k = 0; k < 3; k++) w[DIR + k] = w[U + k];
  }
  // The thigh's swing F (a turn about an axis square to the thigh, so no twist of its own) that points the
  // bent leg v at the goal. Every turn taking v̂ to the goal is P·Q(γ), P the shortest one and Q(γ) a turn
  // by γ about v̂; it is a swing when its vector part is square to u, the thigh: with P = (p, p₀),
  // sin(γ/2)·(p₀ v̂·u + (p × v̂)·u) + cos(γ/2)·(p·u) = 0.
  normalize3(w, V, w, V);
  quatFromUnitVectors(w, R, w, V, w, DIR);
  const vx = w[V],
    vy = w[V + 1],
    vz = w[V + 2];
  const px = w[R],
    py = w[R + 1],
    pz = w[R + 2],
    p0 = w[R + 3];
  const ux = w[U],
    uy = w[U + 1],
    uz = w[U + 2];
  const pu = px * ux + py * uy + pz * uz;
  const c =
    p0 * (vx * ux + vy * uy + vz * uz) +
    (py * vz - pz * vy) * ux +
    (pz * vx - px * vz) * uy +
    (px * vy - py * vx) * uz;
  const half = Math.atan2(-pu, c);
  const sin = Math.sin(half),
    cos = Math.cos(half);
  w[W] = vx * sin;
  w[W + 1] = vy * sin;
  w[W + 2] = vz * sin;
  w[W + 3] = cos;
  quatMultiply(w, F, w, R, w, W);
  quatRotate(w, T, w, F, w, U);
  for (let k = 0; k < 3; k++) w[KNEE_OUT + k] = w[KNEE_HIP + k] + l1 * w[T + k];
  quatMultiply(w, Q, w, F, w, BEND);
  quatMultiply(w, KNEE_SHIN_OUT, w, Q, w, KNEE_SHIN);
}

/**
 * Fills the inputs of {@link placeKnee} and {@link kneeReach} but the goal from an animated pose (model-space
 * `positions` and unit `orientations` per joint), and `w[KNEE_FOOT_LOCAL..]`. The knee is `shin`'s joint,
 * the hip its parent `thigh`'s, the shin's end is the foot at `foot[fo..fo+2]` (a joint's position, or the
 * end site where the shin's own bone ends). `bendLocal[bo..]`: the axis a straight
 * leg bends about, in the thigh's frame (see {@link restBendAxis}).
 *
 * The behavior keeps the shin within its limits when it matches the orientation asked of it; so the knee
 * is worked out from the animated shin as the limits keep it (an animation may leave a limit preset's
 * hinge), bent about the hinge's axis when it has one and within the hinge's range: the limits then leave
 * the answer as it is, and the shin ends on the goal whenever the leg can reach it.
 */
export function animatedKnee(
  w: Float64Array,
  positions: Float64Array,
  orientations: Float64Array,
  thigh: number,
  shin: number,
  foot: ArrayLike<number>,
  fo: number,
  bendLocal: Float64Array,
  bo: number,
  limits: JointLimits | null,
): void {
  const p = positions,
    o = orientations;
  for (let i = 0; i < 3; i++) {
    w[KNEE_ANIMATED + i] = p[3 * shin + i];
    w[KNEE_HIP + i] = p[3 * thigh + i];
    w[VECTOR + i] = foot[fo + i] - p[3 * shin + i];
  }
  quatRotateInverse(w, KNEE_FOOT_LOCAL, o, 4 * shin, w, VECTOR);
  for (let i = 0; i < 4; i++) w[KNEE_SHIN + i] = o[4 * shin + i];
  w[KNEE_HINGE] = 0;
  w[KNEE_MIN] = -Infinity;
  w[KNEE_MAX] = Infinity;
  quatRotate(w, KNEE_BEND, o, 4 * thigh, bendLocal, bo);
  const flags = limits === null ? 0 : limits.flags[shin];
  if (limits !== null && flags & LIMIT_ROTATION && !(flags & LIMIT_FIXED)) {
    // Δ = rest⁻¹ · local, projected onto the limits; the shin's orientation is then thigh · rest · Δ.
    quatConjugateMultiply(w, DELTA, o, 4 * thigh, o, 4 * shin);
    quatConjugateMultiply(w, DELTA, limits.restLocal, 4 * shin, w, DELTA);
    projectRotation(limits, shin, w, DELTA, w, PROJECTION);
    quatMultiply(w, VECTOR, limits.restLocal, 4 * shin, w, DELTA);
    quatMultiply(w, KNEE_SHIN, o, 4 * thigh, w, VECTOR);
    if (flags & LIMIT_HINGE) {
      // Δ turns θ about the hinge's axis a (in the shin's rest frame): the axis in model space is
      // shin · a, and the turn may go from min − θ to max − θ.
      const a = 3 * shin;
      const ax = limits.hingeAxis[a],
        ay = limits.hingeAxis[a + 1],
        az = limits.hingeAxis[a + 2];
      // Into (-π, π]: a rotation and its negated quaternion are the same turn (an animation's key, or a
      // rotation read through a mirror's half turn, may come with w < 0), and 2·atan2 alone reads the
      // second as a turn 2π further, the hinge's range shifted off the knee.
      let theta = 2 * Math.atan2(w[DELTA] * ax + w[DELTA + 1] * ay + w[DELTA + 2] * az, w[DELTA + 3]);
      if (theta > Math.PI) theta -= 2 * Math.PI;
      else if (theta <= -Math.PI) theta += 2 * Math.PI;
      quatRotate(w, KNEE_BEND, w, KNEE_SHIN, limits.hingeAxis, a);
      w[KNEE_HINGE] = 1;
      w[KNEE_MIN] = limits.hinge[2 * shin] - theta;
      w[KNEE_MAX] = limits.hinge[2 * shin + 1] - theta;
    }
  }
  // The shin's end as the (limited) animated shin carries it.
  quatRotate(w, KNEE_END, w, KNEE_SHIN, w, KNEE_FOOT_LOCAL);
  for (let i = 0; i < 3; i++) w[KNEE_END + i] += w[KNEE_ANIMATED + i];
}

/**
 * Into `out[o..o+2]`: the axis a foot-at-a-shin's-end leg bends about when the animation holds it straight,
 * in the thigh's frame: the rest pose's bend (thigh × shin, the foot at rest at `foot[fo..fo+2]`), else the
 * thigh's frame axis least along it.
 */
export function restBendAxis(
  rig: { readonly restPositions: Float64Array; readonly restOrientations: Float64Array },
  thigh: number,
  shin: number,
  foot: ArrayLike<number>,
  fo: number,
  out: Float64Array,
  o: number,
): void {
  const r = rig.restPositions;
  const q = rig.restOrientations;
  const t = [0, 1, 2].map((k) => r[3 * shin + k] - r[3 * thigh + k]);
  const e = [0, 1, 2].map((k) => foot[fo + k] - r[3 * shin + k]);
  const axis = Float64Array.of(
    t[1] * e[2] - t[2] * e[1],
    t[2] * e[0] - t[0] * e[2],
    t[0] * e[1] - t[1] * e[0],
  );
  const len = Math.hypot(axis[0], axis[1], axis[2]);
  const scale = Math.hypot(t[0], t[1], t[2]) * Math.hypot(e[0], e[1], e[2]);
  if (len > 1e-3 * scale) {
    quatRotateInverse(out, o, q, 4 * thigh, axis, 0);
    normalize3(out, o, out, o);
    return;
  }
  // Straight at rest too: the axis of the thigh's own frame least along the thigh.
  const local = new Float64Array(3);
  quatRotateInverse(local, 0, q, 4 * thigh, Float64Array.from(t), 0);
  const k = [0, 1, 2].reduce((best, i) => (Math.abs(local[i]) < Math.abs(local[best]) ? i : best), 0);
  out[o] = out[o + 1] = out[o + 2] = 0;
  out[o + k] = 1;
}
