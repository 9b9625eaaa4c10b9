import { describe, expect, it } from "vitest";
import {
  compilePlan,
  createRig,
  createJointLimits,
  createPose,
  setJointLimit,
  solvePlan,
  type Pose,
  type Rig,
} from "../../plugin/index.js";
import { quatMultiply, quatNormalize, quatRotate } from "../../plugin/solver/quaternion.js";
import { turnBetween } from "../robustness/stability.js";
import { yTree } from "./fixtures.js";

/**
 * A chain hanging below a joint that another chain turns (left3's chain below trunk4, which right3's chain
 * turns) is solved together with that chain: both targets are met wherever a pose meets both, and while the
 * carried chain's target is well within its reach, the carrying chain turns exactly as it would alone.
 */

/** Rest pose with joint `j` turned by `angle` about `axis` for each entry, by forward kinematics. */
function posed(rig: Rig, turns: [number, [number, number, number], number][]): Pose {
  const rest = createPose(rig);
  const pose = createPose(rig);
  const local = new Float64Array(4 * rig.jointCount);
  for (let j = 0; j < rig.jointCount; j++) local[4 * j + 3] = 1;
  for (const [j, axis, angle] of turns) {
    const l = Math.hypot(...axis);
    const s = Math.sin(angle / 2) / l;
    local.set([axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)], 4 * j);
  }
  const offset = new Float64Array(3);
  const out = new Float64Array(3);
  for (let j = 0; j < rig.jointCount; j++) {
    const p = rig.parents[j];
    if (p < 0) continue;
    quatMultiply(pose.orientations, 4 * j, pose.orientations, 4 * p, local, 4 * j);
    quatNormalize(pose.orientations, 4 * j);
    for (let i = 0; i < 3; i++) offset[i] = rest.positions[3 * j + i] - rest.positions[3 * p + i];
    quatRotate(out, 0, pose.orientations, 4 * p, offset, 0);
    for (let i = 0; i < 3; i++) pose.positions[3 * j + i] = pose.positions[3 * p + i] + out[i];
  }
  return pose;
}

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("chains carried by another chain", () => {
  const rig = yTree(4, 3);
  const index = (name: string) => rig.names!.indexOf(name);
  const [trunk4, left1, left2, left3, right1, right2, right3] = [
    "trunk4",
    "left1",
    "left2",
    "left3",
    "right1",
    "right2",
    "right3",
  ].map(index);
  const effectors = [
    { joint: "left3", chainLength: 2 },
    { joint: "right3", chainLength: 3 },
  ];

  it("meet targets that need the carrier turned, from the rest pose, over 200 random poses", () => {
    // The carried chain is an arm with an elbow (a hinge at left2), as on a humanoid.
    const limits = createJointLimits(rig);
    setJointLimit(limits, left2, { hinge: { axis: [0, 0, 1], min: 0, max: 2.5 } });
    const plan = compilePlan(rig, { effectors, limits });
    const next = random(7);
    const angle = () => (next() - 0.5) * 1.6;
    const axis = (): [number, number, number] => [next() - 0.5, next() - 0.5, next() - 0.5];
    let met = 0,
      worst = 0;
    for (let k = 0; k < 200; k++) {
      // The carrier and every joint of both chains turned, the elbow within its range (straight included).
      const turns: [number, [number, number, number], number][] = [trunk4, left1, right1, right2].map((j) => [
        j,
        axis(),
        angle(),
      ]);
      turns.push([left2, [0, 0, 1], k % 10 === 0 ? 0 : 2.5 * next()]);
      const goal = posed(rig, turns);
      const targets = new Float64Array([
        ...goal.positions.subarray(3 * left3, 3 * left3 + 3),
        ...goal.positions.subarray(3 * right3, 3 * right3 + 3),
      ]);
      const pose = createPose(rig);
      const report = solvePlan(plan, pose, targets, { tolerance: 1e-3 });
      if (report.converged) met++;
      worst = Math.max(worst, report.maxResidual);
      for (const v of pose.positions) expect(Number.isFinite(v)).toBe(true);
    }
    // Targets the arm reaches only straight, at its full length from where the carrier can put it, converge
    // slowly (the carrier approaches that point as the passes alternate): a few stop short, by little.
    expect(met).toBeGreaterThanOrEqual(185);
    expect(worst).toBeLessThan(0.02);
  });

  it("leave the carrier to its own chain while their targets are well within reach", () => {
    const joined = compilePlan(rig, { effectors });
    const alone = compilePlan(rig, { effectors: [effectors[1]] });
    const goal = posed(rig, [
      [trunk4, [0, 0, 1], 0.3],
      [right1, [0, 0, 1], -0.4],
    ]);
    const rightTarget = goal.positions.slice(3 * right3, 3 * right3 + 3);
    // The left hand's target: half its reach from where left1 ends up, so the left chain asks nothing.
    const leftTarget = goal.positions.slice(3 * left2, 3 * left2 + 3);
    const a = createPose(rig),
      b = createPose(rig);
    solvePlan(alone, a, rightTarget, { tolerance: 1e-6 });
    const report = solvePlan(joined, b, new Float64Array([...leftTarget, ...rightTarget]), {
      tolerance: 1e-6,
    });
    expect(report.converged).toBe(true);
    expect(turnBetween(a.orientations, 4 * trunk4, b.orientations, 4 * trunk4)).toBeLessThan(1e-3);
  });
});

describe("a branching tree carried by another chain", () => {
  // Hips turned by a tail's chain; below them, through a spine no chain turns, a chest with a head and two
  // legs (a horse's fore quarters below the tail's pelvis).
  const rig = createRig({
    parents: [-1, 0, 1, 2, 0, 4, 5, 6, 5, 8, 5, 10],
    restPositions: [
      [0, 1, 0],
      [0, 1, -0.5],
      [0, 1, -1],
      [0, 1, -1.5],
      [0, 1, 0.5],
      [0, 1, 1],
      [0, 1.5, 1.3],
      [0, 2, 1.5],
      [0.3, 0.5, 1],
      [0.3, 0, 1],
      [-0.3, 0.5, 1],
      [-0.3, 0, 1],
    ].flat(),
    names: [
      "hips",
      "tail1",
      "tail2",
      "tail3",
      "spine",
      "chest",
      "neck",
      "head",
      "legL1",
      "legL2",
      "legR1",
      "legR2",
    ],
  });
  const effectors = [
    { joint: "tail3", chainLength: 3 },
    { joint: "head", chainLength: 2 },
    { joint: "legL2", chainLength: 2 },
    { joint: "legR2", chainLength: 2 },
  ];

  it("is solved with its carrier: every target met wherever one pose meets them all, over 200 random poses", () => {
    const plan = compilePlan(rig, { effectors });
    expect(plan.componentCount).toBe(1);
    const next = random(11);
    const angle = () => (next() - 0.5) * 1.2;
    const axis = (): [number, number, number] => [next() - 0.5, next() - 0.5, next() - 0.5];
    const tips = effectors.map((e) => rig.names!.indexOf(e.joint));
    let met = 0;
    for (let k = 0; k < 200; k++) {
      // Every joint the chains turn, turned; the spine keeps its rest rotation.
      const goal = posed(
        rig,
        [0, 1, 2, 5, 6, 8, 10].map((j) => [j, axis(), angle()]),
      );
      const targets = new Float64Array(
        tips.flatMap((j) => Array.from(goal.positions.subarray(3 * j, 3 * j + 3))),
      );
      const pose = createPose(rig);
      const report = solvePlan(plan, pose, targets, { tolerance: 1e-3 });
      if (report.converged) met++;
      for (const v of pose.positions) expect(Number.isFinite(v)).toBe(true);
    }
    expect(met).toBeGreaterThanOrEqual(196);
  });
});
