import { describe, expect, it } from "vitest";
import {
  createDeltaRobot,
  deltaForwardKinematics,
  deltaInverseKinematics,
  PLATFORM_TOLERANCE,
} from "../../plugin/index.js";
import { DELTA, elbow, trilaterate } from "./deltaReference.js";
import { random } from "./stewartReference.js";

/*
 * Delta robots (issue 20): inverse kinematics against the closure of every forearm, forward kinematics by
 * FABRIK passes against closed-form trilateration over random in-range motor angles.
 */

const PHIS = [0, (2 * Math.PI) / 3, (4 * Math.PI) / 3];
const robot = createDeltaRobot(DELTA);

function randomPositions(count: number, seed: number): { position: number[]; angles: Float64Array }[] {
  const rand = random(seed);
  const out: { position: number[]; angles: Float64Array }[] = [];
  while (out.length < count) {
    const position = [0.6 * (rand() - 0.5), 0.6 * (rand() - 0.5), robot.home[2] + 0.5 * (rand() - 0.5)];
    const angles = new Float64Array(3);
    if (deltaInverseKinematics(robot, position, angles)) out.push({ position, angles });
  }
  return out;
}

describe("delta robot", () => {
  it("hangs its home below the base, every forearm closed", () => {
    expect(robot.home[2]).toBeLessThan(-0.5);
    const reference = trilaterate(DELTA, PHIS, robot.homeAngles)!;
    for (let k = 0; k < 3; k++) expect(robot.home[k]).toBeCloseTo(reference[k], 9);
  });

  it("inverse kinematics closes every forearm, elbows out", () => {
    for (const { position, angles } of randomPositions(300, 3)) {
      PHIS.forEach((phi, i) => {
        const e = elbow(DELTA, phi, angles[i]);
        const joint = [
          position[0] + DELTA.platformRadius * Math.cos(phi),
          position[1] + DELTA.platformRadius * Math.sin(phi),
          position[2],
        ];
        expect(Math.hypot(e[0] - joint[0], e[1] - joint[1], e[2] - joint[2])).toBeCloseTo(DELTA.forearm, 10);
        // Elbow out: further from the axis than the motor's axis is, at these angles.
        expect(Math.hypot(e[0], e[1])).toBeGreaterThan(DELTA.baseRadius);
      });
    }
  });

  it("forward kinematics agrees with trilateration on ≥ 99.9 % of 2000 random in-range motor angles", () => {
    const position = new Float64Array(3);
    let agree = 0;
    const cases = randomPositions(2000, 4);
    for (const c of cases) {
      position.set(robot.home);
      const report = deltaForwardKinematics(robot, c.angles, position);
      expect(report.inRange).toBe(true);
      const reference = trilaterate(DELTA, PHIS, c.angles)!;
      const error = Math.hypot(
        position[0] - reference[0],
        position[1] - reference[1],
        position[2] - reference[2],
      );
      if (report.converged && error <= 1e-6 * robot.size) agree++;
      if (report.converged) expect(report.residual).toBeLessThanOrEqual(PLATFORM_TOLERANCE * robot.size);
    }
    expect(agree / cases.length).toBeGreaterThanOrEqual(0.999);
  });

  it("clamps the angles of an unreachable position into range, reachable by forward kinematics", () => {
    const angles = new Float64Array(3);
    expect(deltaInverseKinematics(robot, [0, 0, -2], angles)).toBe(false);
    expect(angles.every(Number.isFinite)).toBe(true);
    expect(deltaInverseKinematics(robot, [0, 0, -0.3], angles)).toBe(false);
    for (let i = 0; i < 3; i++) {
      expect(angles[i]).toBeGreaterThanOrEqual(robot.minAngle[i]);
      expect(angles[i]).toBeLessThanOrEqual(robot.maxAngle[i]);
    }
    const position = robot.home.slice();
    expect(deltaForwardKinematics(robot, angles, position).converged).toBe(true);
  });
});
