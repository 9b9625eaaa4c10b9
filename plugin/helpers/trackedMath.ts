/*
 * Small vector and rotation steps of the tracked body, on Float64Array slots (see rig/arrayMath.ts for why
 * per-frame maths stays in typed arrays).
 */

import { rowsToQuaternion } from "../rig/index.js";

/** v[o..o+2] = v[a..] × v[b..] (o must differ from a and b). */
export function cross3(v: Float64Array, o: number, a: number, b: number): void {
  const ax = v[a],
    ay = v[a + 1],
    az = v[a + 2],
    bx = v[b],
    by = v[b + 1],
    bz = v[b + 2];
  v[o] = ay * bz - az * by;
  v[o + 1] = az * bx - ax * bz;
  v[o + 2] = ax * by - ay * bx;
}

/** In place: v[o..o+2] loses its component along the unit v[u..u+2]. */
export function removeAlong(v: Float64Array, o: number, u: number): void {
  const d = v[o] * v[u] + v[o + 1] * v[u + 1] + v[o + 2] * v[u + 2];
  v[o] -= d * v[u];
  v[o + 1] -= d * v[u + 1];
  v[o + 2] -= d * v[u + 2];
}

/** In place: v[o..o+2] made unit; false (unchanged) when too short or not finite. */
export function unit3(v: Float64Array, o: number): boolean {
  const len = Math.sqrt(v[o] * v[o] + v[o + 1] * v[o + 1] + v[o + 2] * v[o + 2]);
  if (!(len > 1e-9) || !Number.isFinite(len)) return false;
  v[o] /= len;
  v[o + 1] /= len;
  v[o + 2] /= len;
  return true;
}

/**
 * out[o..o+3] = the orientation of the frame whose first axis is the unit v[a..], second the part of v[b..]
 * square to it and third their cross product: the rotation taking (x, y, z) to those axes. Returns false
 * (out untouched) when v[b..] is parallel to v[a..]. Uses v[s..s+8] as scratch.
 */
export function frameQuaternion(
  out: Float64Array,
  o: number,
  v: Float64Array,
  a: number,
  b: number,
  s: number,
): boolean {
  v[s] = v[a];
  v[s + 1] = v[a + 1];
  v[s + 2] = v[a + 2];
  if (!unit3(v, s)) return false;
  v[s + 3] = v[b];
  v[s + 4] = v[b + 1];
  v[s + 5] = v[b + 2];
  removeAlong(v, s + 3, s);
  if (!unit3(v, s + 3)) return false;
  cross3(v, s + 6, s, s + 3);
  // The axes' images v[s..], v[s+3..], v[s+6..], a row each, to a quaternion.
  rowsToQuaternion(v, s, out, o);
  return true;
}

/**
 * out[o..o+3] = the slerp from unit q[a..] to unit q[b..] by the fraction `fractions[f]` (the shorter way). The
 * fraction is read from an array: a double handed to a call V8 does not inline is boxed, an allocation a frame.
 */
export function slerp4(
  out: Float64Array,
  o: number,
  q: Float64Array,
  a: number,
  b: number,
  fractions: Float64Array,
  f: number,
): void {
  const t = fractions[f];
  let bx = q[b],
    by = q[b + 1],
    bz = q[b + 2],
    bw = q[b + 3];
  let d = q[a] * bx + q[a + 1] * by + q[a + 2] * bz + q[a + 3] * bw;
  if (d < 0) {
    d = -d;
    bx = -bx;
    by = -by;
    bz = -bz;
    bw = -bw;
  }
  let ka = 1 - t,
    kb = t;
  if (d < 0.9995) {
    const angle = Math.acos(d);
    const s = Math.sin(angle);
    ka = Math.sin((1 - t) * angle) / s;
    kb = Math.sin(t * angle) / s;
  }
  const x = ka * q[a] + kb * bx,
    y = ka * q[a + 1] + kb * by,
    z = ka * q[a + 2] + kb * bz,
    w = ka * q[a + 3] + kb * bw;
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  out[o] = x / len;
  out[o + 1] = y / len;
  out[o + 2] = z / len;
  out[o + 3] = w / len;
}

/**
 * In place: the unit a[o..o+2], square to the unit `up[u..u+2]`, turned about that up toward the unit
 * b[bo..bo+2] (also square to it), the short way round, by the fraction w[f] of the part of the angle between
 * them beyond `most` (0: the whole angle). The fraction is read from an array: a double handed to a call V8
 * does not inline is boxed, an allocation a frame. Two headings half a turn apart turn about up too (a slerp
 * between them would pick any axis, and carry the heading through up on the way).
 */
export function turnAboutUp(
  a: Float64Array,
  o: number,
  b: Float64Array,
  bo: number,
  up: Float64Array,
  u: number,
  w: Float64Array,
  f: number,
  most: number,
): void {
  const ux = up[u],
    uy = up[u + 1],
    uz = up[u + 2];
  const ax = a[o],
    ay = a[o + 1],
    az = a[o + 2];
  // up × a: a turned a quarter about up.
  const px = uy * az - uz * ay,
    py = uz * ax - ux * az,
    pz = ux * ay - uy * ax;
  const angle = Math.atan2(
    px * b[bo] + py * b[bo + 1] + pz * b[bo + 2],
    ax * b[bo] + ay * b[bo + 1] + az * b[bo + 2],
  );
  // Branch-free (a turn by 0 within `most`): a path taken only now and then would stay in the interpreter.
  const over = Math.max(0, Math.abs(angle) - most);
  const turn = w[f] * (angle > 0 ? over : -over);
  const c = Math.cos(turn),
    s = Math.sin(turn);
  a[o] = ax * c + px * s;
  a[o + 1] = ay * c + py * s;
  a[o + 2] = az * c + pz * s;
}

/** {@link turnAboutUp} within one array, by the fraction v[f] of the whole angle from v[o..] to v[b..]. */
export function turnAbout(
  v: Float64Array,
  o: number,
  b: number,
  up: Float64Array,
  u: number,
  f: number,
): void {
  turnAboutUp(v, o, v, b, up, u, v, f, 0);
}
