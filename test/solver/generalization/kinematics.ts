// Forward kinematics for the generalization suite: poses built from joint rotations, so every target taken
// from them is reachable by construction.
import type { Pose, Rig } from "../../../plugin/index.js";
import { conj, mul, rotate } from "../limitChecks.js";

export type Vec3 = [number, number, number];
export type Quat = [number, number, number, number];

const IDENTITY: Quat = [0, 0, 0, 1];

/**
 * The pose whose joint j has local rotation restLocal_j · Δ_j (Δ as the limits measure it: relative to the
 * rest local rotation), with every bone at its rest offset in its parent's frame. Roots stay where they rest.
 * `deltas[j]` undefined means Δ = identity.
 */
export function forwardKinematics(rig: Rig, deltas: readonly (Quat | undefined)[]): Pose {
  const n = rig.jointCount;
  const { parents, restPositions: rp, restOrientations: ro } = rig;
  const positions = new Float64Array(3 * n);
  const orientations = new Float64Array(4 * n);
  const q = (a: ArrayLike<number>, j: number): Quat => [a[4 * j], a[4 * j + 1], a[4 * j + 2], a[4 * j + 3]];
  for (let j = 0; j < n; j++) {
    const p = parents[j];
    const delta = deltas[j] ?? IDENTITY;
    if (p < 0) {
      positions.set(rp.subarray(3 * j, 3 * j + 3), 3 * j);
      orientations.set(mul(q(ro, j), delta), 4 * j);
      continue;
    }
    const restLocal = mul(conj(q(ro, p)), q(ro, j));
    const parent = q(orientations, p);
    orientations.set(mul(parent, mul(restLocal, delta)), 4 * j);
    const offset = rotate(conj(q(ro, p)), [
      rp[3 * j] - rp[3 * p],
      rp[3 * j + 1] - rp[3 * p + 1],
      rp[3 * j + 2] - rp[3 * p + 2],
    ]);
    const w = rotate(parent, offset);
    for (let i = 0; i < 3; i++) positions[3 * j + i] = positions[3 * p + i] + w[i];
  }
  return { positions, orientations };
}

export function point(pose: Pose, j: number): Float64Array {
  return pose.positions.slice(3 * j, 3 * j + 3);
}
