import { describe, expect, it } from "vitest";
import {
  compilePlan,
  createJointLimits,
  createPose,
  setJointLimit,
  solvePlan,
  type SolvePlan,
} from "../../plugin/index.js";
import { clonePose, yTree } from "./fixtures.js";

/*
 * SolveSettings.fellShort: the caller's last solve of these targets ended short of them. The solver is told,
 * it remembers nothing: the answer is a function of the input and the settings alone.
 */

/** A Y of a trunk and two arms, every joint within a 0.25 rad cone: it cannot bend far from its rest shape. */
function stiffTree(): SolvePlan {
  const rig = yTree(4, 3);
  const limits = createJointLimits(rig);
  for (let j = 1; j < rig.jointCount; j++)
    setJointLimit(limits, j, { swing: { up: 0.25, right: 0.25, down: 0.25, left: 0.25 } });
  return compilePlan(rig, {
    effectors: [{ joint: "left3" }, { joint: "right3" }],
    limits,
  });
}

/** Both arms' tips pulled down beside the trunk: within the chains' length, out of the limits' reach. */
const LOW = Float64Array.from([-1.5, 1, 0.5, 1.5, 1, 0.5]);

describe("SolveSettings.fellShort", () => {
  it("after a solve that fell short: fewer iterations, no further from the targets, the same answer twice", () => {
    const plan = stiffTree();
    // Last frame: the full search from the rest pose falls short; its answer is this frame's input.
    const last = createPose(plan.rig);
    const first = solvePlan(plan, last, LOW, { tracking: true });
    expect(first.converged).toBe(false);
    const lastResidual = first.maxResidual;
    const full = clonePose(last);
    const a = solvePlan(plan, full, LOW, { tracking: true });
    const fullIterations = a.iterations,
      fullResidual = a.maxResidual;
    const short = [clonePose(last), clonePose(last)];
    const reports = short.map((pose) => {
      const r = solvePlan(plan, pose, LOW, { tracking: true, fellShort: true });
      return { iterations: r.iterations, residual: r.maxResidual, converged: r.converged };
    });
    expect(reports[0].converged).toBe(false);
    expect(reports[0].iterations).toBeLessThan(fullIterations / 2);
    // Never further than the input (last frame's answer keeps every limit), about as near as a full search.
    expect(reports[0].residual).toBeLessThanOrEqual(lastResidual + 1e-12);
    expect(reports[0].residual).toBeLessThan(fullResidual + 0.05);
    // A function of its input: the same answer twice, and a solve without the hint is the full search again.
    expect(Array.from(short[1].orientations)).toEqual(Array.from(short[0].orientations));
    expect(reports[1]).toEqual(reports[0]);
    const again = clonePose(last);
    const b = solvePlan(plan, again, LOW, { tracking: true });
    expect(b.iterations).toBe(fullIterations);
    expect(Array.from(again.orientations)).toEqual(Array.from(full.orientations));
  });

  it("targets within reach still converge", () => {
    const plan = stiffTree();
    const pose = createPose(plan.rig);
    const p = pose.positions;
    // Each tip a little off its rest place.
    const near = Float64Array.from([
      p[21] + 0.05,
      p[22] - 0.1,
      p[23] + 0.1,
      p[30] - 0.05,
      p[31] - 0.1,
      p[32],
    ]);
    const r = solvePlan(plan, pose, near, { tracking: true, fellShort: true });
    expect(r.converged).toBe(true);
  });
});
