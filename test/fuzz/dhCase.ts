// One fuzz case of robot arms from DH tables, reproducible from its seed (not a test file): a random table,
// one to four solves of its tool toward random goals, every invariant checked on every solve; about one case
// in four instead feeds one bad table, option or call and checks the named refusal.
import {
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_TOLERANCE,
  FabrikError,
  compilePlan,
  createPose,
  createRigFromDH,
  dhEffectors,
  dhForwardKinematics,
  dhTargets,
  readDHJointValues,
  solvePlan,
  type DHArm,
  type Pose,
  type SolveSettings,
} from "../../plugin/index.js";
import { random } from "../solver/fixtures.js";
import { conj, limitViolation, mul, rotate, rotationDistance } from "../solver/limitChecks.js";
import { generateArm, hasNoLength, spoilArm, type BadTable } from "./dhGenerate.js";
import { chance, int, pick, randomRotation, uniform, unitVector, type Rand } from "./generate.js";
import { LIMIT_STRETCH } from "../../plugin/solver/limits.js";

/** Fixed bones keep their length and place in the parent's frame to this (relative). */
const LENGTH_TOLERANCE = 1e-9;
/** Hinges, and joint values read back, hold their ranges to this (radians or model units × reach). */
const LIMIT_TOLERANCE = 1e-6;
/** The pose agrees with forward kinematics of the values read back to this per row (radians, × reach). */
const ROUND_TRIP_TOLERANCE = 1e-9;

export interface DHCaseResult {
  readonly solves: number;
  readonly converged: number;
  /** Solves toward goals made from in-range joint values, and how many of those converged. */
  readonly reachable: number;
  readonly reachableConverged: number;
  readonly refusals: number;
  /** The farthest a solved pose was from forward kinematics of its joint values read back. */
  readonly roundTrip: number;
  readonly failures: string[];
}

const same = (a: Float64Array, b: Float64Array) =>
  a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
const clone = (pose: Pose): Pose => ({
  positions: pose.positions.slice(),
  orientations: pose.orientations.slice(),
});
const sub = (p: Float64Array, j: number, k: number): number[] =>
  [0, 1, 2].map((i) => p[3 * j + i] - p[3 * k + i]);
const sub2 = (a: Float64Array, b: Float64Array, j: number): number[] =>
  [0, 1, 2].map((i) => a[3 * j + i] - b[3 * j + i]);
const quat = (q: Float64Array, j: number) => q.subarray(4 * j, 4 * j + 4);

/** Random joint values within the arm's ranges. */
function randomValues(arm: DHArm, rand: Rand): Float64Array {
  const { min, max } = arm.table;
  return Float64Array.from(min, (lo, i) =>
    chance(rand, 0.1) ? pick(rand, [lo, max[i]]) : uniform(rand, lo, max[i]),
  );
}

/**
 * Checks a solved pose of the arm, calling `fail` with what is wrong; returns how far (radians, or fractions
 * of the arm's size) forward kinematics of the joint values read back lands from the pose.
 */
function checkPose(arm: DHArm, pose: Pose, fail: (message: string) => void): number {
  const { rig, limits } = arm;
  const { positions, orientations } = pose;
  // Lengths and places scale with the rig's size: the arm's reach, and the markers beyond the tool.
  const size = arm.reach + arm.markerDistance;
  if (!positions.every(Number.isFinite) || !orientations.every(Number.isFinite)) {
    fail("NaN in the pose");
    return 0;
  }
  const rest = rig.restPositions,
    restQ = rig.restOrientations;
  for (let j = 0; j < rig.jointCount; j++) {
    const q = quat(orientations, j);
    if (Math.abs(Math.hypot(...q) - 1) > 1e-9)
      fail(`orientation of joint ${j} has length ${Math.hypot(...q)}`);
    const p = rig.parents[j];
    if (p < 0) continue;
    // The bone in its parent's frame, against the rest pose's.
    const now = rotate(conj(quat(orientations, p)), sub(positions, j, p));
    const was = rotate(conj(quat(restQ, p)), sub(rest, j, p));
    const length = Math.hypot(...now),
      restLength = Math.hypot(...was);
    const slack = 1e-14 * size;
    if (limits.flags[j] & LIMIT_STRETCH) {
      const lo = limits.stretch[2 * j],
        hi = limits.stretch[2 * j + 1];
      if (length < lo - LENGTH_TOLERANCE * hi - slack || length > hi + LENGTH_TOLERANCE * hi + slack)
        fail(`slider ${j} (${rig.names?.[j]}): length ${length} outside [${lo}, ${hi}]`);
      const turned = Math.hypot(...now.map((v, i) => v / length - was[i] / restLength));
      if (
        length > 0 &&
        restLength > 0 &&
        turned > LENGTH_TOLERANCE + (4 * slack) / Math.min(length, restLength)
      )
        fail(`slider ${j} (${rig.names?.[j]}) left its rail by ${turned}`);
    } else {
      const moved = Math.hypot(...now.map((v, i) => v - was[i]));
      if (!(moved <= LENGTH_TOLERANCE * restLength + slack))
        fail(`bone ${j} (${rig.names?.[j]}): moved by ${moved} in its parent's frame (length ${restLength})`);
    }
    const v = limitViolation(limits, pose, j);
    if (!(v <= LIMIT_TOLERANCE)) fail(`joint ${j} (${rig.names?.[j]}) is ${v} rad outside its limits`);
  }
  const values = new Float64Array(arm.table.count);
  readDHJointValues(arm, pose, values);
  // The pose is the arm's pose for the values read back: every joint where forward kinematics puts it.
  const again = createPose(rig);
  dhForwardKinematics(arm, values, again);
  // Every hinge keeps a pure turn about its axis, so the read-back pose agrees to rounding, summed along the
  // arm.
  let roundTrip = 0;
  const slack = ROUND_TRIP_TOLERANCE * arm.table.count;
  for (let j = 0; j < rig.jointCount; j++) {
    const off = Math.hypot(...sub2(again.positions, positions, j)) / size;
    const turned = rotationDistance(quat(again.orientations, j), quat(orientations, j));
    roundTrip = Math.max(roundTrip, off, turned);
    if (!(off <= slack && turned <= slack))
      fail(
        `joint ${j} (${rig.names?.[j]}) is ${off} of the arm's size and ${turned} rad from its place for the values read back`,
      );
  }
  const { min, max, prismatic } = arm.table;
  values.forEach((value, i) => {
    const eps = LIMIT_TOLERANCE * (prismatic[i] ? arm.reach : 1);
    if (!(value >= min[i] - eps && value <= max[i] + eps))
      fail(`joint value ${i} reads ${value}, outside [${min[i]}, ${max[i]}]`);
  });
  return roundTrip;
}

/** Expects `call` to throw the named FabrikError and leave `state()` as it was. */
function expectRefusal(
  label: string,
  call: () => unknown,
  expected: { option: string; message: RegExp },
  state: () => string,
  fail: (message: string) => void,
): void {
  const before = state();
  try {
    call();
    return fail(`${label}: accepted`);
  } catch (error) {
    if (!(error instanceof FabrikError)) return fail(`${label}: threw ${String(error)}, not a FabrikError`);
    if (error.option !== expected.option || !expected.message.test(error.message))
      fail(
        `${label}: refused with option ${error.option}, "${error.message}"; expected ${expected.option}, ${expected.message}`,
      );
  }
  if (state() !== before) fail(`${label}: the refusal changed its input`);
}

/** JSON that keeps NaN and ±Infinity apart from null, to prove a refusal changed nothing. */
const stateOf =
  (...parts: unknown[]) =>
  () =>
    JSON.stringify(parts, (_, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v));

function badCall(rand: Rand, arm: DHArm, pose: Pose, fail: (message: string) => void): void {
  const n = arm.table.count;
  const out = new Float64Array(n);
  const state = stateOf(Array.from(pose.positions), Array.from(pose.orientations), Array.from(out));
  const wrongPose = pick(rand, [
    {
      positions: new Float64Array(3 * arm.rig.jointCount - 3),
      orientations: new Float64Array(4 * arm.rig.jointCount - 4),
    },
    { positions: pose.positions.slice(3), orientations: pose.orientations },
    { positions: Array.from(pose.positions), orientations: pose.orientations },
    null,
  ]) as Pose;
  const posePattern = /pose must be \{ positions, orientations \} of the arm's rig/;
  switch (int(rand, 0, 4)) {
    case 0: {
      const values = randomValues(arm, rand);
      const i = int(rand, 0, n - 1);
      values[i] = pick(rand, [NaN, Infinity, -Infinity]);
      const name = arm.table.names[i].replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const message = new RegExp(`^dhForwardKinematics: value of row ${i} \\("${name}"\\) is not finite`);
      return expectRefusal(
        "FK NaN value",
        () => dhForwardKinematics(arm, values, pose),
        { option: "values", message },
        state,
        fail,
      );
    }
    case 1: {
      const values = new Float64Array(chance(rand, 0.5) ? n + 1 : n - 1);
      const message = /^dhForwardKinematics: values must hold one joint value per row/;
      return expectRefusal(
        "FK values count",
        () => dhForwardKinematics(arm, values, pose),
        { option: "values", message },
        state,
        fail,
      );
    }
    case 2:
      return expectRefusal(
        "FK bad pose",
        () => dhForwardKinematics(arm, new Float64Array(n), wrongPose),
        { option: "pose", message: posePattern },
        state,
        fail,
      );
    case 3:
      return expectRefusal(
        "read bad pose",
        () => readDHJointValues(arm, wrongPose, out),
        { option: "pose", message: posePattern },
        state,
        fail,
      );
    default: {
      const bad = pick(rand, [new Float64Array(n - 1), Array.from(out), null]) as Float64Array;
      const message = new RegExp(`^readDHJointValues: out must be a Float64Array of ${n} values`);
      return expectRefusal(
        "read bad out",
        () => readDHJointValues(arm, pose, bad),
        { option: "out", message },
        state,
        fail,
      );
    }
  }
}

/** Runs case `seed`. */
export function runDHCase(seed: number): DHCaseResult {
  const rand = random(seed);
  const list: string[] = [];
  let label = "build";
  const fail = (message: string) => {
    if (list.length < 6) list.push(`seed ${seed}, ${label}: ${message}`);
  };
  let solves = 0,
    converged = 0,
    reachable = 0,
    reachableConverged = 0,
    refusals = 0,
    roundTrip = 0;
  const result = () => ({
    solves,
    converged,
    reachable,
    reachableConverged,
    refusals,
    roundTrip,
    failures: list,
  });
  const generated = generateArm(rand);
  const fault = chance(rand, 0.25) ? int(rand, 0, 3) : -1;
  if (fault === 0 || fault === 1) {
    const bad: BadTable = spoilArm(rand, generated);
    const { rows, options } = generated;
    expectRefusal(bad.label, () => createRigFromDH(rows, options), bad, stateOf(rows, options), fail);
    refusals++;
    return result();
  }
  if (hasNoLength(generated)) {
    const message = /^createRigFromDH: the arm has no length/;
    expectRefusal(
      "no length",
      () => createRigFromDH(generated.rows, generated.options),
      { option: "rows", message },
      stateOf(generated),
      fail,
    );
    refusals++;
    return result();
  }
  try {
    const arm = createRigFromDH(generated.rows, generated.options);
    const oriented = chance(rand, 0.4);
    const plan = compilePlan(arm.rig, { effectors: dhEffectors(arm, oriented), limits: arm.limits });
    const pose = createPose(arm.rig);
    checkPose(arm, pose, fail);
    if (chance(rand, 0.5)) dhForwardKinematics(arm, randomValues(arm, rand), pose);
    if (fault === 2) {
      badCall(rand, arm, pose, fail);
      refusals++;
    }
    const scratch = createPose(arm.rig);
    const targets = new Float64Array(9);
    const place = new Float64Array(3);
    const turn = new Float64Array(4);
    const frames = int(rand, 1, 4);
    for (let frame = 0; frame < frames && list.length === 0; frame++) {
      const kinds = ["values", "values", "values", "far", "base", "ball", "nudge", "nudge"] as const;
      const kind = pick(rand, frame === 0 ? kinds.slice(0, 6) : kinds);
      label = `frame ${frame} (${kind}${oriented ? ", oriented" : ""})`;
      if (kind === "nudge") {
        // The last goal moved a little: a small step from the last answer.
        const step = 10 ** uniform(rand, -4, -1) * arm.reach;
        place.set(unitVector(rand).map((v, i) => place[i] + v * step * rand()));
        turn.set(mul(randomRotation(rand, 0.1), turn));
      } else turn.set(randomRotation(rand, 2 * Math.PI));
      if (kind === "values") {
        dhForwardKinematics(arm, randomValues(arm, rand), scratch);
        place.set(scratch.positions.subarray(3 * arm.tool, 3 * arm.tool + 3));
        turn.set(quat(scratch.orientations, arm.tool));
      } else if (kind === "far")
        place.set(unitVector(rand).map((v) => v * arm.reach * uniform(rand, 1.05, 4)));
      else if (kind === "base")
        place.set(chance(rand, 0.5) ? [0, 0, 0] : unitVector(rand).map((v) => v * 1e-6 * arm.reach));
      else place.set(unitVector(rand).map((v) => v * arm.reach * rand()));
      dhTargets(arm, place, 0, oriented ? turn : undefined, 0, targets);
      const settings: SolveSettings = {};
      if (chance(rand, 0.5)) settings.tolerance = 10 ** uniform(rand, -6, -1.5) * arm.reach;
      if (chance(rand, 0.4)) settings.maxIterations = int(rand, 1, 200);
      if (frame > 0 && chance(rand, kind === "nudge" ? 0.8 : 0.3)) settings.tracking = true;
      const input = clone(pose);
      const report = solvePlan(plan, pose, targets, settings);
      solves++;
      roundTrip = Math.max(roundTrip, checkPose(arm, pose, fail));
      const cap = settings.maxIterations ?? DEFAULT_MAX_ITERATIONS;
      if (!(report.iterations <= cap)) fail(`${report.iterations} iterations reported, maxIterations ${cap}`);
      if (!Number.isFinite(report.maxResidual)) fail(`maxResidual ${report.maxResidual}`);
      if (report.converged) {
        converged++;
        // Converged: every effector within tolerance, measured afresh.
        const tolerance = settings.tolerance ?? DEFAULT_TOLERANCE;
        for (let e = 0; e < plan.effectorCount; e++) {
          const j = plan.effectorJoints[e];
          const gap = Math.hypot(...[0, 1, 2].map((i) => pose.positions[3 * j + i] - targets[3 * e + i]));
          if (!(gap <= tolerance * (1 + 1e-9)))
            fail(`converged, but effector ${e} is ${gap} from its target (tolerance ${tolerance})`);
        }
      }
      if (kind === "values") {
        reachable++;
        if (report.converged) reachableConverged++;
      }
      if (chance(rand, 0.25)) {
        // Deterministic: the same input solves to the same bits.
        const again = clone(input);
        solvePlan(plan, again, targets, settings);
        if (!same(again.positions, pose.positions) || !same(again.orientations, pose.orientations))
          fail("a second solve of the same input differs");
      }
    }
    if (fault === 3) {
      label = "after the solves";
      badCall(rand, arm, pose, fail);
      refusals++;
    }
  } catch (error) {
    fail(
      `threw ${error instanceof Error ? (error.stack ?? error.message).split("\n").slice(0, 3).join(" | ") : String(error)}`,
    );
  }
  return result();
}
