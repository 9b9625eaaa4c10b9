import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PoseReader, buildSkeletonRig } from "../../plugin/babylon/index.js";
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
