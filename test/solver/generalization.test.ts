// Issue 18's bars on arms, chains and limbs the solver's other tests never look at, judged at default
// settings (or the settings the reproducers name). Measured numbers are in docs/arms.md; the bench
// test/bench/generalization.bench.ts prints them.
import { describe, expect, test } from "vitest";
import { DEFAULT_MAX_ITERATIONS, compilePlan, solvePlan } from "../../plugin/index.js";
import { clonePose } from "./fixtures.js";
import { CASE_SETS, PLANAR_3, TWISTED_2, caseSet } from "./generalization/caseSets.js";
import type { IkCase } from "./generalization/ikCase.js";
import {
  flipReproducer,
  foldedChainCases,
  nearLineReproducer,
  planarArmReproducer,
} from "./generalization/reproducers.js";
import {
  runCase,
  runPlain,
  solved,
  summarize,
  type Outcome,
  type Summary,
} from "./generalization/runCases.js";
import { poseErrors } from "./generalization/invariants.js";
import { point } from "./generalization/kinematics.js";
import {
  T_POSE_ARM_SOLUTION,
  armPose,
  loweredHipsLeg,
  tPoseArm,
  tPoseArmReproducer,
} from "./generalization/straightLimbs.js";

const outcomes = new Map<string, Outcome[]>();
function outcomesOf(name: string): Outcome[] {
  let list = outcomes.get(name);
  if (list === undefined) outcomes.set(name, (list = caseSet(name).cases().map(runCase)));
  return list;
}

function describeSummary(s: Summary): string {
  return (
    `${s.name}: solved ${s.solved}/${s.count}, mean error ${s.meanError.toExponential(2)} of reach ` +
    `(worst ${s.worstError.toExponential(2)}), mean iterations ${s.meanIterations.toFixed(2)}`
  );
}

function failures(list: readonly Outcome[], ok: (o: Outcome) => boolean, shown = 3): string {
  return list
    .filter((o) => !ok(o))
    .slice(0, shown)
    .map((o) => `${o.case.label}: residual ${o.residual.toExponential(3)} after ${o.iterations} iterations`)
    .join("; ");
}

function expectAllSolved(name: string): void {
  const list = outcomesOf(name);
  const s = summarize(name, list);
  expect(s.solved, `${describeSummary(s)}; e.g. ${failures(list, solved)}`).toBe(s.count);
}

describe("the generators make reachable targets", () => {
  test("each target made from a pose: that pose keeps its limits and bones and puts the effector on it", () => {
    const problems: string[] = [];
    let checked = 0;
    for (const set of CASE_SETS) {
      for (const c of set.cases()) {
        if (c.witness === undefined) continue;
        checked++;
        const e = poseErrors(c.rig, c.limits, c.start, c.witness);
        const miss = Math.hypot(
          ...[0, 1, 2].map((i) => c.witness!.positions[3 * c.effector + i] - c.target[i]),
        );
        if (!(e.limit <= 1e-12 && e.length <= 1e-12 && e.orientation <= 1e-12 && miss === 0))
          problems.push(`${c.label}: ${JSON.stringify(e)}, effector ${miss} off`);
      }
    }
    expect(checked).toBeGreaterThan(5000);
    expect(problems.slice(0, 3)).toEqual([]);
  });

  test("item 4: the issue's shoulder rotation and elbow angle put the hand on the T-pose arm's target", () => {
    const arm = tPoseArm();
    const pose = armPose(arm, T_POSE_ARM_SOLUTION.upperArm, T_POSE_ARM_SOLUTION.elbow);
    const hand = point(pose, arm.effector);
    const target = tPoseArmReproducer().target;
    expect(Math.hypot(...[0, 1, 2].map((i) => hand[i] - target[i]))).toBeLessThan(2e-5);
    expect(poseErrors(arm.rig, arm.limits, tPoseArmReproducer().start, pose).limit).toBeLessThan(1e-12);
  });

  test("item 3: joint values within ±90° put the 4,4,4 arm's tip on (8.81688, −0.629218, 0)", () => {
    // The last link's direction is free (three joints, two coordinates): sweep it, and solve the first two
    // links for the wrist in closed form.
    const [x, y] = [8.81688, -0.629218];
    let best = Infinity;
    for (let k = 0; k < 36000; k++) {
      const phi = -Math.PI + (2 * Math.PI * k) / 36000;
      const wx = x - 4 * Math.cos(phi),
        wy = y - 4 * Math.sin(phi);
      const cosElbow = (wx * wx + wy * wy - 32) / 32;
      if (Math.abs(cosElbow) > 1) continue;
      for (const sign of [-1, 1]) {
        const t2 = sign * Math.acos(cosElbow);
        const t1 = Math.atan2(wy, wx) - Math.atan2(4 * Math.sin(t2), 4 + 4 * Math.cos(t2));
        const t3 = phi - t1 - t2;
        const wrap = (a: number) => Math.atan2(Math.sin(a), Math.cos(a));
        best = Math.min(best, Math.max(Math.abs(wrap(t1)), Math.abs(wrap(t2)), Math.abs(wrap(t3))));
      }
    }
    expect(best).toBeLessThan(Math.PI / 2);
  });
});

describe("revolute arms: reachable targets from random joint values, from the straight pose", () => {
  test(`${PLANAR_3}: 1000/1000 within 1e-3 of reach`, () => expectAllSolved(PLANAR_3));

  test.each([6, 8, 10])("planar %i-hinge arms, random links: 1000/1000 within 1e-3 of reach", (hinges) =>
    expectAllSolved(`planar ${hinges}-hinge ±90°`),
  );

  test(`${TWISTED_2}, random twists and links: ≥ 98/100 within 0.15 of reach, ≥ 95/100 within 1e-3`, () => {
    const list = outcomesOf(TWISTED_2);
    const s = summarize(TWISTED_2, list);
    const near = list.filter((o) => o.relative <= 0.15).length;
    const message = `${describeSummary(s)}, within 0.15: ${near}/100`;
    expect(near, message).toBeGreaterThanOrEqual(98);
    expect(s.solved, message).toBeGreaterThanOrEqual(95);
  });
});

describe("targets near a straight chain's own line (no limits)", () => {
  test("item 1: target (1e-5, 8.5, 0), tolerance 0.01, 1000 iterations: converges as plain FABRIK does", () => {
    const c = nearLineReproducer();
    const plain = runPlain(c, 1000);
    expect(plain.residual).toBeLessThanOrEqual(0.01);
    const o = runCase(c);
    expect(
      o.residual,
      `after ${o.iterations} iterations; plain FABRIK: ${plain.iterations}`,
    ).toBeLessThanOrEqual(0.01);
  });

  test("1e-5 to 3e-3 off the line, ahead of and behind the root: every target converges (1000 iterations)", () => {
    const name = "near-line, tol 0.01, 1000 it";
    const list = outcomesOf(name);
    const plainSolved = list.filter((o) => runPlain(o.case, 1000).residual <= o.tolerance).length;
    const s = summarize(name, list);
    expect(plainSolved, "plain FABRIK, the reference").toBe(list.length);
    expect(s.solved, `${describeSummary(s)}; e.g. ${failures(list, solved)}`).toBe(list.length);
  });

  test("with the default budget, the solver converges wherever plain FABRIK with that budget does", () => {
    const list = outcomesOf("near-line, tol 0.01, default it");
    const missed = list.filter(
      (o) => runPlain(o.case, DEFAULT_MAX_ITERATIONS).residual <= o.tolerance && !solved(o),
    );
    expect(
      missed.length,
      failures(missed, () => false),
    ).toBe(0);
  });
});

describe("straight limbs at a hinge limit", () => {
  test("item 4: the T-pose arm meets its reachable target within 1e-4", () => {
    const o = runCase(tPoseArmReproducer());
    expect(o.residual, `after ${o.iterations} iterations, ${o.escapes} escapes`).toBeLessThanOrEqual(1e-4);
  });

  test("500 random reachable targets of the T-pose arm (limit-respecting shoulder and elbow): all within 1 mm", () => {
    const name = "T-pose arm, 500 random, default";
    const list = outcomesOf(name);
    const within = (o: Outcome) => o.residual <= 1e-3;
    const s = summarize(name, list);
    expect(list.filter(within).length, `${describeSummary(s)}; e.g. ${failures(list, within)}`).toBe(500);
  });

  test("item 4: the leg with hips lowered 10 cm reaches its foot target, from straight and from a bent knee", () => {
    const list = [0, 5, 15, 25, 35, 45].map((k) => runCase(loweredHipsLeg(k)));
    expect(list.filter(solved).length, failures(list, solved, 6)).toBe(list.length);
  });
});

describe("item 3: a planar arm whose joints pin at +90° and −90°", () => {
  test("the reachable target (8.81688, −0.629218, 0) is met (default tolerance, 200 iterations)", () => {
    const o = runCase(planarArmReproducer());
    expect(o.residual, `after ${o.iterations} iterations, ${o.escapes} escapes`).toBeLessThanOrEqual(
      o.tolerance,
    );
  });
});

describe("orientations agree with positions after a bone flips by about 180°", () => {
  test("item 5: folded 2-bone rig pulled to (100, 0.5, 0.3): within 1e-9 of the bone length", () => {
    const o = runCase(flipReproducer());
    expect(solved(o), `residual ${o.residual}`).toBe(true);
    expect(o.errors.orientation).toBeLessThanOrEqual(1e-9);
  });

  test("folded 2–4-bone chains at scales 1e-3 to 1e3: within 1e-9, reaching as far as their length allows", () => {
    const list = foldedChainCases(1805).map(runCase);
    const agree = (o: Outcome) => o.errors.orientation <= 1e-9;
    const bad = list.filter((o) => !agree(o));
    expect(
      bad.length,
      bad
        .slice(0, 3)
        .map((o) => `${o.case.label}: ${o.errors.orientation.toExponential(2)}`)
        .join("; "),
    ).toBe(0);
    expect(list.filter(solved).length, failures(list, solved)).toBe(list.length);
  });
});

describe("every case of every set", () => {
  test("keeps bone lengths (1e-9 relative) and limits (1e-6 rad), has no NaN, and reports truthfully", () => {
    const problems: string[] = [];
    for (const set of CASE_SETS) {
      for (const o of outcomesOf(set.name)) {
        const e = o.errors;
        if (e.nan) problems.push(`${o.case.label}: NaN`);
        else if (e.length > 1e-9) problems.push(`${o.case.label}: bone length off by ${e.length}`);
        else if (e.limit > 1e-6) problems.push(`${o.case.label}: limit violated by ${e.limit} rad`);
        if (o.reportProblem !== "") problems.push(`${o.case.label}: report ${o.reportProblem}`);
      }
    }
    expect(problems.slice(0, 5), `${problems.length} problems`).toEqual([]);
  });

  test("is deterministic: the same input gives bit-identical output, after other solves and on a new plan", () => {
    const sample = CASE_SETS.flatMap((set) => {
      const list = set.cases();
      return list.filter((_, i) => i % Math.ceil(list.length / 20) === 0);
    });
    const differing: string[] = [];
    for (let i = 0; i < sample.length; i++) {
      const c = sample[i];
      const first = runCase(c);
      runCase(sample[(i + 1) % sample.length]);
      runCase(sample[(i + 7) % sample.length]);
      const again = runCase(c);
      const fresh = solveOnNewPlan(c);
      for (const [what, other] of [
        ["again", again],
        ["new plan", fresh],
      ] as const) {
        if (!sameBits(first, other)) differing.push(`${c.label} (${what})`);
      }
    }
    expect(differing.slice(0, 5), `${differing.length} of ${sample.length} cases`).toEqual([]);
  });
});

function solveOnNewPlan(c: IkCase): Pick<Outcome, "pose" | "iterations" | "converged" | "escapes"> {
  const plan = compilePlan(c.rig, {
    effectors: [{ joint: c.effector, chainLength: c.chainLength }],
    limits: c.limits,
  });
  const pose = clonePose(c.start);
  const r = solvePlan(plan, pose, c.target, c.settings);
  return { pose, iterations: r.iterations, converged: r.converged, escapes: r.escapes };
}

function sameBits(a: Pick<Outcome, "pose" | "iterations" | "converged" | "escapes">, b: typeof a): boolean {
  const bits = (x: Float64Array) => new BigUint64Array(x.buffer, x.byteOffset, x.length);
  const same = (x: Float64Array, y: Float64Array) => {
    const u = bits(y);
    return bits(x).every((v, i) => v === u[i]);
  };
  return (
    same(a.pose.positions, b.pose.positions) &&
    same(a.pose.orientations, b.pose.orientations) &&
    a.iterations === b.iterations &&
    a.converged === b.converged &&
    a.escapes === b.escapes
  );
}
