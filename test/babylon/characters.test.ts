import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PoseReader,
  buildSkeletonRig,
  buildSkeletonRigs,
  discoverEndEffectors,
  type SkeletonRig,
} from "../../plugin/babylon/index.js";
import { createRig } from "../../plugin/solver/rig.js";
import {
  CHARACTERS,
  babylonNodeName,
  loadCharacter,
  noteIfMissing,
  readInventory,
  type Loaded,
} from "./characters.js";

const inventory = readInventory();
// Without the characters at all, the summary line of test/sharedSummary.ts has said so.
if (inventory === null && CHARACTERS.some((c) => c.present))
  console.warn("[babylon tests] inventory.txt is absent: joint counts and leaves unchecked");

/** Largest distance between the FK world positions and the nodes' own, relative to the character's size. */
function fkError(readers: readonly PoseReader[], scene: Loaded["scene"]): { error: number; size: number } {
  // Read first, within the render id of the last frame, as the behavior will in onBeforeRender; only then
  // make Babylon recompute every node (same-render-id caching would hide in-place changes from it).
  for (const reader of readers) reader.read();
  scene.incrementRenderId();
  const fk = new Vector3();
  const worlds: Vector3[] = [];
  const pairs: [Vector3, Vector3][] = [];
  for (const reader of readers) {
    reader.rig.nodes.forEach((node, j) => {
      const actual = node!.getAbsolutePosition().clone();
      worlds.push(actual);
      pairs.push([reader.getWorldPositionToRef(j, fk).clone(), actual]);
    });
  }
  const min = worlds.reduce((a, b) => Vector3.Minimize(a, b));
  const max = worlds.reduce((a, b) => Vector3.Maximize(a, b));
  const size = Math.max(Vector3.Distance(min, max), 1e-9);
  const error = Math.max(...pairs.map(([a, b]) => Vector3.Distance(a, b)));
  return { error: error / size, size };
}

/**
 * Largest disagreement of the joint frames with Babylon's: each basis against the node's world matrix
 * brought into model space, and each orientation against that basis with its scale divided out (every
 * joint scale of these characters is uniform, so the basis is a rotation times a scale).
 */
function frameError(reader: PoseReader): number {
  const root = reader.rig.modelRoot;
  const toModel = root === null ? Matrix.Identity() : Matrix.Invert(root.computeWorldMatrix(true));
  const rotation = new Matrix();
  let worst = 0;
  reader.rig.nodes.forEach((node, j) => {
    const m = node!.computeWorldMatrix(true).multiply(toModel).m;
    const b = reader.bases.subarray(9 * j, 9 * j + 9);
    const o = reader.orientations;
    Matrix.FromQuaternionToRef(new Quaternion(o[4 * j], o[4 * j + 1], o[4 * j + 2], o[4 * j + 3]), rotation);
    for (let row = 0; row < 3; row++) {
      const scale = Math.hypot(b[3 * row], b[3 * row + 1], b[3 * row + 2]);
      for (let k = 0; k < 3; k++) {
        worst = Math.max(worst, Math.abs(b[3 * row + k] - m[4 * row + k]) / scale);
        worst = Math.max(worst, Math.abs(b[3 * row + k] / scale - rotation.m[4 * row + k]));
      }
    }
  });
  return worst;
}

/** Biggest change of any joint's local rotation away from its rest rotation, as 1 - |dot|. */
function distanceFromRest(reader: PoseReader): number {
  const { localRotations: r } = reader;
  const rest = reader.rig.restRotations;
  let worst = 0;
  for (let j = 0; j < reader.rig.jointCount; j++) {
    let dot = 0;
    for (let k = 0; k < 4; k++) dot += r[4 * j + k] * rest[4 * j + k];
    worst = Math.max(worst, 1 - Math.abs(dot));
  }
  return worst;
}

const accuracy: string[] = [];
afterAll(() => {
  if (accuracy.length > 0)
    console.log(`[babylon tests] FK accuracy (max error / character size):\n  ${accuracy.join("\n  ")}`);
});

for (const c of CHARACTERS) {
  const multiple = c.folder === "RecursiveSkeletons";
  describe.skipIf(noteIfMissing(c))(c.folder, () => {
    let loaded: Loaded;
    let rigs: SkeletonRig[];
    let readers: PoseReader[];

    beforeAll(async () => {
      loaded = await loadCharacter(c);
      rigs = multiple ? buildSkeletonRigs(loaded.root) : [buildSkeletonRig(loaded.root)];
      readers = rigs.map((rig) => new PoseReader(rig));
    });
    afterAll(() => loaded?.engine.dispose());

    it("builds one rig per kinematic tree, joints parent-first, matching the inventory", () => {
      const total = rigs.reduce((sum, rig) => sum + rig.jointCount, 0);
      if (inventory !== null) expect(total).toBe(inventory.get(c.folder)!.joints);
      for (const rig of rigs) {
        expect(rig.parents.length).toBe(rig.jointCount);
        rig.parents.forEach((p, j) => expect(p).toBeLessThan(j));
        expect(rig.parents.filter((p) => p < 0).length).toBe(1);
        // Every joint is a glTF node, and a node is never listed twice.
        expect(new Set(rig.nodes).size).toBe(rig.jointCount);
        rig.nodes.forEach((node, j) => {
          expect(node).not.toBeNull();
          expect(rig.indexOf(node!)).toBe(j);
          const p = rig.parents[j];
          expect(node!.parent).toBe(p < 0 ? rig.modelRoot : rig.nodes[p]);
        });
        expect(() => createRig(rig.toRigDescription())).not.toThrow();
      }
    });

    it("finds the inventory's leaf joints as end effectors, with their depth", () => {
      const found = rigs.flatMap((rig) =>
        discoverEndEffectors(rig).map((e) => ({ name: rig.nodes[e.joint]!.name, depth: e.depth + 1 })),
      );
      if (inventory === null) return expect(found.length).toBeGreaterThan(0);
      const expected = inventory
        .get(c.folder)!
        .leaves.map((l) => ({ name: babylonNodeName(l.name), depth: l.depth }));
      const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      expect(found.sort(byName)).toEqual(expected.sort(byName));
    });

    it("puts the rest pose where Babylon puts the nodes after returnToRest()", () => {
      for (const group of loaded.scene.animationGroups) group.pause();
      for (const rig of rigs) for (const skeleton of rig.skeletons) skeleton.returnToRest();
      const { error } = fkError(readers, loaded.scene);
      for (const reader of readers) {
        expect(distanceFromRest(reader)).toBeLessThan(1e-6);
        for (let i = 0; i < reader.positions.length; i++) {
          expect(reader.positions[i]).toBeCloseTo(reader.rig.restPositions[i], 5);
        }
      }
      expect(error).toBeLessThan(1e-4);
      for (const group of loaded.scene.animationGroups) group.restart();
    });

    it("reads the animated pose: FK equals every node's absolute position", () => {
      const scene = loaded.scene;
      scene.useConstantAnimationDeltaTime = true;
      const first = scene.animationGroups[0];
      for (const group of scene.animationGroups) group.stop();
      first.start(true);
      for (let frame = 0; frame < 12; frame++) scene.render();
      const { error } = fkError(readers, scene);
      expect(Math.max(...readers.map(distanceFromRest))).toBeGreaterThan(1e-6);
      expect(error).toBeLessThan(1e-4);
      accuracy.push(`${c.folder} animated ("${first.name}"): ${error.toExponential(2)}`);
      for (const reader of readers) expect(frameError(reader)).toBeLessThan(1e-4);
    });

    it("follows the glTF __root__ when it is moved, turned and scaled at runtime, also in place", () => {
      const scene = loaded.scene;
      const root = loaded.root;
      root.position.set(3, -1, 2);
      root.rotationQuaternion!.multiplyInPlace(
        Quaternion.RotationAxis(new Vector3(0.3, 1, 0.2).normalize(), 0.8),
      );
      root.scaling.set(2, 2, -2);
      scene.render();
      let { error, size } = fkError(readers, scene);
      expect(error).toBeLessThan(1e-4);
      // In-place change within the same render id: the reader must not trust Babylon's cache.
      const reader = readers[0];
      const before = reader.getWorldPositionToRef(0, new Vector3());
      root.position.x += size / 2;
      root.scaling.multiplyInPlace(new Vector3(1.5, 0.5, 1.2));
      ({ error, size } = fkError(readers, scene));
      expect(error).toBeLessThan(1e-4);
      expect(Vector3.Distance(before, reader.getWorldPositionToRef(0, new Vector3())) / size).toBeGreaterThan(
        0.1,
      );
      // World targets come back to model space exactly.
      const there = reader.getWorldPositionToRef(reader.rig.jointCount - 1, new Vector3());
      const back = reader.worldToModelToRef(there, new Vector3());
      const j = reader.rig.jointCount - 1;
      expect(back.x).toBeCloseTo(reader.positions[3 * j], 9);
      expect(back.y).toBeCloseTo(reader.positions[3 * j + 1], 9);
      expect(back.z).toBeCloseTo(reader.positions[3 * j + 2], 9);
      accuracy.push(
        `${c.folder} under a moved, mirrored, non-uniformly scaled __root__: ${error.toExponential(2)}`,
      );
    });

    it("stays exact when joints themselves are scaled non-uniformly", () => {
      const rig = rigs[0];
      const scaled: TransformNode[] = [];
      for (let j = 0; j < rig.jointCount; j += 3) scaled.push(rig.nodes[j]!);
      for (const node of scaled) node.scaling.multiplyInPlace(new Vector3(1.3, 0.6, 1.1));
      const { error } = fkError(readers, loaded.scene);
      for (const node of scaled) node.scaling.divideInPlace(new Vector3(1.3, 0.6, 1.1));
      expect(error).toBeLessThan(1e-4);
      accuracy.push(`${c.folder} with non-uniformly scaled joints: ${error.toExponential(2)}`);
    });
  });
}
