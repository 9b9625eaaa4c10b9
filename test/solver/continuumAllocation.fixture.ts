// Measures what a solve with continuum sections allocates, outside vitest (run with `node --import tsx`):
// vitest's module transform turns imported bindings into getters, which blocks inlining and boxes doubles a
// bundled build never boxes. Prints one JSON line: bytes per solve, and the top allocation sites.
import { Session } from "node:inspector/promises";
import { solvePlan } from "../../plugin/index.js";
import { arcPositions, continuumChain, planFor, restPose } from "./continuumFixtures.js";

const chain = continuumChain(3, 4);
const plan = planFor(chain, 2.5);
const pose = restPose(chain);
const tip = chain.rig.jointCount - 1;
const targetOf = (bends: number[], turns: number[]) =>
  arcPositions(chain, bends, turns).slice(3 * tip, 3 * tip + 3);
// Targets far apart, solved in turn, so every solve iterates; toward the third, the passes crawl and stall,
// and the solve meets it after a round of damped steps on the arcs (continuumSteps.ts) and a restart from
// other arcs (continuumRestart.ts).
const targets = [
  targetOf([0.8, 1.6, 0.4], [0.5, 2, 4]),
  targetOf([2, 0.3, 1.2], [3, 1, 5.5]),
  targetOf([0.3, 2.5, 1.7], [2.9, 5.3, 4.1]),
];
let iterations = 0;
let solves = 0;

function measuredSolves(calls: number): void {
  for (let i = 0; i < calls; i++) iterations += solvePlan(plan, pose, targets[i % 3]).iterations;
  solves += calls;
}

async function measure(calls: number): Promise<{ bytes: number; sites: string[] }> {
  measuredSolves(calls);
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 32,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
  measuredSolves(calls);
  const { profile } = await session.post("HeapProfiler.stopSampling");
  session.disconnect();
  let bytes = 0;
  const sites = new Map<string, number>();
  const walk = (node: typeof profile.head, inside: boolean): void => {
    const within = inside || node.callFrame.functionName === "measuredSolves";
    if (within && node.selfSize > 0) {
      bytes += node.selfSize;
      const here = `${node.callFrame.functionName} ${node.callFrame.url.replace(/^.*\/plugin\//, "")}:${node.callFrame.lineNumber + 1}`;
      sites.set(here, (sites.get(here) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, within);
  };
  walk(profile.head, false);
  return {
    bytes: bytes / calls,
    sites: [...sites.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([k, v]) => `${(v / calls).toFixed(1)} B ${k}`),
  };
}

// The least of three samplings: a JIT tier-up inside one window allocates its own bookkeeping, while a real
// per-solve allocation shows in every window.
let best = { bytes: Infinity, sites: [] as string[] };
for (let round = 0; round < 3 && best.bytes > 0; round++) {
  const sample = await measure(4000);
  if (sample.bytes < best.bytes) best = sample;
}
console.log(JSON.stringify({ ...best, iterationsPerSolve: iterations / solves }));
