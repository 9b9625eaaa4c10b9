// Issue 20's bar for robot arms from DH tables: random arms (planar and non-planar, 2–10 joints, hinges
// within ±90° of the straight home pose), targets from random in-range joint values, solved from home at
// default settings (tolerance 1e-3 of the arm's reach). The issue asks for 99.9 % solved, which the random
// arms meet; the other floors sit just under what the solver measures now (docs/robot-arms.md), so a
// regression fails.
import { describe, expect, test } from "vitest";
import {
  compilePlan,
  copyPose,
  createPose,
  dhEffectors,
  dhForwardKinematics,
  dhTargets,
  readDHJointValues,
  solvePlan,
} from "../../plugin/index.js";
import { limitViolation } from "../solver/limitChecks.js";
import {
  UR5,
  PUMA_560,
  SCARA,
  buildKnown,
  goalCase,
  kindLabel,
  random,
  randomCases,
  randomValues,
  solveCase,
  type DHOutcome,
  type RandomArmKind,
} from "./dhArms.js";

const SOLVED = 1e-3;
const JOINTS = [2, 3, 4, 5, 6, 7, 8, 9, 10];
const PER_KIND = 60;

function barKinds(planar: boolean): RandomArmKind[] {
  return JOINTS.map((joints) => ({ joints, range: Math.PI / 2, planar }));
}

function solveAll(kinds: readonly RandomArmKind[], seed: number): DHOutcome[] {
  return kinds.flatMap((kind, k) => randomCases(kind, PER_KIND, seed + k).map((c) => solveCase(c)));
}

function summary(list: readonly DHOutcome[]): string {
  const solved = list.filter((o) => o.relative <= SOLVED).length;
  const worst = list.reduce((w, o) => Math.max(w, o.relative), 0);
  return `${solved}/${list.length} solved (${((100 * solved) / list.length).toFixed(2)} %), worst ${worst.toExponential(2)} of reach`;
}

const fraction = (list: readonly DHOutcome[]) =>
  list.filter((o) => o.relative <= SOLVED).length / list.length;

/** Every solved pose keeps every limit, holds no NaN, and reads back joint values within their ranges. */
function expectValidPoses(list: readonly DHOutcome[]): void {
  let worstLimit = 0;
  let outside = 0;
  for (const o of list) {
    const { arm } = o.case;
    expect(o.pose.positions.every(Number.isFinite)).toBe(true);
    for (let j = 0; j < arm.rig.jointCount; j++)
      worstLimit = Math.max(worstLimit, limitViolation(arm.limits, o.pose, j));
    const values = new Float64Array(arm.table.count);
    readDHJointValues(arm, o.pose, values);
    values.forEach((v, i) => {
      if (v < arm.table.min[i] - 1e-6 || v > arm.table.max[i] + 1e-6) outside++;
    });
  }
  expect(worstLimit).toBeLessThan(1e-6);
  expect(outside).toBe(0);
}

describe("random DH arms, ±90° hinges from the straight pose, targets from random joint values", () => {
  const planar = solveAll(barKinds(true), 100);
  const skewed = solveAll(barKinds(false), 200);

  test(`planar, 2–10 joints, ${JOINTS.length * PER_KIND} arms: all solved within 1e-3 of reach`, () => {
    expect(fraction(planar), summary(planar)).toBe(1);
  });

  test(`non-planar, 2–10 joints, ${JOINTS.length * PER_KIND} arms: ≥ 99.9 % solved (the issue's bar)`, () => {
    expect(fraction(skewed), summary(skewed)).toBeGreaterThanOrEqual(0.999);
  });

  test("every solve keeps every joint within its limits and reads back in-range joint values", () => {
    expectValidPoses(planar);
    expectValidPoses(skewed);
  });

  test.each([2, 4, 8])(
    "non-planar %i joints: what kind of arm fails is visible per joint count",
    (joints) => {
      const list = skewed.filter((o) => o.case.arm.table.count === joints);
      expect(list.length).toBe(PER_KIND);
      expect(
        fraction(list),
        `${kindLabel({ joints, range: Math.PI / 2, planar: false })}: ${summary(list)}`,
      ).toBeGreaterThanOrEqual(0.98);
    },
  );
});

describe("the iteration budget", () => {
  test("an arm's escapes and restarts stay within maxIterations, and a larger budget solves more", () => {
    // The hardest row: the PUMA 560 with a tool orientation target, whose escapes are the longest.
    const arm = buildKnown(PUMA_560);
    const plan = compilePlan(arm.rig, { effectors: dhEffectors(arm, true), limits: arm.limits });
    const rand = random(5);
    const cases = Array.from({ length: 60 }, () => goalCase(arm, randomValues(arm, rand), true));
    const solved = (maxIterations: number) =>
      cases.filter((c) => {
        const pose = createPose(arm.rig);
        const report = solvePlan(plan, pose, c.targets, { tolerance: 1e-3 * arm.reach, maxIterations });
        expect(report.iterations).toBeLessThanOrEqual(maxIterations);
        return report.converged;
      }).length;
    const few = solved(10);
    const default_ = solved(100);
    expect(default_, `${few} solved with 10 iterations, ${default_} with 100`).toBeGreaterThan(few);
  });
});

describe("known arms, 200 random in-range goals each, from home", () => {
  const goals = (arm: ReturnType<typeof buildKnown>, oriented: boolean, seed: number) => {
    const rand = random(seed);
    return Array.from({ length: 200 }, () => solveCase(goalCase(arm, randomValues(arm, rand), oriented)));
  };

  test("UR5, tool position: all solved", () => {
    const list = goals(buildKnown(UR5), false, 1);
    expect(fraction(list), summary(list)).toBe(1);
    expectValidPoses(list);
  });

  test("UR5, tool position and orientation (three effectors): ≥ 97 % solved, every limit kept", () => {
    const list = goals(buildKnown(UR5), true, 2);
    expect(fraction(list), summary(list)).toBeGreaterThanOrEqual(0.97);
    expectValidPoses(list);
  });

  test("PUMA 560 and SCARA (a prismatic joint), tool position: ≥ 97 % solved, every limit kept", () => {
    for (const known of [PUMA_560, SCARA]) {
      const list = goals(buildKnown(known), false, 3);
      expect(fraction(list), `${known.name}: ${summary(list)}`).toBeGreaterThanOrEqual(0.97);
      expectValidPoses(list);
    }
  });
});

describe("following a moving goal from the last frame's pose (the demo's UR5)", () => {
  test("tool position and orientation: every one of 120 frames meets 1e-4 of reach", () => {
    const arm = buildKnown(UR5);
    const home = [0, -Math.PI / 2, Math.PI / 2, -Math.PI / 2, -Math.PI / 2, 0];
    const start = createPose(arm.rig);
    dhForwardKinematics(arm, home, start);
    const plan = compilePlan(arm.rig, { effectors: dhEffectors(arm, true), limits: arm.limits });
    const pose = createPose(arm.rig);
    copyPose(start, pose);
    const tool = start.positions.slice(3 * arm.tool, 3 * arm.tool + 3);
    const orientation = start.orientations.slice(4 * arm.tool, 4 * arm.tool + 4);
    const targets = new Float64Array(9);
    const missed: string[] = [];
    for (let k = 0; k < 120; k++) {
      // A loop in front of the arm, 2 mm per frame along its way down.
      const p = [
        tool[0] + 0.15 * Math.sin(k / 10),
        tool[1] + 0.15 * Math.cos(k / 14) - 0.15,
        tool[2] - 0.002 * k,
      ];
      dhTargets(arm, p, 0, orientation, 0, targets);
      const report = solvePlan(plan, pose, targets, { tolerance: 1e-4 * arm.reach });
      if (!report.converged) missed.push(`frame ${k}: ${report.maxResidual.toExponential(2)}`);
    }
    expect(missed).toEqual([]);
  });
});
