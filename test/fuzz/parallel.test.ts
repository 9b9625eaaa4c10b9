import { describe, expect, it } from "vitest";
import {
  createDeltaRobot,
  createPlatformPose,
  deltaForwardKinematics,
  deltaInverseKinematics,
  createStewartPlatform,
  stewartForwardKinematics,
  stewartInverseKinematics,
  stewartNearestReachable,
  type PlatformPose,
} from "../../plugin/index.js";
import { elbow } from "../rig/deltaReference.js";
import { lengthsOf, matFromQuat, random } from "../rig/stewartReference.js";

/*
 * Fuzzing Stewart–Gough platforms: random anchor layouts (any shape, not only symmetric ones), random leg
 * ranges and homes, then forward kinematics from random starts (near, far, upside down) with random lengths
 * (from reachable poses, anywhere in range, out of range, tiny), and the nearest reachable pose of random
 * poses. Every result must be a pose (finite, unit orientation), and a converged one must give every leg
 * its length within the tolerance.
 *
 *   FUZZ_CASES=100000 npx vitest run test/fuzz/parallel.test.ts
 */
const CASES = Number(process.env.FUZZ_CASES ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 1);

function isPose(pose: PlatformPose): boolean {
  const q = pose.orientation;
  return (
    [...pose.position, ...q].every(Number.isFinite) && Math.abs(Math.hypot(q[0], q[1], q[2], q[3]) - 1) < 1e-9
  );
}

describe("fuzz: Stewart platforms", () => {
  it(
    `${CASES} random platforms, actuations and starts: no NaN, converged legs at their lengths`,
    () => {
      let solves = 0,
        converged = 0;
      for (let seed = SEED; seed < SEED + CASES; seed++) {
        const rand = random(seed);
        const spread = 0.2 + 2 * rand();
        const base = Array.from({ length: 18 }, (_, i) =>
          i % 3 === 2 ? 0.2 * (rand() - 0.5) : 2 * rand() - 1,
        );
        const top = Array.from({ length: 18 }, (_, i) =>
          i % 3 === 2 ? 0.2 * (rand() - 0.5) : spread * (rand() - 0.5),
        );
        const home = createPlatformPose([rand() - 0.5, rand() - 0.5, 0.3 + 2 * rand()]);
        const legs = lengthsOf(base, top, home.position, matFromQuat(home.orientation));
        const min = legs.map((l) => l * (0.4 + 0.6 * rand()));
        const max = legs.map((l) => l * (1 + rand()));
        const platform = createStewartPlatform({
          baseAnchors: base,
          platformAnchors: top,
          minLength: min,
          maxLength: max,
          home,
        });
        const lengths = new Float64Array(6);
        const pose = createPlatformPose();
        for (let trial = 0; trial < 3; trial++) {
          const kind = Math.floor(rand() * 4);
          const target = createPlatformPose(
            [
              home.position[0] + rand() - 0.5,
              home.position[1] + rand() - 0.5,
              home.position[2] + rand() - 0.5,
            ],
            [rand() - 0.5, rand() - 0.5, rand() - 0.5, 2 * rand()],
          );
          stewartInverseKinematics(platform, target, lengths);
          if (kind === 1) for (let i = 0; i < 6; i++) lengths[i] = min[i] + rand() * (max[i] - min[i]);
          if (kind === 2) for (let i = 0; i < 6; i++) lengths[i] = 3 * rand() * max[i] + 1e-6;
          if (kind === 3) lengths.fill(1e-3 * (1 + rand()));
          const start = rand();
          if (start < 0.4) {
            pose.position.set(home.position);
            pose.orientation.set(home.orientation);
          } else if (start < 0.7) {
            pose.position.set(target.position);
            pose.orientation.set(target.orientation);
          } else {
            pose.position.set([4 * rand() - 2, 4 * rand() - 2, 4 * rand() - 2]);
            pose.orientation.set([1, 0, 0, 0]);
          }
          const report = stewartForwardKinematics(platform, lengths, pose);
          solves++;
          expect(isPose(pose), `seed ${seed}: a pose`).toBe(true);
          expect(Number.isFinite(report.residual), `seed ${seed}: residual`).toBe(true);
          if (report.converged) {
            converged++;
            const got = lengthsOf(base, top, pose.position, matFromQuat(pose.orientation));
            for (let i = 0; i < 6; i++)
              expect(Math.abs(got[i] - lengths[i]), `seed ${seed}: leg ${i}`).toBeLessThanOrEqual(
                1e-10 * platform.size * (1 + 1e-6),
              );
          }
          const nearest = createPlatformPose();
          const back = stewartNearestReachable(platform, target, nearest);
          expect(isPose(nearest), `seed ${seed}: nearest is a pose`).toBe(true);
          if (back.converged) {
            stewartInverseKinematics(platform, nearest, lengths);
            for (let i = 0; i < 6; i++) {
              expect(lengths[i]).toBeGreaterThanOrEqual(min[i] - 1e-9 * platform.size);
              expect(lengths[i]).toBeLessThanOrEqual(max[i] + 1e-9 * platform.size);
            }
          }
        }
      }
      expect(solves).toBe(3 * CASES);
      // Most random actuations have a closure and are found: report the share for the record.
      process.stdout.write(`[fuzz parallel] ${converged}/${solves} forward solves converged\n`);
    },
    Math.max(60_000, 20 * CASES),
  );

  it(
    `${CASES} random delta robots, motor angles and starts: no NaN, converged forearms at their length`,
    () => {
      let solves = 0,
        converged = 0;
      for (let seed = SEED; seed < SEED + CASES; seed++) {
        const rand = random(seed + 7_000_000);
        const dims = {
          baseRadius: 0.05 + rand(),
          platformRadius: rand() < 0.2 ? 0 : 0.5 * rand(),
          upperArm: 0.05 + rand(),
          forearm: 0.5 + 2 * rand(),
        };
        let robot;
        try {
          robot = createDeltaRobot(dims);
        } catch {
          continue; // forearms that cannot close at home: refused, as the bad-input table says
        }
        const angles = new Float64Array(3);
        const position = new Float64Array(3);
        for (let trial = 0; trial < 3; trial++) {
          const at = [rand() - 0.5, rand() - 0.5, robot.home[2] + rand() - 0.5];
          deltaInverseKinematics(robot, at, angles);
          expect(angles.every(Number.isFinite), `seed ${seed}: angles`).toBe(true);
          if (trial === 2) for (let i = 0; i < 3; i++) angles[i] = 4 * rand() - 2;
          position.set(rand() < 0.5 ? robot.home : [4 * rand() - 2, 4 * rand() - 2, 4 * rand() - 2]);
          const report = deltaForwardKinematics(robot, angles, position);
          solves++;
          expect(position.every(Number.isFinite), `seed ${seed}: a position`).toBe(true);
          if (!report.converged) continue;
          converged++;
          for (let i = 0; i < 3; i++) {
            const phi = robot.armAngles[i];
            const e = elbow(dims, phi, angles[i]);
            const gap = Math.hypot(
              position[0] + dims.platformRadius * Math.cos(phi) - e[0],
              position[1] + dims.platformRadius * Math.sin(phi) - e[1],
              position[2] - e[2],
            );
            expect(Math.abs(gap - dims.forearm), `seed ${seed}: arm ${i}`).toBeLessThanOrEqual(
              1e-10 * robot.size * (1 + 1e-6),
            );
          }
        }
      }
      process.stdout.write(`[fuzz parallel] delta: ${converged}/${solves} forward solves converged\n`);
    },
    Math.max(60_000, 20 * CASES),
  );
});
