import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { findEndEffectors, invertAffineMatrix, transformPoint } from "../../plugin/babylon/index.js";
import { forwardKinematics, isAncestor, jointDepths, lowestCommonAncestor } from "../../plugin/rig/index.js";

/** A small deterministic generator, so failures reproduce. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("forwardKinematics", () => {
  it("matches Babylon's matrix composition, non-uniform scale included", () => {
    const next = random(7);
    const parents = [-1, 0, 1, 1, 3, 0, 5, 6];
    const n = parents.length;
    const t = new Float64Array(3 * n),
      r = new Float64Array(4 * n),
      s = new Float64Array(3 * n);
    const worlds: Matrix[] = [];
    for (let j = 0; j < n; j++) {
      const translation = new Vector3(next() * 2 - 1, next() * 2, next() - 0.5);
      const rotation = Quaternion.RotationAxis(
        new Vector3(next() - 0.5, next() - 0.5, next()).normalize(),
        next() * 3,
      );
      const scale = new Vector3(0.5 + next(), 0.5 + next() * 2, 0.5 + next());
      t.set([translation.x, translation.y, translation.z], 3 * j);
      r.set([rotation.x, rotation.y, rotation.z, rotation.w], 4 * j);
      s.set([scale.x, scale.y, scale.z], 3 * j);
      const local = Matrix.Compose(scale, rotation, translation);
      worlds.push(parents[j] < 0 ? local : local.multiply(worlds[parents[j]]));
    }
    const positions = new Float64Array(3 * n),
      orientations = new Float64Array(4 * n),
      bases = new Float64Array(9 * n);
    forwardKinematics(parents, t, r, s, positions, orientations, bases);
    for (let j = 0; j < n; j++) {
      const m = worlds[j].m;
      for (let k = 0; k < 3; k++) expect(positions[3 * j + k]).toBeCloseTo(m[12 + k], 4);
      // Basis vector i is row i of Babylon's (row-vector) matrix.
      for (let i = 0; i < 3; i++)
        for (let k = 0; k < 3; k++) expect(bases[9 * j + 3 * i + k]).toBeCloseTo(m[4 * i + k], 4);
      const q = orientations.subarray(4 * j, 4 * j + 4);
      expect(Math.hypot(...q)).toBeCloseTo(1, 12);
    }
  });

  it("gives orientations equal to the frames' rotations when scale is uniform", () => {
    const next = random(11);
    const parents = [-1, 0, 1, 2];
    const n = parents.length;
    const t = new Float64Array(3 * n),
      r = new Float64Array(4 * n),
      s = new Float64Array(3 * n).fill(1);
    let world = Quaternion.Identity();
    const expected: Quaternion[] = [];
    for (let j = 0; j < n; j++) {
      const q = Quaternion.RotationAxis(new Vector3(next(), next(), next()).normalize(), next() * 6);
      // Unnormalised input must not matter.
      r.set([q.x * 3, q.y * 3, q.z * 3, q.w * 3], 4 * j);
      t.set([0, 1, 0], 3 * j);
      world = world.multiply(q);
      expected.push(world.clone());
    }
    s.set([2, 2, 2], 0);
    const orientations = new Float64Array(4 * n);
    forwardKinematics(parents, t, r, s, new Float64Array(3 * n), orientations, new Float64Array(9 * n));
    expected.forEach((q, j) => {
      const dot =
        q.x * orientations[4 * j] +
        q.y * orientations[4 * j + 1] +
        q.z * orientations[4 * j + 2] +
        q.w * orientations[4 * j + 3];
      expect(Math.abs(dot)).toBeCloseTo(1, 6);
    });
  });

  it("turns a zero quaternion into the identity instead of NaN", () => {
    const positions = new Float64Array(6),
      orientations = new Float64Array(8);
    forwardKinematics(
      [-1, 0],
      [0, 0, 0, 1, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 1],
      [1, 1, 1, 1, 1, 1],
      positions,
      orientations,
      new Float64Array(18),
    );
    expect(Array.from(positions)).toEqual([0, 0, 0, 1, 0, 0]);
    expect(Array.from(orientations)).toEqual([0, 0, 0, 1, 0, 0, 0, 1]);
  });
});

describe("affine matrices", () => {
  it("inverts a mirrored, rotated, scaled matrix exactly enough to round-trip points", () => {
    const m = Matrix.Compose(
      new Vector3(2, -3, 0.5),
      Quaternion.RotationAxis(new Vector3(1, 2, 3).normalize(), 1.1),
      new Vector3(4, 5, -6),
    );
    const inverse = new Float64Array(16);
    expect(invertAffineMatrix(m.m, inverse)).toBe(true);
    const world = [0, 0, 0];
    transformPoint(m.m, 0.3, -0.7, 1.9, world);
    const back = [0, 0, 0];
    transformPoint(inverse, world[0], world[1], world[2], back);
    expect(back[0]).toBeCloseTo(0.3, 6);
    expect(back[1]).toBeCloseTo(-0.7, 6);
    expect(back[2]).toBeCloseTo(1.9, 6);
  });

  it("reports a singular matrix and writes the identity", () => {
    const inverse = new Float64Array(16).fill(7);
    expect(invertAffineMatrix(Matrix.Scaling(1, 0, 1).m, inverse)).toBe(false);
    expect(Array.from(inverse)).toEqual(Array.from(Matrix.Identity().m));
  });
});

describe("joint tree queries", () => {
  //        0
  //      /   \
  //     1     4
  //    / \     \
  //   2   3     5
  const parents = [-1, 0, 1, 1, 0, 4];

  it("finds leaves as end effectors and the bones up to the root", () => {
    expect(findEndEffectors(parents)).toEqual([2, 3, 5]);
    expect(Array.from(jointDepths(parents))).toEqual([0, 1, 2, 2, 1, 2]);
    expect(findEndEffectors([-1])).toEqual([0]);
    expect(findEndEffectors([-1, -1, 0])).toEqual([1, 2]);
  });

  it("answers ancestry and common ancestors", () => {
    const depths = jointDepths(parents);
    expect(isAncestor(parents, 0, 5)).toBe(true);
    expect(isAncestor(parents, 1, 5)).toBe(false);
    expect(isAncestor(parents, 2, 2)).toBe(false);
    expect(lowestCommonAncestor(parents, depths, 2, 3)).toBe(1);
    expect(lowestCommonAncestor(parents, depths, 2, 5)).toBe(0);
    expect(lowestCommonAncestor(parents, depths, 1, 2)).toBe(1);
    expect(lowestCommonAncestor([-1, -1], jointDepths([-1, -1]), 0, 1)).toBe(-1);
  });
});
