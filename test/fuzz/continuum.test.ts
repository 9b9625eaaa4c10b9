import { afterAll, describe, expect, it } from "vitest";
import { runContinuumCase } from "./continuumCase.js";

/*
 * Fuzzing continuum sections: random rigs (as the solver fuzzer draws them: chains, trees, forests, zero and
 * tiny bones, random rest orientations, random limits), up to four sections each (some in series), random
 * effector sets, the sections the behavior would use for them (sectionsForPlan: each must compile, each
 * left out must be refused), and one to three solves toward random targets. Every solve: no NaN, the
 * sections' bones keep their lengths, and each section the solve moved bends evenly (spread ≤ 1 % of its
 * bend) and within its maxBend. See continuumCase.ts.
 *
 *   FUZZ_CASES=100000 npx vitest run test/fuzz/continuum.test.ts
 *   FUZZ_SEEDS=4,34 npx vitest run test/fuzz/continuum.test.ts   only these seeds
 */
const CASES = Number(process.env.FUZZ_CASES ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 1);
const ONLY = process.env.FUZZ_SEEDS?.split(",").map(Number);

const tally = { cases: 0, solves: 0, sections: 0, measured: 0, spread: 0 };
afterAll(() => {
  console.log(
    `[fuzz continuum] ${tally.cases} cases, ${tally.solves} solves, ${tally.sections} sections in plans, ` +
      `${tally.measured} section bends measured, largest spread ${tally.spread.toExponential(1)} of the bend`,
  );
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
        if (failures.length < 20) failures.push(...result.failures);
      }
      expect(failures).toEqual([]);
      expect(tally.measured).toBeGreaterThan(tally.cases / 10);
    },
    Math.max(60_000, 30 * CASES),
  );
});
