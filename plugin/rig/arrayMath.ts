/*
 * Vector and quaternion arithmetic on Float64Array slots, for per-frame paths (the knee placement, the helpers).
 *
 * Babylon's Vector3 and Quaternion keep their components behind getters and setters; when V8 does not
 * inline such a call (a large caller has spent its inlining budget) every double crossing it is boxed on
 * the heap. Working on typed arrays and passing only arrays and small integer offsets keeps a frame free of
 * allocation. Quaternions are x y z w, Hamilton products (`a·b` applies b first), as Babylon's `multiply`;
 * products and rotations by a quaternion come from the solver's own quaternion module, re-exported here so
 * that the layers above the rig (babylon/, helpers/) find all the array maths in one place.
 */

export {
  quatConjugateMultiply,
  quatFromUnitVectors,
  quatMultiply,
  quatMultiplyConjugate,
  quatRotate,
  quatRotateInverse,
} from "../solver/quaternion.js";

/** out[o..o+2] = v[vo..vo+2] / |v|; false (out untouched) when |v| is 0 or not finite. */
export function normalize3(out: Float64Array, o: number, v: Float64Array, vo: number): boolean {
  const x = v[vo],
    y = v[vo + 1],
    z = v[vo + 2];
  const len = Math.sqrt(x * x + y * y + z * z);
  if (!(len > 0) || !Number.isFinite(len)) return false;
  out[o] = x / len;
  out[o + 1] = y / len;
  out[o + 2] = z / len;
  return true;
}

/** out[o..o+3] = the rotation by `values[angle]` radians about the unit axis `axis[ao..]`. */
export function quatAxisAngle(
  out: Float64Array,
  o: number,
  axis: Float64Array,
  ao: number,
  values: Float64Array,
  angle: number,
): void {
  const half = values[angle] / 2;
  const s = Math.sin(half);
  out[o] = axis[ao] * s;
  out[o + 1] = axis[ao + 1] * s;
  out[o + 2] = axis[ao + 2] * s;
  out[o + 3] = Math.cos(half);
}

/** In place: q[o..o+3] becomes the fraction `values[t]` of its rotation (a slerp from the identity). */
export function quatScaleAngle(q: Float64Array, o: number, values: Float64Array, t: number): void {
  let x = q[o],
    y = q[o + 1],
    z = q[o + 2],
    w = q[o + 3];
  if (w < 0) {
    x = -x;
    y = -y;
    z = -z;
    w = -w;
  }
  const s = Math.sqrt(x * x + y * y + z * z);
  if (!(s > 1e-12)) {
    q[o] = q[o + 1] = q[o + 2] = 0;
    q[o + 3] = 1;
    return;
  }
  const half = Math.atan2(s, w) * values[t];
  const k = Math.sin(half) / s;
  q[o] = x * k;
  q[o + 1] = y * k;
  q[o + 2] = z * k;
  q[o + 3] = Math.cos(half);
}

/**
 * out[o..o+2] = the unit direction at fraction `values[t]` of the way from unit `a[ao..]` to unit
 * `b[bo..]` along the great circle (opposite inputs turn through a direction square to a). `out` may alias.
 */
export function slerpDirection(
  out: Float64Array,
  o: number,
  a: Float64Array,
  ao: number,
  b: Float64Array,
  bo: number,
  values: Float64Array,
  t: number,
): void {
  const ax = a[ao],
    ay = a[ao + 1],
    az = a[ao + 2];
  const bx = b[bo],
    by = b[bo + 1],
    bz = b[bo + 2];
  const f = values[t];
  let d = ax * bx + ay * by + az * bz;
  d = d > 1 ? 1 : d < -1 ? -1 : d;
  const angle = Math.acos(d);
  if (angle < 1e-9) {
    out[o] = bx;
    out[o + 1] = by;
    out[o + 2] = bz;
    return;
  }
  let px: number, py: number, pz: number;
  if (Math.PI - angle < 1e-9) {
    // Opposite: go through a direction square to a.
    if (Math.abs(ax) < 0.9) {
      px = 0;
      py = az;
      pz = -ay;
    } else {
      px = -az;
      py = 0;
      pz = ax;
    }
  } else {
    // The part of b square to a, which with a spans the great circle.
    px = bx - d * ax;
    py = by - d * ay;
    pz = bz - d * az;
  }
  const pl = Math.sqrt(px * px + py * py + pz * pz);
  const c = Math.cos(f * angle),
    s = Math.sin(f * angle) / pl;
  out[o] = ax * c + px * s;
  out[o + 1] = ay * c + py * s;
  out[o + 2] = az * c + pz * s;
}

/** Copies 3 (or `n`) numbers. */
export function copy(out: Float64Array, o: number, v: Float64Array, vo: number, n: number): void {
  for (let i = 0; i < n; i++) out[o + i] = v[vo + i];
}

/** out[o..o+2] = the direction v[vo..] transformed by the 3x3 part of `m` (Babylon `Matrix.m` layout). */
export function transformDirection(
  out: Float64Array,
  o: number,
  m: Float64Array,
  v: Float64Array,
  vo: number,
): void {
  const x = v[vo],
    y = v[vo + 1],
    z = v[vo + 2];
  out[o] = x * m[0] + y * m[4] + z * m[8];
  out[o + 1] = x * m[1] + y * m[5] + z * m[9];
  out[o + 2] = x * m[2] + y * m[6] + z * m[10];
}

/** out[o..o+2] = the point v[vo..] transformed by `m` (Babylon `Matrix.m` layout). `out` may alias v. */
export function transformPoint(
  out: Float64Array,
  o: number,
  m: Float64Array,
  v: Float64Array,
  vo: number,
): void {
  const x = v[vo],
    y = v[vo + 1],
    z = v[vo + 2];
  out[o] = x * m[0] + y * m[4] + z * m[8] + m[12];
  out[o + 1] = x * m[1] + y * m[5] + z * m[9] + m[13];
  out[o + 2] = x * m[2] + y * m[6] + z * m[10] + m[14];
}

/**
 * rows[ro..ro+8] = the rotation of unit quaternion q[qo..] as the images of the x, y and z axes, a row each
 * (Babylon's row-vector layout of `Matrix.FromQuaternion`).
 */
export function quaternionToRows(q: Float64Array, qo: number, rows: Float64Array, ro: number): void {
  const x = q[qo],
    y = q[qo + 1],
    z = q[qo + 2],
    w = q[qo + 3];
  rows[ro] = 1 - 2 * (y * y + z * z);
  rows[ro + 1] = 2 * (x * y + w * z);
  rows[ro + 2] = 2 * (x * z - w * y);
  rows[ro + 3] = 2 * (x * y - w * z);
  rows[ro + 4] = 1 - 2 * (x * x + z * z);
  rows[ro + 5] = 2 * (y * z + w * x);
  rows[ro + 6] = 2 * (x * z + w * y);
  rows[ro + 7] = 2 * (y * z - w * x);
  rows[ro + 8] = 1 - 2 * (x * x + y * y);
}

/**
 * A proper rotation given by the images of the axes (r[ro + 3i..] = image of axis i) as a unit quaternion,
 * by the largest of w, x, y, z (Shepperd's method, stable for every rotation).
 */
export function rowsToQuaternion(r: ArrayLike<number>, ro: number, out: Float64Array, o: number): void {
  // In column terms M[i][j] = r[ro + 3j + i].
  const m00 = r[ro],
    m11 = r[ro + 4],
    m22 = r[ro + 8];
  const trace = m00 + m11 + m22;
  let x: number, y: number, z: number, w: number;
  if (trace > 0) {
    const s = 2 * Math.sqrt(trace + 1);
    w = s / 4;
    x = (r[ro + 5] - r[ro + 7]) / s;
    y = (r[ro + 6] - r[ro + 2]) / s;
    z = (r[ro + 1] - r[ro + 3]) / s;
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    w = (r[ro + 5] - r[ro + 7]) / s;
    x = s / 4;
    y = (r[ro + 3] + r[ro + 1]) / s;
    z = (r[ro + 6] + r[ro + 2]) / s;
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    w = (r[ro + 6] - r[ro + 2]) / s;
    x = (r[ro + 3] + r[ro + 1]) / s;
    y = s / 4;
    z = (r[ro + 7] + r[ro + 5]) / s;
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    w = (r[ro + 1] - r[ro + 3]) / s;
    x = (r[ro + 6] + r[ro + 2]) / s;
    y = (r[ro + 7] + r[ro + 5]) / s;
    z = s / 4;
  }
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  out[o] = x / len;
  out[o + 1] = y / len;
  out[o + 2] = z / len;
  out[o + 3] = w / len;
}
