import { bench, describe } from "vitest";
import { random, randomInBall } from "../solver/fixtures.js";
import { fabrikChain } from "./fabrik-solvers.js";
import { allocationPerCall, formatTable, machineName, measure, type Measurement } from "./harness.js";
import { ccdChain } from "./peers/ccd-chain.js";
import { threeIkChain } from "./peers/three-ik-chain.js";

// A single 10-bone chain, 2000 random reachable targets (uniform in the reach ball), each solved from the
// straight rest pose to a tolerance of 1e-3 x reach, at most 100 iterations, by every solver on the same targets.
const BONES = 10;
const BONE_LENGTH = 1;
const REACH = BONES * BONE_LENGTH;
const TOLERANCE = 1e-3 * REACH;
const CAP = 100;
const TARGET_COUNT = 2000;
const ALLOCATION_SOLVES = 1_000_000;

function reachableTargets(count: number, reach: number, seed: number): Float64Array {
  const rand = random(seed);
  const targets = new Float64Array(3 * count);
  for (let i = 0; i < count; i++) randomInBall(rand, reach, targets, 3 * i);
  return targets;
}

const targets = reachableTargets(TARGET_COUNT, REACH, 2026);
const fabrik = fabrikChain(BONES, BONE_LENGTH);
const threeIk = threeIkChain(BONES, BONE_LENGTH);
const ccd = ccdChain(BONES, BONE_LENGTH);

const results: Measurement[] = [];
const lines: string[] = [];

// Measured once at load, with our own timer (only the solving is timed, not the reset), then printed.
results.push(measure(fabrik, targets, TOLERANCE, CAP, 7));
results.push(measure(threeIk, targets, TOLERANCE, CAP, 3));
results.push(measure(ccd, targets, TOLERANCE, CAP, 3));
const [ours, ik, cc] = results;
lines.push(`machine: ${machineName()}`);
lines.push(
  `tolerance ${TOLERANCE} (1e-3 x reach), cap ${CAP} iterations, ${TARGET_COUNT} targets, same targets for all`,
);
lines.push(
  formatTable(
    ["solver", "µs / solve", "mean iterations", "µs / iteration", "converged", "speed-up of babylon-fabrik"],
    results.map((r) => [
      r.name,
      r.usPerSolve.toFixed(2),
      r.meanIterations.toFixed(2),
      r.usPerIteration.toFixed(3),
      `${(100 * r.convergedFraction).toFixed(2)} %`,
      r === ours ? "—" : `${(r.usPerSolve / ours.usPerSolve).toFixed(1)}×`,
    ]),
  ),
);
const vsIk = ik.usPerSolve / ours.usPerSolve;
const vsCcd = cc.usPerSolve / ours.usPerSolve;
lines.push(`bar: ≥ 15× THREE.IK per solve: ${vsIk.toFixed(1)}× ${vsIk >= 15 ? "MET" : "NOT MET"}`);
lines.push(`bar: ≥ 35× CCDIKSolver per solve: ${vsCcd.toFixed(1)}× ${vsCcd >= 35 ? "MET" : "NOT MET"}`);
lines.push(
  `bar: mean iterations ≤ THREE.IK's: ${ours.meanIterations.toFixed(2)} vs ${ik.meanIterations.toFixed(2)} ` +
    (ours.meanIterations <= ik.meanIterations ? "MET" : "NOT MET"),
);

let i = 0;
fabrik.solve(TOLERANCE, CAP); // fixes the settings solveOnce uses
const allocation = await allocationPerCall(() => {
  fabrik.aim(targets, i);
  fabrik.solveOnce();
  i = (i + 1) % TARGET_COUNT;
}, ALLOCATION_SOLVES);
lines.push(
  `allocation: ${allocation.bytesPerCall.toFixed(3)} bytes per solve over ${ALLOCATION_SOLVES} solves, ` +
    `${allocation.gcRuns} garbage collections meanwhile ${allocation.bytesPerCall < 1 && allocation.gcRuns === 0 ? "(zero: MET)" : "(NOT MET)"}`,
);
let k = 0;
const peerAllocation = await allocationPerCall(() => {
  threeIk.reset(targets[3 * k], targets[3 * k + 1], targets[3 * k + 2]);
  threeIk.iterate();
  k = (k + 1) % TARGET_COUNT;
}, 10_000);
lines.push(
  `allocation, THREE.IK for comparison: ${peerAllocation.bytesPerCall.toFixed(0)} bytes per iteration, ` +
    `${peerAllocation.gcRuns} garbage collections over 10k iterations`,
);
process.stdout.write(`\n${lines.join("\n")}\n\n`);

describe(`single ${BONES}-bone chain, ${TARGET_COUNT} reachable targets from rest`, () => {
  // vitest's own timing of one full pass over the targets, for its comparison summary.
  const options = { time: 0, iterations: 3, warmupIterations: 1 };
  const pass = (solver: { reset(x: number, y: number, z: number): void }, solve: () => unknown) => () => {
    for (let i = 0; i < TARGET_COUNT; i++) {
      solver.reset(targets[3 * i], targets[3 * i + 1], targets[3 * i + 2]);
      solve();
    }
  };
  bench(
    fabrik.name,
    pass(fabrik, () => fabrik.solve(TOLERANCE, CAP)),
    options,
  );
  bench(
    threeIk.name,
    pass(threeIk, () => loop(threeIk.iterate)),
    options,
  );
  bench(
    ccd.name,
    pass(ccd, () => loop(ccd.iterate)),
    options,
  );
});

function loop(iterate: () => number): void {
  for (let i = 0; i < CAP && iterate() > TOLERANCE; i++);
}
