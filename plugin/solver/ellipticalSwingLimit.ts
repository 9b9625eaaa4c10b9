import type { JointLimits } from "./limits.js";

/**
 * The elliptical swing cone works in swing space: a bone direction that has swung by angle θ from the
 * rest axis toward the unit direction (cos φ, sin φ) of the right/up plane is the 2-D point θ·(cos φ, sin φ)
 * (an azimuthal equidistant map, so angles up to π stay finite, unlike the tangent-plane cross-section).
 * The allowed region is bounded in each quadrant by a quarter ellipse through the two side angles of that
 * quadrant, e.g. (right, 0) and (0, up). A point outside moves to the NEAREST point of its own quadrant's
 * ellipse in this plane (Euclidean distance in swing space, i.e. in radians).
 */

/**
 * In: `s[o], s[o+1]` a point (x, y) with x, y >= 0 and `s[o+2], s[o+3]` the semi-axes (ex along x, ey along
 * y). Out: `s[o], s[o+1]` the nearest point of the ellipse boundary when the point is outside; unchanged
 * inside. Returns true when it moved the point.
 *
 * Eberly's robust formulation ("Distance from a point to an ellipse", 2013): in coordinates scaled by the
 * minor axis the root is bracketed, and Newton's method started at the bracket's left end converges to it
 * monotonically (the function is convex there), for any eccentricity (a cone a thousand times wider than it
 * is tall included), where Newton's method on the raw equation does not.
 */
export function clampToQuarterEllipse(s: Float64Array, o: number): boolean {
  const x = s[o],
    y = s[o + 1];
  // An axis under 1e-12 of the other is a segment (the error is below 1e-12 rad); this also keeps
  // denormal angles out of the scaled coordinates below.
  const major = Math.max(s[o + 2], s[o + 3]);
  const ex = s[o + 2] > 1e-12 * major ? s[o + 2] : 0,
    ey = s[o + 3] > 1e-12 * major ? s[o + 3] : 0;
  if (!(ex > 0) || !(ey > 0)) {
    // A degenerate quarter: the segment along the axis that still has extent (or just the centre).
    const nx = ey > 0 ? 0 : Math.min(x, ex > 0 ? ex : 0);
    const ny = ex > 0 ? 0 : Math.min(y, ey > 0 ? ey : 0);
    const moved = nx !== x || ny !== y;
    s[o] = nx;
    s[o + 1] = ny;
    return moved;
  }
  const u = x / ex,
    v = y / ey;
  if (u * u + v * v <= 1) return false;
  // Major axis first: (e0, p0) the larger semi-axis and its coordinate.
  const swap = ey > ex;
  const e0 = swap ? ey : ex,
    e1 = swap ? ex : ey,
    p0 = swap ? y : x,
    p1 = swap ? x : y;
  let q0: number, q1: number;
  if (p1 > 0) {
    if (p0 > 0) {
      const z0 = p0 / e0,
        z1 = p1 / e1;
      const r0 = (e0 / e1) * (e0 / e1);
      const n0 = r0 * z0;
      // g(t) = (n0 / (t + r0))² + (z1 / (t + 1))² − 1 is convex and decreasing on the bracket
      // [z1 − 1, |(n0, z1)| − 1], g ≥ 0 at its left end: Newton's method from there converges to the root
      // from the left, quadratically, in a handful of steps where bisection took some fifty. A step that
      // leaves the bracket (rounding, or t + 1 rounding to 0 for a point on the axis) bisects instead.
      let lo = z1 - 1,
        hi = Math.sqrt(n0 * n0 + z1 * z1) - 1;
      let root = lo;
      for (let i = 0; i < 100; i++) {
        const ia = 1 / (root + r0),
          ib = 1 / (root + 1);
        const a = n0 * ia,
          b = z1 * ib;
        const g = a * a + b * b - 1;
        if (g > 0) lo = root;
        else if (g < 0) hi = root;
        else break;
        let next = root + g / (2 * (a * a * ia + b * b * ib));
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        if (next === root || next === lo || next === hi) break;
        root = next;
      }
      q0 = (r0 * p0) / (root + r0);
      q1 = p1 / (root + 1);
    } else {
      q0 = 0;
      q1 = e1;
    }
  } else {
    const numer = e0 * p0,
      denom = e0 * e0 - e1 * e1;
    if (numer < denom) {
      const t = numer / denom;
      q0 = e0 * t;
      q1 = e1 * Math.sqrt(1 - t * t);
    } else {
      q0 = e0;
      q1 = 0;
    }
  }
  s[o] = swap ? q1 : q0;
  s[o + 1] = swap ? q0 : q1;
  return true;
}

/** Within this fraction of the ellipse's boundary (in its squared measure), the full split decides. */
const INSIDE_MARGIN = 1e-9;
/** Swung nearer than this to the bone's opposite direction (cos θ), θ from its cosine loses digits. */
const NEAR_FLIPPED_COS = -0.99;
/** A swing direction shorter than this (sin θ) is left to the full split. */
const SHORT_SWING_SIN = 1e-6;

/**
 * Whether the bone axis swung to `cos θ` from rest, `(px, py, pz)` its offset across the axis (of length
 * sin θ), lies inside the joint's elliptical cone by more than rounding: the full split (measureSwingTwist)
 * would find nothing to clamp. Where it is near the boundary, near the flipped axis or barely swung, false:
 * the full split decides, as without this test.
 */
export function swingClearlyInside(
  limits: JointLimits,
  j: number,
  px: number,
  py: number,
  pz: number,
  cos: number,
): boolean {
  if (!(cos > NEAR_FLIPPED_COS)) return false;
  const pl = Math.sqrt(px * px + py * py + pz * pz);
  if (!(pl > SHORT_SWING_SIN)) return false;
  const j3 = 3 * j,
    j4 = 4 * j;
  const up = limits.upAxis,
    right = limits.rightAxis;
  const x = (px * right[j3] + py * right[j3 + 1] + pz * right[j3 + 2]) / pl,
    y = (px * up[j3] + py * up[j3 + 1] + pz * up[j3 + 2]) / pl;
  const sw = limits.swing;
  const ex = x >= 0 ? sw[j4 + 1] : sw[j4 + 3],
    ey = y >= 0 ? sw[j4] : sw[j4 + 2];
  // A cone flattened to a segment on any side has that side's edge on its boundary, which rounding may put
  // either side of: the split's own rule decides.
  const major = Math.max(sw[j4], sw[j4 + 1], sw[j4 + 2], sw[j4 + 3]),
    minor = Math.min(sw[j4], sw[j4 + 1], sw[j4 + 2], sw[j4 + 3]);
  if (!(minor > 1e-9 * major)) return false;
  const theta = Math.acos(cos);
  const u = (theta * x) / ex,
    v = (theta * y) / ey;
  return u * u + v * v <= 1 - INSIDE_MARGIN;
}
