/*
 * Where a held object goes so that both hands can reach it. Each hand reaches a ball about its shoulder (the
 * top of its chain, which the solve does not move) of radius upper arm + forearm. Keeping the object's
 * orientation and moving it by t, hand i can hold it when |t - c_i| <= r_i, with c_i = shoulder_i - handle_i:
 * the object can be held wherever the two balls of t overlap, and the nearest such t to 0 moves it least from
 * where it was asked to be. When they do not overlap (handles further apart than the arms span), the hands'
 * weights share the gap along the line between the balls: a hand of weight 1 against 0 keeps its grip.
 */

/** Slots of the placement's input and output array (model space). */
export const PLACE_CENTER_0 = 0; // c_0 (3)
export const PLACE_CENTER_1 = 3; // c_1 (3)
export const PLACE_REACH_0 = 6;
export const PLACE_REACH_1 = 7;
export const PLACE_WEIGHT_0 = 8;
export const PLACE_WEIGHT_1 = 9;
export const PLACE_SHIFT = 10; // t (3), the output
const AXIS = 13;
const CANDIDATE = 16;
export const PLACE_SLOTS = 19;

/** Squared length of `v[o..o+2]`. */
function length2(v: Float64Array, o: number): number {
  return v[o] * v[o] + v[o + 1] * v[o + 1] + v[o + 2] * v[o + 2];
}

/** Distance from `v[o..o+2]` to `w[p..p+2]`. */
function distance(v: Float64Array, o: number, w: Float64Array, p: number): number {
  const x = v[o] - w[p],
    y = v[o + 1] - w[p + 1],
    z = v[o + 2] - w[p + 2];
  return Math.sqrt(x * x + y * y + z * z);
}

/** out = the point of the ball (center c, radius r) nearest the origin. */
function projectOrigin(v: Float64Array, out: number, c: number, r: number): void {
  const len = Math.sqrt(length2(v, c));
  const f = len > v[r] ? (len - v[r]) / len : 0;
  for (let i = 0; i < 3; i++) v[out + i] = v[c + i] * f;
}

/** Whether `v[o..]` lies in the ball of centre `v[c..]` and radius `v[r]` (up to rounding). */
function inside(v: Float64Array, o: number, c: number, r: number): boolean {
  return distance(v, o, v, c) <= v[r] * (1 + 1e-12);
}

/**
 * Writes the shift t into `v[PLACE_SHIFT..]` from the balls and weights in `v`; returns whether both
 * hands can then hold the object.
 */
export function placeBetweenReaches(v: Float64Array): boolean {
  const d = distance(v, PLACE_CENTER_0, v, PLACE_CENTER_1);
  for (let i = 0; i < 3; i++) v[AXIS + i] = d > 0 ? (v[PLACE_CENTER_1 + i] - v[PLACE_CENTER_0 + i]) / d : 0;
  if (d > v[PLACE_REACH_0] + v[PLACE_REACH_1]) {
    // Apart: the gap is shared by weight (none given: halves).
    const w0 = v[PLACE_WEIGHT_0],
      w1 = v[PLACE_WEIGHT_1];
    const share = w0 + w1 > 0 ? w1 / (w0 + w1) : 0.5;
    const along = v[PLACE_REACH_0] + (d - v[PLACE_REACH_0] - v[PLACE_REACH_1]) * share;
    for (let i = 0; i < 3; i++) v[PLACE_SHIFT + i] = v[PLACE_CENTER_0 + i] + v[AXIS + i] * along;
    return false;
  }
  // Overlapping: the origin projected onto either ball, if it lies in the other, else the nearest point of
  // the circle where the spheres meet.
  let best = Infinity;
  projectOrigin(v, CANDIDATE, PLACE_CENTER_0, PLACE_REACH_0);
  if (inside(v, CANDIDATE, PLACE_CENTER_1, PLACE_REACH_1)) {
    best = length2(v, CANDIDATE);
    for (let i = 0; i < 3; i++) v[PLACE_SHIFT + i] = v[CANDIDATE + i];
  }
  projectOrigin(v, CANDIDATE, PLACE_CENTER_1, PLACE_REACH_1);
  if (inside(v, CANDIDATE, PLACE_CENTER_0, PLACE_REACH_0) && length2(v, CANDIDATE) < best) {
    best = length2(v, CANDIDATE);
    for (let i = 0; i < 3; i++) v[PLACE_SHIFT + i] = v[CANDIDATE + i];
  }
  if (best < Infinity) return true;
  const r0 = v[PLACE_REACH_0],
    r1 = v[PLACE_REACH_1];
  const a = (d * d + r0 * r0 - r1 * r1) / (2 * d);
  const rho = Math.sqrt(Math.max(0, r0 * r0 - a * a));
  // The circle's centre m, and the direction from it toward the origin, within the circle's plane.
  let dot = 0;
  for (let i = 0; i < 3; i++) {
    v[CANDIDATE + i] = v[PLACE_CENTER_0 + i] + v[AXIS + i] * a;
    dot -= v[CANDIDATE + i] * v[AXIS + i];
  }
  let x = -v[CANDIDATE] - dot * v[AXIS],
    y = -v[CANDIDATE + 1] - dot * v[AXIS + 1],
    z = -v[CANDIDATE + 2] - dot * v[AXIS + 2];
  let len = Math.sqrt(x * x + y * y + z * z);
  if (!(len > 1e-12 * rho)) {
    // The origin on the axis: every point of the circle is as near; take one perpendicular to the axis.
    const e = Math.abs(v[AXIS]) < 0.9 ? 0 : 1;
    x = (e === 0 ? 1 : 0) - v[AXIS + e] * v[AXIS];
    y = (e === 1 ? 1 : 0) - v[AXIS + e] * v[AXIS + 1];
    z = -v[AXIS + e] * v[AXIS + 2];
    len = Math.sqrt(x * x + y * y + z * z);
  }
  v[PLACE_SHIFT] = v[CANDIDATE] + (rho * x) / len;
  v[PLACE_SHIFT + 1] = v[CANDIDATE + 1] + (rho * y) / len;
  v[PLACE_SHIFT + 2] = v[CANDIDATE + 2] + (rho * z) / len;
  return true;
}
