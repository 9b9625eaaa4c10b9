// Robot arms from DH tables for the tests and the bench: known arms, random arms, forward kinematics done
// independently with 4x4 matrices, and one solve of the tool toward a target from the home pose.
import {
  compilePlan,
  createPose,
  createRigFromDH,
  dhEffectors,
  dhForwardKinematics,
  dhTargets,
  solvePlan,
  type DHArm,
  type DHConvention,
  type DHRow,
  type SolvePlan,
} from "../../plugin/index.js";

const DEG = Math.PI / 180;

/** A 4x4 homogeneous transform, row-major. */
export type Matrix4 = number[];

function multiply(a: Matrix4, b: Matrix4): Matrix4 {
  const out = new Array<number>(16).fill(0);
  for (let r = 0; r < 4; r++)
    for (let c = 0; c < 4; c++) for (let k = 0; k < 4; k++) out[4 * r + c] += a[4 * r + k] * b[4 * k + c];
  return out;
}

const rotZ = (t: number): Matrix4 => [
  Math.cos(t), -Math.sin(t), 0, 0,
  Math.sin(t), Math.cos(t), 0, 0,
  0, 0, 1, 0,
  0, 0, 0, 1,
]; // prettier-ignore
const rotX = (t: number): Matrix4 => [
  1, 0, 0, 0,
  0, Math.cos(t), -Math.sin(t), 0,
  0, Math.sin(t), Math.cos(t), 0,
  0, 0, 0, 1,
]; // prettier-ignore
const trans = (x: number, y: number, z: number): Matrix4 => [1, 0, 0, x, 0, 1, 0, y, 0, 0, 1, z, 0, 0, 0, 1];

/** The textbook DH link transform of one row with its joint value applied. */
export function dhMatrix(convention: DHConvention, row: DHRow, value: number): Matrix4 {
  const prismatic = row.joint === "prismatic";
  const q = (row.offset ?? 0) + value;
  const theta = (row.theta ?? 0) + (prismatic ? 0 : q);
  const d = (row.d ?? 0) + (prismatic ? q : 0);
  const screwZ = multiply(rotZ(theta), trans(0, 0, d));
  const screwX = multiply(trans(row.a, 0, 0), rotX(row.alpha));
  return convention === "standard"
    ? multiply(screwZ, screwX)
    : multiply(multiply(rotX(row.alpha), trans(row.a, 0, 0)), screwZ);
}

/**
 * Frames of the arm for joint values: `before[i]` is the frame whose z axis joint i moves about (z_{i-1} in
 * the standard convention, z_i in the modified one), `end` the last frame.
 */
export function dhFrames(
  convention: DHConvention,
  rows: readonly DHRow[],
  values: readonly number[],
): { before: Matrix4[]; end: Matrix4 } {
  let m = trans(0, 0, 0);
  const before: Matrix4[] = [];
  rows.forEach((row, i) => {
    if (convention === "modified") {
      before.push(multiply(m, multiply(rotX(row.alpha), trans(row.a, 0, 0))));
    } else before.push(m);
    m = multiply(m, dhMatrix(convention, row, values[i]));
  });
  return { before, end: m };
}

export const origin = (m: Matrix4): [number, number, number] => [m[3], m[7], m[11]];
export const zAxis = (m: Matrix4): [number, number, number] => [m[2], m[6], m[10]];
export const xAxis = (m: Matrix4): [number, number, number] => [m[0], m[4], m[8]];

export interface KnownArm {
  readonly name: string;
  readonly convention: DHConvention;
  readonly rows: DHRow[];
}

/** A planar arm of three hinges about parallel axes. */
export const PLANAR_3R: KnownArm = {
  name: "planar 3R",
  convention: "standard",
  rows: [
    { a: 1, alpha: 0, min: -150 * DEG, max: 150 * DEG },
    { a: 0.8, alpha: 0, min: -150 * DEG, max: 150 * DEG },
    { a: 0.5, alpha: 0, min: -150 * DEG, max: 150 * DEG },
  ],
};

/** The PUMA 560 (standard DH, as in Corke's toolbox): its three wrist axes meet in one point. */
export const PUMA_560: KnownArm = {
  name: "PUMA 560",
  convention: "standard",
  rows: [
    { a: 0, alpha: 90 * DEG, d: 0, min: -160 * DEG, max: 160 * DEG },
    { a: 0.4318, alpha: 0, min: -45 * DEG, max: 180 * DEG },
    { a: 0.0203, alpha: -90 * DEG, d: 0.15005, min: -135 * DEG, max: 135 * DEG },
    { a: 0, alpha: 90 * DEG, d: 0.4318, min: -170 * DEG, max: 170 * DEG },
    { a: 0, alpha: -90 * DEG, min: -100 * DEG, max: 100 * DEG },
    { a: 0, alpha: 0, min: -180 * DEG, max: 180 * DEG },
  ],
};

/** The PUMA 560 in Craig's modified convention: the same joint axes, the last frame at the wrist centre. */
export const PUMA_560_MODIFIED: KnownArm = {
  name: "PUMA 560 (modified)",
  convention: "modified",
  rows: [
    { a: 0, alpha: 0, min: -160 * DEG, max: 160 * DEG },
    { a: 0, alpha: -90 * DEG, min: -45 * DEG, max: 180 * DEG },
    { a: 0.4318, alpha: 0, d: 0.15005, min: -135 * DEG, max: 135 * DEG },
    { a: 0.0203, alpha: -90 * DEG, d: 0.4318, min: -170 * DEG, max: 170 * DEG },
    { a: 0, alpha: 90 * DEG, min: -100 * DEG, max: 100 * DEG },
    { a: 0, alpha: -90 * DEG, min: -180 * DEG, max: 180 * DEG },
  ],
};

/** A UR5-like arm (standard DH): every joint a full turn either way. */
export const UR5: KnownArm = {
  name: "UR5",
  convention: "standard",
  rows: [
    { a: 0, alpha: 90 * DEG, d: 0.089159, min: -2 * Math.PI, max: 2 * Math.PI },
    { a: -0.425, alpha: 0, min: -2 * Math.PI, max: 2 * Math.PI },
    { a: -0.39225, alpha: 0, min: -2 * Math.PI, max: 2 * Math.PI },
    { a: 0, alpha: 90 * DEG, d: 0.10915, min: -2 * Math.PI, max: 2 * Math.PI },
    { a: 0, alpha: -90 * DEG, d: 0.09465, min: -2 * Math.PI, max: 2 * Math.PI },
    { a: 0, alpha: 0, d: 0.0823, min: -2 * Math.PI, max: 2 * Math.PI },
  ],
};

/** A SCARA: two hinges about vertical axes, a vertical slider pointing down, a roll at the end. */
export const SCARA: KnownArm = {
  name: "SCARA",
  convention: "standard",
  rows: [
    { a: 0.4, alpha: 0, d: 0.3, min: -130 * DEG, max: 130 * DEG },
    { a: 0.3, alpha: 180 * DEG, min: -140 * DEG, max: 140 * DEG },
    { a: 0, alpha: 0, joint: "prismatic", min: 0, max: 0.2 },
    { a: 0, alpha: 0, d: 0.05, min: -170 * DEG, max: 170 * DEG },
  ],
};

export const KNOWN_ARMS = [PLANAR_3R, PUMA_560, PUMA_560_MODIFIED, UR5, SCARA];

export function buildKnown(arm: KnownArm): DHArm {
  return createRigFromDH(arm.rows, { convention: arm.convention });
}

/** Joint values drawn uniformly within each row's range. */
export function randomValues(arm: DHArm, rand: () => number): number[] {
  const { min, max } = arm.table;
  return Array.from(min, (lo, i) => lo + (max[i] - lo) * rand());
}

/** What kind of random arm: its joint count, hinge range, and whether its axes are all parallel. */
export interface RandomArmKind {
  readonly joints: number;
  /** Each hinge turns within ±range of the straight home pose. */
  readonly range: number;
  readonly planar: boolean;
  /** Random d offsets along the axes (the home pose is then not straight). */
  readonly offsets?: boolean;
  /** One joint in three prismatic (on arms with offsets). */
  readonly prismatic?: boolean;
  readonly convention?: DHConvention;
}

/**
 * A random arm: links a 0.5–1.5, twists α uniform in [−π/2, π/2] (0 when planar), θ = 0, so with no d
 * offsets the home pose (every value 0) is straight along x.
 */
export function randomDHRows(rand: () => number, kind: RandomArmKind): DHRow[] {
  return Array.from({ length: kind.joints }, (_, i): DHRow => {
    const prismatic = kind.prismatic === true && i % 3 === 2;
    return {
      a: 0.5 + rand(),
      alpha: kind.planar ? 0 : Math.PI * (rand() - 0.5),
      d: kind.offsets ? rand() - 0.5 : 0,
      joint: prismatic ? "prismatic" : "revolute",
      min: prismatic ? -0.3 : -kind.range,
      max: prismatic ? 0.3 : kind.range,
    };
  });
}

export function kindLabel(kind: RandomArmKind): string {
  const parts = [
    kind.planar ? "planar" : "non-planar",
    `${kind.joints} joints`,
    `±${Math.round(kind.range / DEG)}°`,
  ];
  if (kind.offsets) parts.push("d offsets");
  if (kind.prismatic) parts.push("prismatic");
  if (kind.convention === "modified") parts.push("modified");
  return parts.join(", ");
}

/** One reachable goal: an arm, the values it came from, and the tool target (and orientation) they give. */
export interface DHCase {
  readonly arm: DHArm;
  readonly values: number[];
  readonly targets: Float64Array;
  readonly oriented: boolean;
}

/** `count` random arms of one kind, one goal each from random in-range joint values. */
export function randomCases(kind: RandomArmKind, count: number, seed: number, oriented = false): DHCase[] {
  const rand = random(seed);
  return Array.from({ length: count }, () => {
    const arm = createRigFromDH(randomDHRows(rand, kind), { convention: kind.convention ?? "standard" });
    return goalCase(arm, randomValues(arm, rand), oriented);
  });
}

/** The goal the joint values `values` give the tool. */
export function goalCase(arm: DHArm, values: number[], oriented: boolean): DHCase {
  const pose = createPose(arm.rig);
  dhForwardKinematics(arm, values, pose);
  const targets = new Float64Array(9);
  dhTargets(arm, pose.positions, 3 * arm.tool, pose.orientations, 4 * arm.tool, targets);
  return { arm, values, targets: oriented ? targets : targets.slice(0, 3), oriented };
}

export interface DHOutcome {
  readonly case: DHCase;
  /** Largest distance of an effector from its target, as a fraction of the arm's reach. */
  readonly relative: number;
  readonly iterations: number;
  readonly pose: ReturnType<typeof createPose>;
}

const plans = new WeakMap<DHArm, Map<boolean, SolvePlan>>();

export function planFor(arm: DHArm, oriented: boolean, limited = true): SolvePlan {
  let byKind = plans.get(arm);
  if (byKind === undefined) plans.set(arm, (byKind = new Map()));
  const key = oriented;
  if (!limited) return compilePlan(arm.rig, { effectors: dhEffectors(arm, oriented) });
  let plan = byKind.get(key);
  if (plan === undefined) {
    plan = compilePlan(arm.rig, { effectors: dhEffectors(arm, oriented), limits: arm.limits });
    byKind.set(key, plan);
  }
  return plan;
}

/** Solves the case from the home pose at default settings, but for a tolerance of 1e-3 of the arm's reach. */
export function solveCase(c: DHCase, plan = planFor(c.arm, c.oriented)): DHOutcome {
  const pose = createPose(c.arm.rig);
  const report = solvePlan(plan, pose, c.targets, { tolerance: 1e-3 * c.arm.reach });
  return { case: c, relative: report.maxResidual / c.arm.reach, iterations: report.iterations, pose };
}

/** A small seeded generator (mulberry32), the one the solver tests use. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
