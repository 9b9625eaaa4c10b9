import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PoseReader, buildSkeletonRig } from "../../plugin/babylon/index.js";
import { FabrikError } from "../../plugin/solver/errors.js";
import { characterNamed, loadCharacter, noteIfMissing, type Loaded } from "./characters.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined)
  console.warn(
    "[babylon tests] global.gc is missing (run node with --expose-gc): allocation is measured without a collection first",
  );

/**
 * Heap growth per `read()` over `calls` reads after a full collection: the least of several runs. V8 boxes
 * numbers in code it has not optimised yet (the first code measured in a process can take ~100k calls to
 * settle), and a collection during a run can only lower a figure, so the minimum is the steady state. Any
 * allocation of the reader's own would cost at least 16 bytes on every read.
 */
function bytesPerRead(reader: PoseReader, calls = 10_000): number {
  for (let i = 0; i < 100_000; i++) reader.read();
  let best = Infinity;
  for (let run = 0; run < 8 && best > 0.1; run++) {
    gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < calls; i++) reader.read();
    const after = process.memoryUsage().heapUsed;
    best = Math.min(best, (after - before) / calls);
  }
  return Math.max(best, 0);
}

describe("PoseReader.read() allocates nothing", () => {
  let engine: NullEngine;
  afterAll(() => engine?.dispose());

  it("on a hand-made rig mixing linked nodes (quaternion and Euler) and bare bones, under a Mesh root", () => {
    engine = new NullEngine();
    const scene = new Scene(engine);
    const model = new Mesh("model", scene);
    const skeleton = new Skeleton("s", "s", scene);
    let parent: Bone | null = null;
    for (let i = 0; i < 40; i++) {
      const bone: Bone = new Bone(`b${i}`, skeleton, parent, Matrix.Translation(0, 0.1, 0));
      if (i % 3 !== 2) {
        const node = new TransformNode(`n${i}`, scene);
        node.parent = i === 0 ? model : parent!.getTransformNode();
        if (i % 3 === 0) node.rotationQuaternion = Quaternion.RotationAxis(Vector3.Right(), 0.1 * i);
        else node.rotation.set(0.1, 0.2, 0.3);
        bone.linkTransformNode(node);
      }
      parent = bone;
    }
    const mesh = new Mesh("body", scene);
    mesh.parent = model;
    mesh.skeleton = skeleton;
    // Bare bones below linked ones would not be a glTF rig, but the reader must handle both kinds.
    const reader = new PoseReader(buildSkeletonRig(model));
    const perRead = bytesPerRead(reader);
    console.log(`[babylon tests] hand-made 40-joint rig: ${perRead.toFixed(3)} bytes per read()`);
    expect(perRead).toBeLessThan(1);
  });

  const robot = characterNamed("RobotExpressive");
  describe.skipIf(noteIfMissing(robot))("on RobotExpressive while it animates", () => {
    let loaded: Loaded;
    beforeAll(async () => (loaded = await loadCharacter(robot)));
    afterAll(() => loaded?.engine.dispose());

    it("reads 10,000 times without growing the heap", () => {
      const reader = new PoseReader(buildSkeletonRig(loaded.root));
      for (let i = 0; i < 5; i++) loaded.scene.render();
      const perRead = bytesPerRead(reader);
      console.log(`[babylon tests] RobotExpressive (43 joints): ${perRead.toFixed(3)} bytes per read()`);
      expect(perRead).toBeLessThan(1);
    });
  });
});

describe("PoseReader.readOnly()", () => {
  /** A trunk of 4 linked joints with a 3-joint branch off its second joint. */
  function branchedRig() {
    const engine = new NullEngine();
    const scene = new Scene(engine);
    const model = new TransformNode("model", scene);
    const skeleton = new Skeleton("s", "s", scene);
    const bones: Bone[] = [];
    const add = (name: string, parent: Bone | null) => {
      const bone = new Bone(name, skeleton, parent, Matrix.Translation(0.1, 0.3, 0));
      const node = new TransformNode(name, scene);
      node.parent = parent === null ? model : parent.getTransformNode();
      node.position.set(0.1, 0.3, 0);
      node.rotationQuaternion = Quaternion.Identity();
      bone.linkTransformNode(node);
      bones.push(bone);
      return bone;
    };
    let trunk = add("trunk0", null);
    for (let i = 1; i < 4; i++) trunk = add(`trunk${i}`, trunk);
    let branch = bones[1];
    for (let i = 0; i < 3; i++) branch = add(`branch${i}`, branch);
    const mesh = new Mesh("body", scene);
    mesh.parent = model;
    mesh.skeleton = skeleton;
    return { engine, rig: buildSkeletonRig(model), bones };
  }

  it("reads the listed joints and their ancestors exactly as a full read, and leaves the others as they were", () => {
    const { engine, rig, bones } = branchedRig();
    const full = new PoseReader(rig);
    const partial = new PoseReader(rig);
    const tip = rig.indexOf("branch2");
    partial.readOnly([tip]);
    const stale = Float64Array.from(partial.positions);
    for (const bone of bones) {
      const node = bone.getTransformNode()!;
      node.rotationQuaternion = Quaternion.RotationYawPitchRoll(0.3, -0.2, 0.5);
      node.position.x += 0.05;
    }
    full.read();
    partial.read();
    const read = ["trunk0", "trunk1", "branch0", "branch1", "branch2"].map((n) => rig.indexOf(n));
    for (let j = 0; j < rig.jointCount; j++) {
      for (let a = 0; a < 3; a++) {
        if (read.includes(j)) expect(partial.positions[3 * j + a]).toBe(full.positions[3 * j + a]);
        else expect(partial.positions[3 * j + a]).toBe(stale[3 * j + a]);
      }
    }
    // The unread trunk did move: the partial reader really skipped it.
    const t3 = rig.indexOf("trunk3");
    expect(Math.abs(full.positions[3 * t3] - stale[3 * t3])).toBeGreaterThan(0.01);
    // null reads everything again.
    partial.readOnly(null);
    partial.read();
    expect(Array.from(partial.positions)).toEqual(Array.from(full.positions));
    engine.dispose();
  });

  it("rejects a joint index outside the rig, naming it, and keeps reading what it read before", () => {
    const { engine, rig, bones } = branchedRig();
    const reader = new PoseReader(rig);
    for (const bad of [rig.jointCount, -1, 1.5, Number.NaN]) {
      let error: unknown;
      try {
        reader.readOnly([0, bad]);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FabrikError);
      expect((error as FabrikError).message).toContain(`joint index ${String(bad)} is not a joint`);
      expect((error as FabrikError).option).toBe("joints");
    }
    bones[6].getTransformNode()!.position.x = 2;
    reader.read();
    expect(reader.localTranslations[3 * rig.indexOf("branch2")]).toBe(2);
    engine.dispose();
  });
});
