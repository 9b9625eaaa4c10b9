import { FabrikError } from "../solver/errors.js";
import {
  PLATFORM_MAX_ITERATIONS,
  PLATFORM_TOLERANCE,
  solvePlatformPasses,
  type PlatformPasses,
  type PlatformSolveOptions,
  type PlatformSolveReport,
} from "./platformPasses.js";
import {
  checkWritablePose,
  legLengths,
  numbers,
  readPose,
  readSolveOptions,
  type PlatformPose,
} from "./platformPose.js";
import { stewartPasses, type StewartPlatform } from "./stewartPlatform.js";

/*
 * A Stewart–Gough platform's two directions: leg lengths from a platform pose (closed form: each leg is the
 * distance between its two joints) and the platform pose from leg lengths (FABRIK passes, platformPasses.ts),
 * plus the nearest reachable pose to one that is not.
 */

const scratchPose: PlatformPose = { position: new Float64Array(3), orientation: new Float64Array(4) };
const scratchLengths = new Float64Array(6);
const settings = new Float64Array(3);

/**
 * Inverse kinematics: writes the leg lengths that put the platform at `pose` into `out` (one per leg) and
 * returns whether every one lies within its leg's range (the pose is reachable). Allocates nothing.
 */
export function stewartInverseKinematics(
  platform: StewartPlatform,
  pose: PlatformPose,
  out: Float64Array,
): boolean {
  const who = "stewartInverseKinematics";
  stewartPasses(platform, who);
  checkOut(out, platform.legs, who);
  readPose(pose, scratchPose, who, "pose");
  legLengths(platform.baseAnchors, platform.platformAnchors, scratchPose, out);
  return inRange(platform, out);
}

/**
 * Forward kinematics: moves `pose`, which comes in as the start (the last pose, or the platform's home),
 * to a platform pose whose legs have the given lengths, by FABRIK passes. Of the several poses that may
 * share one set of lengths, it finds the one the start leads to. Lengths outside their ranges are solved
 * as given and reported (`inRange`). Lengths no pose can take end with `converged` false and the platform
 * where the passes stopped, a rigid pose whose legs come as near their lengths as the passes got. Returns
 * the platform's report, refilled by every solve. Allocates nothing.
 */
export function stewartForwardKinematics(
  platform: StewartPlatform,
  lengths: ArrayLike<number>,
  pose: PlatformPose,
  options?: PlatformSolveOptions,
): PlatformSolveReport {
  const who = "stewartForwardKinematics";
  const passes = stewartPasses(platform, who);
  checkLengths(platform, lengths, who);
  checkWritablePose(pose, who, "pose");
  readSolveOptions(options, PLATFORM_TOLERANCE, PLATFORM_MAX_ITERATIONS, who, settings);
  settings[0] *= platform.size;
  readPose(pose, pose, who, "pose");
  return solveLengths(platform, passes, lengths, pose);
}

/**
 * The reachable pose nearest `pose`: its leg lengths, each clamped into its range, solved forward from
 * `pose` itself into `out` (which may be `pose`). A reachable `pose` is copied as it is (`inRange` true, 0
 * iterations). Allocates nothing.
 */
export function stewartNearestReachable(
  platform: StewartPlatform,
  pose: PlatformPose,
  out: PlatformPose,
  options?: PlatformSolveOptions,
): PlatformSolveReport {
  const who = "stewartNearestReachable";
  const passes = stewartPasses(platform, who);
  readPose(pose, scratchPose, who, "pose");
  checkWritablePose(out, who, "out");
  readSolveOptions(options, PLATFORM_TOLERANCE, PLATFORM_MAX_ITERATIONS, who, settings);
  settings[0] *= platform.size;
  out.position.set(scratchPose.position);
  out.orientation.set(scratchPose.orientation);
  legLengths(platform.baseAnchors, platform.platformAnchors, out, scratchLengths);
  const reachable = inRange(platform, scratchLengths);
  for (let i = 0; i < platform.legs; i++)
    scratchLengths[i] = Math.min(Math.max(scratchLengths[i], platform.minLength[i]), platform.maxLength[i]);
  const report = solveLengths(platform, passes, scratchLengths, out);
  report.inRange = reachable;
  return report;
}

function solveLengths(
  platform: StewartPlatform,
  passes: PlatformPasses,
  lengths: ArrayLike<number>,
  pose: PlatformPose,
): PlatformSolveReport {
  passes.centres.set(platform.baseAnchors);
  for (let i = 0; i < platform.legs; i++) passes.radii[i] = lengths[i];
  const report = solvePlatformPasses(passes, pose.position, pose.orientation, true, settings);
  report.inRange = inRange(platform, passes.radii);
  return report;
}

function inRange(platform: StewartPlatform, lengths: Float64Array): boolean {
  for (let i = 0; i < platform.legs; i++)
    if (!(lengths[i] >= platform.minLength[i] && lengths[i] <= platform.maxLength[i])) return false;
  return true;
}

function checkOut(out: unknown, legs: number, who: string): void {
  if (!(out instanceof Float64Array) || out.length !== legs) {
    throw new FabrikError(`${who}: out must be a Float64Array of ${legs} leg lengths`, undefined, "out");
  }
}

function checkLengths(platform: StewartPlatform, lengths: ArrayLike<number>, who: string): void {
  numbers(lengths, platform.legs, who, "lengths");
  for (let i = 0; i < platform.legs; i++) {
    if (!(lengths[i] > 0)) {
      throw new FabrikError(
        `${who}: length of leg ${i} must be > 0, got ${lengths[i]}`,
        undefined,
        "lengths",
      );
    }
  }
}
