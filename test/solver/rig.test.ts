import { describe, expect, it } from "vitest";
import { FabrikError, createRig, findJoint } from "../../plugin/index.js";

const chain = {
  parents: [-1, 0, 1],
  restPositions: [0, 0, 0, 0, 1, 0, 0, 2, 0],
  names: ["root", "mid", "tip"],
};

function rejects(make: () => unknown, pattern: RegExp, joint?: number): void {
  let error: unknown;
  try {
    make();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(FabrikError);
  expect((error as Error).message).toMatch(pattern);
  if (joint !== undefined) expect((error as FabrikError).joint).toBe(joint);
}

describe("createRig", () => {
  it("copies the description into typed arrays and derives children and rest lengths", () => {
    const rig = createRig(chain);
    expect(rig.jointCount).toBe(3);
    expect(Array.from(rig.parents)).toEqual([-1, 0, 1]);
    expect(Array.from(rig.restLengths)).toEqual([0, 1, 1]);
    expect(Array.from(rig.children.subarray(rig.childStart[0], rig.childStart[1]))).toEqual([1]);
    expect(Array.from(rig.restOrientations)).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]);
  });

  it("keeps its own copy, so later edits of the description change nothing", () => {
    const positions = chain.restPositions.slice();
    const rig = createRig({ ...chain, restPositions: positions });
    positions[4] = 99;
    expect(rig.restPositions[4]).toBe(1);
  });

  it("normalises nearly-unit float32 quaternions and rejects others, naming the joint", () => {
    const q = [0, 0, 0, 1.0000001, 0, 0, 0, 1, 0, 0, 0, 1];
    expect(createRig({ ...chain, restOrientations: q }).restOrientations[3]).toBe(1);
    rejects(
      () => createRig({ ...chain, restOrientations: [0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1] }),
      /"mid".*unit quaternion/,
      1,
    );
    rejects(
      () => createRig({ ...chain, restOrientations: [0, 0, 0, 1] }),
      /restOrientations.*4 numbers per joint/,
    );
  });

  it("rejects bad descriptions with an error that names the joint", () => {
    rejects(() => createRig({ ...chain, parents: [] }), /empty/);
    rejects(() => createRig({ ...chain, parents: [-1, 2, 1] }), /joint 1 \("mid"\) has parent 2/, 1);
    rejects(() => createRig({ ...chain, parents: [-1, 1, 1] }), /joint 1 \("mid"\) has parent 1/, 1);
    rejects(() => createRig({ ...chain, parents: [-1, 0, 0.5] }), /joint 2 \("tip"\) has parent 0.5/, 2);
    rejects(() => createRig({ ...chain, parents: [-2, 0, 1] }), /joint 0 \("root"\)/, 0);
    rejects(() => createRig({ ...chain, restPositions: [0, 0, 0] }), /restPositions.*9/);
    rejects(
      () => createRig({ ...chain, restPositions: [0, 0, 0, 0, NaN, 0, 0, 2, 0] }),
      /"mid"\) is not finite/,
      1,
    );
    rejects(
      () => createRig({ ...chain, restPositions: [0, 0, 0, 0, 1, 0, 0, Infinity, 0] }),
      /"tip"\) is not finite/,
      2,
    );
    rejects(() => createRig({ ...chain, names: ["a", "b"] }), /one name per joint/);
    rejects(() => createRig({ ...chain, parents: undefined as unknown as number[] }), /parents/);
  });

  it("accepts a forest (several roots) and zero-length bones", () => {
    const rig = createRig({ parents: [-1, 0, -1, 2], restPositions: [0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0] });
    expect(Array.from(rig.restLengths)).toEqual([0, 0, 0, 1]);
  });
});

describe("findJoint", () => {
  const rig = createRig(chain);
  it("finds joints by index and by name", () => {
    expect(findJoint(rig, 2, "x")).toBe(2);
    expect(findJoint(rig, "mid", "x")).toBe(1);
  });
  it("names the option and the missing joint", () => {
    rejects(() => findJoint(rig, "elbow", "effector 0"), /effector 0: no joint named "elbow"/);
    rejects(() => findJoint(rig, 7, "pinned"), /pinned: joint index 7 is outside the rig \(0..2\)/);
    rejects(() => findJoint(rig, 1.5, "pinned"), /pinned: joint index 1.5/);
  });
  it("refuses an ambiguous name instead of guessing", () => {
    const twins = createRig({ ...chain, names: ["root", "arm", "arm"] });
    rejects(() => findJoint(twins, "arm", "effector 0"), /ambiguous \(joints 1 and 2\)/);
  });
});
