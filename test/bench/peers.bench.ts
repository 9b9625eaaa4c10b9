import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Scene } from "@babylonjs/core/scene.js";
import { bench, describe } from "vitest";
import { FLIP, JUMP, StabilityCounter, lissajous } from "../robustness/stability.js";
import {
  bytesAllocated,
  formatBytes,
  formatMicroseconds,
  formatTable,
  machineName,
  median,
} from "./harness.js";
import {
  babylonTwoBoneSolver,
  ccdFrameSolver,
  fabrikFrameSolver,
  threeIkFrameSolver,
  type ChainOptions,
  type FrameSolver,
} from "./peers/frameSolvers.js";

/*
 * babylon-fabrik against THREE.IK, three.js CCDIKSolver and Babylon's BoneIKController, in one run, frame by
 * frame: N characters, each a chain with its own target moving along a smooth closed curve within reach,
 * every chain solved from where the last frame left it to a tolerance of 1e-3 × reach within 20 iterations
 * (the behavior's default cap). Per cell: the median time of a frame (all N chains), the mean iterations and
 * convergence per solve, and the bytes allocated per frame (V8's GC profiler: exact even when collections
 * run). Cells whose frame would take longer than FRAME_BUDGET are not run.
 */

const CAP = 20;
const PERIOD = 600;
const MEASURE_BUDGET_MS = 1000;
const FRAME_BUDGET_MS = 4000;

interface Chain {
  readonly label: string;
  readonly bones: number;
  readonly limb: boolean;
}
const CHAINS: readonly Chain[] = [
  { label: "2-bone limb", bones: 2, limb: true },
  { label: "10 bones", bones: 10, limb: false },
  { label: "100 bones", bones: 100, limb: false },
  { label: "1000 bones", bones: 1000, limb: false },
];
const CHARACTERS = [1, 10, 100];

type Kind = "fabrik" | "threeIk" | "ccd" | "babylon";
const KINDS: readonly Kind[] = ["fabrik", "threeIk", "ccd", "babylon"];
const NAMES: Record<Kind, string> = {
  fabrik: "babylon-fabrik",
  threeIk: "THREE.IK",
  ccd: "CCDIKSolver",
  babylon: "BoneIKController",
};

const engine = new NullEngine();
const scene = new Scene(engine);
let limbIndex = 0;

function make(kind: Kind, o: ChainOptions): FrameSolver {
  switch (kind) {
    case "fabrik":
      return fabrikFrameSolver(o);
    case "threeIk":
      return threeIkFrameSolver(o);
    case "ccd":
      return ccdFrameSolver(o);
    default:
      return babylonTwoBoneSolver(o, scene, limbIndex++);
  }
}

/**
 * One period of each character's curve, x y z per frame: in front of and above the chain's base, within
 * 0.8 R of it (a limb's within reach of a 1-rad shoulder cone and a bent elbow), phase-shifted per character.
 */
function paths(chain: Chain, reach: number, characters: number): Float64Array[] {
  const center: [number, number, number] = chain.limb
    ? [0, 0.6 * reach, 0.2 * reach]
    : [0, 0.45 * reach, 0.1 * reach];
  const amplitude: [number, number, number] = chain.limb
    ? [0.1 * reach, 0.08 * reach, 0.08 * reach]
    : [0.25 * reach, 0.2 * reach, 0.25 * reach];
  return Array.from({ length: characters }, (_, c) => {
    const out = new Float64Array(3 * PERIOD);
    for (let f = 0; f < PERIOD; f++)
      lissajous(center, amplitude, PERIOD, f, out, 3 * f, (2 * Math.PI * c) / characters);
    return out;
  });
}

interface Cell {
  usPerFrame: number;
  iterations: number;
  converged: number;
  bytesPerFrame: number;
  frames: number;
}

/**
 * Runs one solver kind on N characters of a chain. `estimateMs` is the one-character frame time when known:
 * a cell whose frame would exceed FRAME_BUDGET_MS is not run (null). Warm-up, measured frames and the
 * allocation run are sized from a first timed frame, so slow peers on long chains finish in seconds.
 */
function runCell(
  kind: Kind,
  chain: Chain,
  characters: number,
  limits: boolean,
  estimateMs: number | undefined,
): Cell | null {
  if (estimateMs !== undefined && estimateMs * characters > FRAME_BUDGET_MS) return null;
  const reach = chain.bones;
  const tolerance = 1e-3 * reach;
  const o: ChainOptions = {
    bones: chain.bones,
    boneLength: 1,
    limits,
    limb: chain.limb,
    // Behind the limb: a pole in front would ask for more shoulder swing than the 1-rad cone allows.
    pole: [0, 0.5 * reach, -2 * reach],
    tolerance,
  };
  const solvers = Array.from({ length: characters }, () => make(kind, o));
  const curves = paths(chain, reach, characters);
  let frame = 0,
    iterations = 0,
    converged = 0,
    solves = 0;
  const step = () => {
    frame = frame + 1 === PERIOD ? 0 : frame + 1;
    for (let c = 0; c < characters; c++) {
      const s = solvers[c];
      s.aim(curves[c], 3 * frame);
      iterations += s.solve(CAP);
      if (s.residual <= tolerance) converged++;
      solves++;
    }
  };
  // The first frame starts from the straight rest pose: it settles onto the curve, and sizes the rest.
  const first = performance.now();
  step();
  const firstMs = performance.now() - first;
  if (firstMs > 3 * FRAME_BUDGET_MS) return null;
  // Warm up by time, not frames: a fast cell needs thousands of frames before V8 has optimised it.
  const warm = Math.max(1, Math.min(3000, Math.floor(300 / firstMs)));
  for (let i = 0; i < warm; i++) step();
  iterations = converged = solves = 0;
  const times: number[] = [];
  const start = performance.now();
  while (times.length < 3 || (times.length < 300 && performance.now() - start < MEASURE_BUDGET_MS)) {
    const t0 = performance.now();
    step();
    times.push(performance.now() - t0);
  }
  const measured = times.length;
  const stats = { iterations: iterations / solves, converged: converged / solves };
  const usPerFrame = 1000 * median(times);
  // Optimising compilers allocate too: let them finish before counting (a few hundred ms of frames).
  const frames300ms = Math.floor(300 / (usPerFrame / 1000));
  for (let i = 0; i < Math.min(2000, frames300ms); i++) step();
  const allocation = bytesAllocated(step, Math.max(1, Math.min(5000, frames300ms)));
  return { usPerFrame, ...stats, bytesPerFrame: allocation.bytesPerCall, frames: measured };
}

// Every solver once on the short chains first, results discarded: the optimising compiler's one-off
// allocations and first-run costs otherwise land in whichever cells happen to run first.
for (const kind of KINDS)
  for (const chain of CHAINS.slice(0, 2))
    for (const limits of [false, true])
      if (kind !== "babylon" || chain.limb) runCell(kind, chain, 10, limits, undefined);

const rows: string[][] = [];
const started = performance.now();
for (const chain of CHAINS) {
  for (const limits of [false, true]) {
    // Per-character frame time of each kind, from its one-character cell, to skip cells beyond the budget.
    const single = new Map<Kind, number>();
    for (const characters of CHARACTERS) {
      const cells = KINDS.map((kind) => {
        if (kind === "babylon" && !chain.limb) return "—";
        const estimate = single.get(kind);
        const cell = runCell(kind, chain, characters, limits, estimate);
        if (cell === null)
          return estimate === undefined
            ? `not run (a frame > ${FRAME_BUDGET_MS / 1000} s)`
            : `not run (≈ ${formatMicroseconds(1000 * estimate * characters)} / frame)`;
        if (characters === 1) single.set(kind, cell.usPerFrame / 1000);
        return (
          `**${formatMicroseconds(cell.usPerFrame)}**` +
          (characters > 1 ? ` (${formatMicroseconds(cell.usPerFrame / characters)} / solve)` : "") +
          `, ${cell.iterations.toFixed(1)} it, ${(100 * cell.converged).toFixed(0)} %, ${formatBytes(cell.bytesPerFrame)}`
        );
      });
      rows.push([chain.label, limits ? "yes" : "no", String(characters), ...cells]);
    }
  }
}
const seconds = (performance.now() - started) / 1000;

// Temporal stability: the stability test's 10-bone path (1000 frames, each from the last), through each peer.
function stability(kind: Kind, limits: boolean): string {
  const o: ChainOptions = {
    bones: 10,
    boneLength: 1,
    limits,
    limb: false,
    pole: [0, 5, 20],
    tolerance: 1e-2,
  };
  const s = make(kind, o);
  const counter = new StabilityCounter();
  const locals = new Float64Array(4 * 11);
  const point = new Float64Array(3);
  lissajous([0, 5, 0], [3, 2.5, 3], 1000, 0, point);
  s.aim(point, 0);
  s.solve(500);
  s.locals(locals);
  counter.record(locals, true);
  for (let frame = 1; frame <= 1000; frame++) {
    lissajous([0, 5, 0], [3, 2.5, 3], 1000, frame, point);
    s.aim(point, 0);
    s.solve(CAP);
    s.locals(locals);
    counter.record(locals, s.residual <= 1e-2);
  }
  const c = counter.counts;
  return `${c.jumps} / ${c.flips} / ${((c.largest * 180) / Math.PI).toFixed(1)}° / ${c.converged}`;
}
const stabilityRows = (["fabrik", "threeIk", "ccd"] as const).map((kind) => [
  NAMES[kind],
  stability(kind, false),
  stability(kind, true),
]);

process.stdout.write(
  "\n" +
    [
      `machine: ${machineName()}; three-ik 0.1.0 on three r112, CCDIKSolver from three r187, Babylon.js 9.28.0 (NullEngine)`,
      `Frame by frame: each character's target moves along a smooth closed curve within reach; every chain is solved ` +
        `from its previous pose to 1e-3 × reach within ${CAP} iterations. Cell: median time per frame (all characters), ` +
        `time per solve, mean iterations per solve, solves within tolerance, bytes allocated per frame. ` +
        `Limits: babylon-fabrik 1-rad swing cones and ±0.6 rad twist (the limb: that shoulder and a 0..2.5 rad hinge ` +
        `elbow, its pole behind); THREE.IK the same cone as a ball constraint (no twist, no hinge); CCDIKSolver ` +
        `Euler ranges ±1 rad across and ±0.6 rad along the bone (the limb: a hinge axis); BoneIKController is a ` +
        `pole-driven hinge by construction and has no other limit. (${seconds.toFixed(0)} s)`,
      "",
      formatTable(["chain", "limits", "characters", ...KINDS.map((k) => NAMES[k])], rows),
      "",
      `Temporal stability, the stability test's path (10-bone chain, 1000 frames, each solved from the last; ` +
        `tolerance 1e-2, cap ${CAP}): joint-frames turning more than ${Math.round((JUMP * 180) / Math.PI)}° / flips over ` +
        `${Math.round((FLIP * 180) / Math.PI)}° / largest turn in one frame / frames converged`,
      "",
      formatTable(["solver", "free chain", "limited chain"], stabilityRows),
    ].join("\n") +
    "\n\n",
);

describe("peers, frame by frame", () => {
  // vitest's own timing of one frame of ten 10-bone characters per solver, for its comparison summary.
  const options = { time: 0, iterations: 20, warmupIterations: 5 };
  const o: ChainOptions = {
    bones: 10,
    boneLength: 1,
    limits: false,
    limb: false,
    pole: [0, 5, 20],
    tolerance: 1e-2,
  };
  for (const kind of ["fabrik", "threeIk", "ccd"] as const) {
    const solvers = Array.from({ length: 10 }, () => make(kind, o));
    const point = new Float64Array(3);
    let frame = 0;
    bench(
      `${NAMES[kind]}: ten 10-bone chains, one frame`,
      () => {
        frame++;
        solvers.forEach((s, c) => {
          lissajous([0, 4.5, 1], [2.5, 2, 2.5], PERIOD, frame, point, 0, c);
          s.aim(point, 0);
          s.solve(CAP);
        });
      },
      options,
    );
  }
});
