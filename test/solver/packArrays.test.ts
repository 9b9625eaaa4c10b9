import { describe, expect, it } from "vitest";
import {
  compilePlan,
  createJointLimits,
  createPose,
  createSolveWorkspace,
  solvePlan,
} from "../../plugin/index.js";
import { packTypedArrays } from "../../plugin/solver/packArrays.js";
import { yTree } from "./fixtures.js";

describe("packTypedArrays", () => {
  it("moves every typed array of the holders into one buffer, keeping type, length and contents", () => {
    const a = {
      f: Float64Array.of(1.5, -2.25, 3),
      u: Uint8Array.of(7, 8, 9),
      name: "kept",
      list: [1, 2, 3],
    };
    const b = { i: Int32Array.of(-4, 5), g: new Float32Array([0.5]) };
    const list = a.list;
    packTypedArrays(a, b);
    expect(a.f).toBeInstanceOf(Float64Array);
    expect(Array.from(a.f)).toEqual([1.5, -2.25, 3]);
    expect(a.u).toBeInstanceOf(Uint8Array);
    expect(Array.from(a.u)).toEqual([7, 8, 9]);
    expect(b.i).toBeInstanceOf(Int32Array);
    expect(Array.from(b.i)).toEqual([-4, 5]);
    expect(Array.from(b.g)).toEqual([0.5]);
    // Everything else is left alone.
    expect(a.name).toBe("kept");
    expect(a.list).toBe(list);
    // One buffer, each view on an 8-byte boundary (a Float64Array after a 3-byte array must still fit).
    for (const view of [a.f, a.u, b.i, b.g]) {
      expect(view.buffer).toBe(a.f.buffer);
      expect(view.byteOffset % 8).toBe(0);
    }
    // The views do not overlap: writing one leaves the others as they were.
    a.u.fill(255);
    expect(Array.from(a.f)).toEqual([1.5, -2.25, 3]);
    expect(Array.from(b.i)).toEqual([-4, 5]);
  });

  it("handles empty arrays and holders without arrays", () => {
    const a = { empty: new Float64Array(0), after: Float64Array.of(1) };
    const b = { nothing: 1 };
    packTypedArrays(a, b);
    expect(a.empty.length).toBe(0);
    expect(Array.from(a.after)).toEqual([1]);
    expect(b.nothing).toBe(1);
  });

  it("leaves a compiled plan, its workspace, its limits and its rig each in one block, and they solve as before", () => {
    const rig = yTree();
    const limits = createJointLimits(rig);
    const plan = compilePlan(rig, {
      effectors: [{ joint: "left3" }, { joint: "right3" }],
      limits,
    });
    const workspaceKeys = new Set(Object.keys(createSolveWorkspace(rig.jointCount)));
    const buffers = new Set<ArrayBufferLike>();
    const workspaceBuffers = new Set<ArrayBufferLike>();
    for (const holder of [plan, plan.scratch, plan.report]) {
      for (const [key, value] of Object.entries(holder)) {
        if (!ArrayBuffer.isView(value)) continue;
        (holder === plan.scratch && workspaceKeys.has(key) ? workspaceBuffers : buffers).add(value.buffer);
      }
    }
    expect(buffers.size).toBe(1);
    expect(workspaceBuffers.size).toBe(1);
    expect(workspaceBuffers.has([...buffers][0])).toBe(false);
    expect(
      new Set(
        Object.values(limits)
          .filter(ArrayBuffer.isView)
          .map((v) => v.buffer),
      ).size,
    ).toBe(1);
    expect(new Set([rig.parents.buffer, rig.restPositions.buffer, rig.restLengths.buffer]).size).toBe(1);

    const pose = createPose(rig);
    const targets = new Float64Array(6);
    for (let e = 0; e < 2; e++) {
      const j = plan.effectorJoints[e];
      targets[3 * e] = pose.positions[3 * j] + 0.5;
      targets[3 * e + 1] = pose.positions[3 * j + 1] - 0.5;
      targets[3 * e + 2] = pose.positions[3 * j + 2] + 0.25;
    }
    const report = solvePlan(plan, pose, targets, { tolerance: 1e-6, maxIterations: 200 });
    expect(report.converged).toBe(true);
    for (let j = 0; j < rig.jointCount; j++) {
      const p = rig.parents[j];
      if (p < 0) continue;
      const length = Math.hypot(
        pose.positions[3 * j] - pose.positions[3 * p],
        pose.positions[3 * j + 1] - pose.positions[3 * p + 1],
        pose.positions[3 * j + 2] - pose.positions[3 * p + 2],
      );
      expect(length).toBeCloseTo(rig.restLengths[j], 9);
    }
  });
});
