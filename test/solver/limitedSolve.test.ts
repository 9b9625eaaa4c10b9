import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compilePlan,
  createJointLimits,
  createPose,
  createRig,
  projectRotation,
  setJointLimit,
  solvePlan,
  type JointLimits,
  type Pose,
  type Rig,
} from "../../plugin/index.js";
import { limitedHumanoidArm, random } from "./fixtures.js";
import { axisAngle, deltaOf, expectConsistentPose, mul, restOffsets, rotate } from "./limitChecks.js";

fc.configureGlobal({ seed: 20261121, numRuns: 200 });

/** Forward kinematics from local rotations Δ (relative to rest) per joint. */
function poseFromDeltas(rig: Rig, limits: JointLimits, deltas: number[][]): Pose {
  const pose = createPose(rig);
  const offsets = restOffsets(rig);
  for (let j = 0; j < rig.jointCount; j++) {
    const p = rig.parents[j];
    const restLocal = Array.from(limits.restLocal.subarray(4 * j, 4 * j + 4));
    const local = mul(restLocal, deltas[j]);
    const parentQ = p >= 0 ? Array.from(pose.orientations.subarray(4 * p, 4 * p + 4)) : [0, 0, 0, 1];
    pose.orientations.set(mul(parentQ, local), 4 * j);
    if (p >= 0) {
      const v = rotate(parentQ, offsets.subarray(3 * j, 3 * j + 3));
      for (let i = 0; i < 3; i++) pose.positions[3 * j + i] = pose.positions[3 * p + i] + v[i];
    }
  }
  return pose;
}

describe("a planar robot arm of hinges limited to ±90°", () => {
  // Six links of length 1 along +Y; every joint below the tip is a revolute joint about Z, within ±π/2.
  const links = 6;
  const parents = Array.from({ length: links + 1 }, (_, i) => i - 1);
  const rig = createRig({ parents, restPositions: parents.flatMap((_, i) => [0, i, 0]) });
  const limits = createJointLimits(rig);
  for (let j = 0; j < links; j++)
    setJointLimit(limits, j, { hinge: { axis: [0, 0, 1], min: -Math.PI / 2, max: Math.PI / 2 } });
  const plan = compilePlan(rig, { effectors: [{ joint: links }], limits });

  it("reaches at least 99.5 % of 1000 targets sampled from its own workspace, from a straight start", () => {
    const rand = random(Number(process.env.SEED ?? 90));
    const tolerance = 1e-3 * links;
    let reached = 0,
      errorSum = 0,
      iterations = 0,
      escapes = 0;
    const failures: string[] = [];
    const offsets = restOffsets(rig);
    for (let i = 0; i < 1000; i++) {
      const angles = Array.from({ length: links + 1 }, (_, j) =>
        j < links ? (rand() * 2 - 1) * (Math.PI / 2) : 0,
      );
      const goal = poseFromDeltas(
        rig,
        limits,
        angles.map((a) => axisAngle([0, 0, 1], a)),
      );
      const target = goal.positions.slice(3 * links, 3 * links + 3);
      const pose = createPose(rig);
      const report = solvePlan(plan, pose, target, { tolerance, maxIterations: 200 });
      iterations += report.iterations;
      escapes += report.escapes;
      errorSum += report.maxResidual;
      if (report.converged) reached++;
      else failures.push(`${i}: residual ${report.maxResidual.toFixed(4)}`);
      expectConsistentPose(rig, limits, pose, offsets);
    }
    console.log(
      `robot arm: ${reached / 10} % reached, mean error ${(errorSum / 1000).toExponential(2)}, ` +
        `mean iterations ${(iterations / 1000).toFixed(1)}, lock escapes ${escapes}` +
        (failures.length ? `; missed ${failures.slice(0, 5).join(", ")}` : ""),
    );
    expect(reached).toBeGreaterThanOrEqual(995);
  });
});

/** A random unit quaternion (uniform enough for tests). */
function randomRotation(rand: () => number, maxAngle: number): number[] {
  let axis: number[];
  do axis = [2 * rand() - 1, 2 * rand() - 1, 2 * rand() - 1];
  while (Math.hypot(axis[0], axis[1], axis[2]) < 0.1);
  return axisAngle(axis, maxAngle * rand());
}

/**
 * A pose spread over the inside of the limits: random rotations brought onto each joint's limit shape (a
 * hinge keeps only its turn) and kept only when that did not clamp them onto a boundary.
 */
function randomLimitedPose(rig: Rig, limits: JointLimits, rand: () => number): Pose {
  const scratch = new Float64Array(16);
  const deltas = Array.from({ length: rig.jointCount }, (_, j) => {
    for (let attempt = 0; attempt < 10000; attempt++) {
      const q = Float64Array.from(randomRotation(rand, Math.PI));
      projectRotation(limits, j, q, 0, scratch, 0);
      if (scratch[7] === 0) return Array.from(q);
    }
    throw new Error(`no pose inside the limits of joint ${j}`);
  });
  return poseFromDeltas(rig, limits, deltas);
}

describe("limits hold after any solve", () => {
  const spec = fc.oneof(
    fc.record({
      swing: fc.record({
        up: fc.double({ min: 0, max: Math.PI, noNaN: true }),
        right: fc.double({ min: 0, max: Math.PI, noNaN: true }),
        down: fc.double({ min: 0, max: Math.PI, noNaN: true }),
        left: fc.double({ min: 0, max: Math.PI, noNaN: true }),
      }),
      twist: fc.constantFrom(
        undefined,
        { min: -0.5, max: 0.5 },
        { min: 0.1, max: 0.2 },
        { min: -Math.PI, max: Math.PI },
      ),
    }),
    fc.record({
      hinge: fc.record({
        axis: fc.constantFrom([0, 0, 1] as const, [1, 0, 0] as const, [0.3, 0.4, 0.5] as const),
        min: fc.double({ min: -Math.PI, max: 0, noNaN: true }),
        max: fc.double({ min: 0, max: Math.PI, noNaN: true }),
      }),
    }),
    fc.constant({ fixed: true }),
    fc.constant({ twist: { min: -0.3, max: 0.3 } }),
    fc.constant(undefined),
  );

  it("every limit holds to 1e-6 rad, bone lengths hold, no NaN, orientations unit and consistent with positions", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 10 }),
        fc.array(spec, { minLength: 11, maxLength: 11 }),
        fc.integer(),
        fc.tuple(
          fc.double({ min: -6, max: 6, noNaN: true }),
          fc.double({ min: -6, max: 6, noNaN: true }),
          fc.double({ min: -6, max: 6, noNaN: true }),
        ),
        (bones, specs, seed, target) => {
          const rand = random(seed);
          const parents = Array.from({ length: bones + 1 }, (_, i) => i - 1);
          const positions = [0, 0, 0];
          for (let i = 1; i <= bones; i++) {
            positions.push(
              positions[3 * i - 3] + rand() - 0.5,
              positions[3 * i - 2] + 0.5 + rand(),
              positions[3 * i - 1] + rand() - 0.5,
            );
          }
          // Rest orientations that are not identity, as on real rigs.
          const orientations = parents.flatMap(() => randomRotation(rand, Math.PI));
          const rig = createRig({ parents, restPositions: positions, restOrientations: orientations });
          const limits = createJointLimits(rig);
          for (let j = 0; j < bones; j++) if (specs[j]) setJointLimit(limits, j, specs[j]);
          if (rand() < 0.3) setJointLimit(limits, bones, { stretch: { min: 0.5, max: 2 } });
          const plan = compilePlan(rig, { effectors: [{ joint: bones }], limits });
          const pose = createPose(rig);
          const report = solvePlan(plan, pose, Float64Array.from(target), { maxIterations: 30 });
          expect(Number.isFinite(report.maxResidual)).toBe(true);
          expectConsistentPose(rig, limits, pose, restOffsets(rig), 1e-6, plan.rotatingJoints);
        },
      ),
    );
  });

  it("a fixed joint keeps its input local rotation", () => {
    const rig = createRig({ parents: [-1, 0, 1, 2], restPositions: [0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0] });
    const limits = createJointLimits(rig);
    setJointLimit(limits, 1, { fixed: true });
    const plan = compilePlan(rig, { effectors: [{ joint: 3 }], limits });
    const pose = poseFromDeltas(rig, limits, [
      [0, 0, 0, 1],
      axisAngle([0, 0, 1], 0.4),
      [0, 0, 0, 1],
      [0, 0, 0, 1],
    ]);
    const before = deltaOf(limits, pose, 1);
    solvePlan(plan, pose, Float64Array.of(1.5, 1.5, 0.5), { maxIterations: 50 });
    const after = deltaOf(limits, pose, 1);
    after.forEach((v, i) => expect(v).toBeCloseTo(before[i], 12));
  });

  it("a stretchable bone lets the chain reach beyond its rest length, within the stretch range", () => {
    const rig = createRig({ parents: [-1, 0, 1], restPositions: [0, 0, 0, 0, 1, 0, 0, 2, 0] });
    const limits = createJointLimits(rig);
    setJointLimit(limits, 2, { stretch: { min: 0.5, max: 1.5 } });
    const plan = compilePlan(rig, { effectors: [{ joint: 2 }], limits });
    const pose = createPose(rig);
    const report = solvePlan(plan, pose, Float64Array.of(1.2, 2, 0), { maxIterations: 100 });
    expect(report.converged).toBe(true); // 2.33 away: out of reach at rest lengths (2), within 2.5
    const len = Math.hypot(
      pose.positions[6] - pose.positions[3],
      pose.positions[7] - pose.positions[4],
      pose.positions[8] - pose.positions[5],
    );
    expect(len).toBeGreaterThan(1);
    expect(len).toBeLessThanOrEqual(1.5 + 1e-12);
    const far = createPose(rig);
    solvePlan(plan, far, Float64Array.of(0, 9, 0), { maxIterations: 100 });
    expect(far.positions[7]).toBeCloseTo(2.5, 9);
  });
});

describe("a humanoid arm: shoulder cone, elbow hinge, wrist cone", () => {
  // T-pose along +X, character facing +Z: "up" is +Y, "right" is bone x up = +Z (forward).
  const { rig, limits } = limitedHumanoidArm();
  const plan = compilePlan(rig, { effectors: [{ joint: "fingertips", chainLength: 4 }], limits });
  const offsets = restOffsets(rig);

  it("reaches targets sampled from its own limited workspace", () => {
    const rand = random(5);
    let reached = 0;
    for (let i = 0; i < 500; i++) {
      const goal = randomLimitedPose(rig, limits, rand);
      const pose = createPose(rig);
      const report = solvePlan(plan, pose, goal.positions.slice(12, 15), {
        tolerance: 1e-3,
        maxIterations: 100,
      });
      if (report.converged) reached++;
      expectConsistentPose(rig, limits, pose, offsets, 1e-6, plan.rotatingJoints);
    }
    console.log(`humanoid arm: ${reached / 5} % of 500 reachable targets reached from the rest pose`);
    expect(reached).toBeGreaterThanOrEqual(498);
  });

  it("unreachable targets end on a limit, as near the target as the limits allow", () => {
    // The nearest a target can be approached, estimated by sampling 20 000 poses inside and on the limits.
    const rand = random(17);
    const samples: Float64Array[] = [];
    for (let i = 0; i < 20000; i++) {
      const deltas = Array.from({ length: rig.jointCount }, (_, j) => {
        const q = Float64Array.from(randomRotation(rand, Math.PI));
        projectRotation(limits, j, q, 0, new Float64Array(16), 0);
        return Array.from(q);
      });
      samples.push(poseFromDeltas(rig, limits, deltas).positions.slice(12, 15));
    }
    const gaps: number[] = [];
    for (const target of [
      [0.18, 1.45, -5], // behind the back
      [-3, 1.45, 0], // across the body
      [0.5, 6, -1], // high up and back
      [4, -3, 2], // far down and forward
    ]) {
      const t = Float64Array.from(target);
      const pose = createPose(rig);
      const report = solvePlan(plan, pose, t, { maxIterations: 100 });
      expect(report.converged).toBe(false);
      // On a limit: one the solve had to clamp, or the elbow straight at its hinge minimum (the arm fully
      // stretched toward a target in a direction the shoulder allows).
      const elbowAngle = 2 * Math.acos(Math.min(1, Math.abs(deltaOf(limits, pose, 1)[3])));
      expect(
        Array.from(plan.rotatingJoints).some((j) => report.onLimit[j] === 1) || elbowAngle < 1e-6,
        `target ${target}`,
      ).toBe(true);
      expectConsistentPose(rig, limits, pose, offsets, 1e-6, plan.rotatingJoints);
      let nearest = Infinity;
      for (const p of samples) nearest = Math.min(nearest, Math.hypot(p[0] - t[0], p[1] - t[1], p[2] - t[2]));
      gaps.push(report.maxResidual - nearest);
      // Within 1 % of the arm's reach (0.7) of the best of 20 000 sampled poses.
      expect(report.maxResidual, `target ${target}`).toBeLessThanOrEqual(nearest + 0.007);
    }
    console.log(
      `unreachable arm targets: distance beyond the best sampled pose ${gaps.map((g) => g.toFixed(4)).join(", ")}`,
    );
  });
});

describe("poles", () => {
  // A leg hanging straight down: hip (root), knee, ankle. A target closer than full reach must bend it.
  const rig = createRig({ parents: [-1, 0, 1], restPositions: [0, 1, 0, 0, 0.5, 0, 0, 0, 0] });
  for (const side of [1, -1]) {
    it(`a straight leg bends its knee toward a pole ${side > 0 ? "in front" : "behind"}`, () => {
      const plan = compilePlan(rig, { effectors: [{ joint: 2, pole: true }] });
      const pose = createPose(rig);
      const report = solvePlan(plan, pose, Float64Array.of(0, 0.3, 0.1), {
        maxIterations: 50,
        poles: Float64Array.of(0, 0.5, 2 * side),
      });
      expect(report.converged).toBe(true);
      expect(Math.sign(pose.positions[5] - 0.05)).toBe(side);
    });
  }
  it("turns a knee that starts bent the wrong way", () => {
    const bentBack = createRig({ parents: [-1, 0, 1], restPositions: [0, 1, 0, 0, 0.55, -0.2, 0, 0.1, 0] });
    const plan = compilePlan(bentBack, { effectors: [{ joint: 2, pole: true }] });
    const pose = createPose(bentBack);
    solvePlan(plan, pose, Float64Array.of(0, 0.2, 0.1), {
      maxIterations: 50,
      poles: Float64Array.of(0, 0.5, 2),
    });
    expect(pose.positions[5]).toBeGreaterThan(0.1);
  });
  it("requires the pole positions when an effector has a pole", () => {
    const plan = compilePlan(rig, { effectors: [{ joint: 2, pole: true }] });
    expect(() => solvePlan(plan, createPose(rig), Float64Array.of(0, 0.3, 0))).toThrow(
      /has a pole, so settings\.poles must hold/,
    );
  });
});

describe("a straight limb whose target lies on its own line", () => {
  // Hip, knee, ankle straight down the -Y axis; the knee a hinge about X. A positive turn about +X swings the
  // shin toward -Z, so a knee that may only turn positively must come forward (+Z) to fold, and one that may
  // only turn negatively must go back (-Z).
  for (const [range, side] of [
    [[0, 2.5], 1],
    [[-2.5, 0], -1],
  ] as const) {
    it(`folds the way its hinge bends (range ${range[0]}..${range[1]} rad), at once`, () => {
      const rig = createRig({ parents: [-1, 0, 1], restPositions: [0, 0, 0, 0, -1, 0, 0, -2, 0] });
      const limits = createJointLimits(rig);
      setJointLimit(limits, 1, { hinge: { axis: [1, 0, 0], min: range[0], max: range[1] } });
      const plan = compilePlan(rig, { effectors: [{ joint: 2 }], limits });
      const pose = createPose(rig);
      const report = solvePlan(plan, pose, Float64Array.of(0, -1.5, 0), {
        tolerance: 1e-6,
        maxIterations: 20,
      });
      expect(report.converged).toBe(true);
      expect(Math.sign(pose.positions[5])).toBe(side);
      expect(Math.abs(pose.positions[3])).toBeLessThan(1e-9); // in the hinge's plane
      // Folded within the range, by the law of cosines: 1.5 = 2 cos(θ/2) for two unit bones.
      const delta = deltaOf(limits, pose, 1);
      const angle = 2 * Math.atan2(delta[0], delta[3]);
      expect(angle).toBeCloseTo(side * 2 * Math.acos(0.75), 5);
      // No lock to escape from: bent the right way before the first pass.
      expect(report.escapes).toBe(0);
    });
  }
});

describe("the report's onLimit describes the pose the solve returns", () => {
  const { rig, limits } = limitedHumanoidArm();
  const plan = compilePlan(rig, { effectors: [{ joint: "fingertips", chainLength: 4 }], limits });
  const scratch = new Float64Array(16);

  /**
   * Whether joint j sits on a boundary of its limits: some turn of 1e-3 rad about a rest-frame axis takes
   * its Δ outside, where the projection must clamp it. A joint further inside than that never clamps.
   */
  function onBoundary(pose: Pose, j: number): boolean {
    const delta = deltaOf(limits, pose, j);
    for (const axis of [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ])
      for (const sign of [-1, 1]) {
        const q = Float64Array.from(mul(delta, axisAngle(axis, sign * 1e-3)));
        projectRotation(limits, j, q, 0, scratch, 0);
        if (scratch[7] === 1) return true;
      }
    return false;
  }

  it("a joint reported on its limit is on its boundary, whatever pose the solve ends with", () => {
    // Unreachable and awkward targets with small budgets: the solves that end by restoring their best pose,
    // or with an escape's pose, are the ones whose flags once described a different, worse pass.
    const rand = random(31);
    const target = new Float64Array(3);
    let flagged = 0;
    for (let i = 0; i < 600; i++) {
      const radius = 0.3 + 1.2 * rand();
      let x: number, y: number, z: number;
      do {
        x = 2 * rand() - 1;
        y = 2 * rand() - 1;
        z = 2 * rand() - 1;
      } while (Math.hypot(x, y, z) > 1 || Math.hypot(x, y, z) < 0.1);
      const scale = radius / Math.hypot(x, y, z);
      target.set([0.18 + x * scale, 1.45 + y * scale, z * scale]);
      const pose = createPose(rig);
      const report = solvePlan(plan, pose, target, { maxIterations: 2 + (i % 9) });
      for (let k = 0; k < plan.rotatingJoints.length; k++) {
        const j = plan.rotatingJoints[k];
        if (report.onLimit[j] !== 1) continue;
        flagged++;
        expect(onBoundary(pose, j), `solve ${i}: joint ${j} reported on its limit`).toBe(true);
      }
    }
    expect(flagged).toBeGreaterThan(100);
  });

  it("a chain already at its target reports no clamp from the solve before", () => {
    const pose = createPose(rig);
    const report = solvePlan(plan, pose, Float64Array.of(0.18, 1.45, -5), { maxIterations: 50 });
    expect(Array.from(plan.rotatingJoints).some((j) => report.onLimit[j] === 1)).toBe(true);
    // The same pose and a target where its fingertips already are: nothing to solve, nothing clamped.
    const reached = Float64Array.from(pose.positions.subarray(12, 15));
    const again = solvePlan(plan, pose, reached, { maxIterations: 50 });
    expect(again.iterations).toBe(0);
    expect(Array.from(plan.rotatingJoints).map((j) => again.onLimit[j])).toEqual(
      Array.from(plan.rotatingJoints, () => 0),
    );
  });
});
