/**
 * Quaternion and vector helpers on flat Float64Arrays: `(array, offset)` pairs in, results written to an
 * `(array, offset)` out. Only arrays and integer offsets cross a call, never a bare double: V8 boxes doubles
 * passed to calls it does not inline, and the solver must not allocate. Quaternions are `x y z w`, Hamilton
 * products, `a * b` applies `b` first (as glTF and Babylon compose parent * local). Outputs may alias inputs.
 */

/** out = a * b */
export function quatMultiply(
  out: Float64Array,
  o: number,
  a: Float64Array,
  ao: number,
  b: Float64Array,
  bo: number,
): void {
  const ax = a[ao],
    ay = a[ao + 1],
    az = a[ao + 2],
    aw = a[ao + 3];
  const bx = b[bo],
    by = b[bo + 1],
    bz = b[bo + 2],
    bw = b[bo + 3];
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** out = conjugate(a) * b: "b seen from a's frame" for unit a. */
export function quatConjugateMultiply(
  out: Float64Array,
  o: number,
  a: Float64Array,
  ao: number,
  b: Float64Array,
  bo: number,
): void {
  const ax = -a[ao],
    ay = -a[ao + 1],
    az = -a[ao + 2],
    aw = a[ao + 3];
  const bx = b[bo],
    by = b[bo + 1],
    bz = b[bo + 2],
    bw = b[bo + 3];
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** out = a * conjugate(b) */
export function quatMultiplyConjugate(
  out: Float64Array,
  o: number,
  a: Float64Array,
  ao: number,
  b: Float64Array,
  bo: number,
): void {
  const ax = a[ao],
    ay = a[ao + 1],
    az = a[ao + 2],
    aw = a[ao + 3];
  const bx = -b[bo],
    by = -b[bo + 1],
    bz = -b[bo + 2],
    bw = b[bo + 3];
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** out (vector) = q rotating v */
export function quatRotate(
  out: Float64Array,
  o: number,
  q: Float64Array,
  qo: number,
  v: Float64Array,
  vo: number,
): void {
  const qx = q[qo],
    qy = q[qo + 1],
    qz = q[qo + 2],
    qw = q[qo + 3];
  const vx = v[vo],
    vy = v[vo + 1],
    vz = v[vo + 2];
  // t = 2 (q.xyz x v); v' = v + w t + q.xyz x t
  const tx = 2 * (qy * vz - qz * vy),
    ty = 2 * (qz * vx - qx * vz),
    tz = 2 * (qx * vy - qy * vx);
  out[o] = vx + qw * tx + (qy * tz - qz * ty);
  out[o + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[o + 2] = vz + qw * tz + (qx * ty - qy * tx);
}

/** out (vector) = conjugate(q) rotating v: v brought into q's frame. */
export function quatRotateInverse(
  out: Float64Array,
  o: number,
  q: Float64Array,
  qo: number,
  v: Float64Array,
  vo: number,
): void {
  const qx = -q[qo],
    qy = -q[qo + 1],
    qz = -q[qo + 2],
    qw = q[qo + 3];
  const vx = v[vo],
    vy = v[vo + 1],
    vz = v[vo + 2];
  const tx = 2 * (qy * vz - qz * vy),
    ty = 2 * (qz * vx - qx * vz),
    tz = 2 * (qx * vy - qy * vx);
  out[o] = vx + qw * tx + (qy * tz - qz * ty);
  out[o + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[o + 2] = vz + qw * tz + (qx * ty - qy * tx);
}

/** Normalises in place; a zero quaternion becomes identity. */
export function quatNormalize(q: Float64Array, o: number): void {
  const x = q[o],
    y = q[o + 1],
    z = q[o + 2],
    w = q[o + 3];
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  if (len > 0) {
    q[o] = x / len;
    q[o + 1] = y / len;
    q[o + 2] = z / len;
    q[o + 3] = w / len;
  } else {
    q[o] = 0;
    q[o + 1] = 0;
    q[o + 2] = 0;
    q[o + 3] = 1;
  }
}

/**
 * Below this, 1 + a·b has lost too many digits for the half-angle form: the arc is built from its axis and
 * angle instead (see {@link quatFromUnitVectors}).
 */
const NEAR_OPPOSITE = 1e-6;

/**
 * out = the shortest rotation taking unit vector a to unit vector b, exact for any pair. Nearly opposite
 * vectors are the hard case: their cross product is tiny, so its rounding error tilts the axis toward `a`
 * and the half turn then misses b by that tilt. There the axis is made exactly perpendicular to `a` and the
 * angle is taken from atan2, which keeps every digit; opposite vectors (no cross product left) turn half
 * way about the perpendicular of `a` least aligned with a world axis, so the result is still deterministic.
 */
export function quatFromUnitVectors(
  out: Float64Array,
  o: number,
  a: Float64Array,
  ao: number,
  b: Float64Array,
  bo: number,
): void {
  const ax = a[ao],
    ay = a[ao + 1],
    az = a[ao + 2];
  const bx = b[bo],
    by = b[bo + 1],
    bz = b[bo + 2];
  const d = ax * bx + ay * by + az * bz;
  let x = ay * bz - az * by,
    y = az * bx - ax * bz,
    z = ax * by - ay * bx;
  if (d >= -1 + NEAR_OPPOSITE) {
    // q = (a x b, 1 + a.b) normalised: the half-angle form, exact and stable away from opposite vectors.
    const w = 1 + d;
    const len = Math.sqrt(x * x + y * y + z * z + w * w);
    out[o] = x / len;
    out[o + 1] = y / len;
    out[o + 2] = z / len;
    out[o + 3] = w / len;
    return;
  }
  const sin = Math.sqrt(x * x + y * y + z * z);
  // The axis, perpendicular to a: the cross product's direction, with what rounding left along a removed.
  const along = x * ax + y * ay + z * az;
  x -= along * ax;
  y -= along * ay;
  z -= along * az;
  let l = Math.sqrt(x * x + y * y + z * z);
  if (!(l > 1e-15)) {
    if (Math.abs(ax) <= Math.abs(ay) && Math.abs(ax) <= Math.abs(az)) {
      x = 0;
      y = az;
      z = -ay;
    } else if (Math.abs(ay) <= Math.abs(az)) {
      x = -az;
      y = 0;
      z = ax;
    } else {
      x = ay;
      y = -ax;
      z = 0;
    }
    l = Math.sqrt(x * x + y * y + z * z);
  }
  const half = 0.5 * Math.atan2(sin, d);
  const s = Math.sin(half) / l;
  out[o] = x * s;
  out[o + 1] = y * s;
  out[o + 2] = z * s;
  out[o + 3] = Math.cos(half);
}

/** Normalises the vector in place; returns false (and leaves it) when it is zero. */
export function vecNormalize(v: Float64Array, o: number): boolean {
  const x = v[o],
    y = v[o + 1],
    z = v[o + 2];
  const len = Math.sqrt(x * x + y * y + z * z);
  if (!(len > 0)) return false;
  v[o] = x / len;
  v[o + 1] = y / len;
  v[o + 2] = z / len;
  return true;
}
