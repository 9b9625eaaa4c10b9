// Measures what a frame of a behavior with continuum sections allocates, outside vitest (run with
// `node --import tsx`): vitest's module transform turns imported bindings into getters, which blocks inlining
// and boxes doubles a bundled build never boxes. Prints one JSON line: bytes per frame, the top allocation
// sites of the project's own code, and the solve's iterations per frame.
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Session } from "node:inspector/promises";
import { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { OWN_CHARACTERS, loadCharacter } from "./characters.js";

const loaded = await loadCharacter(OWN_CHARACTERS.find((c) => c.folder === "tentacle")!);
const scene = loaded.scene;
for (const group of scene.animationGroups) group.stop();
const name = (i: number) => `Tentacle.${String(i).padStart(2, "0")}`;
const ik = new FabrikBehavior({
  continuumSections: [0, 8, 16].map((start) => ({ bones: { from: name(start), to: name(start + 8) } })),
});
loaded.root.addBehavior(ik, true);
scene.render();
// Two reachable targets far apart (the tip bent one way, then the other), taken in turn: every frame solves.
const targets = [new Vector3(0.5, 0.9, 0.3), new Vector3(-0.4, 1.0, -0.5)];
const goal = targets[0].clone();
ik.setTarget("Tentacle.24", goal, { chainLength: 24 });
let iterations = 0;
let frames = 0;
ik.onSolvedObservable.add((event) => (iterations += event.report.iterations));

function measuredFrames(calls: number): void {
  for (let i = 0; i < calls; i++) {
    goal.copyFrom(targets[i & 1]);
    scene.onBeforeRenderObservable.notifyObservers(scene);
    scene.onAfterRenderObservable.notifyObservers(scene);
  }
  frames += calls;
}

async function measure(calls: number): Promise<{ bytes: number; sites: string[] }> {
  measuredFrames(calls);
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 32,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
  measuredFrames(calls);
  const { profile } = await session.post("HeapProfiler.stopSampling");
  session.disconnect();
  let bytes = 0;
  const sites = new Map<string, number>();
  const walk = (node: typeof profile.head, inside: boolean): void => {
    const within = inside || node.callFrame.functionName === "measuredFrames";
    if (within && node.selfSize > 0 && !node.callFrame.url.includes("node_modules")) {
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
// per-frame allocation shows in every window.
let best = { bytes: Infinity, sites: [] as string[] };
for (let round = 0; round < 3 && best.bytes > 0; round++) {
  const sample = await measure(1500);
  if (sample.bytes < best.bytes) best = sample;
}
const active = ik.continuumSections.filter((s) => s.active).length;
console.log(JSON.stringify({ ...best, iterationsPerFrame: iterations / frames, active }));
loaded.engine.dispose();
