import { bench, describe } from "vitest";
import {
  compilePlan,
  copyPose,
  createJointLimits,
  createPose,
  setJointLimit,
  solvePlan,
  type SolvePlan,
} from "../../plugin/index.js";
import { randomPose, straightChain } from "../solver/fixtures.js";
import { allocationPerCall, formatTable } from "./harness.js";

// A 10-bone chain with and without limits (a 1-rad circular swing cone and ±0.6 rad twist on every joint),
// on the same 2000 targets: the tips of random poses whose joints turn by at most 0.5 rad, so both chains can
// reach every one. Same tolerance (1e-3 x reach) and cap (100 iterations), solved from the straight rest pose.
const BONES = 10;
const rig = straightChain(BONES, 1);
const limits = createJointLimits(rig);
for (let j = 0; j < BONES; j++) {
  setJointLimit(limits, j, { swing: { up: 1, right: 1, down: 1, left: 1 }, twist: { min: -0.6, max: 0.6 } });
}
const free = compilePlan(rig, { effectors: [{ joint: BONES }] });
const limited = compilePlan(rig, { effectors: [{ joint: BONES }], limits });

const COUNT = 2000;
const targets = new Float64Array(3 * COUNT);
for (let i = 0; i < COUNT; i++)
  targets.set(randomPose(rig, 1000 + i, 0.5).positions.subarray(3 * BONES, 3 * BONES + 3), 3 * i);

const rest = createPose(rig);
const pose = createPose(rig);
const target = new Float64Array(3);
const settings = { tolerance: 1e-3 * BONES, maxIterations: 100 };

function solveAll(plan: SolvePlan): { us: number; iterations: number; converged: number } {
  let iterations = 0,
    converged = 0,
    time = 0;
  for (let i = 0; i < COUNT; i++) {
    copyPose(rest, pose);
    target[0] = targets[3 * i];
    target[1] = targets[3 * i + 1];
    target[2] = targets[3 * i + 2];
    const t0 = performance.now();
    const report = solvePlan(plan, pose, target, settings);
    time += performance.now() - t0;
    iterations += report.iterations;
    if (report.converged) converged++;
  }
  return { us: (1000 * time) / COUNT, iterations: iterations / COUNT, converged: converged / COUNT };
}

function median(plan: SolvePlan, rounds: number) {
  const runs = Array.from({ length: rounds }, () => solveAll(plan)).sort((a, b) => a.us - b.us);
  return runs[Math.floor(rounds / 2)];
}

median(free, 3);
median(limited, 3); // warm-up
const freeResult = median(free, 7);
const limitedResult = median(limited, 7);
const ratio = limitedResult.us / freeResult.us;
let k = 0;
const allocation = await allocationPerCall(() => {
  copyPose(rest, pose);
  target[0] = targets[3 * k];
  target[1] = targets[3 * k + 1];
  target[2] = targets[3 * k + 2];
  solvePlan(limited, pose, target, settings);
  k = (k + 1) % COUNT;
}, 200_000);

process.stdout.write(
  "\n" +
    [
      `10-bone chain with and without joint limits, ${COUNT} targets both can reach:`,
      formatTable(
        ["chain", "µs / solve", "mean iterations", "converged"],
        [
          [
            "no limits",
            freeResult.us.toFixed(2),
            freeResult.iterations.toFixed(2),
            `${(100 * freeResult.converged).toFixed(1)} %`,
          ],
          [
            "swing + twist limits",
            limitedResult.us.toFixed(2),
            limitedResult.iterations.toFixed(2),
            `${(100 * limitedResult.converged).toFixed(1)} %`,
          ],
        ],
      ),
      `bar: limited ≤ 3× unconstrained: ${ratio.toFixed(2)}× ${ratio <= 3 ? "MET" : "NOT MET"}`,
      `allocation, limited: ${allocation.bytesPerCall.toFixed(3)} bytes per solve over 200000 solves, ` +
        `${allocation.gcRuns} garbage collections meanwhile ${allocation.bytesPerCall < 1 && allocation.gcRuns === 0 ? "(zero: MET)" : "(NOT MET)"}`,
    ].join("\n") +
    "\n\n",
);

describe("limits", () => {
  const options = { time: 0, iterations: 3, warmupIterations: 1 };
  bench("10-bone chain, no limits, 2000 targets", () => void solveAll(free), options);
  bench("10-bone chain, swing + twist limits, 2000 targets", () => void solveAll(limited), options);
});
