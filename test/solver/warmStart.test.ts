import { describe, expect, it } from "vitest";
import {
  compilePlan,
  createJointLimits,
  createPose,
  projectRotation,
  setJointLimit,
  solvePlan,
  type JointLimits,
  type Pose,
  type Rig,
  type SolvePlan,
} from "../../plugin/index.js";
import { clonePose, limitedHumanoidArm, random, straightChain } from "./fixtures.js";
import {
  axisAngle,
  conj,
  expectConsistentPose,
  mul,
  restOffsets,
  rotate,
  rotationDistance,
} from "./limitChecks.js";

/*
 * Warm starts under limits. A game solves every frame from the pose the last frame's solve left, for a target
 * that moved a little, so the solve must stay near the pose it is given: a valid input is the first candidate
 * for the answer (a solve never ends further from its targets than a pose that already keeps every limit),
 * and lock escapes start from the best pose seen, which each escape's own result may be.
 */

/** The limit tests' humanoid arm, planned for its fingertips. */
function humanoidArm(): { rig: Rig; limits: JointLimits; plan: SolvePlan } {
  const { rig, limits } = limitedHumanoidArm();
  const plan = compilePlan(rig, { effectors: [{ joint: "fingertips", chainLength: 4 }], limits });
  return { rig, limits, plan };
}

/** Six links along +Y, each joint a hinge about Z within ±90° (the planar robot arm of the limit tests). */
function robotArm(): { rig: Rig; limits: JointLimits; plan: SolvePlan } {
  const rig = straightChain(6);
  const limits = createJointLimits(rig);
  for (let j = 0; j < 6; j++)
    setJointLimit(limits, j, { hinge: { axis: [0, 0, 1], min: -Math.PI / 2, max: Math.PI / 2 } });
  return { rig, limits, plan: compilePlan(rig, { effectors: [{ joint: 6 }], limits }) };
}

/** A 6-bone chain alternating hinges (±90° about Z) and elliptical cones with twist limits. */
function mixedChain(): { rig: Rig; limits: JointLimits; plan: SolvePlan } {
  const rig = straightChain(6);
  const limits = createJointLimits(rig);
  for (let j = 0; j < 6; j++)
    setJointLimit(
      limits,
      j,
      j % 2
        ? { hinge: { axis: [0, 0, 1], min: 0, max: 2 } }
        : { swing: { up: 0.8, right: 0.3, down: 0.5, left: 1.2 }, twist: { min: -0.3, max: 0.3 } },
    );
  return { rig, limits, plan: compilePlan(rig, { effectors: [{ joint: 6 }], limits }) };
}

/** The largest turn (radians) of any joint's local rotation between two poses. */
function largestLocalTurn(rig: Rig, a: Pose, b: Pose): number {
  let largest = 0;
  for (let j = 0; j < rig.jointCount; j++) {
    const p = rig.parents[j];
    const local = (pose: Pose) => {
      const q = pose.orientations.subarray(4 * j, 4 * j + 4);
      return p < 0 ? Array.from(q) : mul(conj(pose.orientations.subarray(4 * p, 4 * p + 4)), q);
    };
    largest = Math.max(largest, rotationDistance(local(a), local(b)));
  }
  return largest;
}

/**
 * A pose that keeps its limits, many joints right on a boundary: each joint's local rotation is a random
 * rotation of up to half a turn projected onto its limits.
 */
function poseOnLimits(rig: Rig, limits: JointLimits, rand: () => number): Pose {
  const pose = createPose(rig);
  const offsets = restOffsets(rig);
  const scratch = new Float64Array(16);
  for (let j = 0; j < rig.jointCount; j++) {
    let axis: number[];
    do axis = [2 * rand() - 1, 2 * rand() - 1, 2 * rand() - 1];
    while (Math.hypot(axis[0], axis[1], axis[2]) < 0.1);
    const delta = Float64Array.from(axisAngle(axis, Math.PI * rand()));
    projectRotation(limits, j, delta, 0, scratch, 0);
    const local = mul(limits.restLocal.subarray(4 * j, 4 * j + 4), delta);
    const p = rig.parents[j];
    const parent = p >= 0 ? pose.orientations.subarray(4 * p, 4 * p + 4) : [0, 0, 0, 1];
    if (p >= 0) {
      const v = rotate(parent, offsets.subarray(3 * j, 3 * j + 3));
      for (let i = 0; i < 3; i++) pose.positions[3 * j + i] = pose.positions[3 * p + i] + v[i];
    }
    pose.orientations.set(mul(parent, local), 4 * j);
  }
  return pose;
}

describe("warm starts under limits", () => {
  it("reaches the next target from poses the arm drifted into on its shoulder and wrist limits, turning no joint more than 2°", () => {
    // Frames 909 and 910 of the humanoid arm's stability path (test/robustness/stability.ts), as an earlier
    // solver left them: shoulder and wrist on their limits. From the first it ended further from the target
    // than it started (3.3 mm, from 1.9); from the second it restarted from mid-range and jumped 50°.
    const { rig, limits, plan } = humanoidArm();
    const frames = [
      {
        positions: [
          0.18, 1.45, 0, 0.3181726825228789, 1.602603115277426, 0.18979093501023495, 0.34507771896020434,
          1.352830097435635, 0.2567951033322452, 0.3667939556412541, 1.2794623856697906, 0.23343736511429508,
          0.42038540684692277, 1.2888769857911975, 0.1747916349864594,
        ],
        orientations: [
          0.4879298181204667, -0.14563419181704093, 0.48171957516508673, 0.7132050376052417,
          0.6771608749729803, -0.6608155108641639, -0.10762158665496058, 0.3052762750248223,
          0.7773616477434787, -0.5199948035538976, -0.3063966791927646, 0.17730016320955128,
          -0.8238364212707517, 0.11546350323913496, 0.38951458173525355, 0.3952722112964141,
          -0.823836421270829, 0.11546350323914782, 0.3895145817352915, 0.39527221129645,
        ],
        target: [0.4208339105117879, 1.2899969106756672, 0.1732960950959136],
      },
      {
        positions: [
          0.18, 1.45, 0, 0.3110700250361377, 1.6051863329620133, 0.19271183305347994, 0.3362553142170399,
          1.35352774637049, 0.2529916555784746, 0.36102887032529285, 1.2808301223598002, 0.2306013366670944,
          0.4184412165558942, 1.2896301636769203, 0.1755887765274588,
        ],
        orientations: [
          0.48376833098470245, -0.14887143313889598, 0.49374454959950154, 0.7071222087250775,
          0.6825485697691631, -0.6630413436175298, -0.10928370523096853, 0.2873337751308078,
          0.7903978952508331, -0.5113417508839236, -0.28930068808483017, 0.17351049783704825,
          -0.8284813648968063, 0.11319340721223081, 0.3582737621184451, 0.41526592920670313,
          -0.8284813648968838, 0.11319340721224344, 0.35827376211848005, 0.4152659292067409,
        ],
        target: [0.42063082389484174, 1.291006902341426, 0.1726200753609539],
      },
    ];
    for (const frame of frames) {
      const input: Pose = {
        positions: Float64Array.from(frame.positions),
        orientations: Float64Array.from(frame.orientations),
      };
      const pose = clonePose(input);
      const report = solvePlan(plan, pose, Float64Array.from(frame.target), {
        tolerance: 1e-3,
        maxIterations: 20,
      });
      expect(report.converged).toBe(true);
      expect(largestLocalTurn(rig, input, pose)).toBeLessThan((2 * Math.PI) / 180);
      expectConsistentPose(rig, limits, pose, restOffsets(rig), 1e-6, plan.rotatingJoints);
    }
  });

  for (const [name, make] of [
    ["the humanoid arm", humanoidArm],
    ["a planar robot arm", robotArm],
    ["a chain of hinges and cones", mixedChain],
  ] as const) {
    it(`${name}: from a pose on its limits, a target moved by 0.3–1.7 % of the reach never ends further than it started`, () => {
      const { rig, limits, plan } = make();
      let reach = 0;
      for (let j = plan.effectorJoints[0]; rig.parents[j] >= 0; j = rig.parents[j])
        reach += Math.hypot(
          rig.restPositions[3 * j] - rig.restPositions[3 * rig.parents[j]],
          rig.restPositions[3 * j + 1] - rig.restPositions[3 * rig.parents[j] + 1],
          rig.restPositions[3 * j + 2] - rig.restPositions[3 * rig.parents[j] + 2],
        );
      const offsets = restOffsets(rig);
      const rand = random(3);
      const tip = 3 * plan.effectorJoints[0];
      const worse: string[] = [];
      for (let i = 0; i < 1000; i++) {
        const pose = poseOnLimits(rig, limits, rand);
        let direction: number[];
        do direction = [2 * rand() - 1, 2 * rand() - 1, 2 * rand() - 1];
        while (Math.hypot(direction[0], direction[1], direction[2]) < 0.1);
        const step = (0.003 + 0.014 * rand()) * reach;
        const scale = step / Math.hypot(direction[0], direction[1], direction[2]);
        const target = Float64Array.from(direction, (d, k) => pose.positions[tip + k] + scale * d);
        const report = solvePlan(plan, pose, target, { tolerance: 1e-3 * reach, maxIterations: 20 });
        if (report.maxResidual > step * (1 + 1e-9))
          worse.push(`${i}: ${step.toExponential(3)} -> ${report.maxResidual.toExponential(3)}`);
        expectConsistentPose(rig, limits, pose, offsets, 1e-6, plan.rotatingJoints);
      }
      expect(worse).toEqual([]);
    });
  }

  it("holding an unreachable target frame after frame, the arm never gets further nor turns a joint by 10°", () => {
    // Solved again from its own answer, a pose pressed against its limits toward a target it cannot reach is
    // about the best the passes find: it may still creep closer, but must not wander off through escapes.
    const { rig, limits, plan } = humanoidArm();
    for (const target of [
      [0.18, 1.45, -5], // behind the back
      [4, -3, 2], // far down and forward
      [0.3, 1.45, -0.4], // just behind the shoulder
      [0, 1, -0.3], // low behind the back
    ]) {
      const t = Float64Array.from(target);
      const pose = createPose(rig);
      let residual = solvePlan(plan, pose, t, { maxIterations: 100 }).maxResidual;
      for (let frame = 0; frame < 5; frame++) {
        const before = clonePose(pose);
        const report = solvePlan(plan, pose, t, { maxIterations: 20 });
        expect(report.maxResidual, `target ${target}, frame ${frame}`).toBeLessThanOrEqual(residual);
        expect(largestLocalTurn(rig, before, pose), `target ${target}, frame ${frame}`).toBeLessThan(
          (10 * Math.PI) / 180,
        );
        residual = report.maxResidual;
      }
      expectConsistentPose(rig, limits, pose, restOffsets(rig), 1e-6, plan.rotatingJoints);
    }
  });
});
