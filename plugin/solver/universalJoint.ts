import { clampAngle } from "./angleRange.js";
import type { JointLimits } from "./limits.js";

/*
 * A universal (Cardan) joint in its rest frame: u, the first axis (fixed in the parent), v = b × u, the
 * second axis at rest, and b, the bone. Δ = Ru(α) · Rv(β) takes b to
 *   d = u sin β − v cos β sin α + b cos β cos α,
 * so the bone's direction alone gives β = asin(d·u) and α = atan2(−d·v, d·b): a universal joint is a direction
 * with no roll of its own, and holding it to its ranges clamps α and β.
 */

/**
 * Writes the joint's two angles for Δ = q[o..o+3] to out[oo] (α, about the first axis) and out[oo + 1] (β,
 * about the second), from where Δ takes the bone; any roll in Δ is ignored.
 */
export function measureUniversalAngles(
  limits: JointLimits,
  j: number,
  q: Float64Array,
  o: number,
  out: Float64Array,
  oo: number,
): void {
  const j3 = 3 * j;
  const a = limits.boneAxis,
    u = limits.upAxis,
    v = limits.rightAxis;
  const ax = a[j3],
    ay = a[j3 + 1],
    az = a[j3 + 2];
  const qx = q[o],
    qy = q[o + 1],
    qz = q[o + 2],
    qw = q[o + 3];
  const cx = 2 * (qy * az - qz * ay),
    cy = 2 * (qz * ax - qx * az),
    cz = 2 * (qx * ay - qy * ax);
  const dx = ax + qw * cx + (qy * cz - qz * cy),
    dy = ay + qw * cy + (qz * cx - qx * cz),
    dz = az + qw * cz + (qx * cy - qy * cx);
  const du = dx * u[j3] + dy * u[j3 + 1] + dz * u[j3 + 2];
  const dv = dx * v[j3] + dy * v[j3 + 1] + dz * v[j3 + 2];
  const db = dx * ax + dy * ay + dz * az;
  out[oo + 1] = Math.asin(du > 1 ? 1 : du < -1 ? -1 : du);
  // Along ±u (β = ±90°) α is undefined: 0, a defined answer.
  out[oo] = dv * dv + db * db > 1e-24 ? Math.atan2(-dv, db) : 0;
}

/**
 * Replaces Δ = q[o..o+3] with the universal joint's rotation nearest in its two angles: each clamped to its
 * range, the roll dropped. Returns true when Δ changed; `scratch[so + 7]` says whether an angle was clamped.
 * Uses scratch[so .. so + 7].
 */
export function projectUniversal(
  limits: JointLimits,
  j: number,
  q: Float64Array,
  o: number,
  scratch: Float64Array,
  so: number,
): boolean {
  measureUniversalAngles(limits, j, q, o, scratch, so);
  const j4 = 4 * j;
  const alpha = scratch[so],
    beta = scratch[so + 1];
  scratch[so + 4] = alpha;
  scratch[so + 5] = limits.swing[j4];
  scratch[so + 6] = limits.swing[j4 + 1];
  let clamped = clampAngle(scratch, so + 4);
  const a = scratch[so + 4];
  scratch[so + 4] = beta;
  scratch[so + 5] = limits.swing[j4 + 2];
  scratch[so + 6] = limits.swing[j4 + 3];
  if (clampAngle(scratch, so + 4)) clamped = true;
  const b = scratch[so + 4];

  // Ru(a) · Rv(b)
  const j3 = 3 * j;
  const u = limits.upAxis,
    v = limits.rightAxis;
  const sa = Math.sin(0.5 * a),
    ca = Math.cos(0.5 * a),
    sb = Math.sin(0.5 * b),
    cb = Math.cos(0.5 * b);
  const ux = u[j3] * sa,
    uy = u[j3 + 1] * sa,
    uz = u[j3 + 2] * sa;
  const vx = v[j3] * sb,
    vy = v[j3 + 1] * sb,
    vz = v[j3 + 2] * sb;
  const nx = ca * vx + cb * ux + (uy * vz - uz * vy),
    ny = ca * vy + cb * uy + (uz * vx - ux * vz),
    nz = ca * vz + cb * uz + (ux * vy - uy * vx),
    nw = ca * cb - (ux * vx + uy * vy + uz * vz);
  scratch[so + 7] = clamped ? 1 : 0;
  const dot = nx * q[o] + ny * q[o + 1] + nz * q[o + 2] + nw * q[o + 3];
  if (!clamped && Math.abs(dot) > 1 - 1e-15) return false;
  q[o] = nx;
  q[o + 1] = ny;
  q[o + 2] = nz;
  q[o + 3] = nw;
  return true;
}
