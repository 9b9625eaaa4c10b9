import { quatConjugateMultiply, quatMultiply, quatRotate } from "../rig/index.js";
import { projectRotation, type JointLimits } from "../solver/index.js";

/*
 * The arm closure's numbers (armGrip.ts) and the small steps it takes on them. Every per-frame number lives in
 * one module array, addressed by slot: V8 boxes doubles passed to or returned from calls it does not inline,
 * so these helpers pass only slots and write their results into the array.
 */

/** The closure's numbers (named `t` for brevity in the closed-form steps), by the slots below. */
export const t = new Float64Array(136);
export const S = 0; // shoulder (the upper arm's joint)
export const E = 3; // elbow
export const W = 6; // wrist (the hand's joint)
export const T = 9; // the handle's place
export const QT = 12; // the handle's orientation
export const QP = 16; // the upper arm's parent orientation
export const QU = 20; // upper arm orientation
export const QF = 24; // forearm orientation
export const AXIS = 28;
export const ROT = 32;
export const U = 36;
export const V = 39;
export const N = 42;
export const LOCAL = 45;
export const DELTA = 49;
export const PROJECT = 53; // projectRotation scratch (16)
export const ANGLE = 69;
export const SAVED = 89; // the solve's arm: upper arm, forearm orientations, elbow, wrist
export const QU2 = 77;
export const QF2 = 81;
export const HAND = 85;
export const COST = 103; // the breach being summed
export const TRY = 104; // the swivel being tried
export const LEN_A = 105; // upper arm length
export const LEN_B = 106; // forearm length
export const RESIDUAL = 107; // what the chosen swivel still breaks
export const MISS = 108; // the wrist's distance to the handle
export const D = 109; // |handle - shoulder|
export const A_ = 110; // u·v about the bend axis, its two parts
export const B_ = 111;
export const C_ = 112;
export const OFFSET = 113; // the wrist in the forearm's frame (3)
export const CONJ = 116; // a conjugated orientation (4)
export const SHOULDER = 120; // the shoulder's part of COST
/** Rigid segments (Rigify's `.001` bones) between upper arm and forearm, forearm and hand: their turns. */
export const SEG_UPPER = 121; // the forearm's parent in the upper arm's frame (4)
export const SEG_LOWER = 125; // the hand's parent in the forearm's frame (4)
export const PARENT = 129; // a joint's parent orientation, from the segments (4)

/** Saves the arm (orientations of upper arm and forearm, elbow, wrist), or puts the saved one back. */
export function keepArm(save: boolean): void {
  for (let i = 0; i < 8; i++) {
    if (save) t[SAVED + i] = t[QU + i];
    else t[QU + i] = t[SAVED + i];
  }
  for (let i = 0; i < 6; i++) {
    if (save) t[SAVED + 8 + i] = t[E + i];
    else t[E + i] = t[SAVED + 8 + i];
  }
}

/** Turns the upper arm and forearm (and the elbow and wrist about the shoulder) by the rotation at `r`. */
export function turnArm(r: number): void {
  quatMultiply(t, QU, t, r, t, QU);
  quatMultiply(t, QF, t, r, t, QF);
  turnAboutShoulder(E, r);
  turnAboutShoulder(W, r);
}

function turnAboutShoulder(point: number, r: number): void {
  sub(U, point, S);
  quatRotate(t, U, t, r, t, U);
  for (let i = 0; i < 3; i++) t[point + i] = t[S + i] + t[U + i];
}

/** Adds to COST how far (radians) the local rotation at LOCAL lies outside joint j's limits. */
export function addBreach(limits: JointLimits, j: number): void {
  quatConjugateMultiply(t, DELTA, limits.restLocal, 4 * j, t, LOCAL);
  const x = t[DELTA],
    y = t[DELTA + 1],
    z = t[DELTA + 2],
    w = t[DELTA + 3];
  if (!projectRotation(limits, j, t, DELTA, t, PROJECT)) return;
  const d = Math.abs(x * t[DELTA] + y * t[DELTA + 1] + z * t[DELTA + 2] + w * t[DELTA + 3]);
  t[COST] += 2 * Math.acos(Math.min(1, d));
}

/** In place: the local rotation at LOCAL projected onto joint j's limits. */
export function keepInLimits(limits: JointLimits, j: number): void {
  quatConjugateMultiply(t, DELTA, limits.restLocal, 4 * j, t, LOCAL);
  if (projectRotation(limits, j, t, DELTA, t, PROJECT))
    quatMultiply(t, LOCAL, limits.restLocal, 4 * j, t, DELTA);
}

export function sub(out: number, x: number, y: number): void {
  for (let i = 0; i < 3; i++) t[out + i] = t[x + i] - t[y + i];
}

export function conjugate(out: number, q: number): void {
  t[out] = -t[q];
  t[out + 1] = -t[q + 1];
  t[out + 2] = -t[q + 2];
  t[out + 3] = t[q + 3];
}

export function setDot(out: number, x: number, y: number): void {
  t[out] = t[x] * t[y] + t[x + 1] * t[y + 1] + t[x + 2] * t[y + 2];
}

export function cross(out: number, x: number, y: number): void {
  const ax = t[x],
    ay = t[x + 1],
    az = t[x + 2],
    bx = t[y],
    by = t[y + 1],
    bz = t[y + 2];
  t[out] = ay * bz - az * by;
  t[out + 1] = az * bx - ax * bz;
  t[out + 2] = ax * by - ay * bx;
}

export function setDistance(out: number, x: number, y: number): void {
  t[out] = Math.sqrt((t[x] - t[y]) ** 2 + (t[x + 1] - t[y + 1]) ** 2 + (t[x + 2] - t[y + 2]) ** 2);
}
