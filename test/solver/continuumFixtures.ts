import {
  compilePlan,
  createPose,
  createRig,
  type ContinuumSectionSpec,
  type Pose,
  type Rig,
  type SolvePlan,
} from "../../plugin/index.js";

/*
 * Chains for the continuum-section tests: a straight chain up +Y whose bones shorten toward the tip, split
 * into sections, with arcs drawn by forward kinematics (every joint of a section turns its bone by the same
 * angle in one plane) and a measure of how evenly a solved section bends.
 */

export interface ContinuumChain {
  readonly rig: Rig;
  /** Joint lists of the sections, base first. */
  readonly sections: number[][];
  readonly lengths: number[];
}

/** A chain of `sections × bonesPerSection` bones up +Y, each bone `shrink` times the one before. */
export function continuumChain(sections: number, bonesPerSection: number, shrink = 0.95): ContinuumChain {
  const lengths = Array.from({ length: sections * bonesPerSection }, (_, i) => 0.2 * shrink ** i);
  return chainOfLengths(lengths, bonesPerSection);
}

/** A chain up +Y with the given bone lengths, in sections of `bonesPerSection` bones. */
export function chainOfLengths(lengths: number[], bonesPerSection: number): ContinuumChain {
  const bones = lengths.length;
  const sections = bones / bonesPerSection;
  const parents = [-1];
  const restPositions = [0, 0, 0];
  let y = 0;
  for (let i = 0; i < bones; i++) {
    const len = lengths[i];
    y += len;
    parents.push(i);
    restPositions.push(0, y, 0);
  }
  const rig = createRig({ parents, restPositions });
  const list: number[][] = [];
  for (let s = 0; s < sections; s++)
    list.push(Array.from({ length: bonesPerSection + 1 }, (_, k) => s * bonesPerSection + k));
  return { rig, sections: list, lengths };
}

export function sectionSpecs(chain: ContinuumChain, maxBend: number): ContinuumSectionSpec[] {
  return chain.sections.map((joints) => ({ joints, maxBend }));
}

export function planFor(chain: ContinuumChain, maxBend: number): SolvePlan {
  return compilePlan(chain.rig, {
    effectors: [{ joint: chain.rig.jointCount - 1 }],
    continuumSections: sectionSpecs(chain, maxBend),
  });
}

export type V3 = [number, number, number];
/** p[b] − p[a], for joint positions p (3 per joint). */
export const sub = (p: Float64Array, a: number, b: number): V3 => [
  p[3 * b] - p[3 * a],
  p[3 * b + 1] - p[3 * a + 1],
  p[3 * b + 2] - p[3 * a + 2],
];
export const dot = (a: V3, b: V3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const cross = (a: V3, b: V3): V3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
export const norm = (a: V3): V3 => {
  const l = Math.hypot(...a);
  return [a[0] / l, a[1] / l, a[2] / l];
};

/**
 * Joint positions of the chain with section s bent by `bends[s]` toward the side at angle `turns[s]` about
 * its entering direction (the first section enters along +Y).
 */
export function arcPositions(chain: ContinuumChain, bends: number[], turns: number[]): Float64Array {
  const out = new Float64Array(3 * chain.rig.jointCount);
  let t: V3 = [0, 1, 0];
  let p: V3 = [0, 0, 0];
  // A reference across t, carried along so the turn angles mean something.
  let ref: V3 = [1, 0, 0];
  chain.sections.forEach((joints, s) => {
    const n = joints.length - 1;
    const side = norm(cross(t, ref));
    const across = norm(cross(side, t));
    const u: V3 = [0, 1, 2].map((d) => Math.cos(turns[s]) * across[d] + Math.sin(turns[s]) * side[d]) as V3;
    const alpha = bends[s] / n;
    let d: V3 = t;
    for (let k = 1; k <= n; k++) {
      d = [0, 1, 2].map((i) => Math.cos(k * alpha) * t[i] + Math.sin(k * alpha) * u[i]) as V3;
      const len = chain.lengths[joints[k] - 1];
      p = [p[0] + len * d[0], p[1] + len * d[1], p[2] + len * d[2]];
      out.set(p, 3 * joints[k]);
    }
    ref = across;
    t = d;
  });
  return out;
}

export interface SectionBend {
  /** The section's bend: the sum of its joints' bends. */
  readonly bend: number;
  /** Largest minus smallest bend of its joints. */
  readonly spread: number;
}

/** How each section of a solved pose bends, joint by joint (the first section enters along +Y). */
export function sectionBends(chain: ContinuumChain, positions: Float64Array): SectionBend[] {
  const dir = (a: number, b: number): V3 =>
    norm([
      positions[3 * b] - positions[3 * a],
      positions[3 * b + 1] - positions[3 * a + 1],
      positions[3 * b + 2] - positions[3 * a + 2],
    ]);
  return chain.sections.map((joints) => {
    const base = joints[0];
    let entering: V3 = base === 0 ? [0, 1, 0] : dir(base - 1, base);
    const bends: number[] = [];
    for (let k = 1; k < joints.length; k++) {
      const d = dir(joints[k - 1], joints[k]);
      bends.push(Math.atan2(Math.hypot(...cross(entering, d)), dot(entering, d)));
      entering = d;
    }
    return { bend: bends.reduce((a, b) => a + b, 0), spread: Math.max(...bends) - Math.min(...bends) };
  });
}

export function restPose(chain: ContinuumChain): Pose {
  return createPose(chain.rig);
}

export function boneLengthError(chain: ContinuumChain, positions: Float64Array): number {
  let worst = 0;
  for (let j = 1; j < chain.rig.jointCount; j++) {
    const p = chain.rig.parents[j];
    const l = Math.hypot(
      positions[3 * j] - positions[3 * p],
      positions[3 * j + 1] - positions[3 * p + 1],
      positions[3 * j + 2] - positions[3 * p + 2],
    );
    worst = Math.max(worst, Math.abs(l - chain.lengths[j - 1]) / chain.lengths[j - 1]);
  }
  return worst;
}
