import { describe, expect, it } from "vitest";
import {
  compilePlan,
  createJointLimits,
  createPose,
  createRig,
  fitJointLimit,
  projectRotation,
  setJointLimit,
  solvePlan,
  type JointLimits,
  type Pose,
  type Rig,
} from "../../plugin/index.js";
import { measureUniversalAngles } from "../../plugin/solver/universalJoint.js";
import { random } from "./fixtures.js";
import { axisAngle, conj, deltaOf, limitViolation, mul, rotate, rotationDistance } from "./limitChecks.js";

/*
 * The universal (Cardan) and pivot joint kinds. A universal joint is checked against its own definition,
 * Ru(α) · Rv(β) with u fixed in the parent and v carried by the first turn, built here from axis-angle
 * quaternions; it is not the swing cone with no twist (that one differs from it by a roll wherever both
 * angles are non-zero).
 */

type Vec = [number, number, number];
const DEGREE = Math.PI / 180;

/** Five joints up +Y, one unit apart, each frame turned differently so no axis lines up with the world's. */
function column(): Rig {
  const orientations: number[] = [];
  for (let j = 0; j < 5; j++) orientations.push(...axisAngle([1, 2 * j - 3, 0.5], 0.3 * j));
  return createRig({
    parents: [-1, 0, 1, 2, 3],
    restPositions: [0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0],
    restOrientations: orientations,
    names: ["base", "a", "b", "c", "tip"],
  });
}

/** Model-space pose from each joint's Δ (relative to its rest local rotation). */
function poseFromDeltas(rig: Rig, limits: JointLimits, deltas: number[][]): Pose {
  const pose = createPose(rig);
  const { parents, restPositions, restOrientations } = rig;
  for (let j = 0; j < rig.jointCount; j++) {
    const restLocal = Array.from(limits.restLocal.subarray(4 * j, 4 * j + 4));
    const p = parents[j];
    const parent = p >= 0 ? Array.from(pose.orientations.subarray(4 * p, 4 * p + 4)) : [0, 0, 0, 1];
    pose.orientations.set(mul(mul(parent, restLocal), deltas[j]), 4 * j);
    if (p < 0) continue;
    const offset: Vec = [0, 1, 2].map((i) => restPositions[3 * j + i] - restPositions[3 * p + i]) as Vec;
    const local = rotate(conj(restOrientations.subarray(4 * p, 4 * p + 4)), offset);
    const moved = rotate(parent, local);
    for (let i = 0; i < 3; i++) pose.positions[3 * j + i] = pose.positions[3 * p + i] + moved[i];
  }
  return pose;
}

/** The universal joint's axes u (first) and v (second, at rest) in the joint's rest frame. */
function axes(limits: JointLimits, j: number): { u: Vec; v: Vec } {
  const u = Array.from(limits.upAxis.subarray(3 * j, 3 * j + 3)) as Vec;
  const v = Array.from(limits.rightAxis.subarray(3 * j, 3 * j + 3)) as Vec;
  return { u, v };
}

const cardan = (u: Vec, v: Vec, alpha: number, beta: number) => mul(axisAngle(u, alpha), axisAngle(v, beta));

describe("universal joint", () => {
  const rig = column();
  const limits = createJointLimits(rig);
  const FIRST = { min: -50 * DEGREE, max: 70 * DEGREE };
  const SECOND = { min: -40 * DEGREE, max: 30 * DEGREE };
  for (let j = 1; j < 4; j++)
    setJointLimit(limits, j, { universal: { axis: [1, 0, 0], first: FIRST, second: SECOND } });

  it("leaves a Cardan rotation within its ranges unchanged, and reads its two angles back", () => {
    const rand = random(11);
    const scratch = new Float64Array(8);
    const angles = new Float64Array(2);
    let worst = 0;
    for (let k = 0; k < 500; k++) {
      const j = 1 + (k % 3);
      const { u, v } = axes(limits, j);
      const alpha = FIRST.min + rand() * (FIRST.max - FIRST.min);
      const beta = SECOND.min + rand() * (SECOND.max - SECOND.min);
      const q = Float64Array.from(cardan(u, v, alpha, beta));
      measureUniversalAngles(limits, j, q, 0, angles, 0);
      worst = Math.max(worst, Math.abs(angles[0] - alpha), Math.abs(angles[1] - beta));
      expect(projectRotation(limits, j, q, 0, scratch, 0)).toBe(false);
    }
    expect(worst).toBeLessThan(1e-12);
  });

  it("drops any roll and clamps each angle to its range", () => {
    const rand = random(12);
    const scratch = new Float64Array(8);
    let worst = 0;
    for (let k = 0; k < 500; k++) {
      const j = 1 + (k % 3);
      const { u, v } = axes(limits, j);
      const alpha = (rand() * 2 - 1) * 170 * DEGREE;
      const beta = (rand() * 2 - 1) * 85 * DEGREE;
      const bone = Array.from(limits.boneAxis.subarray(3 * j, 3 * j + 3));
      // The Cardan turn, then a roll about the bone that a universal joint cannot make.
      const q = Float64Array.from(mul(cardan(u, v, alpha, beta), axisAngle(bone, (rand() * 2 - 1) * 2)));
      projectRotation(limits, j, q, 0, scratch, 0);
      const clampedAlpha = Math.min(FIRST.max, Math.max(FIRST.min, alpha));
      const clampedBeta = Math.min(SECOND.max, Math.max(SECOND.min, beta));
      worst = Math.max(worst, rotationDistance(q, cardan(u, v, clampedAlpha, clampedBeta)));
      expect(scratch[7]).toBe(clampedAlpha !== alpha || clampedBeta !== beta ? 1 : 0);
    }
    expect(worst).toBeLessThan(1e-9);
  });

  it("solves a chain of universal joints to targets from random in-range angles, at default settings", () => {
    const plan = compilePlan(rig, { effectors: [{ joint: "tip", chainLength: 4 }], limits });
    const rand = random(13);
    let met = 0,
      worstViolation = 0;
    const CASES = 200;
    for (let k = 0; k < CASES; k++) {
      const deltas = [[0, 0, 0, 1]];
      for (let j = 1; j < 5; j++) {
        const { u, v } = axes(limits, j);
        deltas.push(
          j < 4
            ? cardan(
                u,
                v,
                FIRST.min + rand() * (FIRST.max - FIRST.min),
                SECOND.min + rand() * (SECOND.max - SECOND.min),
              )
            : [0, 0, 0, 1],
        );
      }
      const goal = poseFromDeltas(rig, limits, deltas);
      const target = goal.positions.slice(12, 15);
      const pose = createPose(rig);
      const report = solvePlan(plan, pose, target);
      if (report.maxResidual <= 1e-3) met++;
      for (let j = 1; j < 4; j++) worstViolation = Math.max(worstViolation, limitViolation(limits, pose, j));
      expect(Number.isFinite(report.maxResidual)).toBe(true);
    }
    expect(worstViolation).toBeLessThan(1e-9);
    expect(met / CASES).toBeGreaterThanOrEqual(0.99);
  });

  it("fitting to a sample widens its two ranges and keeps it universal", () => {
    const fitted = createJointLimits(rig);
    setJointLimit(fitted, 2, { universal: { first: { min: 0, max: 0 }, second: { min: 0, max: 0 } } });
    const { u, v } = axes(fitted, 2);
    const delta = cardan(u, v, -0.4, 0.3);
    const local = mul(fitted.restLocal.subarray(8, 12), delta);
    expect(fitJointLimit(fitted, 2, local)).toBe(true);
    const spec = fitted.specs[2]!.universal!;
    expect(spec.first.min).toBeCloseTo(-0.4, 9);
    expect(spec.first.max).toBe(0);
    expect(spec.second.max).toBeCloseTo(0.3, 9);
    expect(spec.second.min).toBe(0);
    expect(fitted.specs[2]!.swing).toBeUndefined();
  });
});

describe("pivot joint", () => {
  /** A stem up +Y whose top joint carries an arm sideways: only the stem's roll can swing the arm around. */
  const rig = createRig({
    parents: [-1, 0, 1, 2],
    restPositions: [0, 0, 0, 0, 1, 0, 0, 2, 0, 0.8, 2, 0],
    names: ["base", "stem", "top", "hand"],
  });
  const limits = createJointLimits(rig);
  setJointLimit(limits, 0, { fixed: true });
  setJointLimit(limits, 1, { pivot: { min: -100 * DEGREE, max: 60 * DEGREE } });
  setJointLimit(limits, 2, { fixed: true });

  it("only rolls: targets around the stem are met within its range, and the nearest end holds outside it", () => {
    const plan = compilePlan(rig, { effectors: [{ joint: "hand", chainLength: 3 }], limits });
    let worstInRange = 0,
      worstOutside = 0;
    for (let deg = -180; deg < 180; deg += 5) {
      // Turning the arm by φ about +Y puts the hand at (0.8 cos φ, 2, −0.8 sin φ).
      const phi = deg * DEGREE;
      const target = Float64Array.of(0.8 * Math.cos(phi), 2, -0.8 * Math.sin(phi));
      const pose = createPose(rig);
      const report = solvePlan(plan, pose, target);
      // The stem never leaves its line.
      expect(Math.hypot(pose.positions[6], pose.positions[8])).toBeLessThan(1e-9);
      expect(limitViolation(limits, pose, 1)).toBeLessThan(1e-9);
      if (deg >= -100 && deg <= 60) {
        worstInRange = Math.max(worstInRange, report.maxResidual);
      } else {
        // Outside the range, the hand stops at the end nearer along the circle.
        const toMin = Math.abs(((deg + 100 + 540) % 360) - 180),
          toMax = Math.abs(((deg - 60 + 540) % 360) - 180);
        // Halfway round from both ends (160°), either end is as near.
        const ends = toMin === toMax ? [-100, 60] : [toMin < toMax ? -100 : 60];
        const hand = pose.positions.subarray(9, 12);
        const off = ends.map((end) => {
          const expected = [0.8 * Math.cos(end * DEGREE), 2, -0.8 * Math.sin(end * DEGREE)];
          return Math.hypot(...[0, 1, 2].map((i) => hand[i] - expected[i]));
        });
        worstOutside = Math.max(worstOutside, Math.min(...off));
      }
      const roll = deltaOf(limits, pose, 1);
      // No swing: Δ is a turn about the bone (+Y) alone.
      expect(Math.hypot(roll[0], roll[2])).toBeLessThan(1e-9);
    }
    expect(worstInRange).toBeLessThan(1e-3);
    expect(worstOutside).toBeLessThan(1e-3);
  });
});

describe("joint kinds are exclusive and validated", () => {
  const rig = column();
  it.each([
    [
      { universal: { first: { min: 0, max: 1 }, second: { min: 0, max: 1 } }, twist: { min: 0, max: 0 } },
      "universal",
    ],
    [{ pivot: { min: 0, max: 1 }, hinge: { axis: [1, 0, 0], min: 0, max: 1 } }, "pivot"],
    [{ universal: { first: { min: 0, max: 1 }, second: { min: 0, max: 2 } } }, "universal.second"],
    [
      { universal: { axis: [0, 3, 0], first: { min: 0, max: 1 }, second: { min: 0, max: 1 } } },
      "universal.axis",
    ],
    [{ pivot: { min: 1, max: 0 } }, "pivot"],
  ] as const)("%j is refused, naming %s, and changes nothing", (spec, option) => {
    const limits = createJointLimits(rig);
    setJointLimit(limits, 1, { swing: { up: 1, right: 1, down: 1, left: 1 } });
    const before = limits.swing.slice();
    expect(() => setJointLimit(limits, 1, spec as never)).toThrow(
      expect.objectContaining({ option: expect.stringContaining(option) }),
    );
    expect(limits.swing).toEqual(before);
    expect(limits.specs[1]!.swing).toBeDefined();
  });
});
