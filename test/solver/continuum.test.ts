import { describe, expect, it } from "vitest";
import {
  DEFAULT_TOLERANCE,
  FabrikError,
  compilePlan,
  createJointLimits,
  setJointLimit,
  solvePlan,
} from "../../plugin/index.js";
import {
  arcPositions,
  chainOfLengths,
  boneLengthError,
  continuumChain,
  planFor,
  restPose,
  sectionBends,
  type ContinuumChain,
} from "./continuumFixtures.js";
import { random } from "./fixtures.js";

/*
 * Continuum sections: targets drawn by forward kinematics of random arcs (so an arc reaches each one), solved
 * from the straight rest pose at default settings. Every solved section must bend evenly (spread of its
 * joints' bends within 1 % of its bend), within its limit, with every bone length kept.
 */

const EVEN = 0.01;

function tipTarget(chain: ContinuumChain, positions: Float64Array): Float64Array {
  const tip = chain.rig.jointCount - 1;
  return positions.slice(3 * tip, 3 * tip + 3);
}

function expectArcs(chain: ContinuumChain, positions: Float64Array, maxBend: number): void {
  expect(positions.every(Number.isFinite)).toBe(true);
  expect(boneLengthError(chain, positions)).toBeLessThan(1e-9);
  for (const { bend, spread } of sectionBends(chain, positions)) {
    expect(spread).toBeLessThanOrEqual(EVEN * bend + 1e-12);
    expect(bend).toBeLessThanOrEqual(maxBend + 1e-9);
  }
}

describe("continuum sections reach targets an arc can reach", () => {
  const cases: [sections: number, bones: number, maxBend: number, bar: number][] = [
    [1, 6, 2.5, 200],
    [2, 5, 2.5, 200],
    [3, 4, 2.5, 200],
    [2, 6, 1, 200],
  ];
  for (const [sections, bones, maxBend, bar] of cases) {
    it(`${sections} section(s) of ${bones} bones, maxBend ${maxBend}: ${bar} of 200 random arcs reached, every section even`, () => {
      const chain = continuumChain(sections, bones);
      const plan = planFor(chain, maxBend);
      const rand = random(1000 * sections + bones);
      let reached = 0,
        iterations = 0,
        spread = 0;
      for (let t = 0; t < 200; t++) {
        const bends = Array.from({ length: sections }, () => rand() * maxBend);
        const turns = Array.from({ length: sections }, () => rand() * 2 * Math.PI);
        const target = tipTarget(chain, arcPositions(chain, bends, turns));
        const pose = restPose(chain);
        const report = solvePlan(plan, pose, target);
        if (report.maxResidual <= DEFAULT_TOLERANCE) reached++;
        iterations += report.iterations;
        expectArcs(chain, pose.positions, maxBend);
        for (const b of sectionBends(chain, pose.positions))
          if (b.bend > 1e-9) spread = Math.max(spread, b.spread / b.bend);
      }
      console.log(
        `[continuum] ${sections} x ${bones} bones, maxBend ${maxBend}: ${reached} / 200 reached, ${(iterations / 200).toFixed(1)} ` +
          `iterations, largest spread ${spread.toExponential(1)} of the bend`,
      );
      expect(reached).toBeGreaterThanOrEqual(bar);
    });
  }

  it("three sections in series bend as three arcs, each at its own angle", () => {
    const chain = continuumChain(3, 4);
    const plan = planFor(chain, 2.5);
    const target = tipTarget(chain, arcPositions(chain, [0.8, 1.6, 0.4], [0.5, 2, 4]));
    const pose = restPose(chain);
    const report = solvePlan(plan, pose, target);
    expect(report.converged).toBe(true);
    expectArcs(chain, pose.positions, 2.5);
    const bends = sectionBends(chain, pose.positions).map((b) => b.bend);
    // Three arcs, not one: the sections do not share one bend.
    expect(Math.max(...bends) - Math.min(...bends)).toBeGreaterThan(0.1);
  });

  it("a solved pose solved again is already the answer (it keeps its arcs, so it counts as a valid start)", () => {
    const chain = continuumChain(3, 4);
    const plan = planFor(chain, 2.5);
    const target = tipTarget(chain, arcPositions(chain, [0.8, 1.6, 0.4], [0.5, 2, 4]));
    const pose = restPose(chain);
    solvePlan(plan, pose, target);
    const solved = pose.positions.slice();
    const again = solvePlan(plan, pose, target);
    expect(again.iterations).toBe(0);
    expect(Array.from(pose.positions)).toEqual(Array.from(solved));
  });
});

describe("continuum sections at their bend limit", () => {
  it("a target past the limit: the section ends at its limit, as near the target as any arc within it", () => {
    const chain = continuumChain(1, 6);
    const maxBend = Math.PI / 2;
    const plan = planFor(chain, maxBend);
    const rand = random(7);
    for (let t = 0; t < 10; t++) {
      const bend = maxBend + 0.2 + rand() * 2;
      const turn = rand() * 2 * Math.PI;
      const target = tipTarget(chain, arcPositions(chain, [bend], [turn]));
      const pose = restPose(chain);
      const report = solvePlan(plan, pose, target);
      expectArcs(chain, pose.positions, maxBend);
      expect(sectionBends(chain, pose.positions)[0].bend).toBeCloseTo(maxBend, 6);
      expect(report.onLimit[0]).toBe(1);
      // The nearest any arc within the limit comes, over a fine grid of bends and sides.
      let nearest = Infinity;
      for (let i = 0; i <= 200; i++)
        for (let k = 0; k < 180; k++) {
          const tip = tipTarget(chain, arcPositions(chain, [(maxBend * i) / 200], [(2 * Math.PI * k) / 180]));
          nearest = Math.min(nearest, Math.hypot(tip[0] - target[0], tip[1] - target[1], tip[2] - target[2]));
        }
      expect(report.maxResidual).toBeLessThanOrEqual(nearest + 1e-6);
    }
  });

  it("three sections out of reach: straight along their base direction, else no farther than any of 20,000 random arcs", () => {
    const chain = continuumChain(3, 4);
    const plan = planFor(chain, 2);
    const length = chain.lengths.reduce((a, b) => a + b, 0);
    const pose = restPose(chain);
    expect(solvePlan(plan, pose, Float64Array.of(0, 5, 0)).maxResidual).toBeCloseTo(5 - length, 9);
    const rand = random(11);
    for (const target of [Float64Array.of(3, 1, -2), Float64Array.of(-1, -2, 0.5)]) {
      const solved = restPose(chain);
      const report = solvePlan(plan, solved, target);
      expectArcs(chain, solved.positions, 2);
      let nearest = Infinity;
      for (let i = 0; i < 20000; i++) {
        const tip = tipTarget(
          chain,
          arcPositions(
            chain,
            [0, 1, 2].map(() => 2 * rand()),
            [0, 1, 2].map(() => 2 * Math.PI * rand()),
          ),
        );
        nearest = Math.min(nearest, Math.hypot(tip[0] - target[0], tip[1] - target[1], tip[2] - target[2]));
      }
      expect(report.maxResidual).toBeLessThanOrEqual(nearest + 1e-3);
    }
  });

  it("a section joint's own limits are not used: the section's bend replaces them", () => {
    const chain = continuumChain(2, 4);
    const limits = createJointLimits(chain.rig);
    for (let j = 0; j < 8; j++) setJointLimit(limits, j, { hinge: { axis: [0, 0, 1], min: 0, max: 0.1 } });
    const plan = compilePlan(chain.rig, {
      effectors: [{ joint: 8 }],
      limits,
      continuumSections: chain.sections.map((joints) => ({ joints, maxBend: 2.5 })),
    });
    const target = tipTarget(chain, arcPositions(chain, [1.2, 0.7], [1, 3]));
    const pose = restPose(chain);
    expect(solvePlan(plan, pose, target).converged).toBe(true);
    expectArcs(chain, pose.positions, 2.5);
  });
});

describe("continuum sections in degenerate cases", () => {
  it("a target straight ahead, nearer than the section's length: no arc leaving along the entering bone reaches it; the section stays straight, the nearest", () => {
    const chain = continuumChain(1, 6);
    const plan = planFor(chain, 3);
    const length = chain.lengths.reduce((a, b) => a + b, 0);
    const target = Float64Array.of(0, 0.8 * length, 0);
    const pose = restPose(chain);
    const report = solvePlan(plan, pose, target);
    expectArcs(chain, pose.positions, 3);
    // Every side is alike here: the nearest over bends in one plane.
    let nearest = Infinity;
    for (let i = 0; i <= 30000; i++) {
      const tip = tipTarget(chain, arcPositions(chain, [(3 * i) / 30000], [0]));
      nearest = Math.min(nearest, Math.hypot(tip[0] - target[0], tip[1] - target[1], tip[2] - target[2]));
    }
    expect(report.maxResidual).toBeLessThanOrEqual(nearest + 1e-9);
    expect(sectionBends(chain, pose.positions)[0].bend).toBeLessThan(1e-6);
  });

  it("a target at the section's base: the section curls to its limit, nearest it, no NaN", () => {
    const chain = continuumChain(1, 6);
    const plan = planFor(chain, 3);
    const pose = restPose(chain);
    const report = solvePlan(plan, pose, Float64Array.of(0, 0, 0));
    expectArcs(chain, pose.positions, 3);
    expect(sectionBends(chain, pose.positions)[0].bend).toBeCloseTo(3, 6);
    expect(Number.isFinite(report.maxResidual)).toBe(true);
  });

  it("a zero-length bone inside a section keeps length zero, and the section still reaches arcs' targets", () => {
    const chain = chainOfLengths([0.2, 0, 0.2, 0.2, 0.2, 0.2, 0.15, 0.1], 4);
    const plan = planFor(chain, 2.5);
    const rand = random(5);
    let reached = 0;
    for (let t = 0; t < 50; t++) {
      const target = tipTarget(
        chain,
        arcPositions(chain, [2.5 * rand(), 2.5 * rand()], [7 * rand(), 7 * rand()]),
      );
      const pose = restPose(chain);
      if (solvePlan(plan, pose, target).converged) reached++;
      const p = pose.positions;
      expect(p.every(Number.isFinite)).toBe(true);
      expect(Math.hypot(p[6] - p[3], p[7] - p[4], p[8] - p[5])).toBe(0);
      for (let j = 1; j < 9; j++) {
        if (j === 2) continue;
        const a = j - 1;
        expect(
          Math.hypot(p[3 * j] - p[3 * a], p[3 * j + 1] - p[3 * a + 1], p[3 * j + 2] - p[3 * a + 2]),
        ).toBeCloseTo(chain.lengths[j - 1], 9);
      }
    }
    console.log(`[continuum] a zero-length bone inside a section: ${reached} / 50 reached`);
    expect(reached).toBe(50);
  });
});

describe("continuum sections: bad specs are refused by compilePlan", () => {
  const chain = continuumChain(2, 3);
  const effectors = [{ joint: 6 }];
  const refuse = (continuumSections: unknown, message: RegExp) =>
    expect(() =>
      compilePlan(chain.rig, { effectors, continuumSections: continuumSections as never }),
    ).toThrow(
      expect.objectContaining({
        name: "FabrikError",
        message: expect.stringMatching(message),
      }) as FabrikError,
    );
  it("names what is wrong", () => {
    refuse({}, /must be an array/);
    refuse([{ joints: [0], maxBend: 1 }], /at least two joints/);
    refuse([{ joints: [0, 1, 2], maxBend: 7 }], /maxBend must be a number in \(0, 2π\)/);
    refuse([{ joints: [0, 1, 2], maxBend: 0 }], /maxBend/);
    refuse([{ joints: [0, 2, 3], maxBend: 1 }], /is not a child of joint 0/);
    refuse(
      [
        { joints: [0, 1, 2], maxBend: 1 },
        { joints: [1, 2, 3], maxBend: 1 },
      ],
      /already in section 0/,
    );
    expect(() =>
      compilePlan(chain.rig, {
        effectors: [{ joint: 6, chainLength: 2 }],
        continuumSections: [{ joints: [0, 1, 2], maxBend: 1 }],
      }),
    ).toThrow(/not moved by any effector's chain/);
    expect(() =>
      compilePlan(chain.rig, {
        effectors: [{ joint: 6 }, { joint: 2 }],
        continuumSections: [{ joints: [0, 1, 2, 3], maxBend: 1 }],
      }),
    ).toThrow(/is an effector; only a section's base and tip can be/);
  });
});
