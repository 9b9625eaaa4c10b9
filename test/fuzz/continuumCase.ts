// One random case of the continuum-section fuzzer (not a test file): a random rig, sections, effectors and
// targets, drawn from one seeded generator, and the invariants each solve must keep.
import { sectionsForPlan, type ResolvedContinuumSection } from "../../plugin/babylon/continuumOptions.js";
import {
  FabrikError,
  compilePlan,
  createJointLimits,
  createPose,
  createRig,
  setJointLimit,
  solvePlan,
  type EffectorSpec,
  type Pose,
  type Rig,
  type SolvePlan,
} from "../../plugin/index.js";
import { random } from "../solver/fixtures.js";
import {
  chance,
  generateEffectors,
  generateLimitSpec,
  generateRig,
  int,
  perturbPose,
  pick,
  uniform,
  type Rand,
} from "./generate.js";

export interface ContinuumCaseResult {
  readonly solves: number;
  /** Sections the effectors moved whole, solved as arcs. */
  readonly sections: number;
  /** Of them, sections whose bends could be measured in a solve that moved them. */
  readonly measured: number;
  /** Largest spread of a section's measured joint bends, relative to its bend. */
  readonly spread: number;
  readonly failures: string[];
}

/** Relative error allowed on bone lengths, as the solver promises for rigid bones. */
const LENGTH = 1e-9;

/**
 * Up to four runs of bones, none sharing a bone, some in series (a tip the next one's base): each a joint and
 * 1 to 8 of its ancestors' bones above it.
 */
function generateSections(rand: Rand, rig: Rig): ResolvedContinuumSection[] {
  const taken = new Uint8Array(rig.jointCount);
  const sections: ResolvedContinuumSection[] = [];
  const count = int(rand, 1, 4);
  for (let attempt = 0; sections.length < count && attempt < 12; attempt++) {
    // Below the last section's tip (in series) or anywhere.
    const last = sections.at(-1);
    const children: number[] = [];
    if (last !== undefined && chance(rand, 0.5)) {
      for (let j = 0; j < rig.jointCount; j++) if (rig.parents[j] === last.joints.at(-1)) children.push(j);
    }
    let tip = children.length > 0 ? pick(rand, children) : int(rand, 0, rig.jointCount - 1);
    // Run down a random branch, so the tip is some way below.
    for (let d = int(rand, 0, 8); d > 0; d--) {
      const below: number[] = [];
      for (let j = 0; j < rig.jointCount; j++) if (rig.parents[j] === tip) below.push(j);
      if (below.length === 0) break;
      tip = pick(rand, below);
    }
    const joints = [tip];
    const bones = int(rand, 1, 8);
    while (joints.length <= bones && rig.parents[joints[0]] >= 0 && !taken[joints[0]]) {
      if (children.length > 0 && joints[0] === last!.joints.at(-1)) break;
      joints.unshift(rig.parents[joints[0]]);
    }
    if (joints.length < 2) continue;
    for (let k = 1; k < joints.length; k++) taken[joints[k]] = 1;
    sections.push({ joints, maxBend: uniform(rand, 0.05, 2 * Math.PI - 0.05) });
  }
  return sections;
}

/** Effectors that often end at or below a section, with chains long enough to move it whole. */
function effectorsFor(rand: Rand, rig: Rig, sections: readonly ResolvedContinuumSection[]): EffectorSpec[] {
  const effectors = generateEffectors(rand, rig).map((e) => ({
    ...e,
    joint: typeof e.joint === "string" ? rig.names!.indexOf(e.joint) : e.joint,
  }));
  for (const section of sections) {
    if (!chance(rand, 0.7)) continue;
    const tip = section.joints.at(-1)!;
    if (effectors.some((e) => e.joint === tip)) continue;
    const depth = section.joints.length - 1;
    effectors.push({ joint: tip, ...(chance(rand, 0.5) ? { chainLength: depth + int(rand, 0, 3) } : {}) });
  }
  return effectors;
}

/**
 * Per section in the plan (index into plan.continuum): the solved bends that the pose shows, skipping bones
 * of no length (no direction) and a base whose entering direction is the rest one (a root, a zero bone).
 */
function measuredBends(rig: Rig, plan: SolvePlan, pose: Pose, scale: number, s: number): number[] {
  const { jointStart, joints } = plan.continuum;
  const p = pose.positions,
    rest = rig.restPositions;
  const direction = (a: number, b: number): number[] | null => {
    const restLength = Math.hypot(
      rest[3 * b] - rest[3 * a],
      rest[3 * b + 1] - rest[3 * a + 1],
      rest[3 * b + 2] - rest[3 * a + 2],
    );
    if (restLength < 1e-4 * scale) return null;
    const d = [p[3 * b] - p[3 * a], p[3 * b + 1] - p[3 * a + 1], p[3 * b + 2] - p[3 * a + 2]];
    const l = Math.hypot(d[0], d[1], d[2]);
    return d.map((x) => x / l);
  };
  const first = jointStart[s],
    last = jointStart[s + 1] - 1;
  const base = joints[first];
  let entering = rig.parents[base] >= 0 ? direction(rig.parents[base], base) : null;
  const bends: number[] = [];
  for (let i = first + 1; i <= last; i++) {
    const d = direction(joints[i - 1], joints[i]);
    if (entering !== null && d !== null) {
      const c = entering[1] * d[2] - entering[2] * d[1],
        e = entering[2] * d[0] - entering[0] * d[2],
        f = entering[0] * d[1] - entering[1] * d[0];
      const dot = entering[0] * d[0] + entering[1] * d[1] + entering[2] * d[2];
      bends.push(Math.atan2(Math.hypot(c, e, f), dot));
    }
    entering = d;
  }
  return bends;
}

/** The component whose active joints hold joint j. */
function componentOf(plan: SolvePlan, j: number): number {
  const k = plan.activeIndex[j];
  for (let c = 0; c < plan.componentCount; c++)
    if (k >= plan.componentStart[c] && k < plan.componentStart[c + 1]) return c;
  return -1;
}

export function runContinuumCase(seed: number): ContinuumCaseResult {
  const rand = random(seed);
  const failures: string[] = [];
  const fail = (message: string) => {
    if (failures.length < 4) failures.push(`seed ${seed}: ${message}`);
  };
  const { description, scale } = generateRig(rand);
  const rig = createRig(description);
  const limits = createJointLimits(rig);
  // Limits on some joints: a section's own are not used, the rest still hold.
  for (let j = 0; j < rig.jointCount; j++) {
    if (!chance(rand, 0.3)) continue;
    try {
      setJointLimit(limits, j, generateLimitSpec(rand, rig, limits, j));
    } catch {
      // A spec the rig refuses here (a degenerate bone) is the solver fuzzer's business.
    }
  }
  const sections = generateSections(rand, rig);
  const effectors = effectorsFor(rand, rig, sections);
  // The behavior's choice of sections for these effectors: every one compiles, every one left out is refused.
  const chosen = sectionsForPlan(compilePlan(rig, { effectors, limits }), sections);
  let plan: SolvePlan;
  try {
    plan = compilePlan(rig, { effectors, limits, continuumSections: chosen.specs });
  } catch (error) {
    fail(`the sections chosen for the effectors are refused: ${(error as Error).message}`);
    return { solves: 0, sections: 0, measured: 0, spread: 0, failures };
  }
  sections.forEach((section, s) => {
    if (chosen.inPlan[s] >= 0) return;
    try {
      compilePlan(rig, { effectors, continuumSections: [{ joints: section.joints, maxBend: 1 }] });
      fail(`section ${s} (${section.joints.join(" ")}) was left out but compiles`);
    } catch (error) {
      if (!(error instanceof FabrikError)) fail(`section ${s}: ${(error as Error).message}`);
    }
  });

  const pose = createPose(rig);
  let solves = 0,
    measured = 0,
    spread = 0;
  const frames = effectors.length === 0 ? 0 : int(rand, 1, 3);
  for (let frame = 0; frame < frames; frame++) {
    // Targets: where a random turn of every joint puts the effectors (often not an arc), far out, or at a root.
    const reach = perturbPose(rig, limits, pose, rand, uniform(rand, 0.1, Math.PI), false);
    const targets = new Float64Array(3 * plan.effectorCount);
    for (let e = 0; e < plan.effectorCount; e++) {
      const j = plan.effectorJoints[e];
      const t = rand();
      for (let i = 0; i < 3; i++) {
        targets[3 * e + i] =
          t < 0.7
            ? reach.positions[3 * j + i]
            : t < 0.9
              ? reach.positions[3 * j + i] * 10 + uniform(rand, -50, 50) * scale
              : rig.restPositions[i];
      }
    }
    const before = pose.positions.slice();
    // Poles where effectors have them: anywhere about the rig.
    const poles = targets.map((v) => v + uniform(rand, -2, 2) * scale);
    const report = solvePlan(plan, pose, targets, { poles });
    solves++;
    if (!pose.positions.every(Number.isFinite) || !pose.orientations.every(Number.isFinite)) {
      fail(`frame ${frame}: a position or orientation is not finite`);
      break;
    }
    for (let s = 0; s < plan.continuum.count; s++) {
      const { jointStart, joints, maxBend } = plan.continuum;
      const first = jointStart[s],
        last = jointStart[s + 1] - 1;
      for (let i = first + 1; i <= last; i++) {
        const a = joints[i - 1],
          b = joints[i];
        const length = (p: Float64Array) =>
          Math.hypot(p[3 * b] - p[3 * a], p[3 * b + 1] - p[3 * a + 1], p[3 * b + 2] - p[3 * a + 2]);
        const was = length(before),
          now = length(pose.positions);
        if (!(Math.abs(now - was) <= LENGTH * (was + scale))) {
          fail(`frame ${frame}: section ${s}, bone to ${b}: length ${was} -> ${now}`);
        }
      }
      // An arc only where the solve moved the section's component (an untouched one keeps its input pose).
      const c = componentOf(plan, joints[last]);
      if (c < 0 || plan.scratch.componentMoved[c] !== 1) continue;
      const bends = measuredBends(rig, plan, pose, scale, s);
      if (bends.length === 0) continue;
      measured++;
      const n = last - first;
      const largest = Math.max(...bends);
      const bend = (n * bends.reduce((x, y) => x + y, 0)) / bends.length;
      if (n * largest > maxBend[s] * (1 + 1e-6) + 1e-6) {
        fail(`frame ${frame}: section ${s} bends ${n} × ${largest}, past its maxBend ${maxBend[s]}`);
      }
      const uneven = largest - Math.min(...bends);
      if (bend > 1e-6) spread = Math.max(spread, uneven / bend);
      if (uneven > 0.01 * bend + 1e-6) {
        fail(`frame ${frame}: section ${s} bends unevenly: ${bends.map((x) => x.toFixed(6)).join(", ")}`);
      }
    }
    if (report.iterations < 0) fail("negative iterations");
  }
  return { solves, sections: plan.continuum.count, measured, spread, failures };
}
