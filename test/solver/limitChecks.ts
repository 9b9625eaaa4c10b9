import { expect } from "vitest";
import { projectRotation, type JointLimits, type Pose, type Rig } from "../../plugin/index.js";

type Quat = [number, number, number, number];
export function mul(a: ArrayLike<number>, b: ArrayLike<number>): Quat {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}
export function conj(a: ArrayLike<number>): Quat {
  return [-a[0], -a[1], -a[2], a[3]];
}
export function rotate(q: ArrayLike<number>, v: ArrayLike<number>): [number, number, number] {
  const r = mul(mul(q, [v[0], v[1], v[2], 0]), conj(q));
  return [r[0], r[1], r[2]];
}
export function axisAngle(axis: ArrayLike<number>, angle: number): Quat {
  const l = Math.hypot(axis[0], axis[1], axis[2]);
  const s = Math.sin(angle / 2) / l;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
}
/** Angle between two rotations (radians). */
export function rotationDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  // atan2 of the relative rotation's parts stays exact near zero, where acos of a dot product does not.
  const r = mul(conj(a), b);
  return 2 * Math.atan2(Math.hypot(r[0], r[1], r[2]), Math.abs(r[3]));
}
const slice4 = (a: Float64Array, j: number) => Array.from(a.subarray(4 * j, 4 * j + 4));

/** Δ of joint j in a pose: its local rotation relative to its rest local rotation. */
export function deltaOf(limits: JointLimits, pose: Pose, j: number): Quat {
  const p = limits.rig.parents[j];
  const local =
    p >= 0
      ? mul(conj(slice4(pose.orientations, p)), slice4(pose.orientations, j))
      : slice4(pose.orientations, j);
  return mul(conj(slice4(limits.restLocal, j)), local);
}

/** How far (radians) joint j's rotation lies outside its swing/twist/hinge limits: 0 when they hold. */
export function limitViolation(limits: JointLimits, pose: Pose, j: number): number {
  const delta = Float64Array.from(deltaOf(limits, pose, j));
  const projected = delta.slice();
  projectRotation(limits, j, projected, 0, new Float64Array(16), 0);
  return rotationDistance(delta, projected);
}

/**
 * Every joint the solve turns (`turned`, all joints by default) is within its limits to `tol` radians,
 * orientations are unit, and each joint sits where its parent's frame puts it: at its rest offset, or for a
 * stretchable bone along the rest offset's direction at a length within the stretch range.
 */
export function expectConsistentPose(
  rig: Rig,
  limits: JointLimits,
  pose: Pose,
  restOffsets: Float64Array,
  tol = 1e-6,
  turned?: ArrayLike<number>,
) {
  for (let j = 0; j < rig.jointCount; j++) {
    const q = slice4(pose.orientations, j);
    for (const v of q) expect(Number.isFinite(v)).toBe(true);
    expect(Math.abs(Math.hypot(...q) - 1)).toBeLessThan(1e-9);
  }
  for (const j of Array.from(turned ?? Array.from({ length: rig.jointCount }, (_, i) => i))) {
    expect(limitViolation(limits, pose, j), `limit of joint ${j}`).toBeLessThanOrEqual(tol);
  }
  for (let j = 0; j < rig.jointCount; j++) {
    const p = rig.parents[j];
    if (p < 0) continue;
    const local = rotate(conj(slice4(pose.orientations, p)), [
      pose.positions[3 * j] - pose.positions[3 * p],
      pose.positions[3 * j + 1] - pose.positions[3 * p + 1],
      pose.positions[3 * j + 2] - pose.positions[3 * p + 2],
    ]);
    const rest = Array.from(restOffsets.subarray(3 * j, 3 * j + 3));
    if (limits.flags[j] & 16) {
      const len = Math.hypot(...local),
        restLen = Math.hypot(...rest);
      expect(len).toBeGreaterThanOrEqual(limits.stretch[2 * j] - 1e-9);
      expect(len).toBeLessThanOrEqual(limits.stretch[2 * j + 1] + 1e-9);
      for (let i = 0; i < 3; i++) expect(Math.abs(local[i] / len - rest[i] / restLen)).toBeLessThan(1e-9);
    } else {
      for (let i = 0; i < 3; i++)
        expect(Math.abs(local[i] - rest[i]), `offset of joint ${j}`).toBeLessThan(1e-9);
    }
  }
}

/** Each joint's offset in its parent's rest frame. */
export function restOffsets(rig: Rig): Float64Array {
  const out = new Float64Array(3 * rig.jointCount);
  for (let j = 0; j < rig.jointCount; j++) {
    const p = rig.parents[j];
    if (p < 0) continue;
    const v = rotate(conj(slice4(rig.restOrientations, p)), [
      rig.restPositions[3 * j] - rig.restPositions[3 * p],
      rig.restPositions[3 * j + 1] - rig.restPositions[3 * p + 1],
      rig.restPositions[3 * j + 2] - rig.restPositions[3 * p + 2],
    ]);
    out.set(v, 3 * j);
  }
  return out;
}
