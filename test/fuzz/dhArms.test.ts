import { afterAll, describe, expect, it } from "vitest";
import { runDHCase } from "./dhCase.js";

/*
 * Fuzzing robot arms from DH tables: random tables (1–12 rows, revolute and prismatic, standard and modified,
 * zero lengths that make axes meet, narrow, full-turn and prismatic ranges, random homes and tool offsets),
 * goals from random joint values, out of reach or at the base, with and without a tool orientation, from
 * home or a random in-range pose, one to four frames each. Every solve: no NaN, fixed bones as built, sliders
 * on their rails within range, hinges and read-back joint values within their ranges, iterations within the
 * cap, the same input solving to the same bits, and a converged solve really within tolerance. One case in
 * four feeds a bad table, option or call instead: the named FabrikError of docs/errors.md, nothing changed.
 * See dhCase.ts.
 *
 *   FUZZ_CASES=100000 npx vitest run test/fuzz/dhArms.test.ts
 *   FUZZ_SEEDS=4,34 npx vitest run test/fuzz/dhArms.test.ts   only these seeds
 */
const CASES = Number(process.env.FUZZ_CASES ?? 1500);
const SEED = Number(process.env.FUZZ_SEED ?? 1);
const ONLY = process.env.FUZZ_SEEDS?.split(",").map(Number);

/** Seeds that once failed, re-run by every run, with the reason. */
const REGRESSION_SEEDS: readonly { readonly seed: number; readonly why: string }[] = [];

const tally = {
  cases: 0,
  solves: 0,
  converged: 0,
  reachable: 0,
  reachableConverged: 0,
  refusals: 0,
  roundTrip: 0,
};
afterAll(() => {
  const share = (a: number, b: number) => `${((100 * a) / Math.max(b, 1)).toFixed(1)} %`;
  console.log(
    `[fuzz DH arms] ${tally.cases} cases, ${tally.solves} solves, ${share(tally.converged, tally.solves)} converged ` +
      `(goals from joint values: ${tally.reachableConverged}/${tally.reachable}, ` +
      `${share(tally.reachableConverged, tally.reachable)}), ${tally.refusals} refusals checked; ` +
      `poses from the joint values read back within ${tally.roundTrip.toExponential(1)}`,
  );
});

describe("fuzz: robot arms from DH tables", () => {
  const seeds = ONLY ?? [
    ...REGRESSION_SEEDS.map((s) => s.seed),
    ...Array.from({ length: CASES }, (_, i) => SEED + i),
  ];
  it(
    `${seeds.length} random arms: no NaN, lengths, ranges, iteration cap, determinism, named refusals`,
    () => {
      const failures: string[] = [];
      for (const seed of seeds) {
        const result = runDHCase(seed);
        tally.cases++;
        tally.solves += result.solves;
        tally.converged += result.converged;
        tally.reachable += result.reachable;
        tally.reachableConverged += result.reachableConverged;
        tally.refusals += result.refusals;
        tally.roundTrip = Math.max(tally.roundTrip, result.roundTrip);
        if (failures.length < 20) failures.push(...result.failures);
      }
      expect(failures).toEqual([]);
      expect(tally.refusals).toBeGreaterThan(seeds.length / 8);
    },
    Math.max(60_000, 30 * seeds.length),
  );
});
