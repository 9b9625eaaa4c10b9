import { describe, expect, it } from "vitest";
import { compilePlan, createPose, solvePlan } from "../../plugin/index.js";
import { targetsWithinLength } from "../../plugin/solver/lockEscape.js";
import { straightChain, yTree } from "./fixtures.js";

/*
 * The lock escape over-relaxes its sweeps only while every target of the component lies within 99 % of its
 * chain's length from the base: beyond, the target is out of reach (or at its very edge) whatever the limits,
 * and overshooting along a limit boundary there makes the closest pose jump between frames. The decision
 * reads the bone lengths of the solve's input pose, so each case solves once before asking.
 */
describe("the lock escape's reach test", () => {
  it("takes a target within 99 % of the chain's length, and refuses one at or beyond it", () => {
    // Bones j1-j2 and j2-j3 hang from the base j1 at (0, 1, 0): two units of chain.
    const rig = straightChain(3);
    const plan = compilePlan(rig, { effectors: [{ joint: 3, chainLength: 2 }] });
    const pose = createPose(rig);
    const targets = Float64Array.of(1, 1, 0);
    solvePlan(plan, pose, targets);
    const at = (distance: number) => {
      targets.set([distance, 1, 0]);
      return targetsWithinLength(plan, 0, pose.positions, targets, 0);
    };
    expect(at(0)).toBe(true); // on the base itself
    expect(at(1.97)).toBe(true);
    expect(at(1.985)).toBe(false);
    expect(at(2)).toBe(false);
    expect(at(50)).toBe(false);
  });

  it("measures each effector of a branched component along its own path, and needs all of them in reach", () => {
    // Both arms hang from the root through the trunk's sub-base: 4 + 3 unit bones each.
    const rig = yTree(4, 3);
    const plan = compilePlan(rig, { effectors: [{ joint: "left3" }, { joint: "right3" }] });
    const pose = createPose(rig);
    const targets = new Float64Array(6);
    solvePlan(plan, pose, targets);
    targets.set([-6.8, 0, 0, 6.8, 0, 0]);
    expect(targetsWithinLength(plan, 0, pose.positions, targets, 0)).toBe(true);
    targets.set([7.2, 0, 0], 3);
    expect(targetsWithinLength(plan, 0, pose.positions, targets, 0)).toBe(false);
    targets.set([-7.2, 0, 0, 0, 3, 0]);
    expect(targetsWithinLength(plan, 0, pose.positions, targets, 0)).toBe(false);
  });
});
