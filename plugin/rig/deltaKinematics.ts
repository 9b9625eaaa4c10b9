import { FabrikError } from "../solver/errors.js";
import {
  PLATFORM_MAX_ITERATIONS,
  PLATFORM_TOLERANCE,
  solvePlatformPasses,
  type PlatformSolveOptions,
  type PlatformSolveReport,
} from "./platformPasses.js";
import { numbers, readSolveOptions } from "./platformPose.js";
import { deltaPasses, placeElbows, type DeltaRobot } from "./deltaRobot.js";

/*
 * A delta robot's two directions: motor angles from a platform position (per arm, where the circle the
 * elbow can sweep meets the sphere of forearm length about the platform joint) and the platform position
 * from motor angles (FABRIK passes with a platform that only moves, platformPasses.ts).
 */

const settings = new Float64Array(3);
/** The platform never turns: the passes refit its position only, at this orientation. */
const level = new Float64Array(4);

/**
 * Inverse kinematics: writes the motor angles that put the platform centre at `position` into `out` (one
 * per arm, the elbow pointing outward) and returns whether every arm reaches it within its range. An arm
 * that cannot reach gets the angle that brings its forearm's ends nearest, and every angle is clamped into
 * its range, so forward kinematics of `out` then gives a reachable position near the one asked for.
 * Allocates nothing.
 */
export function deltaInverseKinematics(
  robot: DeltaRobot,
  position: ArrayLike<number>,
  out: Float64Array,
): boolean {
  const who = "deltaInverseKinematics";
  deltaPasses(robot, who);
  numbers(position, 3, who, "position");
  if (!(out instanceof Float64Array) || out.length !== 3) {
    throw new FabrikError(`${who}: out must be a Float64Array of 3 motor angles`, undefined, "out");
  }
  const { baseRadius, platformRadius, upperArm: L, forearm } = robot;
  let reachable = true;
  for (let i = 0; i < 3; i++) {
    const cos = Math.cos(robot.armAngles[i]),
      sin = Math.sin(robot.armAngles[i]);
    // The platform joint relative to the motor, along the arm (a), across it (b) and up (c).
    const dx = position[0] + (platformRadius - baseRadius) * cos,
      dy = position[1] + (platformRadius - baseRadius) * sin,
      c = position[2];
    const a = dx * cos + dy * sin,
      b = -dx * sin + dy * cos;
    // |elbow − joint|² = forearm² is α·cos θ + β·sin θ = k, i.e. ρ·cos(θ − ψ) = k.
    const alpha = -2 * L * a,
      beta = 2 * L * c;
    const k = forearm * forearm - L * L - (a * a + b * b + c * c);
    const rho = Math.sqrt(alpha * alpha + beta * beta);
    const psi = Math.atan2(beta, alpha);
    let angle: number;
    if (rho > 0 && Math.abs(k) <= rho) {
      const spread = Math.acos(k / rho);
      // Of the two, the elbow further out (larger cos θ).
      const first = psi + spread,
        second = psi - spread;
      angle = Math.cos(first) >= Math.cos(second) ? first : second;
    } else {
      reachable = false;
      angle = k > 0 ? psi : psi + Math.PI;
    }
    angle = Math.atan2(Math.sin(angle), Math.cos(angle));
    if (angle < robot.minAngle[i] || angle > robot.maxAngle[i]) {
      reachable = false;
      angle = Math.min(Math.max(angle, robot.minAngle[i]), robot.maxAngle[i]);
    }
    out[i] = angle;
  }
  return reachable;
}

/**
 * Forward kinematics: moves `position` (the platform centre, coming in as the start: the last position or
 * the robot's home) to where the forearms close for motor angles `angles`, by FABRIK passes. Of the two
 * closures, it finds the one the start leads to (from home, the one below the elbows). Angles outside their
 * ranges are solved as given and reported (`inRange`); angles whose forearms cannot meet end with
 * `converged` false and the platform where the passes stopped. Returns the robot's report, refilled by every
 * solve. Allocates nothing.
 */
export function deltaForwardKinematics(
  robot: DeltaRobot,
  angles: ArrayLike<number>,
  position: Float64Array,
  options?: PlatformSolveOptions,
): PlatformSolveReport {
  const who = "deltaForwardKinematics";
  const passes = deltaPasses(robot, who);
  numbers(angles, 3, who, "angles");
  if (!(position instanceof Float64Array) || position.length !== 3) {
    throw new FabrikError(`${who}: position must be a Float64Array of 3`, undefined, "position");
  }
  numbers(position, 3, who, "position");
  readSolveOptions(options, PLATFORM_TOLERANCE, PLATFORM_MAX_ITERATIONS, who, settings);
  settings[0] *= robot.size;
  placeElbows(robot, angles, passes.centres);
  passes.radii.fill(robot.forearm);
  level[0] = level[1] = level[2] = 0;
  level[3] = 1;
  const report = solvePlatformPasses(passes, position, level, false, settings);
  let inRange = true;
  for (let i = 0; i < 3; i++)
    if (!(angles[i] >= robot.minAngle[i] && angles[i] <= robot.maxAngle[i])) inRange = false;
  report.inRange = inRange;
  return report;
}
