import { afterAll, describe, expect, it } from "vitest";
import { runContinuumCase } from "./continuumCase.js";

/*
 * Fuzzing continuum sections: random rigs (as the solver fuzzer draws them: chains, trees, forests, zero and
 * tiny bones, random rest orientations, random limits), up to four sections each (some in series), random
 * effector sets, the sections the behavior would use for them (sectionsForPlan: each must compile, each
 * left out must be refused), and one to three solves toward random targets. Every solve: no NaN, the
 * sections' bones keep their lengths, and each section the solve moved bends evenly (spread ≤ 1 % of its
 * bend) and within its maxBend. See continuumCase.ts. Known issue: in about 1 case in 10,000 a section's
 * bone drifts by ~1e-8 of its length in a solve; it is counted and printed, and fails with FUZZ_STRICT=1.
 *
 *   FUZZ_CASES=100000 npx vitest run test/fuzz/continuum.test.ts
 *   FUZZ_SEEDS=111760,113469 npx vitest run test/fuzz/continuum.test.ts   only these seeds (the known issue)
 */
const CASES = Number(process.env.FUZZ_CASES ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 1);
const ONLY = process.env.FUZZ_SEEDS?.split(",").map(Number);

const tally = {
  cases: 0,
  solves: 0,
  sections: 0,
  measured: 0,
  spread: 0,
  drift: 0,
  driftSeeds: [] as number[],
};
afterAll(() => {
  console.log(
    `[fuzz continuum] ${tally.cases} cases, ${tally.solves} solves, ${tally.sections} sections in plans, ` +
      `${tally.measured} section bends measured, largest spread ${tally.spread.toExponential(1)} of the bend`,
  );
  if (tally.driftSeeds.length > 0) {
    console.log(
      `[fuzz continuum] known issue: a section bone's length drifted past 1e-9 (at most ` +
        `${tally.drift.toExponential(1)} of it) in seeds ${tally.driftSeeds.slice(0, 20).join(", ")} ` +
        "(FUZZ_STRICT=1 fails on it)",
    );
  }
});

describe("fuzz: continuum sections", () => {
  it(
    `${ONLY?.length ?? CASES} random rigs with sections: no NaN, bone lengths, even bends within maxBend`,
    () => {
      const failures: string[] = [];
      const seeds = ONLY ?? Array.from({ length: CASES }, (_, i) => SEED + i);
      for (const seed of seeds) {
        const result = runContinuumCase(seed);
        tally.cases++;
        tally.solves += result.solves;
        tally.sections += result.sections;
        tally.measured += result.measured;
        tally.spread = Math.max(tally.spread, result.spread);
        if (result.lengthDrift > 0) tally.driftSeeds.push(seed);
        tally.drift = Math.max(tally.drift, result.lengthDrift);
        if (failures.length < 20) failures.push(...result.failures);
      }
      expect(failures).toEqual([]);
      expect(tally.measured).toBeGreaterThan(tally.cases / 10);
    },
    Math.max(60_000, 30 * CASES),
  );
});
