import type { FabrikFrame } from "../babylon/index.js";
import {
  normalize3,
  quatConjugateMultiply,
  quatFromUnitVectors,
  quatMultiply,
  quatRotate,
  quatScaleAngle,
  slerpDirection,
  transformPoint,
} from "../rig/index.js";
import {
  FOOT,
  GROUND,
  HIP_ALPHA,
  TILT_AMOUNT,
  TILT_PIVOT,
  TILT_Q,
  UP_MODEL,
  VECTOR,
  WEIGHT,
  DELTA,
} from "./footSlots.js";
import type { LegState } from "./legState.js";

/*
 * A body on sloping ground takes the slope: the hips pitch toward the plane through the ground under the
 * feet, along the body's length (hips to head), measured in model space against the animation's ground, so a four-legged body climbs nose up instead of folding its front legs and stretching its hind
 * ones. The plane follows the feet's smoothed
 * ground with the hips' smoothing; each frame turns the body by the plane of the frames before (the feet are
 * read on the animated pose, before the turn). Numbers travel in the frame's scalars `n`.
 */

/** The least squares' determinant below this (relative to its scale) leaves the plane as it was. */
const DEGENERATE = 1e-6;

export class BodyTilt {
  /** The smoothed ground normal under the feet, model space, unit; and the plane the feet show now. */
  private readonly _normal = new Float64Array(6);
  private _started = false;

  /** `hips` turns; the way from them to `head` (a role; -1 without one) is the body's length. */
  constructor(
    private readonly _hips: number,
    private readonly _head: number,
  ) {}

  /**
   * Into `n[TILT_Q..]`: this frame's turn of the body (model space), from up toward the smoothed normal by
   * `amount` (0: none); `n[TILT_PIVOT..]` the point it turns about, amid the tops of the legs the hips carry
   * (turned about the hips themselves, a horse's croup, its shoulders would rise past the slope);
   * `n[TILT_AMOUNT]` whether it turns.
   */
  begin(n: Float64Array, frame: FabrikFrame, legs: readonly LegState[], amount: number): void {
    n[TILT_AMOUNT] = this._started && amount > 0 ? amount : 0;
    n[TILT_PIVOT] = n[TILT_PIVOT + 1] = n[TILT_PIVOT + 2] = 0;
    let count = 0;
    for (let i = 0; i < legs.length; i++) {
      const leg = legs[i];
      if (!leg.lowered) continue;
      for (let k = 0; k < 3; k++) n[TILT_PIVOT + k] += frame.positions[3 * leg.leg.base + k];
      count++;
    }
    if (count === 0) n[TILT_AMOUNT] = 0;
    else for (let k = 0; k < 3; k++) n[TILT_PIVOT + k] /= count;
    n[TILT_Q] = n[TILT_Q + 1] = n[TILT_Q + 2] = 0;
    n[TILT_Q + 3] = 1;
    if (!(n[TILT_AMOUNT] > 0)) return;
    quatFromUnitVectors(n, TILT_Q, n, UP_MODEL, this._normal, 0);
    if (n[TILT_AMOUNT] < 1) quatScaleAngle(n, TILT_Q, n, TILT_AMOUNT);
  }

  /** In place: the model-space point `v[o..o+2]` as the body's turn carries it (about the pivot). */
  carry(n: Float64Array, v: Float64Array, o: number): void {
    if (!(n[TILT_AMOUNT] > 0)) return;
    for (let k = 0; k < 3; k++) n[VECTOR + k] = v[o + k] - n[TILT_PIVOT + k];
    quatRotate(v, o, n, TILT_Q, n, VECTOR);
    for (let k = 0; k < 3; k++) v[o + k] += n[TILT_PIVOT + k];
  }

  /**
   * The plane through the ground under the legs that stand on it (three at least, not all in a line), as a
   * normal in model space within `maxTilt` of up; the smoothed normal moves toward it (toward up with no
   * such plane: a hole under the feet).
   */
  follow(legs: readonly LegState[], frame: FabrikFrame, n: Float64Array, maxTilt: number): void {
    const goal = this._normal;
    const u = UP_MODEL;
    if (!this.fit(legs, frame, n, goal, 3)) for (let k = 0; k < 3; k++) goal[3 + k] = n[u + k];
    // Within maxTilt of up.
    const cos = goal[3] * n[u] + goal[4] * n[u + 1] + goal[5] * n[u + 2];
    const angle = Math.acos(cos > 1 ? 1 : cos < -1 ? -1 : cos);
    if (angle > maxTilt) {
      n[VECTOR] = maxTilt / angle;
      slerpDirection(goal, 3, n, UP_MODEL, goal, 3, n, VECTOR);
    }
    if (!this._started) {
      this._started = true;
      goal.copyWithin(0, 3, 6);
      return;
    }
    const a = n[HIP_ALPHA];
    for (let k = 0; k < 3; k++) goal[k] += (goal[3 + k] - goal[k]) * a;
    if (!normalize3(goal, 0, goal, 0)) for (let k = 0; k < 3; k++) goal[k] = n[u + k];
  }

  /** Turns the hips in the frame's pose by `n[TILT_Q]` about the pivot: a turn and a move of the joint. */
  apply(n: Float64Array, frame: FabrikFrame, parents: Int32Array, hips: number): void {
    if (!(n[TILT_AMOUNT] > 0)) return;
    const parent = parents[hips];
    // The joint's move: where the turn about the pivot carries it, less where it is (model space).
    for (let k = 0; k < 3; k++) n[DELTA + k] = frame.positions[3 * hips + k];
    this.carry(n, n, DELTA);
    for (let k = 0; k < 3; k++) n[DELTA + k] -= frame.positions[3 * hips + k];
    if (frame.toJointSpace(parent, n, DELTA)) {
      frame.getLocalPosition(hips, n, VECTOR);
      for (let k = 0; k < 3; k++) n[VECTOR + k] += n[DELTA + k];
      frame.setLocalPosition(hips, n, VECTOR);
    }
    quatMultiply(n, DELTA, n, TILT_Q, frame.orientations, 4 * hips);
    if (parent >= 0) quatConjugateMultiply(n, DELTA, frame.orientations, 4 * parent, n, DELTA);
    frame.setLocalRotation(hips, n, DELTA);
  }

  /**
   * Least squares: the ground points under the standing legs (model space), heights along up (`n[UP_MODEL]`)
   * against two directions across it; into `out[o..o+2]` the plane's unit normal. False with fewer than
   * three points or all in a line.
   */
  private fit(legs: readonly LegState[], frame: FabrikFrame, n: Float64Array, out: Float64Array, o: number) {
    const w2m = frame.worldToModel;
    const up0 = n[UP_MODEL],
      up1 = n[UP_MODEL + 1],
      up2 = n[UP_MODEL + 2];
    // Two directions across up: from whichever model axis is least along it.
    const ax = Math.abs(up0) < 0.9 ? 1 : 0,
      az = 1 - ax;
    let e1x = ax - up0 * (ax * up0 + az * up2),
      e1y = -up1 * (ax * up0 + az * up2),
      e1z = az - up2 * (ax * up0 + az * up2);
    const l = Math.sqrt(e1x * e1x + e1y * e1y + e1z * e1z);
    e1x /= l;
    e1y /= l;
    e1z /= l;
    const e2x = up1 * e1z - up2 * e1y,
      e2y = up2 * e1x - up0 * e1z,
      e2z = up0 * e1y - up1 * e1x;
    let count = 0,
      sa = 0,
      sb = 0,
      sh = 0,
      saa = 0,
      sab = 0,
      sbb = 0,
      sah = 0,
      sbh = 0;
    const p = out;
    for (let i = 0; i < legs.length; i++) {
      const leg = legs[i];
      const s = leg.s;
      if (!(s[WEIGHT] > 0) || !leg.grounded) continue;
      p[o] = s[FOOT];
      p[o + 1] = s[GROUND];
      p[o + 2] = s[FOOT + 2];
      transformPoint(p, o, w2m, p, o);
      const a = p[o] * e1x + p[o + 1] * e1y + p[o + 2] * e1z;
      const b = p[o] * e2x + p[o + 1] * e2y + p[o + 2] * e2z;
      const h = p[o] * up0 + p[o + 1] * up1 + p[o + 2] * up2;
      count++;
      sa += a;
      sb += b;
      sh += h;
      saa += a * a;
      sab += a * b;
      sbb += b * b;
      sah += a * h;
      sbh += b * h;
    }
    if (count < 3) return false;
    // Centred sums: h − h̄ = α (a − ā) + β (b − b̄).
    const caa = saa - (sa * sa) / count,
      cab = sab - (sa * sb) / count,
      cbb = sbb - (sb * sb) / count,
      cah = sah - (sa * sh) / count,
      cbh = sbh - (sb * sh) / count;
    const det = caa * cbb - cab * cab;
    if (!(det > DEGENERATE * (caa + cbb) * (caa + cbb))) return false;
    const alpha = (cah * cbb - cbh * cab) / det,
      beta = (cbh * caa - cah * cab) / det;
    // Pitch only, along the body's length: a step under one side is no slope to roll the body onto. The
    // length runs from the hips to the head, flattened; without a head that says it, along the feet's
    // longest spread.
    let d1 = 0,
      d2 = 0;
    if (this._head >= 0) {
      const q = frame.positions,
        h = 3 * this._hips,
        f = 3 * this._head;
      const fx = q[f] - q[h],
        fy = q[f + 1] - q[h + 1],
        fz = q[f + 2] - q[h + 2];
      d1 = fx * e1x + fy * e1y + fz * e1z;
      d2 = fx * e2x + fy * e2y + fz * e2z;
      const flat = Math.sqrt(d1 * d1 + d2 * d2);
      const d = flat > 0.1 * Math.sqrt(fx * fx + fy * fy + fz * fz) ? flat : 0;
      d1 = d > 0 ? d1 / d : 0;
      d2 = d > 0 ? d2 / d : 0;
    }
    if (d1 === 0 && d2 === 0) {
      const theta = 0.5 * Math.atan2(2 * cab, caa - cbb);
      d1 = Math.cos(theta);
      d2 = Math.sin(theta);
    }
    const slope = alpha * d1 + beta * d2;
    p[o] = up0 - slope * (d1 * e1x + d2 * e2x);
    p[o + 1] = up1 - slope * (d1 * e1y + d2 * e2y);
    p[o + 2] = up2 - slope * (d1 * e1z + d2 * e2z);
    return normalize3(p, o, p, o);
  }
}
