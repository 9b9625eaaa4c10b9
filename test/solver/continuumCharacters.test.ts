import { afterAll, describe, expect, it } from "vitest";
import { buildSkeletonRig } from "../../plugin/babylon/skeletonRig.js";
import {
  DEFAULT_TOLERANCE,
  createPose,
  createRig,
  compilePlan,
  solvePlan,
  type Rig,
} from "../../plugin/index.js";
import { OWN_CHARACTERS, characterNamed, loadCharacter, noteIfMissing } from "../babylon/characters.js";
import { random } from "./fixtures.js";
import { cross, dot, norm, sub, type V3 } from "./continuumFixtures.js";

/*
 * Continuum sections on real rigs: the project's tentacle (24 bones, shortening toward the tip, in three
 * sections of eight) and the tails of two shared characters. Targets are the tips of random arcs drawn from
 * each rig's rest pose (so an arc reaches each), solved from the rest pose at default settings. Prints the
 * numbers docs/continuum.md reports.
 */

/**
 * The direction entering a section's base: its parent's bone, or for a root or a zero-length bone its first
 * bone at rest (the parents here are not moved by the solve, so "turned with the parent" is the rest).
 */
function entering(rig: Rig, positions: Float64Array, section: number[]): V3 {
  const p = rig.parents[section[0]];
  const bone = p >= 0 ? sub(positions, p, section[0]) : ([0, 0, 0] as V3);
  return Math.hypot(...bone) > 1e-9 ? norm(bone) : norm(sub(rig.restPositions, section[0], section[1]));
}

/** The tip of the sections bent by `bends`, each toward the side at `turns` about its entering direction. */
function arcTip(rig: Rig, sections: number[][], bends: number[], turns: number[]): Float64Array {
  const rest = rig.restPositions;
  let t = entering(rig, rest, sections[0]);
  let p: V3 = [rest[3 * sections[0][0]], rest[3 * sections[0][0] + 1], rest[3 * sections[0][0] + 2]];
  sections.forEach((joints, s) => {
    const n = joints.length - 1;
    const side = norm(cross(t, Math.abs(t[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0]));
    const across = cross(side, t);
    const u = [0, 1, 2].map((d) => Math.cos(turns[s]) * across[d] + Math.sin(turns[s]) * side[d]) as V3;
    let dir = t;
    for (let k = 1; k <= n; k++) {
      dir = [0, 1, 2].map(
        (i) => Math.cos((k * bends[s]) / n) * t[i] + Math.sin((k * bends[s]) / n) * u[i],
      ) as V3;
      const len = Math.hypot(...sub(rest, joints[k - 1], joints[k]));
      p = [p[0] + len * dir[0], p[1] + len * dir[1], p[2] + len * dir[2]];
    }
    t = dir;
  });
  return Float64Array.from(p);
}

/** Largest spread of a section's joint bends relative to its bend, and the worst bone length change. */
function measure(
  rig: Rig,
  positions: Float64Array,
  sections: number[][],
): { spread: number; length: number } {
  let spread = 0,
    length = 0;
  for (const joints of sections) {
    let t = entering(rig, positions, joints);
    const bends: number[] = [];
    for (let k = 1; k < joints.length; k++) {
      const d = norm(sub(positions, joints[k - 1], joints[k]));
      bends.push(Math.atan2(Math.hypot(...cross(t, d)), dot(t, d)));
      t = d;
      const rest = Math.hypot(...sub(rig.restPositions, joints[k - 1], joints[k]));
      length = Math.max(
        length,
        Math.abs(Math.hypot(...sub(positions, joints[k - 1], joints[k])) - rest) / rest,
      );
    }
    const bend = bends.reduce((a, b) => a + b, 0);
    if (bend > 1e-9) spread = Math.max(spread, (Math.max(...bends) - Math.min(...bends)) / bend);
  }
  return { spread, length };
}

interface Case {
  readonly name: string;
  readonly character: ReturnType<typeof characterNamed>;
  readonly joints: readonly string[][];
  readonly maxBend: number;
  /** Reached of 200. */
  readonly bar: number;
}

const tentacleJoints = [0, 8, 16].map((start) =>
  Array.from({ length: 9 }, (_, k) => `Tentacle.${String(start + k).padStart(2, "0")}`),
);
const CASES: Case[] = [
  {
    name: "tentacle, 3 sections of 8 bones",
    character: OWN_CHARACTERS.find((c) => c.folder === "tentacle")!,
    joints: tentacleJoints,
    maxBend: (150 * Math.PI) / 180,
    bar: 200,
  },
  {
    name: "QuaterniusHorse tail, 2 sections of 3 bones",
    character: characterNamed("QuaterniusHorse"),
    joints: [
      ["Tail1", "Tail2", "Tail3", "Tail4"],
      ["Tail4", "Tail5", "Tail6", "Tail7"],
    ],
    maxBend: (120 * Math.PI) / 180,
    bar: 200,
  },
  {
    name: "Fox tail, 1 section of 2 bones",
    character: characterNamed("Fox"),
    joints: [["b_Tail01_012", "b_Tail02_013", "b_Tail03_014"]],
    maxBend: (120 * Math.PI) / 180,
    bar: 200,
  },
];

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[continuum on characters]\n  ${notes.join("\n  ")}`);
});

describe("continuum sections on characters: random arcs' tips, default settings", () => {
  for (const c of CASES) {
    it.skipIf(noteIfMissing(c.character))(c.name, async () => {
      const loaded = await loadCharacter(c.character);
      try {
        const rig = createRig(buildSkeletonRig(loaded.root).toRigDescription());
        const index = (name: string) => rig.names!.indexOf(name);
        const sections = c.joints.map((list) => list.map(index));
        expect(sections.flat().every((j) => j >= 0)).toBe(true);
        const tip = sections.at(-1)!.at(-1)!;
        const plan = compilePlan(rig, {
          effectors: [{ joint: tip, chainLength: sections.reduce((n, s) => n + s.length - 1, 0) }],
          continuumSections: sections.map((joints) => ({ joints, maxBend: c.maxBend })),
        });
        const rand = random(31);
        let reached = 0,
          spread = 0,
          length = 0,
          iterations = 0,
          worst = 0,
          time = 0;
        for (let t = 0; t < 200; t++) {
          const bends = sections.map(() => rand() * c.maxBend);
          const turns = sections.map(() => rand() * 2 * Math.PI);
          const target = arcTip(rig, sections, bends, turns);
          const pose = createPose(rig);
          const start = performance.now();
          const report = solvePlan(plan, pose, target);
          time += performance.now() - start;
          iterations += report.iterations;
          worst = Math.max(worst, report.maxResidual);
          if (report.maxResidual <= DEFAULT_TOLERANCE) reached++;
          expect(pose.positions.every(Number.isFinite)).toBe(true);
          const m = measure(rig, pose.positions, sections);
          spread = Math.max(spread, m.spread);
          length = Math.max(length, m.length);
        }
        notes.push(
          `${c.name}: reached ${reached} / 200, largest spread ${spread.toExponential(1)} of the bend, ` +
            `bone length ${length.toExponential(1)}, ${(iterations / 200).toFixed(1)} iterations, ` +
            `worst residual ${worst.toExponential(2)}, ${((1000 * time) / 200).toFixed(0)} µs a solve`,
        );
        expect(spread).toBeLessThanOrEqual(0.01);
        expect(length).toBeLessThan(1e-9);
        expect(reached).toBeGreaterThanOrEqual(c.bar);
      } finally {
        loaded.engine.dispose();
      }
    });
  }
});
