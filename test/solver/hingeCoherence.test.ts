import { describe, expect, it } from "vitest";
import {
  compilePlan,
  createJointLimits,
  createPose,
  createRig,
  setJointLimit,
  solvePlan,
  type JointLimits,
  type Pose,
  type Rig,
  type SolvePlan,
} from "../../plugin/index.js";
import { localRotations, turnBetween } from "../robustness/stability.js";
import { limitedHumanoidArm } from "./fixtures.js";

/*
 * A hinge's bend plane is only defined by its bend. Near full reach the elbow is straight, and a millimetre
 * of target motion swings the plane the passes propose all the way round; rolling the upper arm to follow it
 * turned the shoulder from one end of its twist range to the other (137°) between two solves a frame apart.
 * Solved frame after frame from the last answer, a limb near or beyond full reach must keep the plane its
 * elbow bends in, and bend (or straighten) at the elbow within it; a new reach still rolls the shoulder as
 * far as the hinge needs.
 */

const DEGREE = Math.PI / 180;

/** The limit tests' humanoid arm, planned for its fingertips. */
function humanoidArm(): { rig: Rig; limits: JointLimits; plan: SolvePlan } {
  const { rig, limits } = limitedHumanoidArm();
  const plan = compilePlan(rig, { effectors: [{ joint: "fingertips", chainLength: 4 }], limits });
  return { rig, limits, plan };
}

/** Angle (radians) between two joints' bones: 0 for a straight elbow. */
function bendAt(pose: Pose, parent: number, joint: number, child: number): number {
  const p = pose.positions;
  const a = [0, 1, 2].map((i) => p[3 * joint + i] - p[3 * parent + i]);
  const b = [0, 1, 2].map((i) => p[3 * child + i] - p[3 * joint + i]);
  const dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  return Math.acos(Math.min(1, dot / (Math.hypot(a[0], a[1], a[2]) * Math.hypot(b[0], b[1], b[2]))));
}

/** The shoulder's (a root's) twist about its rest bone axis, +X: the swing-twist split of its rotation. */
function shoulderTwist(pose: Pose): number {
  return 2 * Math.atan2(pose.orientations[0], pose.orientations[3]);
}

/**
 * Solves `frames` targets in turn, each from the last answer, starting at `pose`; returns the largest turn of
 * any joint's local rotation between two consecutive poses (the start included) and the frames converged.
 */
function follow(
  rig: Rig,
  plan: SolvePlan,
  pose: Pose,
  frames: number,
  target: (frame: number, out: Float64Array) => void,
  each?: (frame: number, converged: boolean) => void,
): number {
  const previous = localRotations(rig.parents, pose.orientations, new Float64Array(4 * rig.jointCount));
  const current = new Float64Array(4 * rig.jointCount);
  const targets = new Float64Array(3 * plan.effectorCount);
  let largest = 0;
  for (let frame = 0; frame < frames; frame++) {
    target(frame, targets);
    const report = solvePlan(plan, pose, targets, { tolerance: 1e-3, maxIterations: 20 });
    each?.(frame, report.converged);
    localRotations(rig.parents, pose.orientations, current);
    for (let o = 0; o < current.length; o += 4)
      largest = Math.max(largest, turnBetween(previous, o, current, o));
    previous.set(current);
  }
  return largest;
}

describe("a limb near full reach keeps the plane its elbow bends in, solved from the last answer", () => {
  for (const radius of [0.01, 0.05]) {
    it(`held out straight toward a target beyond reach circling its line (${radius * 100} cm), no joint turns 1° per solve`, () => {
      const { rig, plan } = humanoidArm();
      const pose = createPose(rig);
      // 5 cm and more beyond the arm's 0.70, about its straight rest line, once round every 120 solves.
      const aim = (frame: number, out: Float64Array) => {
        const a = (2 * Math.PI * frame) / 120;
        out[0] = 0.18 + 0.75 + radius;
        out[1] = 1.45 + radius * Math.sin(a);
        out[2] = radius * Math.cos(a);
      };
      const first = new Float64Array(3);
      aim(0, first);
      solvePlan(plan, pose, first, { tolerance: 1e-3, maxIterations: 500 });
      const largest = follow(rig, plan, pose, 240, aim);
      expect(largest).toBeLessThan(1 * DEGREE);
      expect(bendAt(pose, 0, 1, 2)).toBeLessThan(1 * DEGREE);
    });
  }

  it("brought within reach from straight, bends at the elbow in the plane its hinge has, without rolling the shoulder", () => {
    const { rig, plan } = humanoidArm();
    const pose = createPose(rig);
    const start = shoulderTwist(pose);
    let twist = 0;
    let converged = 0;
    // From 2 cm beyond reach to 4 cm within it, wobbling 5 mm about the line.
    const largest = follow(
      rig,
      plan,
      pose,
      120,
      (frame, out) => {
        const a = (2 * Math.PI * frame) / 50;
        out[0] = 0.18 + 0.72 - 0.0005 * frame;
        out[1] = 1.45 + 0.005 * Math.sin(a);
        out[2] = 0.005 * Math.cos(a);
      },
      (frame, ok) => {
        twist = Math.max(twist, Math.abs(shoulderTwist(pose) - start));
        if (frame >= 80 && ok) converged++;
      },
    );
    expect(largest).toBeLessThan(10 * DEGREE);
    expect(twist).toBeLessThan(3 * DEGREE);
    // The reach was shortened at the elbow (forward, the only way it bends), not by folding the hand.
    expect(bendAt(pose, 0, 1, 2)).toBeGreaterThan(20 * DEGREE);
    expect(pose.positions[8]).toBeGreaterThan(pose.positions[5]);
    expect(converged).toBe(40);
  });

  it("a new reach still rolls the shoulder as far as the elbow needs, in as few iterations", () => {
    // Targets the straight rest pose reaches only by folding the elbow up or down: the shoulder turns to its
    // twist limit (±1.2) so the elbow's plane holds them.
    for (const [x, y, z, iterations] of [
      [0.46, 1.65, 0.1, 6],
      [0.3, 1.75, 0, 6],
      [0.55, 1.2, 0, 2],
    ]) {
      const { rig, plan } = humanoidArm();
      const pose = createPose(rig);
      const report = solvePlan(plan, pose, Float64Array.of(x, y, z), { tolerance: 1e-3, maxIterations: 100 });
      expect(report.converged).toBe(true);
      expect(report.iterations).toBeLessThanOrEqual(iterations);
      expect(Math.abs(shoulderTwist(pose))).toBeGreaterThan(1.1);
    }
  });

  it("two arms on a chest (one branched component): hands near and beyond reach, no joint turns 10° per solve", () => {
    // Root, chest, then each arm: shoulder (cone and twist), elbow (hinge), hand.
    const rig = createRig({
      parents: [-1, 0, 1, 2, 3, 1, 5, 6],
      restPositions: [
        0, 1, 0, 0, 1.45, 0, 0.18, 1.45, 0, 0.46, 1.45, 0, 0.72, 1.45, 0, -0.18, 1.45, 0, -0.46, 1.45, 0,
        -0.72, 1.45, 0,
      ],
    });
    const limits = createJointLimits(rig);
    setJointLimit(limits, 1, {
      swing: { up: 0.3, right: 0.3, down: 0.3, left: 0.3 },
      twist: { min: -0.3, max: 0.3 },
    });
    for (const shoulder of [2, 5])
      setJointLimit(limits, shoulder, {
        swing: { up: 1.5, right: 1.6, down: 1.4, left: 1.4 },
        twist: { min: -1.2, max: 1.2 },
      });
    setJointLimit(limits, 3, { hinge: { axis: [0, -1, 0], min: 0, max: 2.5 } });
    setJointLimit(limits, 6, { hinge: { axis: [0, 1, 0], min: 0, max: 2.5 } });
    const plan = compilePlan(rig, { effectors: [{ joint: 4 }, { joint: 7 }], limits });
    expect(plan.componentCount).toBe(1);
    const pose = createPose(rig);
    const aim = (frame: number, out: Float64Array) => {
      const a = (2 * Math.PI * frame) / 200;
      // Left hand: 0.48–0.68 from its shoulder (the arm reaches 0.54); right hand: 0.66 away, circling.
      const d = 0.58 + 0.1 * Math.sin(0.7 * a);
      out[0] = 0.18 + d;
      out[1] = 1.45 + 0.03 * Math.sin(a);
      out[2] = 0.03 * Math.cos(a);
      out[3] = -0.18 - 0.66;
      out[4] = 1.45 + 0.02 * Math.cos(1.3 * a);
      out[5] = 0.02 * Math.sin(1.3 * a);
    };
    // Settle on the start of the path first: the move from rest to it is not under test.
    const first = new Float64Array(6);
    aim(0, first);
    solvePlan(plan, pose, first, { tolerance: 1e-3, maxIterations: 500 });
    expect(follow(rig, plan, pose, 600, aim)).toBeLessThan(10 * DEGREE);
  });
});
