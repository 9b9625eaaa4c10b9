import { FabrikError } from "../solver/errors.js";
import {
  createPlatformPasses,
  PLATFORM_MAX_ITERATIONS,
  PLATFORM_TOLERANCE,
  solvePlatformPasses,
  type PlatformPasses,
} from "./platformPasses.js";
import { numbers } from "./platformPose.js";

/*
 * A delta robot as a user describes it, validated. Its kinematics are deltaKinematics.ts's.
 *
 * Three arms hang from a base in the z = 0 plane, around the z axis. Arm i points outward along
 * uᵢ = (cos φᵢ, sin φᵢ, 0): its motor sits at baseRadius·uᵢ and turns the upper arm about the horizontal
 * axis across uᵢ; at motor angle θ (0 horizontal, positive down) its elbow is at
 * (baseRadius + upperArm·cos θ)·uᵢ − upperArm·sin θ·z. The forearm, a parallelogram, is modelled as one rod
 * of length `forearm` with a spherical joint at each end, from the elbow to the platform's joint at
 * platformRadius·uᵢ from the platform's centre. The parallelograms keep the platform level and unturned, so
 * its pose is its centre's position alone.
 */

/** Options of {@link createDeltaRobot}. Lengths in model units, angles in radians. */
export interface DeltaRobotOptions {
  /** Distance of each motor's axis from the base's centre (> 0). */
  baseRadius: number;
  /** Distance of each forearm's lower joint from the platform's centre (≥ 0). */
  platformRadius: number;
  /** Motor to elbow (> 0). */
  upperArm: number;
  /** Elbow to platform joint (> 0). */
  forearm: number;
  /** Motor range: one for all arms, or one per arm. Default -π/3 and π/2. */
  minAngle?: number | ArrayLike<number>;
  maxAngle?: number | ArrayLike<number>;
  /** Direction of each arm about z (φᵢ). Default 0, 2π/3, 4π/3. */
  armAngles?: ArrayLike<number>;
  /** Motor angles of the rest pose, within range. Default the middle of each range. */
  home?: ArrayLike<number>;
}

/** A validated delta robot, from {@link createDeltaRobot}. */
export interface DeltaRobot {
  readonly baseRadius: number;
  readonly platformRadius: number;
  readonly upperArm: number;
  readonly forearm: number;
  readonly minAngle: Float64Array;
  readonly maxAngle: Float64Array;
  readonly armAngles: Float64Array;
  /** Motor angles of the rest pose. */
  readonly homeAngles: Float64Array;
  /** The platform centre at the rest pose: the start of forward kinematics when no better guess is known. */
  readonly home: Float64Array;
  /** The robot's scale (its longest dimension): tolerances scale with it. */
  readonly size: number;
}

const passesOf = new WeakMap<DeltaRobot, PlatformPasses>();

/** The passes' buffers of a robot made by {@link createDeltaRobot}; throws for any other object. */
export function deltaPasses(robot: DeltaRobot, who: string): PlatformPasses {
  const passes = robot !== null && typeof robot === "object" ? passesOf.get(robot) : undefined;
  if (passes === undefined) {
    throw new FabrikError(`${who}: robot must come from createDeltaRobot`, undefined, "robot");
  }
  return passes;
}

const WHO = "createDeltaRobot";

/**
 * Checks a delta robot's description and builds it. Throws a {@link FabrikError} naming the option at
 * fault: a length not finite or ≤ 0 (the platform radius may be 0), min > max, two arms in one direction,
 * a home the forearms cannot close.
 */
export function createDeltaRobot(options: DeltaRobotOptions): DeltaRobot {
  if (options === null || typeof options !== "object") {
    throw new FabrikError(`${WHO}: options must be an object`, undefined, "options");
  }
  const baseRadius = length(options.baseRadius, "baseRadius", true);
  const platformRadius = length(options.platformRadius, "platformRadius", false);
  const upperArm = length(options.upperArm, "upperArm", true);
  const forearm = length(options.forearm, "forearm", true);
  const minAngle = perArm(options.minAngle ?? -Math.PI / 3, "minAngle");
  const maxAngle = perArm(options.maxAngle ?? Math.PI / 2, "maxAngle");
  for (let i = 0; i < 3; i++) {
    if (minAngle[i] > maxAngle[i]) {
      throw new FabrikError(
        `${WHO}: arm ${i}'s range is inverted, minAngle ${minAngle[i]} > maxAngle ${maxAngle[i]}`,
        undefined,
        "minAngle",
      );
    }
  }
  const armAngles = Float64Array.from(
    numbers(options.armAngles ?? [0, (2 * Math.PI) / 3, (4 * Math.PI) / 3], 3, WHO, "armAngles"),
  );
  for (let i = 0; i < 3; i++)
    for (let j = i + 1; j < 3; j++) {
      const apart = Math.abs(
        Math.atan2(Math.sin(armAngles[i] - armAngles[j]), Math.cos(armAngles[i] - armAngles[j])),
      );
      if (!(apart > 1e-3)) {
        throw new FabrikError(
          `${WHO}: armAngles of arms ${i} and ${j} coincide; the arms need three directions`,
          undefined,
          "armAngles",
        );
      }
    }
  const homeAngles = new Float64Array(3);
  if (options.home === undefined)
    for (let i = 0; i < 3; i++) homeAngles[i] = 0.5 * (minAngle[i] + maxAngle[i]);
  else homeAngles.set(numbers(options.home, 3, WHO, "home"));
  for (let i = 0; i < 3; i++) {
    if (homeAngles[i] < minAngle[i] || homeAngles[i] > maxAngle[i]) {
      throw new FabrikError(
        `${WHO}: home angle of arm ${i} (${homeAngles[i]}) is outside its range [${minAngle[i]}, ${maxAngle[i]}]`,
        undefined,
        "home",
      );
    }
  }
  const top = new Float64Array(9);
  for (let i = 0; i < 3; i++) {
    top[3 * i] = platformRadius * Math.cos(armAngles[i]);
    top[3 * i + 1] = platformRadius * Math.sin(armAngles[i]);
  }
  const size = Math.max(baseRadius, platformRadius, upperArm, forearm);
  const robot: DeltaRobot = {
    baseRadius,
    platformRadius,
    upperArm,
    forearm,
    minAngle,
    maxAngle,
    armAngles,
    homeAngles,
    home: new Float64Array(3),
    size,
  };
  const passes = createPlatformPasses(top, size);
  placeHome(robot, passes);
  passesOf.set(robot, passes);
  return robot;
}

/**
 * Writes each arm's elbow for motor angles `angles` into `out` (3 per arm): the centres of the spheres the
 * platform joints must lie on, less the joints' offsets from the platform centre. Allocates nothing.
 */
export function placeElbows(robot: DeltaRobot, angles: ArrayLike<number>, out: Float64Array): void {
  for (let i = 0; i < 3; i++) {
    const reach = robot.baseRadius + robot.upperArm * Math.cos(angles[i]);
    out[3 * i] = reach * Math.cos(robot.armAngles[i]);
    out[3 * i + 1] = reach * Math.sin(robot.armAngles[i]);
    out[3 * i + 2] = -robot.upperArm * Math.sin(angles[i]);
  }
}

/** The platform centre at the home angles: the passes from straight below the elbows, a forearm down. */
function placeHome(robot: DeltaRobot, passes: PlatformPasses): void {
  placeElbows(robot, robot.homeAngles, passes.centres);
  passes.radii.fill(robot.forearm);
  const home = robot.home;
  home.fill(0);
  for (let i = 0; i < 3; i++)
    for (let k = 0; k < 3; k++)
      home[k] += (passes.centres[3 * i + k] - passes.local[3 * i + k] - passes.localCentroid[k]) / 3;
  home[2] -= robot.forearm;
  const settings = new Float64Array([PLATFORM_TOLERANCE * robot.size, PLATFORM_MAX_ITERATIONS, 1]);
  const report = solvePlatformPasses(passes, home, new Float64Array([0, 0, 0, 1]), false, settings);
  if (!report.converged) {
    throw new FabrikError(
      `${WHO}: at the home angles the forearms cannot reach one platform centre (closest miss ` +
        `${report.residual.toPrecision(3)}); check the lengths or give other home angles`,
      undefined,
      "home",
    );
  }
}

function length(value: unknown, option: string, positive: boolean): number {
  if (typeof value !== "number" || !Number.isFinite(value) || (positive ? !(value > 0) : !(value >= 0))) {
    throw new FabrikError(
      `${WHO}: ${option} must be a finite number ${positive ? "> 0" : "≥ 0"}, got ${String(value)}`,
      undefined,
      option,
    );
  }
  return value;
}

function perArm(value: unknown, option: string): Float64Array {
  const out = new Float64Array(3);
  if (typeof value === "number") out.fill(value);
  else out.set(numbers(value, 3, WHO, option));
  if (!out.every(Number.isFinite)) {
    throw new FabrikError(`${WHO}: ${option} must be finite, got ${String(value)}`, undefined, option);
  }
  return out;
}
