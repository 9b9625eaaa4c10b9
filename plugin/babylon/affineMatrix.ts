/**
 * 4x4 affine matrices in Babylon's memory layout (`Matrix.m`), kept in Float64Arrays so that a world matrix
 * read once per frame can be inverted and applied without losing the precision the solver works in.
 *
 * Layout: row-vector convention, so a point maps as `x' = x*m[0] + y*m[4] + z*m[8] + m[12]` (and likewise
 * for y with m[1], m[5], m[9], m[13] and z with m[2], m[6], m[10], m[14]).
 */

/** Writes the identity into `out`. */
export function setIdentityMatrix(out: Float64Array): void {
  out.fill(0);
  out[0] = out[5] = out[10] = out[15] = 1;
}

/**
 * Inverts an affine matrix (last column 0 0 0 1) into `out`. Returns false, and writes the identity, when
 * the matrix is singular (a node scaled to zero), so callers never see NaN.
 */
export function invertAffineMatrix(m: ArrayLike<number>, out: Float64Array): boolean {
  const a00 = m[0],
    a01 = m[1],
    a02 = m[2];
  const a10 = m[4],
    a11 = m[5],
    a12 = m[6];
  const a20 = m[8],
    a21 = m[9],
    a22 = m[10];
  const c00 = a11 * a22 - a12 * a21;
  const c01 = a12 * a20 - a10 * a22;
  const c02 = a10 * a21 - a11 * a20;
  const det = a00 * c00 + a01 * c01 + a02 * c02;
  const scale = Math.abs(a00) + Math.abs(a11) + Math.abs(a22) + Math.abs(a01) + Math.abs(a10);
  if (!Number.isFinite(det) || Math.abs(det) <= 1e-300 || Math.abs(det) <= 1e-12 * scale * scale * scale) {
    setIdentityMatrix(out);
    return false;
  }
  const inv = 1 / det;
  const i00 = c00 * inv,
    i01 = (a02 * a21 - a01 * a22) * inv,
    i02 = (a01 * a12 - a02 * a11) * inv;
  const i10 = c01 * inv,
    i11 = (a00 * a22 - a02 * a20) * inv,
    i12 = (a02 * a10 - a00 * a12) * inv;
  const i20 = c02 * inv,
    i21 = (a01 * a20 - a00 * a21) * inv,
    i22 = (a00 * a11 - a01 * a10) * inv;
  const tx = m[12],
    ty = m[13],
    tz = m[14];
  out[0] = i00;
  out[1] = i01;
  out[2] = i02;
  out[3] = 0;
  out[4] = i10;
  out[5] = i11;
  out[6] = i12;
  out[7] = 0;
  out[8] = i20;
  out[9] = i21;
  out[10] = i22;
  out[11] = 0;
  out[12] = -(tx * i00 + ty * i10 + tz * i20);
  out[13] = -(tx * i01 + ty * i11 + tz * i21);
  out[14] = -(tx * i02 + ty * i12 + tz * i22);
  out[15] = 1;
  return true;
}

/** Maps the point (x, y, z) by `m` and writes it to `out[offset..offset+2]`. `out` may be any array. */
export function transformPoint(
  m: ArrayLike<number>,
  x: number,
  y: number,
  z: number,
  out: { [index: number]: number },
  offset = 0,
): void {
  out[offset] = x * m[0] + y * m[4] + z * m[8] + m[12];
  out[offset + 1] = x * m[1] + y * m[5] + z * m[9] + m[13];
  out[offset + 2] = x * m[2] + y * m[6] + z * m[10] + m[14];
}
