import { describe, expect, it } from "vitest";
import {
  FabrikError,
  compilePlan,
  createPose,
  setEffectorWeight,
  solvePlan,
  type Pose,
  type SolvePlan,
} from "../../plugin/index.js";
import { hand, straightChain, yTree } from "./fixtures.js";

function rejects(make: () => unknown, pattern: RegExp): FabrikError {
  let error: unknown;
  try {
    make();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(FabrikError);
  expect((error as Error).message).toMatch(pattern);
  return error as FabrikError;
}

describe("compilePlan", () => {
  it("a single effector moves every bone up to the root by default", () => {
    const plan = compilePlan(straightChain(4), { effectors: [{ joint: "j4" }] });
    expect(Array.from(plan.activeJoints)).toEqual([1, 2, 3, 4]);
    expect(Array.from(plan.bases)).toEqual([0]);
    expect(Array.from(plan.chainLengths)).toEqual([4]);
    expect(plan.subBases.length).toBe(0);
    expect(plan.componentCount).toBe(1);
    expect(plan.componentIsPath[0]).toBe(1);
    expect(plan.chains.map((c) => [c.start, c.end, Array.from(c.joints)])).toEqual([[0, 4, [1, 2, 3, 4]]]);
  });

  it("a chain length limits how many bones move; larger lengths are clamped at the root", () => {
    const short = compilePlan(straightChain(6), { effectors: [{ joint: 6, chainLength: 2 }] });
    expect(Array.from(short.activeJoints)).toEqual([5, 6]);
    expect(Array.from(short.bases)).toEqual([4]);
    const long = compilePlan(straightChain(3), { effectors: [{ joint: 3, chainLength: 50 }] });
    expect(Array.from(long.chainLengths)).toEqual([3]);
  });

  it("a chain stops at the nearest pinned joint", () => {
    const plan = compilePlan(straightChain(6), { effectors: [{ joint: 6 }], pinned: ["j3"] });
    expect(Array.from(plan.activeJoints)).toEqual([4, 5, 6]);
    expect(Array.from(plan.bases)).toEqual([3]);
  });

  it("a Y-shaped tree has one sub-base where the arms meet, and three chains", () => {
    const rig = yTree(4, 3);
    const plan = compilePlan(rig, { effectors: [{ joint: "left3" }, { joint: "right3" }] });
    expect(Array.from(plan.subBases)).toEqual([4]);
    expect(plan.componentCount).toBe(1);
    expect(plan.componentIsPath[0]).toBe(0);
    const chains = plan.chains.map((c) => [c.start, c.end, c.joints.length]);
    expect(chains).toEqual(
      expect.arrayContaining([
        [0, 4, 4],
        [4, rig.names!.indexOf("left3"), 3],
        [4, rig.names!.indexOf("right3"), 3],
      ]),
    );
    // Parents come before children in the pass order.
    const seen = new Set<number>([0]);
    for (const j of plan.activeJoints) {
      expect(seen.has(rig.parents[j])).toBe(true);
      seen.add(j);
    }
  });

  it("a hand with five fingertips has the palm as its sub-base", () => {
    const rig = hand();
    const tips = ["thumb3", "index3", "middle3", "ring3", "pinky3"];
    const plan = compilePlan(rig, { effectors: tips.map((joint) => ({ joint })) });
    expect(Array.from(plan.subBases).map((j) => rig.names![j])).toEqual(["palm"]);
    expect(plan.chains.length).toBe(6);
    expect(plan.activeJoints.length).toBe(rig.jointCount - 1);
  });

  it("chains that do not meet are independent components", () => {
    const rig = yTree(4, 3);
    const plan = compilePlan(rig, {
      effectors: [
        { joint: "left3", chainLength: 2 },
        { joint: "right3", chainLength: 2 },
      ],
    });
    expect(plan.componentCount).toBe(2);
    expect(plan.subBases.length).toBe(0);
    expect(Array.from(plan.componentIsPath)).toEqual([1, 1]);
    expect(Array.from(plan.bases).map((j) => rig.names![j])).toEqual(["left1", "right1"]);
  });

  it("a chain hanging below a joint another chain turns joins that chain's component", () => {
    const rig = yTree(4, 3);
    // right3's chain turns trunk4, which carries left1, the base left3's chain would have had.
    const plan = compilePlan(rig, {
      effectors: [
        { joint: "left3", chainLength: 2 },
        { joint: "right3", chainLength: 3 },
      ],
    });
    const name = (j: number) => rig.names![j];
    expect(plan.componentCount).toBe(1);
    expect(Array.from(plan.bases).map(name)).toEqual(["trunk4"]);
    expect(plan.subBases.length).toBe(0);
    expect(Array.from(plan.activeJoints).map(name).sort()).toEqual(
      ["left1", "left2", "left3", "right1", "right2", "right3"].sort(),
    );
    // Its own chain still starts below left1 (the joined chain's base), not at the component's base.
    expect(name(plan.effectorPath[plan.effectorChainStart[0]])).toBe("left2");
    // With a joint between the carrier and the carried base, that joint is held: it keeps its rotation.
    const deeper = compilePlan(rig, {
      effectors: [
        { joint: "left3", chainLength: 1 },
        { joint: "right3", chainLength: 3 },
      ],
    });
    expect(deeper.componentCount).toBe(1);
    expect(Array.from(deeper.scratch.held).flatMap((h, j) => (h ? [name(j)] : []))).toEqual(["left1"]);
  });

  it("an effector above another effector ends one chain and starts the next", () => {
    const plan = compilePlan(straightChain(4), { effectors: [{ joint: 4 }, { joint: 2 }] });
    expect(plan.chains.map((c) => [c.start, c.end])).toEqual([
      [0, 2],
      [2, 4],
    ]);
    expect(plan.componentIsPath[0]).toBe(0);
  });

  it("rejects bad effector sets, naming the effector and joint", () => {
    const rig = straightChain(4);
    rejects(() => compilePlan(rig, { effectors: [{ joint: "hand" }] }), /effector 0: no joint named "hand"/);
    rejects(
      () => compilePlan(rig, { effectors: [{ joint: 0 }] }),
      /effector 0 \(joint 0 \("j0"\)\): the joint is a root/,
    );
    rejects(
      () => compilePlan(rig, { effectors: [{ joint: 2 }, { joint: "j2" }] }),
      /effector 1 .*already effector 0/,
    );
    rejects(() => compilePlan(rig, { effectors: [{ joint: 3 }], pinned: [3] }), /effector 0 .*"j3".*pinned/);
    rejects(
      () => compilePlan(rig, { effectors: [{ joint: 3, chainLength: 0 }] }),
      /chainLength must be a whole number >= 1, got 0/,
    );
    rejects(() => compilePlan(rig, { effectors: [{ joint: 3, chainLength: 1.5 }] }), /chainLength.*1.5/);
    rejects(
      () => compilePlan(rig, { effectors: [{ joint: 3, weight: 0 }] }),
      /weight must be a finite number > 0, got 0/,
    );
    rejects(() => compilePlan(rig, { effectors: [{ joint: 3, weight: NaN }] }), /weight.*NaN/);
    rejects(
      () => compilePlan(rig, { effectors: [{ joint: 3 }], pinned: ["nope"] }),
      /pinned: no joint named "nope"/,
    );
    rejects(() => compilePlan(rig, { effectors: null as unknown as [] }), /effectors.*array/);
  });

  it("rejects a pinned joint that a moving joint would drag along", () => {
    const rig = yTree(4, 3);
    const error = rejects(
      () => compilePlan(rig, { effectors: [{ joint: "left3" }], pinned: ["right2"] }),
      /pinned: joint \d+ \("right2"\) lies below joint 4 \("trunk4"\), which an effector moves/,
    );
    expect(error.joint).toBe(rig.names!.indexOf("right2"));
  });

  it("setEffectorWeight changes the weight and validates it", () => {
    const plan = compilePlan(yTree(), { effectors: [{ joint: "left3" }, { joint: "right3" }] });
    setEffectorWeight(plan, 1, 3);
    expect(plan.effectorWeights[1]).toBe(3);
    rejects(() => setEffectorWeight(plan, 1, -1), /effector 1 \(joint \d+ \("right3"\)\): weight/);
    rejects(() => setEffectorWeight(plan, 5, 1), /no effector 5/);
    expect(plan.effectorWeights[1]).toBe(3);
  });

  describe('passiveJoints: "carriers"', () => {
    // Y tree: trunk0..trunk4, left1..3 = joints 5..7, right1..3 = joints 8..10. trunk3 turns trunk2..3 below
    // trunk1; left3 hangs from left2, which trunk3's motion carries: trunk4, left1 and left2 carry it, the
    // right arm carries nothing.
    const rig = yTree(4, 3);
    const effectors = [
      { joint: "trunk3", chainLength: 2 },
      { joint: "left3", chainLength: 1 },
    ];
    const target = Float64Array.of(1.0, 2.4, 0.3, -2.5, 6, 0.8);
    const solve = (passiveJoints: "all" | "carriers") => {
      const plan = compilePlan(rig, { effectors, passiveJoints });
      const pose = createPose(rig);
      solvePlan(plan, pose, target, { maxIterations: 50 });
      return { plan, pose };
    };

    it("keeps only the passive joints that carry another component's base", () => {
      expect([...solve("all").plan.passiveJoints].sort((a, b) => a - b)).toEqual([4, 5, 6, 8, 9, 10]);
      expect([...solve("carriers").plan.passiveJoints]).toEqual([4, 5, 6]);
    });

    it("solves the same pose for every joint it carries, and leaves the others as they were given", () => {
      const all = solve("all"),
        carriers = solve("carriers");
      const input = createPose(rig);
      for (const j of [0, 1, 2, 3, 4, 5, 6, 7]) {
        for (let a = 0; a < 3; a++)
          expect(carriers.pose.positions[3 * j + a]).toBeCloseTo(all.pose.positions[3 * j + a], 12);
        for (let a = 0; a < 4; a++)
          expect(carriers.pose.orientations[4 * j + a]).toBeCloseTo(all.pose.orientations[4 * j + a], 12);
      }
      // The solve turned trunk3, so the right arm moved in the complete pose and did not in the other.
      let moved = 0;
      for (const j of [8, 9, 10]) {
        for (let a = 0; a < 3; a++) {
          moved = Math.max(moved, Math.abs(all.pose.positions[3 * j + a] - input.positions[3 * j + a]));
          expect(carriers.pose.positions[3 * j + a]).toBe(input.positions[3 * j + a]);
        }
        for (let a = 0; a < 4; a++)
          expect(carriers.pose.orientations[4 * j + a]).toBe(input.orientations[4 * j + a]);
      }
      expect(moved).toBeGreaterThan(0.1);
      expect(carriers.plan.report.residuals[0]).toBeLessThan(1e-3);
    });

    it("rejects any other value, naming the option", () => {
      const error = rejects(
        () => compilePlan(rig, { effectors, passiveJoints: "some" as "all" }),
        /passiveJoints must be "all" or "carriers", got "some"/,
      );
      expect(error.option).toBe("passiveJoints");
    });
  });
});

describe("shareLayoutWith", () => {
  const rig = hand();
  const effectors = [
    { joint: "thumb3" },
    { joint: "index3", pole: true },
    { joint: "pinky3", chainLength: 2 },
  ];
  const targets = Float64Array.of(-1, 3, 0.5, 0.2, 3.6, 0.6, 1.1, 3.1, -0.4);
  const settings = { tolerance: 1e-9, maxIterations: 30, poles: Float64Array.of(0, 0, 0, 0, 3, 2, 0, 0, 0) };

  function solved(plan: SolvePlan): Pose {
    const pose = createPose(rig);
    solvePlan(plan, pose, targets, settings);
    return pose;
  }

  it("a plan with the same effectors reads the other's layout, keeps its own weights and report, solves the same", () => {
    const first = compilePlan(rig, { effectors });
    const second = compilePlan(rig, { effectors, shareLayoutWith: first });
    for (const key of ["activeJoints", "rotatingJoints", "effectorPath", "pinned", "chains"] as const)
      expect(second[key]).toBe(first[key]);
    expect(second.scratch.effectorOf).toBe(first.scratch.effectorOf);
    expect(second.effectorWeights).not.toBe(first.effectorWeights);
    expect(second.scratch.branchWeight).not.toBe(first.scratch.branchWeight);
    expect(second.report.onLimit).not.toBe(first.report.onLimit);
    // Its own arrays sit in one block of their own.
    expect(second.effectorWeights.buffer).toBe(second.report.onLimit.buffer);
    expect(second.effectorWeights.buffer).not.toBe(first.effectorWeights.buffer);

    // Weights stay apart: the second solves as a plan of its own with the same weights, the first as before.
    setEffectorWeight(second, 0, 20);
    const alone = compilePlan(rig, { effectors });
    setEffectorWeight(alone, 0, 20);
    expect(Array.from(first.effectorWeights)).toEqual([1, 1, 1]);
    const expected = solved(alone);
    expect(solved(second)).toEqual(expected);
    expect(solved(first)).not.toEqual(expected);
    expect(Array.from(second.report.residuals)).toEqual(Array.from(alone.report.residuals));
  });

  it("a different layout is not shared, and the plan is compiled as without the option", () => {
    const first = compilePlan(rig, { effectors });
    const other = [effectors[0], effectors[1], { joint: "pinky3", chainLength: 3 }];
    const second = compilePlan(rig, { effectors: other, shareLayoutWith: first });
    const alone = compilePlan(rig, { effectors: other });
    expect(second.activeJoints).not.toBe(first.activeJoints);
    expect(Array.from(second.activeJoints)).toEqual(Array.from(alone.activeJoints));
    expect(Array.from(second.rotatingJoints)).toEqual(Array.from(alone.rotatingJoints));
    expect(solved(second)).toEqual(solved(alone));
  });

  it("refuses a plan of another rig, naming the option", () => {
    const error = rejects(
      () => compilePlan(rig, { effectors, shareLayoutWith: compilePlan(hand(), { effectors }) }),
      /shareLayoutWith` must be a plan compiled for the same rig/,
    );
    expect(error.option).toBe("shareLayoutWith");
  });
});
