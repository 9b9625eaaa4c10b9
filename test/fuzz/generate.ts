// Random rigs, limits, effector sets, poses and targets for the solver fuzzer (not a test file).
// Everything is drawn from one seeded generator, so a case is reproduced from its seed alone.
import {
  projectRotation,
  type EffectorSpec,
  type JointLimitSpec,
  type JointLimits,
  type Pose,
  type Rig,
} from "../../plugin/index.js";
import { random } from "../solver/fixtures.js";
import { conj, mul, rotate } from "../solver/limitChecks.js";

export type Rand = () => number;
type Vec3 = [number, number, number];
type Quat = [number, number, number, number];

export const uniform = (rand: Rand, a: number, b: number): number => a + (b - a) * rand();
/** A whole number in [a, b]. */
export const int = (rand: Rand, a: number, b: number): number => a + Math.floor(rand() * (b - a + 1));
export const chance = (rand: Rand, p: number): boolean => rand() < p;
export const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)];

export function unitVector(rand: Rand): Vec3 {
  for (;;) {
    const x = 2 * rand() - 1,
      y = 2 * rand() - 1,
      z = 2 * rand() - 1;
    const l = Math.hypot(x, y, z);
    if (l > 0.1 && l <= 1) return [x / l, y / l, z / l];
  }
}

export function randomRotation(rand: Rand, maxAngle: number): Quat {
  const [x, y, z] = unitVector(rand);
  const half = (maxAngle * rand()) / 2;
  const s = Math.sin(half);
  return [x * s, y * s, z * s, Math.cos(half)];
}

/** A rig description as plain arrays, so fault injection can corrupt any part of a copy. */
export interface PlainRig {
  parents: number[];
  restPositions: number[];
  restOrientations?: number[];
  names?: string[];
}

export interface GeneratedRig {
  readonly description: PlainRig;
  /** Typical bone length: the unit the numeric tolerances scale with. */
  readonly scale: number;
}

/**
 * 1 to 200 joints (mostly small), as one chain, a tree that keeps extending its last branch, a bushy tree or
 * a forest of several roots. Bones are usually 0.2–1.5 × scale long, sometimes zero or 1e-7 × scale; a rig may
 * be perfectly straight (every bone along one axis), which is FABRIK's degenerate collinear case.
 */
export function generateRig(rand: Rand): GeneratedRig {
  const r = rand();
  const n = r < 0.03 ? 1 : r < 0.6 ? int(rand, 2, 12) : r < 0.9 ? int(rand, 13, 60) : int(rand, 61, 200);
  const shape = pick(rand, ["chain", "tree", "bushy", "forest"] as const);
  const scale = 10 ** uniform(rand, -2, 2);
  const straight = chance(rand, 0.15);
  const axis = unitVector(rand);
  const parents: number[] = [];
  const positions: number[] = [];
  const directions: Vec3[] = [];
  for (let i = 0; i < n; i++) {
    let p: number;
    if (i === 0) p = -1;
    else if (shape === "chain") p = i - 1;
    else if (shape === "tree") p = chance(rand, 0.75) ? i - 1 : int(rand, 0, i - 1);
    else if (shape === "bushy") p = int(rand, 0, i - 1);
    else p = chance(rand, 0.1) ? -1 : chance(rand, 0.7) ? i - 1 : int(rand, 0, i - 1);
    parents.push(p);
    if (p < 0) {
      const [x, y, z] = unitVector(rand);
      const d = uniform(rand, 0, 10 * scale);
      positions.push(x * d, y * d, z * d);
      directions.push(straight ? axis : unitVector(rand));
      continue;
    }
    const k = rand();
    const length = k < 0.03 ? 0 : k < 0.05 ? 1e-7 * scale : uniform(rand, 0.2, 1.5) * scale;
    let dir: Vec3;
    if (straight) dir = axis;
    else if (chance(rand, 0.5)) {
      // Continue the parent's bone with a bend, as limbs and tails do.
      const [a, b, c] = directions[p];
      const [u, v, w] = unitVector(rand);
      const bend = uniform(rand, 0, 0.8);
      const l = Math.hypot(a + bend * u, b + bend * v, c + bend * w) || 1;
      dir = [(a + bend * u) / l, (b + bend * v) / l, (c + bend * w) / l];
    } else dir = unitVector(rand);
    directions.push(dir);
    positions.push(
      positions[3 * p] + length * dir[0],
      positions[3 * p + 1] + length * dir[1],
      positions[3 * p + 2] + length * dir[2],
    );
  }
  const description: PlainRig = { parents, restPositions: positions };
  const o = rand();
  if (o < 0.2) {
    // omitted: identity
  } else if (o < 0.3) {
    description.restOrientations = parents.flatMap(() => [0, 0, 0, 1]);
  } else if (o < 0.8) {
    description.restOrientations = parents.flatMap(() => randomRotation(rand, Math.PI));
  } else {
    // As read from a float32 file, a little off unit length: accepted and normalised.
    description.restOrientations = parents.flatMap(() => {
      const s = 1 + uniform(rand, -5e-4, 5e-4);
      return randomRotation(rand, Math.PI).map((v) => Math.fround(v * s));
    });
  }
  if (chance(rand, 0.7)) {
    const names = parents.map((_, i) => `j${i}`);
    if (n > 2 && chance(rand, 0.05)) names[int(rand, 1, n - 1)] = names[0]; // an ambiguous name
    description.names = names;
  }
  return { description, scale };
}

/** An angle for one side of a swing cone, often one of the edge cases 0 and π. */
function sideAngle(rand: Rand): number {
  const k = rand();
  return k < 0.1 ? 0 : k < 0.2 ? Math.PI : k < 0.25 ? 1e-9 : uniform(rand, 0, Math.PI);
}

/** A [min, max] range within [lo, hi]: sometimes min = max, sometimes all of it. */
function range(rand: Rand, lo: number, hi: number): { min: number; max: number } {
  const k = rand();
  if (k < 0.2) {
    const v = uniform(rand, lo, hi);
    return { min: v, max: v };
  }
  if (k < 0.3) return { min: lo, max: hi };
  const a = uniform(rand, lo, hi),
    b = uniform(rand, lo, hi);
  return { min: Math.min(a, b), max: Math.max(a, b) };
}

/** The rest bone of joint j (toward its main child, else from its parent) in the parent's frame. */
export function parentFrameBoneAxis(limits: JointLimits, j: number): Vec3 {
  const r = limits.restLocal.subarray(4 * j, 4 * j + 4);
  return rotate(r, limits.boneAxis.subarray(3 * j, 3 * j + 3));
}

/**
 * A limit spec for joint j, or undefined (free). Includes the degenerate ones: zero-width cones, min = max
 * hinges and twists, stretch ranges that exclude the rest length or pin it to zero, and (with small chance)
 * a swing up axis (or a universal joint's first axis) along the bone, which setJointLimit must refuse.
 */
export function generateLimitSpec(rand: Rand, rig: Rig, limits: JointLimits, j: number): JointLimitSpec {
  const spec: JointLimitSpec = {};
  const k = rand();
  if (k < 0.35) {
    spec.swing = {
      up: sideAngle(rand),
      right: sideAngle(rand),
      down: sideAngle(rand),
      left: sideAngle(rand),
    };
    if (chance(rand, 0.2)) {
      spec.swing.upAxis = chance(rand, 0.1) ? parentFrameBoneAxis(limits, j) : unitVector(rand);
    }
    if (chance(rand, 0.5)) spec.twist = range(rand, -Math.PI, Math.PI);
  } else if (k < 0.55) {
    const a = rand();
    const axis: Vec3 = a < 0.6 ? unitVector(rand) : a < 0.8 ? [0, 0, 1] : parentFrameBoneAxis(limits, j);
    spec.hinge = { axis, ...range(rand, -Math.PI, Math.PI) };
  } else if (k < 0.65) {
    spec.twist = range(rand, -Math.PI, Math.PI);
  } else if (k < 0.72) {
    spec.fixed = true;
  } else if (k < 0.8) {
    spec.swing = { up: 0, right: 0, down: 0, left: 0 };
  } else if (k < 0.9) {
    // Drawn from a generator of their own, seeded by k, so the main stream (and every older seed's case
    // beyond this joint) is as it was before these kinds existed.
    const own = random(Math.floor(k * 2 ** 32));
    if (k < 0.86) {
      spec.universal = {
        first: range(own, -Math.PI, Math.PI),
        second: range(own, -Math.PI / 2, Math.PI / 2),
      };
      if (chance(own, 0.3))
        spec.universal.axis = chance(own, 0.1) ? parentFrameBoneAxis(limits, j) : unitVector(own);
    } else {
      spec.pivot = range(own, -Math.PI, Math.PI);
    }
  }
  if (rig.parents[j] >= 0 && chance(rand, 0.15)) {
    const rl = rig.restLengths[j] || rig.restLengths.reduce((a, b) => Math.max(a, b), 0) || 1;
    const s = rand();
    spec.stretch =
      s < 0.3
        ? { min: 0, max: 2 * rl }
        : s < 0.5
          ? { min: rl, max: rl }
          : s < 0.7
            ? { min: 1.2 * rl, max: 1.5 * rl }
            : s < 0.8
              ? { min: 0, max: 0 }
              : { min: 0.5 * rl, max: rl };
  }
  return spec;
}

/** Joints with no children. */
export function leaves(rig: Rig): number[] {
  const out: number[] = [];
  for (let j = 0; j < rig.jointCount; j++) if (rig.childStart[j + 1] === rig.childStart[j]) out.push(j);
  return out;
}

export function depth(rig: Rig, j: number): number {
  let d = 0;
  for (let a = rig.parents[j]; a >= 0; a = rig.parents[a]) d++;
  return d;
}

/** Up to 8 distinct non-root effectors (mostly leaves) with random chain lengths, weights and poles. */
export function generateEffectors(rand: Rand, rig: Rig): EffectorSpec[] {
  const candidates: number[] = [];
  for (let j = 0; j < rig.jointCount; j++) if (rig.parents[j] >= 0) candidates.push(j);
  if (candidates.length === 0 || chance(rand, 0.02)) return [];
  const tips = leaves(rig).filter((j) => rig.parents[j] >= 0);
  const count = int(rand, 1, Math.min(8, candidates.length));
  const chosen = new Set<number>();
  for (let attempt = 0; chosen.size < count && attempt < 4 * count; attempt++) {
    chosen.add(tips.length > 0 && chance(rand, 0.6) ? pick(rand, tips) : pick(rand, candidates));
  }
  const names = rig.names;
  return [...chosen].map((j) => {
    const unique = names !== undefined && names.indexOf(names[j]) === names.lastIndexOf(names[j]);
    const spec: EffectorSpec = { joint: unique && chance(rand, 0.3) ? names![j] : j };
    if (chance(rand, 0.6)) spec.chainLength = int(rand, 1, depth(rig, j) + 2);
    if (chance(rand, 0.5)) spec.weight = 10 ** uniform(rand, -3, 2);
    if (chance(rand, 0.25)) spec.pole = true;
    return spec;
  });
}

/**
 * Forward kinematics from `from` with the local rotations of `turn` joints (every joint when omitted) turned
 * by up to `maxAngle`, optionally projected onto their limits. Bone offsets in the parent's frame are those
 * of `from`, so the result is a pose the rig can really take: its joint positions are reachable targets.
 */
export function perturbPose(
  rig: Rig,
  limits: JointLimits,
  from: Pose,
  rand: Rand,
  maxAngle: number,
  project: boolean,
  turn?: ArrayLike<number>,
): Pose {
  const n = rig.jointCount;
  const { parents } = rig;
  const selected = new Uint8Array(n);
  if (turn === undefined) selected.fill(1);
  else for (let i = 0; i < turn.length; i++) selected[turn[i]] = 1;
  const positions = from.positions.slice();
  const orientations = from.orientations.slice();
  const q = (a: Float64Array, j: number) => a.subarray(4 * j, 4 * j + 4);
  const scratch = new Float64Array(16);
  for (let j = 0; j < n; j++) {
    const p = parents[j];
    let local: Quat =
      p >= 0
        ? mul(conj(q(from.orientations, p)), q(from.orientations, j))
        : (Array.from(q(from.orientations, j)) as Quat);
    if (selected[j] && !(project && limits.flags[j] & 8)) {
      local = mul(local, randomRotation(rand, maxAngle));
      if (project) {
        const restLocal = q(limits.restLocal, j);
        const delta = Float64Array.from(mul(conj(restLocal), local));
        projectRotation(limits, j, delta, 0, scratch, 0);
        local = mul(restLocal, delta);
      }
    }
    const world = p >= 0 ? mul(q(orientations, p), local) : local;
    const l = Math.hypot(...world);
    orientations.set(
      world.map((v) => v / l),
      4 * j,
    );
    if (p >= 0) {
      const offset = rotate(conj(q(from.orientations, p)), [
        from.positions[3 * j] - from.positions[3 * p],
        from.positions[3 * j + 1] - from.positions[3 * p + 1],
        from.positions[3 * j + 2] - from.positions[3 * p + 2],
      ]);
      const w = rotate(q(orientations, p), offset);
      for (let i = 0; i < 3; i++) positions[3 * j + i] = positions[3 * p + i] + w[i];
    }
  }
  return { positions, orientations };
}

/** Diagonal of the bounding box of a set of positions (at least `floor`). */
export function boundsSize(positions: Float64Array, floor: number): number {
  let size = 0;
  for (let axis = 0; axis < 3; axis++) {
    let min = Infinity,
      max = -Infinity;
    for (let i = axis; i < positions.length; i += 3) {
      min = Math.min(min, positions[i]);
      max = Math.max(max, positions[i]);
    }
    if (max > min) size += (max - min) ** 2;
  }
  return Math.max(Math.sqrt(size), floor);
}
