import { bench, describe } from "vitest";
import { compilePlan, copyPose, createPose, createRig, solvePlan, type Rig } from "../../plugin/index.js";
import { random, randomInBall, randomPose } from "../solver/fixtures.js";
import { fabrikChain } from "./fabrik-solvers.js";
import { formatTable, measure } from "./harness.js";

// Cost per iteration against chain length (10 vs 1000 bones), and a 5-effector tree (a hand with
// four-bone fingers meeting at the palm sub-base). Tolerance 1e-3 x reach, cap 100 iterations.
const CAP = 100;

function targetsInBall(count: number, radius: number, seed: number): Float64Array {
  const rand = random(seed);
  const out = new Float64Array(3 * count);
  for (let i = 0; i < count; i++) randomInBall(rand, radius, out, 3 * i);
  return out;
}

const short = fabrikChain(10, 1);
const long = fabrikChain(1000, 1);
const shortResult = measure(short, targetsInBall(2000, 10, 7), 1e-2, CAP, 5);
const longResult = measure(long, targetsInBall(200, 1000, 7), 1, CAP, 3);
const ratio = longResult.usPerIteration / shortResult.usPerIteration;

/** Forearm, wrist, palm, then five fingers of four bones fanned out: 23 joints, 5 fingertip effectors. */
function hand(): Rig {
  const parents = [-1, 0, 1];
  const positions = [0, 0, 0, 0, 2, 0, 0, 2.8, 0];
  for (let f = 0; f < 5; f++) {
    const spread = (f - 2) * 0.35;
    let parent = 2;
    for (let s = 1; s <= 4; s++) {
      parents.push(parent);
      const r = 0.4 + s * 0.3;
      positions.push(Math.sin(spread) * r, 2.8 + Math.cos(spread) * r, 0.05 * s);
      parent = parents.length - 1;
    }
  }
  return createRig({ parents, restPositions: positions });
}

const handRig = hand();
const tips = [6, 10, 14, 18, 22];
const handPlan = compilePlan(handRig, { effectors: tips.map((joint) => ({ joint })) });
const handRest = createPose(handRig);
const handPose = createPose(handRig);
const handTargets = new Float64Array(15);
const handReach = 2.8 + 1.6;

/** Reachable targets: the fingertips of the hand posed with every joint turned by up to 0.5 rad. */
function handTargetSets(count: number, seed: number): Float64Array[] {
  const sets: Float64Array[] = [];
  for (let s = 0; s < count; s++) {
    const p = randomPose(handRig, seed + s, 0.5).positions;
    sets.push(Float64Array.from(tips.flatMap((t) => [p[3 * t], p[3 * t + 1], p[3 * t + 2]])));
  }
  return sets;
}

const handSets = handTargetSets(1000, 11);
const handTolerance = 1e-3 * handReach;
function solveHand(set: Float64Array) {
  copyPose(handRest, handPose);
  handTargets.set(set);
  return solvePlan(handPlan, handPose, handTargets, { tolerance: handTolerance, maxIterations: CAP });
}
let handIterations = 0,
  handConverged = 0;
for (const set of handSets) {
  const report = solveHand(set);
  handIterations += report.iterations;
  if (report.converged) handConverged++;
}
const handRounds: number[] = [];
for (let round = 0; round < 5; round++) {
  const t0 = performance.now();
  for (const set of handSets) solveHand(set);
  handRounds.push(((performance.now() - t0) * 1000) / handSets.length);
}
handRounds.sort((a, b) => a - b);

process.stdout.write(
  "\n" +
    [
      "babylon-fabrik, cost per iteration against chain length (tolerance 1e-3 x reach, cap 100):",
      formatTable(
        ["chain", "µs / solve", "mean iterations", "µs / iteration", "converged"],
        [
          [
            "10 bones, 2000 targets",
            shortResult.usPerSolve.toFixed(2),
            shortResult.meanIterations.toFixed(2),
            shortResult.usPerIteration.toFixed(3),
            `${(100 * shortResult.convergedFraction).toFixed(1)} %`,
          ],
          [
            "1000 bones, 200 targets",
            longResult.usPerSolve.toFixed(1),
            longResult.meanIterations.toFixed(2),
            longResult.usPerIteration.toFixed(3),
            `${(100 * longResult.convergedFraction).toFixed(1)} %`,
          ],
        ],
      ),
      `bar: 1000-bone iteration ≤ 120× a 10-bone iteration: ${ratio.toFixed(1)}× ${ratio <= 120 ? "MET" : "NOT MET"}`,
      "",
      `5-effector tree (hand, ${handRig.jointCount} joints, palm sub-base), ${handSets.length} reachable target sets from rest:`,
      `  ${handRounds[2].toFixed(2)} µs / solve, ${(handIterations / handSets.length).toFixed(2)} mean iterations, ` +
        `${((100 * handConverged) / handSets.length).toFixed(1)} % converged (tolerance ${handTolerance.toFixed(4)})`,
    ].join("\n") +
    "\n\n",
);

describe("scaling", () => {
  const options = { time: 0, iterations: 3, warmupIterations: 1 };
  const long200 = targetsInBall(50, 1000, 9);
  bench(
    "babylon-fabrik: 1000-bone chain, 50 targets",
    () => {
      for (let i = 0; i < 50; i++) {
        long.reset(long200[3 * i], long200[3 * i + 1], long200[3 * i + 2]);
        long.solve(1, CAP);
      }
    },
    options,
  );
  bench("babylon-fabrik: 5-effector hand, 1000 target sets", () => handSets.forEach(solveHand), options);
});
