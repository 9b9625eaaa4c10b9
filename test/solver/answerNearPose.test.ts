import { describe, expect, it } from "vitest";
import {
  compilePlan,
  createJointLimits,
  setJointLimit,
  solvePlan,
  type Pose,
  type Rig,
  type SolvePlan,
} from "../../plugin/index.js";
import { pullTowardPose } from "../../plugin/solver/answerNearPose.js";
import { straightChain } from "./fixtures.js";
import { axisAngle, conj, mul, rotationDistance } from "./limitChecks.js";

/*
 * The behavior's retry from the animated pose meets the targets knowing nothing of last frame's answer:
 * pullTowardPose takes such an answer toward another pose of the rig (last frame's) while it keeps meeting.
 * Here a 4-bone chain with wide cones (so the oriented passes solve it) meets one target from two starts bent opposite ways, in answers far apart.
 */

/** Forward kinematics of a chain along +Y from the rig's rest offsets, each joint turned about `axis`. */
function bentPose(rig: Rig, angles: readonly number[], axis: [number, number, number]): Pose {
  const n = rig.jointCount;
  const positions = new Float64Array(3 * n);
  const orientations = new Float64Array(4 * n);
  let q = axisAngle(axis, angles[0]);
  orientations.set(q, 0);
  for (let j = 1; j < n; j++) {
    const d = [0, 0, 0, 0];
    for (let i = 0; i < 3; i++) d[i] = rig.restPositions[3 * j + i] - rig.restPositions[3 * (j - 1) + i];
    const v = mul(mul(q, d), conj(q));
    for (let i = 0; i < 3; i++) positions[3 * j + i] = positions[3 * (j - 1) + i] + v[i];
    q = mul(q, axisAngle(axis, angles[j] ?? 0));
    orientations.set(q, 4 * j);
  }
  return { positions, orientations };
}

/** The largest angle between two poses' local rotations over joints 0..n-2 (the chain's turning joints). */
function largestLocalTurn(a: Float64Array, b: Float64Array, n: number): number {
  let largest = 0;
  for (let j = 0; j < n - 1; j++) {
    const qa =
      j > 0 ? mul(conj(a.subarray(4 * j - 4, 4 * j)), a.subarray(4 * j, 4 * j + 4)) : a.subarray(0, 4);
    const qb =
      j > 0 ? mul(conj(b.subarray(4 * j - 4, 4 * j)), b.subarray(4 * j, 4 * j + 4)) : b.subarray(0, 4);
    largest = Math.max(largest, rotationDistance(qa, qb));
  }
  return largest;
}

/** The chain's plan, every joint within a 120° cone and a ±90° twist. */
function conedChain(rig: Rig): SolvePlan {
  const limits = createJointLimits(rig);
  for (let j = 0; j < 4; j++)
    setJointLimit(limits, j, {
      swing: { up: 2.1, right: 2.1, down: 2.1, left: 2.1 },
      twist: { min: -1.6, max: 1.6 },
    });
  return compilePlan(rig, { effectors: [{ joint: 4 }], limits });
}

describe("pullTowardPose", () => {
  it("brings an answer met from another start nearer a given pose, still meeting the target", () => {
    const rig = straightChain(4);
    const plan = conedChain(rig);
    const targets = new Float64Array([1.2, 2.9, 0.4]);
    const settings = { tolerance: 1e-4, maxIterations: 100 };
    const near = bentPose(rig, [0, 0.6, 0.6, 0.6], [0, 0, 1]);
    expect(solvePlan(plan, near, targets, settings).converged).toBe(true);
    const other = bentPose(rig, [0, 0.6, 0.6, 0.6], [0, 0, -1]);
    expect(solvePlan(plan, other, targets, settings).converged).toBe(true);
    const before = largestLocalTurn(other.orientations, near.orientations, rig.jointCount);
    expect(before).toBeGreaterThan(0.5);

    pullTowardPose(plan, other.positions, other.orientations, near.orientations, 0, targets, 50);
    expect(plan.report.converged).toBe(true);
    const tip = other.positions.subarray(12, 15);
    expect(Math.hypot(tip[0] - 1.2, tip[1] - 2.9, tip[2] - 0.4)).toBeLessThanOrEqual(1e-4);
    expect(largestLocalTurn(other.orientations, near.orientations, rig.jointCount)).toBeLessThan(
      0.5 * before,
    );
  });

  it("leaves an answer already near the pose as it is", () => {
    const rig = straightChain(4);
    const plan = conedChain(rig);
    const targets = new Float64Array([1.2, 2.9, 0.4]);
    const settings = { tolerance: 1e-4, maxIterations: 100 };
    const pose = bentPose(rig, [0, 0.6, 0.6, 0.6], [0, 0, 1]);
    solvePlan(plan, pose, targets, settings);
    const near = pose.orientations.slice();
    const positions = pose.positions.slice();
    solvePlan(plan, pose, targets, settings);
    expect(pullTowardPose(plan, pose.positions, pose.orientations, near, 0, targets, 50)).toBe(0);
    expect(Array.from(pose.positions)).toEqual(Array.from(positions));
  });
});
