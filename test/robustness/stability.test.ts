import { describe, expect, it } from "vitest";
import { compilePlan, createPose, solvePlan } from "../../plugin/index.js";
import { straightChain } from "../solver/fixtures.js";
import {
  FRAMES,
  SCENARIOS,
  formatCounts,
  lissajous,
  runScenario,
  type Scenario,
  type StabilityCounts,
} from "./stability.js";

/*
 * Temporal stability: a target moving along a smooth Lissajous curve within reach for 1000 frames, each
 * frame solved from the previous frame's pose (as a game does when it keeps the IK pose), default settings
 * but the tolerance. No joint may turn more than 10° between consecutive frames, and none may flip. The same
 * path through THREE.IK is in the stability bench (test/bench/peers.bench.ts), for comparison.
 */

describe("temporal stability: a target on a smooth path, 1000 frames, each solved from the last", () => {
  const results = new Map<string, StabilityCounts>();
  const counts = (scenario: Scenario): StabilityCounts => {
    let c = results.get(scenario.name);
    if (c === undefined) {
      c = runScenario(scenario);
      results.set(scenario.name, c);
      console.log(`[stability] ${scenario.name}: ${formatCounts(c)}`);
    }
    return c;
  };
  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: no joint flips`, () => {
      expect(counts(scenario).frames).toBe(FRAMES);
      expect(counts(scenario).flips).toBe(0);
    });
    it(`${scenario.name}: no joint turns more than 10° between frames`, () =>
      expect(counts(scenario).jumps).toBe(0));
  }

  it("keeps orientations unit and bones rigid over 1000 frames with a 150-joint tail hanging below the chain", () => {
    // Each solve carries the tail rigidly from the last one's output; rounding must not build up.
    const rig = straightChain(154);
    const plan = compilePlan(rig, { effectors: [{ joint: 4, chainLength: 3 }] });
    const pose = createPose(rig);
    const target = new Float64Array(3);
    let worst = 0;
    for (let frame = 0; frame < FRAMES; frame++) {
      lissajous([0.5, 2.5, 0], [0.6, 0.4, 0.6], FRAMES, frame, target);
      solvePlan(plan, pose, target, { maxIterations: 10 });
      for (let j = 0; j < rig.jointCount; j++) {
        const q = pose.orientations.subarray(4 * j, 4 * j + 4);
        worst = Math.max(worst, Math.abs(Math.hypot(q[0], q[1], q[2], q[3]) - 1));
      }
    }
    let lengthError = 0;
    for (let j = 1; j < rig.jointCount; j++) {
      const d = Math.hypot(
        pose.positions[3 * j] - pose.positions[3 * j - 3],
        pose.positions[3 * j + 1] - pose.positions[3 * j - 2],
        pose.positions[3 * j + 2] - pose.positions[3 * j - 1],
      );
      lengthError = Math.max(lengthError, Math.abs(d - 1));
    }
    expect(worst).toBeLessThan(1e-12);
    expect(lengthError).toBeLessThan(1e-9);
  });
});
