import { describe, expect, it } from "vitest";
import {
  DEFAULT_TOLERANCE,
  compilePlan,
  createJointLimits,
  createPose,
  createRig,
  setJointLimit,
  solvePlan,
} from "../../plugin/index.js";
import { random } from "./fixtures.js";
import { norm, sub, type V3 } from "./continuumFixtures.js";

/*
 * Continuum sections where they are not a whole chain: between free bones, in branches of one component, with
 * an effector at a section's base, next to limited joints. Each solve must keep every section an even arc
 * within its limit and every bone its length; targets are where the pose of random section bends puts the
 * effectors, so every one can be met.
 */

/** Largest spread of a section's joint bends over its bend; its bend; NaN-free, lengths kept (else throws). */
function checkSections(
  parents: Int32Array,
  rest: Float64Array,
  p: Float64Array,
  sections: number[][],
  maxBend: number,
): void {
  expect(p.every(Number.isFinite)).toBe(true);
  for (let j = 0; j < parents.length; j++) {
    if (parents[j] < 0) continue;
    expect(Math.hypot(...sub(p, parents[j], j))).toBeCloseTo(Math.hypot(...sub(rest, parents[j], j)), 9);
  }
  for (const joints of sections) {
    const q = parents[joints[0]];
    let t = q >= 0 ? norm(sub(p, q, joints[0])) : norm(sub(rest, joints[0], joints[1]));
    const bends: number[] = [];
    for (let k = 1; k < joints.length; k++) {
      const d = norm(sub(p, joints[k - 1], joints[k]));
      bends.push(Math.acos(Math.min(1, t[0] * d[0] + t[1] * d[1] + t[2] * d[2])));
      t = d;
    }
    const bend = bends.reduce((a, b) => a + b, 0);
    expect(bend).toBeLessThanOrEqual(maxBend + 1e-9);
    expect(Math.max(...bends) - Math.min(...bends)).toBeLessThanOrEqual(0.01 * bend + 1e-12);
  }
}

/** Chains up +Y from the root (joint 0) along the given parent list, 0.1 apart, turned by `lean` per branch. */
function rigOf(parents: number[], lean: (j: number) => V3) {
  const restPositions = [0, 0, 0];
  for (let j = 1; j < parents.length; j++) {
    const p = parents[j];
    const d = lean(j);
    restPositions.push(
      restPositions[3 * p] + 0.1 * d[0],
      restPositions[3 * p + 1] + 0.1 * d[1],
      restPositions[3 * p + 2] + 0.1 * d[2],
    );
  }
  return createRig({ parents, restPositions });
}

/** Targets: the effectors where a solve toward random points leaves them (a pose the sections can hold). */
function reachableTargets(
  plan: ReturnType<typeof compilePlan>,
  rig: ReturnType<typeof createRig>,
  rand: () => number,
): Float64Array {
  const pose = createPose(rig);
  const goals = new Float64Array(3 * plan.effectorCount);
  for (let i = 0; i < goals.length; i++) goals[i] = (rand() - 0.5) * 1.2 + (i % 3 === 1 ? 0.4 : 0);
  solvePlan(plan, pose, goals);
  const targets = new Float64Array(3 * plan.effectorCount);
  for (let e = 0; e < plan.effectorCount; e++)
    targets.set(pose.positions.subarray(3 * plan.effectorJoints[e], 3 * plan.effectorJoints[e] + 3), 3 * e);
  return targets;
}

describe("continuum sections inside larger layouts", () => {
  it("a section between free bones: the section stays an arc, the chain reaches", () => {
    // 0 - 1 - 2 free, section 2..7, 7 - 8 - 9 free.
    const parents = [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8];
    const rig = rigOf(parents, () => [0, 1, 0]);
    const sections = [[2, 3, 4, 5, 6, 7]];
    const plan = compilePlan(rig, {
      effectors: [{ joint: 9 }],
      continuumSections: sections.map((joints) => ({ joints, maxBend: 2 })),
    });
    const rand = random(3);
    let reached = 0;
    for (let t = 0; t < 50; t++) {
      const targets = reachableTargets(plan, rig, rand);
      const pose = createPose(rig);
      if (solvePlan(plan, pose, targets).maxResidual <= DEFAULT_TOLERANCE) reached++;
      checkSections(rig.parents, rig.restPositions, pose.positions, sections, 2);
    }
    console.log(`[continuum] a section between free bones: ${reached} / 50 reached`);
    // Every one: where the passes crawl, damped steps on the arc and the free joints finish (docs/continuum.md).
    expect(reached).toBe(50);
  });

  it("two tentacles from one root, one section each, two effectors", () => {
    // Root 0; tentacle A: 1..5 leaning +X, tentacle B: 6..10 leaning -X.
    const parents = [-1, 0, 1, 2, 3, 4, 0, 6, 7, 8, 9];
    const rig = rigOf(parents, (j) => (j <= 5 ? norm([0.3, 1, 0]) : norm([-0.3, 1, 0])));
    const sections = [
      [1, 2, 3, 4, 5],
      [6, 7, 8, 9, 10],
    ];
    const plan = compilePlan(rig, {
      effectors: [{ joint: 5 }, { joint: 10 }],
      continuumSections: sections.map((joints) => ({ joints, maxBend: 2.5 })),
    });
    const rand = random(4);
    for (let t = 0; t < 30; t++) {
      const targets = reachableTargets(plan, rig, rand);
      const pose = createPose(rig);
      solvePlan(plan, pose, targets);
      checkSections(rig.parents, rig.restPositions, pose.positions, sections, 2.5);
    }
  });

  it("an effector at the joint between two sections, and one at the tip", () => {
    const parents = [-1, 0, 1, 2, 3, 4, 5, 6, 7];
    const rig = rigOf(parents, () => [0, 1, 0]);
    const sections = [
      [0, 1, 2, 3, 4],
      [4, 5, 6, 7, 8],
    ];
    const plan = compilePlan(rig, {
      effectors: [{ joint: 4 }, { joint: 8 }],
      continuumSections: sections.map((joints) => ({ joints, maxBend: 2.5 })),
    });
    const rand = random(5);
    let reached = 0;
    for (let t = 0; t < 30; t++) {
      const targets = reachableTargets(plan, rig, rand);
      const pose = createPose(rig);
      if (solvePlan(plan, pose, targets).converged) reached++;
      checkSections(rig.parents, rig.restPositions, pose.positions, sections, 2.5);
    }
    console.log(`[continuum] an effector between two sections and one at the tip: ${reached} / 30 reached`);
    expect(reached).toBeGreaterThanOrEqual(25);
  });

  it("a section below a limited joint: the limit holds, the section stays an arc", () => {
    const parents = [-1, 0, 1, 2, 3, 4, 5, 6];
    const rig = rigOf(parents, () => [0, 1, 0]);
    const limits = createJointLimits(rig);
    setJointLimit(limits, 1, { swing: { up: 0.5, right: 0.5, down: 0.5, left: 0.5 } });
    const sections = [[2, 3, 4, 5, 6, 7]];
    const plan = compilePlan(rig, {
      effectors: [{ joint: 7 }],
      limits,
      continuumSections: sections.map((joints) => ({ joints, maxBend: 2 })),
    });
    const rand = random(6);
    for (let t = 0; t < 30; t++) {
      const targets = reachableTargets(plan, rig, rand);
      const pose = createPose(rig);
      solvePlan(plan, pose, targets);
      checkSections(rig.parents, rig.restPositions, pose.positions, sections, 2);
      // Joint 1's bone (to joint 2) within 0.5 rad of the bone entering it, its rest direction in its parent.
      const a = norm(sub(pose.positions, 0, 1)),
        d = norm(sub(pose.positions, 1, 2));
      expect(Math.acos(Math.min(1, a[0] * d[0] + a[1] * d[1] + a[2] * d[2]))).toBeLessThanOrEqual(0.5 + 1e-6);
    }
  });
});
