import { describe, expect, it } from "vitest";
import {
  compilePlan,
  createJointLimits,
  createPose,
  createRig,
  setJointLimit,
  solvePlan,
} from "../../plugin/index.js";

/*
 * A chain that turns one limited joint (a thigh on chainLength 1, a forearm alone) has one configuration per
 * target: its passes aim it as close as its limits allow, and there is nothing for a lock escape to find.
 * Such a solve stops as soon as it stalls instead of spending the iteration budget on escapes, and ends
 * where the best direction inside its limits puts it.
 */
describe("a single limited joint aiming at a target outside its limits", () => {
  // root at the origin, the turning joint one up, its child (the effector) two up: a 1-bone chain.
  const rig = createRig({
    parents: [-1, 0, 1],
    restPositions: [0, 0, 0, 0, 1, 0, 0, 2, 0],
    names: ["hip", "thigh", "knee"],
  });
  const cone = (30 * Math.PI) / 180;
  const limits = createJointLimits(rig);
  setJointLimit(limits, 1, {
    swing: { up: cone, right: cone, down: cone, left: cone },
    twist: { min: -0.2, max: 0.2 },
  });
  const plan = compilePlan(rig, { effectors: [{ joint: "knee", chainLength: 1 }], limits });

  /** The smallest distance to `target` of the knee over directions sampled inside the 30° cone. */
  function bestSampled(target: number[]): number {
    let best = Infinity;
    for (let i = 0; i <= 400; i++) {
      const polar = (cone * i) / 400;
      for (let k = 0; k < 360; k++) {
        const az = (2 * Math.PI * k) / 360;
        const x = Math.sin(polar) * Math.cos(az),
          y = Math.cos(polar),
          z = Math.sin(polar) * Math.sin(az);
        best = Math.min(best, Math.hypot(x - target[0], 1 + y - target[1], z - target[2]));
      }
    }
    return best;
  }

  for (const target of [
    [1, 1, 0],
    [0.3, 0.2, -0.9],
    [-2, 3, 1],
    [0, 0, 0],
  ]) {
    it(`target (${target.join(", ")}): stops within 4 iterations, no escape, as near as the limits allow`, () => {
      const pose = createPose(rig);
      const report = solvePlan(plan, pose, Float64Array.from(target), { tolerance: 1e-4, maxIterations: 50 });
      expect(report.converged).toBe(false);
      // At most two plain iterations (one to aim, one to see it stall), then two with the limits inside.
      expect(report.iterations).toBeLessThanOrEqual(4);
      expect(report.escapes).toBe(0);
      // The sampling grid is 0.075° apart: the solve must be at least as near, up to that grid.
      expect(report.residuals[0]).toBeLessThanOrEqual(bestSampled(target) + 2e-3);
      const dy = pose.positions[7] - pose.positions[4];
      expect(Math.acos(Math.min(1, dy))).toBeLessThanOrEqual(cone + 1e-6);
    });
  }
});

describe("a two-bone arm whose elbow is a hinge", () => {
  // Shoulder at the origin, elbow 1 along +X, wrist 2 along +X; the elbow folds toward +Z (about -Y).
  const rig = createRig({
    parents: [-1, 0, 1, 2],
    restPositions: [-0.2, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0],
    names: ["chest", "shoulder", "elbow", "wrist"],
  });
  const limits = createJointLimits(rig);
  setJointLimit(limits, 1, {
    swing: { up: 1.4, right: 1.4, down: 1.4, left: 1.4 },
    twist: { min: -1, max: 1 },
  });
  setJointLimit(limits, 2, { hinge: { axis: [0, -1, 0], min: 0, max: 2.6 } });
  const plan = compilePlan(rig, { effectors: [{ joint: "wrist", chainLength: 2 }], limits });

  it("reaches targets inside its limits in one iteration: the two-bone seed, with the hinge rolled to its bend", () => {
    // Targets the folded arm reaches with the elbow plane turned about the upper arm: the plain passes
    // would bend it in the plane through the start pose instead, which breaks the hinge.
    let oneIteration = 0;
    const n = 200;
    for (let i = 0; i < n; i++) {
      const bend = 0.3 + (2 * i) / n,
        roll = -1 + (2 * ((i * 37) % n)) / n;
      // Fold by `bend` toward +Z, then roll the whole arm about its own (+X) axis by `roll`.
      const fx = 1 + Math.cos(bend),
        fz = Math.sin(bend);
      const target = Float64Array.of(fx, -fz * Math.sin(roll), fz * Math.cos(roll));
      const pose = createPose(rig);
      const report = solvePlan(plan, pose, target, { tolerance: 1e-4, maxIterations: 20 });
      expect(report.converged).toBe(true);
      if (report.iterations === 1) oneIteration++;
    }
    expect(oneIteration).toBe(n);
  });
});

/** Joint j's rotation relative to joint p's, from model-space orientations (x, y, z, w). */
function local(o: Float64Array, p: number, j: number): number[] {
  const [ax, ay, az, aw] = [-o[4 * p], -o[4 * p + 1], -o[4 * p + 2], o[4 * p + 3]];
  const [bx, by, bz, bw] = [o[4 * j], o[4 * j + 1], o[4 * j + 2], o[4 * j + 3]];
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}

describe("a thigh turned on chainLength 1 above a hinged knee", () => {
  // Hip, thigh joint, knee and ankle down -Y (a leg at rest); the knee bent 20° about +X, within its hinge.
  const rig = createRig({
    parents: [-1, 0, 1, 2],
    restPositions: [0, 0, 0, 0.1, -0.05, 0, 0.1, -0.5, 0, 0.1, -0.9, -0.14],
    names: ["pelvis", "thigh", "knee", "ankle"],
  });
  const limits = createJointLimits(rig);
  setJointLimit(limits, 1, {
    swing: { up: 1.2, right: 0.8, down: 0.5, left: 0.4 },
    twist: { min: -0.6, max: 0.6 },
  });
  setJointLimit(limits, 2, { hinge: { axis: [1, 0, 0], min: -0.35, max: 2.3 } });
  const plan = compilePlan(rig, { effectors: [{ joint: "knee", chainLength: 1 }], limits });

  it.each([false, true])(
    "meets a target the thigh reaches within its limits in one iteration, exactly, the knee's bend carried (tracking: %s)",
    (tracking) => {
      const thighLength = Math.hypot(0, 0.45, 0);
      for (let i = 0; i < 100; i++) {
        // The knee turned about the thigh joint by up to 0.35 rad (inside every side of the cone, no twist).
        const a = (2 * Math.PI * i) / 100,
          t = 0.05 + (0.3 * ((i * 37) % 100)) / 100;
        const dx = Math.sin(t) * Math.cos(a),
          dz = Math.sin(t) * Math.sin(a),
          dy = -Math.cos(t);
        const target = Float64Array.of(0.1 + thighLength * dx, -0.05 + thighLength * dy, thighLength * dz);
        const pose = createPose(rig);
        const kneeBefore = local(pose.orientations, 1, 2);
        const report = solvePlan(plan, pose, target, { tolerance: 1e-4, maxIterations: 20, tracking });
        expect(report.converged).toBe(true);
        expect(report.iterations).toBe(1);
        expect(report.residuals[0]).toBeLessThan(1e-12);
        // The knee's rotation relative to the thigh is the one it came with: its hinge bend is carried.
        const kneeAfter = local(pose.orientations, 1, 2);
        const dot = kneeBefore.reduce((sum, v, k) => sum + v * kneeAfter[k], 0);
        expect(2 * Math.acos(Math.min(1, Math.abs(dot)))).toBeLessThan(1e-7);
        expect(report.onLimit[1]).toBe(0);
      }
    },
  );
});
