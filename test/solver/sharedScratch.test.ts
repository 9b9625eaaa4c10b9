import { describe, expect, it } from "vitest";
import {
  compilePlan,
  createJointLimits,
  createPose,
  setJointLimit,
  solvePlan,
  type Pose,
  type SolvePlan,
  type SolveSettings,
} from "../../plugin/index.js";
import { hand, limitedHumanoidArm, random, randomInBall, randomPose, straightChain } from "./fixtures.js";

/*
 * Every plan shares one set of solve scratch (bone lengths, input directions and rotations, the lock escape's
 * saved pose, temporaries). That is only sound if a solve fills every slot before reading it: a solve of
 * another plan in between, on another rig with other values in those slots, must change nothing.
 */

interface Case {
  readonly plan: SolvePlan;
  readonly input: Pose;
  readonly targets: Float64Array;
  readonly settings: SolveSettings;
}

/** Everything a solve produces: the pose and the report, copied. */
function solveCopy(c: Case): { positions: number[]; orientations: number[]; report: unknown } {
  const pose = createPose(c.plan.rig);
  pose.positions.set(c.input.positions);
  pose.orientations.set(c.input.orientations);
  const report = solvePlan(c.plan, pose, c.targets, c.settings);
  return {
    positions: Array.from(pose.positions),
    orientations: Array.from(pose.orientations),
    report: {
      iterations: report.iterations,
      converged: report.converged,
      maxResidual: report.maxResidual,
      escapes: report.escapes,
      residuals: Array.from(report.residuals),
      onLimit: Array.from(report.onLimit),
    },
  };
}

/** The limited arm (cones, a hinge, a pole) with targets that lock it and need the escape. */
function armCases(seed: number): Case[] {
  const { rig, limits } = limitedHumanoidArm();
  const plan = compilePlan(rig, { effectors: [{ joint: "hand", pole: true }], limits });
  const rand = random(seed);
  const cases: Case[] = [];
  for (let i = 0; i < 40; i++) {
    const targets = new Float64Array(3);
    randomInBall(rand, 0.7, targets);
    targets[0] += 0.18;
    targets[1] += 1.45;
    const input = createPose(rig);
    const poles = new Float64Array([0.4, 1.2, -0.6 + rand()]);
    cases.push({ plan, input, targets, settings: { tolerance: 1e-4, poles } });
  }
  return cases;
}

/** A hand, every fingertip an effector, from bent poses: branches, sub-bases and centroids. */
function handCases(seed: number): Case[] {
  const rig = hand();
  const tips = ["thumb3", "index3", "middle3", "ring3", "pinky3"];
  const plan = compilePlan(rig, { effectors: tips.map((joint) => ({ joint })) });
  const rand = random(seed);
  const cases: Case[] = [];
  for (let i = 0; i < 20; i++) {
    const input = randomPose(rig, seed + i, 0.4);
    const targets = new Float64Array(3 * tips.length);
    for (let e = 0; e < tips.length; e++) {
      randomInBall(rand, 0.6, targets, 3 * e);
      const j = plan.effectorJoints[e];
      for (let a = 0; a < 3; a++) targets[3 * e + a] += input.positions[3 * j + a];
    }
    cases.push({ plan, input, targets, settings: {} });
  }
  return cases;
}

/** A longer limited chain on a larger rig: the solve between fills more of the shared slots, with other values. */
function otherPlanCases(seed: number): Case[] {
  const rig = straightChain(24, 0.5);
  const limits = createJointLimits(rig);
  for (let j = 0; j < 24; j++)
    setJointLimit(limits, j, {
      swing: { up: 0.8, right: 0.5, down: 0.8, left: 0.5 },
      twist: { min: -0.4, max: 0.4 },
    });
  const plan = compilePlan(rig, { effectors: [{ joint: 24 }], limits });
  const rand = random(seed);
  const cases: Case[] = [];
  for (let i = 0; i < 60; i++) {
    const targets = new Float64Array(3);
    randomInBall(rand, 10, targets);
    cases.push({ plan, input: randomPose(rig, seed + i, 0.3), targets, settings: {} });
  }
  return cases;
}

describe("solve scratch shared by every plan", () => {
  it("a solve of another plan in between changes nothing in a plan's results", () => {
    const cases = [...armCases(11), ...handCases(12)];
    const alone = cases.map(solveCopy);
    expect(alone.some((r) => (r.report as { escapes: number }).escapes > 0)).toBe(true);

    const others = otherPlanCases(13);
    cases.forEach((c, i) => {
      solveCopy(others[i % others.length]);
      expect(solveCopy(c)).toEqual(alone[i]);
    });
  });

  it("whatever the shared slots hold before a solve (NaN, huge numbers), its results are the same", () => {
    const cases = [...armCases(31), ...handCases(32)];
    const alone = cases.map(solveCopy);
    const scratch = cases[0].plan.scratch;
    const shared = [
      scratch.boneLength,
      scratch.inputDirection,
      scratch.localOffset,
      scratch.inputLocal,
      scratch.currentLocal,
      scratch.savedPositions,
      scratch.savedOrientations,
      scratch.temp,
      scratch.numbers,
    ];
    cases.forEach((c, i) => {
      for (const a of shared) a.fill(i % 2 === 0 ? NaN : 1e300);
      scratch.savedOnLimit.fill(1);
      expect(solveCopy(c)).toEqual(alone[i]);
    });
  });

  it("plans compiled later, for larger rigs, leave earlier plans' results unchanged", () => {
    const cases = armCases(21);
    const before = cases.map(solveCopy);
    const bigger = compilePlan(straightChain(300, 0.1), { effectors: [{ joint: 300 }] });
    const pose = createPose(bigger.rig);
    solvePlan(bigger, pose, new Float64Array([5, 5, 5]));
    expect(cases.map(solveCopy)).toEqual(before);
  });
});
