/**
 * The elliptical swing cone works in swing space: a bone direction that has swung by angle θ from the
 * rest axis toward the unit direction (cos φ, sin φ) of the right/up plane is the 2-D point θ·(cos φ, sin φ)
 * (an azimuthal equidistant map, so angles up to π stay finite, unlike the tangent-plane cross-section).
 * The allowed region is bounded in each quadrant by a quarter ellipse through the two side angles of that
 * quadrant, e.g. (right, 0) and (0, up). A point outside moves to the NEAREST point of its own quadrant's
 * ellipse in this plane (Euclidean distance in swing space, i.e. in radians), found by Newton's method on
 * Eberly's distance equation, which converges monotonically from t = 0 for points outside.
 */

/**
 * In: `s[o], s[o+1]` a point (x, y) with x, y >= 0 and `s[o+2], s[o+3]` the semi-axes (ex along x, ey along
 * y). Out: `s[o], s[o+1]` the nearest point of the ellipse boundary when the point is outside; unchanged
 * inside. Returns true when it moved the point.
 */
export function clampToQuarterEllipse(s: Float64Array, o: number): boolean {
  const x = s[o],
    y = s[o + 1],
    ex = s[o + 2],
    ey = s[o + 3];
  if (ex <= 1e-12 || ey <= 1e-12) {
    // A degenerate quarter: the segment along the axis that still has extent (or just the centre).
    const nx = ey <= 1e-12 ? Math.min(x, ex) : 0;
    const ny = ex <= 1e-12 ? Math.min(y, ey) : 0;
    if (ex <= 1e-12 && ey <= 1e-12) {
      s[o] = 0;
      s[o + 1] = 0;
      return x !== 0 || y !== 0;
    }
    const moved = nx !== x || ny !== y;
    s[o] = nx;
    s[o + 1] = ny;
    return moved;
  }
  const u = x / ex,
    v = y / ey;
  if (u * u + v * v <= 1) return false;
  // Nearest point (ex² x / (t + ex²), ey² y / (t + ey²)) where F(t) = (ex x/(t+ex²))² + (ey y/(t+ey²))² - 1 = 0.
  const a2 = ex * ex,
    b2 = ey * ey;
  let t = 0;
  for (let i = 0; i < 64; i++) {
    const p = (ex * x) / (t + a2),
      q = (ey * y) / (t + b2);
    const f = p * p + q * q - 1;
    const df = (-2 * p * p) / (t + a2) - (2 * q * q) / (t + b2);
    const step = f / df;
    t -= step;
    if (!(Math.abs(step) > 1e-15 * (t + a2 + b2))) break;
  }
  s[o] = (a2 * x) / (t + a2);
  s[o + 1] = (b2 * y) / (t + b2);
  return true;
}
