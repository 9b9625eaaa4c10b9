/**
 * The little vector and quaternion algebra the generator needs, in float64 tuples. Quaternions are
 * `[x, y, z, w]` as in glTF; `mulQuat(a, b)` applies `b` first, then `a`.
 */

export type Vec3 = readonly [number, number, number];
export type Quat = readonly [number, number, number, number];

export const IDENTITY_QUAT: Quat = [0, 0, 0, 1];
export const X: Vec3 = [1, 0, 0];
export const Y: Vec3 = [0, 1, 0];
export const Z: Vec3 = [0, 0, 1];

export const add = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
export const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
export const scale = (a: Vec3, s: number): Vec3 => [a[0] * s, a[1] * s, a[2] * s];
export const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const length = (a: Vec3): number => Math.sqrt(dot(a, a));
export const cross = (a: Vec3, b: Vec3): Vec3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];

export function normalize(a: Vec3): Vec3 {
  const l = length(a);
  if (l === 0) throw new Error("normalize: zero-length vector");
  return scale(a, 1 / l);
}

/** `a + b * s`, the workhorse of joint layouts ("from here, go this far in that direction"). */
export const addScaled = (a: Vec3, b: Vec3, s: number): Vec3 => [
  a[0] + b[0] * s,
  a[1] + b[1] * s,
  a[2] + b[2] * s,
];

export const lerp = (a: number, b: number, t: number): number => a + (b - a) * t;

/** Cubic ease with zero slope at both ends, so blends and motions start and stop without a kink. */
export function smoothstep(t: number): number {
  const c = Math.min(1, Math.max(0, t));
  return c * c * (3 - 2 * c);
}

export const degrees = (d: number): number => (d * Math.PI) / 180;

export function quatFromAxisAngle(axis: Vec3, angle: number): Quat {
  const [x, y, z] = normalize(axis);
  const s = Math.sin(angle / 2);
  return [x * s, y * s, z * s, Math.cos(angle / 2)];
}

export function mulQuat(a: Quat, b: Quat): Quat {
  const [ax, ay, az, aw] = a;
  const [bx, by, bz, bw] = b;
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}

export const conjugate = (q: Quat): Quat => [-q[0], -q[1], -q[2], q[3]];

export function normalizeQuat(q: Quat): Quat {
  const l = Math.hypot(q[0], q[1], q[2], q[3]);
  return [q[0] / l, q[1] / l, q[2] / l, q[3] / l];
}

export function rotate(q: Quat, v: Vec3): Vec3 {
  const u: Vec3 = [q[0], q[1], q[2]];
  const t = scale(cross(u, v), 2);
  return add(add(v, scale(t, q[3])), cross(u, t));
}

/**
 * The shortest rotation taking unit vector `from` onto unit vector `to`. When they are opposite the
 * axis is ambiguous; `fallbackAxis` (perpendicular to `from`) picks it so the result stays deterministic.
 */
export function quatFromUnitVectors(from: Vec3, to: Vec3, fallbackAxis: Vec3 = Z): Quat {
  const d = dot(from, to);
  if (d < -1 + 1e-12) return quatFromAxisAngle(fallbackAxis, Math.PI);
  const c = cross(from, to);
  return normalizeQuat([c[0], c[1], c[2], 1 + d]);
}

/** A rigid transform (rotation, then translation). Every transform in these rigs is rigid. */
export interface Rigid {
  readonly rotation: Quat;
  readonly translation: Vec3;
}

export const applyRigid = (t: Rigid, p: Vec3): Vec3 => add(rotate(t.rotation, p), t.translation);

export function invertRigid(t: Rigid): Rigid {
  const r = conjugate(t.rotation);
  return { rotation: r, translation: scale(rotate(r, t.translation), -1) };
}

/** Column-major 4x4 matrix of a rigid transform, the layout glTF stores. */
export function rigidToMatrix(t: Rigid): number[] {
  const ex = rotate(t.rotation, X);
  const ey = rotate(t.rotation, Y);
  const ez = rotate(t.rotation, Z);
  const [tx, ty, tz] = t.translation;
  return [...ex, 0, ...ey, 0, ...ez, 0, tx, ty, tz, 1];
}
