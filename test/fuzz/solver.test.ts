import { afterAll, describe, expect, it } from "vitest";
import { KNOWN_ISSUES, runCase, type CaseResult, type KnownIssue } from "./fuzzCase.js";
import { REGRESSION_SEEDS } from "./regressionSeeds.js";

/*
 * Fuzzing the solver: random rigs (1–200 joints, chains, trees, forests, random rest orientations, zero and
 * tiny bones), random limits including degenerate ones, random effector sets with chain lengths, pins and
 * poles, random targets (reachable, far out of reach, on joints, at the root), one to four frames each; plus
 * one bad input in about a quarter of the cases. See fuzzCase.ts for every invariant checked.
 *
 *   npm test                      20 000 cases (seeds 1..20000)
 *   npm run fuzz                  FUZZ_CASES=1000000, in chunks of 10 000, with progress
 *   FUZZ_SEED=5000001 npm run fuzz   another million
 *   FUZZ_SEEDS=4,34 npx vitest run test/fuzz   only these seeds, every failure printed
 *   FUZZ_STRICT=1                 known issues fail the run too
 */
const CASES = Number(process.env.FUZZ_CASES ?? 20_000);
const FIRST_SEED = Number(process.env.FUZZ_SEED ?? 1);
const CHUNK = 10_000;
const ONLY = process.env.FUZZ_SEEDS?.split(",").map(Number);

interface Tally {
  cases: number;
  solves: number;
  converged: number;
  rejections: number;
  joints: number;
  failedSeeds: number[];
  known: Map<KnownIssue, Set<number>>;
}

const tally: Tally = {
  cases: 0,
  solves: 0,
  converged: 0,
  rejections: 0,
  joints: 0,
  failedSeeds: [],
  known: new Map(),
};
const started = performance.now();

/** Runs seeds, adds them to the tally and returns the failures (at most a few per seed). */
function run(seeds: Iterable<number>): string[] {
  const failures: string[] = [];
  for (const seed of seeds) {
    const result: CaseResult = runCase(seed);
    tally.cases++;
    tally.solves += result.solves;
    tally.converged += result.converged;
    tally.rejections += result.rejections;
    tally.joints += result.joints;
    for (const issue of result.known) {
      const seen = tally.known.get(issue) ?? new Set<number>();
      seen.add(seed);
      tally.known.set(issue, seen);
    }
    if (result.failures.length > 0) {
      tally.failedSeeds.push(seed);
      if (failures.length < 20) failures.push(...result.failures);
    }
  }
  return failures;
}

function* range(from: number, count: number): Generator<number> {
  for (let i = 0; i < count; i++) yield from + i;
}

afterAll(() => {
  const seconds = (performance.now() - started) / 1000;
  const lines = [
    `[fuzz] ${tally.cases} cases in ${seconds.toFixed(1)} s: ${tally.solves} solves ` +
      `(${((100 * tally.converged) / Math.max(1, tally.solves)).toFixed(1)} % converged), ` +
      `${tally.rejections} bad inputs refused and checked, mean rig ${(tally.joints / Math.max(1, tally.cases)).toFixed(1)} joints`,
    `[fuzz] failing seeds: ${tally.failedSeeds.length === 0 ? "none" : tally.failedSeeds.slice(0, 50).join(", ")}`,
  ];
  for (const [issue, seen] of tally.known) {
    const seeds = [...seen];
    lines.push(
      `[fuzz] known issue ${issue} in ${seeds.length} cases (seeds ${seeds.slice(0, 8).join(", ")}${seeds.length > 8 ? ", …" : ""}): ${KNOWN_ISSUES[issue]}`,
    );
  }
  console.log(lines.join("\n"));
});

describe.runIf(ONLY !== undefined)("solver fuzz: chosen seeds", () => {
  it(`seeds ${ONLY?.join(", ")}`, () => {
    for (const seed of ONLY ?? []) {
      const result = runCase(seed);
      if (result.failures.length > 0) tally.failedSeeds.push(seed);
      console.log(
        `seed ${seed}: ${result.joints} joints, ${result.effectors} effectors, ${result.solves} solves, ` +
          `${result.rejections} refusals, known issues [${result.known.join(", ")}]\n  ${result.failures.join("\n  ") || "no failure"}`,
      );
    }
    expect(tally.failedSeeds).toEqual([]);
  });
});

describe.runIf(ONLY === undefined)("solver fuzz", () => {
  it(`regression seeds (${REGRESSION_SEEDS.length})`, () => {
    const failures = run(REGRESSION_SEEDS.map((r) => r.seed));
    expect(failures).toEqual([]);
  });

  for (let from = FIRST_SEED; from < FIRST_SEED + CASES; from += CHUNK) {
    const count = Math.min(CHUNK, FIRST_SEED + CASES - from);
    it(`random cases, seeds ${from}..${from + count - 1}`, () => {
      const chunkStart = performance.now();
      const failures = run(range(from, count));
      const done = tally.cases - REGRESSION_SEEDS.length;
      // Progress, so a long run shows it is alive; the tally holds only numbers, so memory stays flat.
      console.log(
        `[fuzz] ${done} / ${CASES} cases (${((100 * done) / CASES).toFixed(0)} %), this chunk ` +
          `${((performance.now() - chunkStart) / 1000).toFixed(1)} s, failing seeds so far: ` +
          `${tally.failedSeeds.length}, heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB`,
      );
      expect(failures).toEqual([]);
    }, 600_000);
  }
});
