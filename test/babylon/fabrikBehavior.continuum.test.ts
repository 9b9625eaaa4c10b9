import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { FabrikBehavior, FabrikContinuumSection, SolveReport } from "../../plugin/index.js";
import {
  OWN_CHARACTERS,
  characterNamed,
  loadCharacter,
  noteIfMissing,
  type Character,
  type Loaded,
} from "./characters.js";
import { attach, babylonWorldPositions, captureLocals, random } from "./fabrikHarness.js";
import { cross, dot, norm, type V3 } from "../solver/continuumFixtures.js";

/*
 * Continuum sections driven by the behavior, on the project's tentacle and the tails of shared characters,
 * at default settings (tolerance, iterations, maxBend π): targets are the tips of random arcs drawn from the
 * pose the frame starts in, so an arc reaches each. Measured on what the behavior writes (the joint nodes'
 * world positions): reach, how evenly each section bends, bone lengths, and the bend limit set live with
 * setContinuumMaxBend. Prints what docs/continuum.md reports.
 */

/** The behavior's per-frame entry points, for tests that drive frames without rendering. */
interface FrameHooks {
  _onStage(): void;
  _onAfterRender(): void;
}
const hooks = (ik: FabrikBehavior) => ik as unknown as FrameHooks;

interface Case {
  readonly name: string;
  readonly character: Character;
  readonly sections: FabrikContinuumSection[];
  readonly tip: string;
  /** Bones the tip's chain moves: the sections' own. */
  readonly chainLength: number;
  /** Reached of TARGETS at the default maxBend. */
  readonly bar: number;
}

const tentacleName = (i: number) => `Tentacle.${String(i).padStart(2, "0")}`;
const TARGETS = 60;
const CASES: Case[] = [
  {
    name: "tentacle, 3 sections of 8 bones (bones listed)",
    character: OWN_CHARACTERS.find((c) => c.folder === "tentacle")!,
    sections: [0, 8, 16].map((start) => ({
      bones: Array.from({ length: 9 }, (_, k) => tentacleName(start + k)),
    })),
    tip: "Tentacle.24",
    chainLength: 24,
    bar: 60,
  },
  {
    name: "QuaterniusHorse tail, sections of 2 and 3 bones ({ from, to })",
    character: characterNamed("QuaterniusHorse"),
    sections: [{ bones: { from: "Tail2", to: "Tail4" } }, { bones: { from: "Tail4", to: "Tail7" } }],
    tip: "Tail7",
    chainLength: 5,
    bar: 60,
  },
  {
    name: "QuaterniusTrex tail, 1 section of 4 bones",
    character: characterNamed("QuaterniusTrex"),
    sections: [{ bones: { from: "Tail1", to: "Tail5" } }],
    tip: "Tail5",
    chainLength: 4,
    bar: 60,
  },
];

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[continuum behavior]\n  ${notes.join("\n  ")}`);
});

/** World positions of the joints, as V3s. */
function worldPositions(loaded: Loaded, ik: FabrikBehavior): V3[] {
  return babylonWorldPositions(loaded.scene, ik.rig!.nodes).map((v) => [v.x, v.y, v.z] as V3);
}

const minus = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const angle = (a: V3, b: V3) => Math.atan2(Math.hypot(...cross(a, b)), dot(a, b));

/**
 * The direction entering a section's base, in world space: the bone from its parent; for a root, its first
 * bone at rest in model space, carried to the world (a root's entering direction does not turn).
 */
function entering(ik: FabrikBehavior, world: V3[], joints: readonly number[]): V3 {
  const p = ik.rig!.parents[joints[0]];
  if (p >= 0) return norm(minus(world[joints[0]], world[p]));
  const rest = ik.solverRig!.restPositions;
  const a = joints[0],
    b = joints[1];
  const along = new Vector3(
    rest[3 * b] - rest[3 * a],
    rest[3 * b + 1] - rest[3 * a + 1],
    rest[3 * b + 2] - rest[3 * a + 2],
  );
  const v = Vector3.TransformNormal(along, Matrix.FromArray(Array.from(ik.modelToWorld!)));
  return norm([v.x, v.y, v.z]);
}

/** Per section: its joints' bends (the angle each turns its bone by) and their sum. */
function bends(ik: FabrikBehavior, world: V3[]): { each: number[]; bend: number }[] {
  return ik.continuumSections.map(({ joints }) => {
    let t = entering(ik, world, joints);
    const each: number[] = [];
    for (let k = 1; k < joints.length; k++) {
      const d = norm(minus(world[joints[k]], world[joints[k - 1]]));
      each.push(angle(t, d));
      t = d;
    }
    return { each, bend: each.reduce((s, x) => s + x, 0) };
  });
}

/** The tip of the sections bent by `bend[s]` toward the side at `turn[s]`, from the pose `world`. */
function arcTip(ik: FabrikBehavior, world: V3[], bend: number[], turn: number[]): Vector3 {
  const sections = ik.continuumSections.map((s) => s.joints);
  let t = entering(ik, world, sections[0]);
  let p = world[sections[0][0]];
  sections.forEach((joints, s) => {
    const n = joints.length - 1;
    const side = norm(cross(t, Math.abs(t[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0]));
    const across = cross(side, t);
    const u = [0, 1, 2].map((d) => Math.cos(turn[s]) * across[d] + Math.sin(turn[s]) * side[d]) as V3;
    let dir = t;
    for (let k = 1; k <= n; k++) {
      const a = (k * bend[s]) / n;
      dir = [0, 1, 2].map((i) => Math.cos(a) * t[i] + Math.sin(a) * u[i]) as V3;
      const len = Math.hypot(...minus(world[joints[k]], world[joints[k - 1]]));
      p = [p[0] + len * dir[0], p[1] + len * dir[1], p[2] + len * dir[2]];
    }
    t = dir;
  });
  return new Vector3(...p);
}

describe("FabrikBehavior continuum sections on characters, default settings", () => {
  for (const c of CASES) {
    it.skipIf(noteIfMissing(c.character))(
      c.name,
      async () => {
        const loaded = await loadCharacter(c.character);
        try {
          for (const group of loaded.scene.animationGroups) group.stop();
          loaded.scene.render();
          const ik = attach(loaded, { continuumSections: c.sections });
          const sections = ik.continuumSections;
          expect(sections.length).toBe(c.sections.length);
          const start = worldPositions(loaded, ik);
          const goal = new Vector3(...start[ik.jointIndex(c.tip)]);
          ik.setTarget(c.tip, goal, { chainLength: c.chainLength });
          expect(ik.continuumSections.every((s) => s.active)).toBe(true);
          let report = null as SolveReport | null;
          ik.onSolvedObservable.add((event) => (report = event.report));
          const tolerance = () => ik.solveSettings!.tolerance!;
          const lengths = (world: V3[]) =>
            sections.flatMap(({ joints }) =>
              joints.slice(1).map((j, k) => Math.hypot(...minus(world[j], world[joints[k]]))),
            );
          const restLengths = lengths(start);
          const { _onStage, _onAfterRender } = hooks(ik);
          const frame = (limit: number) => {
            _onStage();
            const world = worldPositions(loaded, ik);
            const locals = captureLocals(ik.rig!.nodes);
            _onAfterRender();
            const r = report!;
            const each = bends(ik, world);
            let spread = 0;
            for (const { each: b, bend } of each)
              if (bend > 1e-6) spread = Math.max(spread, (Math.max(...b) - Math.min(...b)) / bend);
            const length = Math.max(
              ...lengths(world).map((l, k) => Math.abs(l - restLengths[k]) / restLengths[k]),
            );
            const atLimit = each.some(({ bend }) => bend >= limit * (1 - 1e-4));
            const over = Math.max(...each.map(({ bend }) => bend - limit));
            return { r, spread, length, atLimit, over, finite: locals.every(Number.isFinite) };
          };

          // Reach at the default bend limit (π), frame after frame as a user would move the target.
          const rand = random(17);
          let reached = 0,
            spread = 0,
            length = 0,
            iterations = 0;
          for (let i = 0; i < TARGETS; i++) {
            const bend = sections.map(() => rand() * Math.PI);
            const turn = sections.map(() => rand() * 2 * Math.PI);
            goal.copyFrom(arcTip(ik, start, bend, turn));
            const f = frame(Math.PI);
            expect(f.finite).toBe(true);
            if (f.r.maxResidual <= tolerance()) reached++;
            iterations += f.r.iterations;
            spread = Math.max(spread, f.spread);
            length = Math.max(length, f.length);
          }

          // A limit set live: targets past it leave a section at its limit, never beyond.
          const limit = (40 * Math.PI) / 180;
          sections.forEach((_, s) => ik.setContinuumMaxBend(s, limit));
          expect(ik.continuumSections.every((s) => s.maxBend === limit)).toBe(true);
          let short = 0,
            endsAtLimit = 0,
            over = 0;
          for (let i = 0; i < 20; i++) {
            const bend = sections.map(() => (2 + rand()) * limit);
            const turn = sections.map(() => rand() * 2 * Math.PI);
            goal.copyFrom(arcTip(ik, start, bend, turn));
            const f = frame(limit);
            expect(f.finite).toBe(true);
            spread = Math.max(spread, f.spread);
            length = Math.max(length, f.length);
            over = Math.max(over, f.over);
            if (f.r.maxResidual > tolerance()) {
              short++;
              if (f.atLimit) endsAtLimit++;
            }
          }
          notes.push(
            `${c.name}: reached ${reached} / ${TARGETS} at maxBend π (${(iterations / TARGETS).toFixed(1)} ` +
              `iterations a frame); largest spread ${spread.toExponential(1)} of the section's bend, bone ` +
              `length ${length.toExponential(1)}; at maxBend 40°: ${short} of 20 targets out of reach, ` +
              `${endsAtLimit} of them with a section at its limit, largest bend past it ${over.toExponential(1)} rad`,
          );
          expect(spread).toBeLessThanOrEqual(0.01);
          // Babylon's matrices are float32: world positions read back carry about 1e-6 of relative noise.
          expect(length).toBeLessThan(1e-4);
          expect(reached).toBeGreaterThanOrEqual(c.bar);
          expect(short).toBeGreaterThan(10);
          expect(endsAtLimit).toBe(short);
          expect(over).toBeLessThan(1e-4);
        } finally {
          loaded.engine.dispose();
        }
      },
      60_000,
    );
  }
});

const tentacle = CASES[0];
it("a section bends as an arc while the targets' chains move it whole, with no target inside it", async () => {
  const loaded = await loadCharacter(tentacle.character);
  try {
    const ik = attach(loaded, { continuumSections: tentacle.sections });
    const active = () => ik.continuumSections.map((s) => s.active);
    expect(active()).toEqual([false, false, false]);
    const point = new Vector3(0.3, 0.8, 0.2);
    // Up to the root: the first section whole, the second only in part.
    ik.setTarget("Tentacle.12", point);
    expect(active()).toEqual([true, false, false]);
    expect(ik.plan!.continuum.count).toBe(1);
    // A target at 24 too: the second section now holds a target strictly inside it.
    ik.setTarget("Tentacle.24", point.add(new Vector3(0, 0.4, 0)));
    expect(active()).toEqual([true, false, true]);
    ik.removeTarget("Tentacle.12");
    expect(active()).toEqual([true, true, true]);
    // A chain ending inside the first section moves only part of it.
    ik.setTarget("Tentacle.24", point, { chainLength: 20 });
    expect(active()).toEqual([false, true, true]);
    // A bend limit edited while a plan is in use goes into that plan's section.
    ik.setContinuumMaxBend(2, 1.25);
    expect(ik.plan!.continuum.maxBend[1]).toBe(1.25);
    expect(ik.continuumSections[2].maxBend).toBe(1.25);
    // Sections replaced at runtime: none, then the three again; a refused set changes nothing.
    let rebuilt = 0;
    ik.onTargetsChangedObservable.add(() => rebuilt++);
    ik.setContinuumSections([]);
    expect(ik.continuumSections).toEqual([]);
    expect(ik.plan!.continuum.count).toBe(0);
    ik.setContinuumSections(tentacle.sections);
    expect(active()).toEqual([false, true, true]);
    expect(rebuilt).toBe(2);
    const plan = ik.plan;
    expect(() => ik.setContinuumSections([{ bones: ["Tentacle.00", "Tentacle.02"] }])).toThrow(
      'FabrikIK setContinuumSections(): continuumSections[0]: "Tentacle.02" is not a child of "Tentacle.00"',
    );
    expect(ik.plan).toBe(plan);
    expect(active()).toEqual([false, true, true]);
    expect(rebuilt).toBe(2);
    ik.clearTargets();
    expect(active()).toEqual([false, false, false]);
  } finally {
    loaded.engine.dispose();
  }
});

const FIXTURE = fileURLToPath(new URL("./continuumBehaviorAllocation.fixture.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

// Measured in a plain Node process (continuumBehaviorAllocation.fixture.ts), as test/helpers/allocation.test.ts
// explains; the project's own code only (Babylon's observables are Babylon's).
it("a frame of the tentacle in three continuum sections allocates nothing", () => {
  const out = execFileSync(process.execPath, ["--import", "tsx", FIXTURE], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
  });
  const { bytes, sites, iterationsPerFrame, active } = JSON.parse(out.trim().split("\n").at(-1)!) as {
    bytes: number;
    sites: string[];
    iterationsPerFrame: number;
    active: number;
  };
  console.log(
    `[continuum behavior allocation] ${bytes.toFixed(2)} B per frame, ${iterationsPerFrame.toFixed(1)} iterations a frame`,
  );
  expect(active).toBe(3);
  expect(iterationsPerFrame).toBeGreaterThan(1);
  expect(bytes, sites.join("\n")).toBeLessThan(1);
}, 150_000);
