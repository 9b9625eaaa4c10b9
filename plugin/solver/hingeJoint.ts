import { clampAngle } from "./angleRange.js";
import type { JointLimits } from "./limits.js";

/**
 * The angle (radians, in (-π, π]) a hinge joint's Δ = q[o..o+3] turns about its hinge axis, into
 * out[oo]: where Δ takes the bone axis, seen in the hinge plane, or Δ's own turn about the axis when the
 * bone runs along it. Written to an array, not returned, so a call V8 does not inline boxes nothing.
 */
export function measureHingeAngle(
  limits: JointLimits,
  j: number,
  q: Float64Array,
  o: number,
  out: Float64Array,
  oo: number,
): void {
  const j3 = 3 * j;
  const h = limits.hingeAxis,
    a = limits.boneAxis;
  const hx = h[j3],
    hy = h[j3 + 1],
    hz = h[j3 + 2];
  const qx = q[o],
    qy = q[o + 1],
    qz = q[o + 2],
    qw = q[o + 3];
  // The bone axis with its component along the hinge removed: the hinge turns it in that plane.
  const ah = a[j3] * hx + a[j3 + 1] * hy + a[j3 + 2] * hz;
  const apx = a[j3] - ah * hx,
    apy = a[j3 + 1] - ah * hy,
    apz = a[j3 + 2] - ah * hz;
  const apl = Math.sqrt(apx * apx + apy * apy + apz * apz);
  let angle = NaN;
  if (apl > 1e-6) {
    // Where Δ takes the bone axis, projected into the hinge plane.
    const ax = a[j3],
      ay = a[j3 + 1],
      az = a[j3 + 2];
    const cx = 2 * (qy * az - qz * ay),
      cy = 2 * (qz * ax - qx * az),
      cz = 2 * (qx * ay - qy * ax);
    const dx = ax + qw * cx + (qy * cz - qz * cy),
      dy = ay + qw * cy + (qz * cx - qx * cz),
      dz = az + qw * cz + (qx * cy - qy * cx);
    const dh = dx * hx + dy * hy + dz * hz;
    const spx = dx - dh * hx,
      spy = dy - dh * hy,
      spz = dz - dh * hz;
    const spl = Math.sqrt(spx * spx + spy * spy + spz * spz);
    if (spl > 1e-9 * apl) {
      const crossH =
        hx * (apy * spz - apz * spy) + hy * (apz * spx - apx * spz) + hz * (apx * spy - apy * spx);
      angle = Math.atan2(crossH, apx * spx + apy * spy + apz * spz);
    }
  }
  if (Number.isNaN(angle)) {
    // The bone runs along the hinge (or is turned onto it): use Δ's own rotation about the hinge axis.
    angle = 2 * Math.atan2(qx * hx + qy * hy + qz * hz, qw);
    if (angle > Math.PI) angle -= 2 * Math.PI;
    else if (angle <= -Math.PI) angle += 2 * Math.PI;
  }
  out[oo] = angle;
}

/**
 * Holds a hinge joint's Δ = q[o..o+3] to a pure turn about its axis within its range (scratch[so + 4..so + 7]
 * carry the angle, the range and whether it was clamped); true when Δ changed.
 */
export function projectHinge(
  limits: JointLimits,
  j: number,
  q: Float64Array,
  o: number,
  scratch: Float64Array,
  so: number,
): boolean {
  measureHingeAngle(limits, j, q, o, scratch, so + 4);
  const h = limits.hingeAxis;
  const hx = h[3 * j],
    hy = h[3 * j + 1],
    hz = h[3 * j + 2];
  const qx = q[o],
    qy = q[o + 1],
    qz = q[o + 2];
  scratch[so + 5] = limits.hinge[2 * j];
  scratch[so + 6] = limits.hinge[2 * j + 1];
  const clamped = clampAngle(scratch, so + 4);
  scratch[so + 7] = clamped ? 1 : 0;
  const half = 0.5 * scratch[so + 4];
  const s = Math.sin(half);
  const nx = hx * s,
    ny = hy * s,
    nz = hz * s,
    nw = Math.cos(half);
  // Unchanged when Δ already was a pure, in-range turn about the axis: its vector part has nothing off the
  // axis. (Comparing with the pure turn by their dot product let turns up to 1e-7 rad off the axis through:
  // a dot of 1 − 1e-15 still leaves that much.)
  const along = qx * hx + qy * hy + qz * hz;
  const ox = qx - along * hx,
    oy = qy - along * hy,
    oz = qz - along * hz;
  if (!clamped && ox * ox + oy * oy + oz * oz < 1e-30) return false;
  q[o] = nx;
  q[o + 1] = ny;
  q[o + 2] = nz;
  q[o + 3] = nw;
  return true;
}
