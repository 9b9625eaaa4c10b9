/*
 * Test-side tools for delta robots: a typical robot, and an independent forward-kinematics reference, the
 * closed-form intersection of the three forearm spheres (trilateration), sharing no code with the plugin.
 */

export const DELTA = { baseRadius: 0.2, platformRadius: 0.05, upperArm: 0.3, forearm: 0.8 };

type V = [number, number, number];
const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a: V, b: V): V => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const scale = (a: V, s: number): V => [a[0] * s, a[1] * s, a[2] * s];
const dot = (a: V, b: V) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: V, b: V): V => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];

/** Elbow of arm i at motor angle θ, written out from the geometry (base in z = 0, θ positive down). */
export function elbow(r: typeof DELTA, phi: number, theta: number): V {
  const reach = r.baseRadius + r.upperArm * Math.cos(theta);
  return [reach * Math.cos(phi), reach * Math.sin(phi), -r.upperArm * Math.sin(theta)];
}

/**
 * The platform centre for motor angles: the lower of the two points at forearm length from every shifted
 * elbow (elbow − platformRadius·uᵢ); null when the spheres do not meet.
 */
export function trilaterate(r: typeof DELTA, phis: readonly number[], thetas: ArrayLike<number>): V | null {
  const c = phis.map((phi, i) => {
    const e = elbow(r, phi, thetas[i]);
    return sub(e, [r.platformRadius * Math.cos(phi), r.platformRadius * Math.sin(phi), 0]);
  });
  const ex = sub(c[1], c[0]);
  const d = Math.hypot(...ex);
  const x̂ = scale(ex, 1 / d);
  const i = dot(x̂, sub(c[2], c[0]));
  const ey = sub(sub(c[2], c[0]), scale(x̂, i));
  const ŷ = scale(ey, 1 / Math.hypot(...ey));
  const ẑ = cross(x̂, ŷ);
  const j = dot(ŷ, sub(c[2], c[0]));
  const l = r.forearm;
  // Equal radii: x = d/2; y from the third sphere.
  const x = d / 2;
  const y = (i * i + j * j - 2 * i * x) / (2 * j);
  const z2 = l * l - x * x - y * y;
  if (z2 < 0) return null;
  const base = add(c[0], add(scale(x̂, x), scale(ŷ, y)));
  const p1 = add(base, scale(ẑ, Math.sqrt(z2)));
  const p2 = sub(base, scale(ẑ, Math.sqrt(z2)));
  return p1[2] < p2[2] ? p1 : p2;
}
