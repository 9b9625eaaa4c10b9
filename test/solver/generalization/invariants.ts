// What every solve must keep, measured rather than asserted, so the test asserts and the bench prints the
// same numbers: bone lengths, limits, orientations that agree with positions, finite numbers.
import type { JointLimits, Pose, Rig } from "../../../plugin/index.js";
import { conj, deltaOf, limitViolation, mul, restOffsets, rotate } from "../limitChecks.js";

export interface PoseErrors {
  /** Largest bone length change, relative to the bone's length in the start pose. */
  length: number;
  /** Largest distance outside a joint's limits (radians). */
  limit: number;
  /**
   * Largest disagreement of a joint's orientation with its bones: the parent's orientation applied to the
   * child's rest offset, at the bone's length, against where the child is; relative to the bone's length.
   */
  orientation: number;
  /** Any position or orientation not finite. */
  nan: boolean;
}

/**
 * How far a hinge's Δ is outside it (radians), measured independently of the solver's projection: the
 * rotation off the hinge axis, or the angle about it beyond [min, max].
 */
export function hingeViolation(limits: JointLimits, pose: Pose, j: number): number {
  const d = deltaOf(limits, pose, j);
  const sign = d[3] < 0 ? -1 : 1;
  const a = limits.hingeAxis.subarray(3 * j, 3 * j + 3);
  const along = sign * (d[0] * a[0] + d[1] * a[1] + d[2] * a[2]);
  const w = sign * d[3];
  const angle = 2 * Math.atan2(along, w);
  const half = angle / 2;
  // Δ = off · about-axis; off = Δ · about-axis⁻¹.
  const off = mul(
    d,
    conj([a[0] * Math.sin(half), a[1] * Math.sin(half), a[2] * Math.sin(half), Math.cos(half)]),
  );
  const offAngle = 2 * Math.atan2(Math.hypot(off[0], off[1], off[2]), Math.abs(off[3]));
  const { min, max } = limits.specs[j]!.hinge!;
  return Math.max(offAngle, min - angle, angle - max, 0);
}

export function poseErrors(rig: Rig, limits: JointLimits | undefined, start: Pose, pose: Pose): PoseErrors {
  const { positions: p, orientations: o } = pose;
  const errors: PoseErrors = { length: 0, limit: 0, orientation: 0, nan: false };
  for (const v of p) if (!Number.isFinite(v)) errors.nan = true;
  for (const v of o) if (!Number.isFinite(v)) errors.nan = true;
  if (errors.nan) return { length: NaN, limit: NaN, orientation: NaN, nan: true };
  const offsets = restOffsets(rig);
  for (let j = 0; j < rig.jointCount; j++) {
    const spec = limits?.specs[j];
    if (limits !== undefined && spec !== undefined) {
      const v = spec.hinge !== undefined ? hingeViolation(limits, pose, j) : limitViolation(limits, pose, j);
      errors.limit = Math.max(errors.limit, v);
    }
    const parent = rig.parents[j];
    if (parent < 0) continue;
    const bone = [0, 1, 2].map((i) => p[3 * j + i] - p[3 * parent + i]);
    const len = Math.hypot(...bone);
    const startLen = Math.hypot(
      ...[0, 1, 2].map((i) => start.positions[3 * j + i] - start.positions[3 * parent + i]),
    );
    if (startLen > 0) errors.length = Math.max(errors.length, Math.abs(len - startLen) / startLen);
    const rest = offsets.subarray(3 * j, 3 * j + 3);
    const restLen = Math.hypot(rest[0], rest[1], rest[2]);
    if (!(restLen > 0 && len > 0)) continue;
    const predicted = rotate(o.subarray(4 * parent, 4 * parent + 4), rest);
    const k = len / restLen;
    const miss = Math.hypot(
      predicted[0] * k - bone[0],
      predicted[1] * k - bone[1],
      predicted[2] * k - bone[2],
    );
    errors.orientation = Math.max(errors.orientation, miss / len);
  }
  return errors;
}
