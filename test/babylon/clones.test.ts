// Characters made from one AssetContainer with `instantiateModelsToScene()` (how a crowd is made, with
// Babylon's default "Clone of …" names): each copy attaches to its own clone of the skeleton, with the roles
// the loaded file has, and a target moves that copy alone.
import { readFileSync } from "node:fs";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { LoadAssetContainerAsync } from "@babylonjs/core/Loading/sceneLoader.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { describe, expect, it } from "vitest";
import { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import {
  CHARACTERS,
  characterNamed,
  loadCharacter,
  noteIfMissing,
  OWN_CHARACTERS,
  type Character,
} from "./characters.js";

const ALL: readonly Character[] = [
  ...CHARACTERS,
  ...["QuaterniusTrex", "QuaterniusHorse", "QuaterniusWorkerWoman"].map(characterNamed),
  ...OWN_CHARACTERS,
];

/** The roles the loaded file gets, or the message attaching to it throws. */
async function loadedRoles(c: Character): Promise<Record<string, number> | string> {
  const loaded = await loadCharacter(c);
  try {
    const ik = new FabrikBehavior();
    loaded.root.addBehavior(ik, true);
    return { ...ik.roles } as Record<string, number>;
  } catch (error) {
    return (error as Error).message;
  } finally {
    loaded.engine.dispose();
  }
}

for (const c of ALL) {
  describe.skipIf(noteIfMissing(c))(c.folder, () => {
    it("two copies from one container: the file's roles, each its own skeleton, a target moving one copy only", async () => {
      const reference = await loadedRoles(c);
      const engine = new NullEngine();
      try {
        const scene = new Scene(engine);
        new FreeCamera("camera", new Vector3(0, 1, -5), scene);
        const bytes = readFileSync(c.path);
        const gltf = c.file.endsWith(".gltf");
        const source = gltf
          ? `data:model/gltf+json;base64,${bytes.toString("base64")}`
          : new Uint8Array(bytes);
        const container = await LoadAssetContainerAsync(source, scene, {
          pluginExtension: gltf ? ".gltf" : ".glb",
        });
        const roots = [0, 1].map((i) => {
          const root = container.instantiateModelsToScene().rootNodes[0] as TransformNode;
          root.position.x = 3 * i;
          return root;
        });
        scene.render();
        const copies = roots.map(() => new FabrikBehavior());
        if (typeof reference === "string") {
          // Refused as the loaded file is (RecursiveSkeletons: several unrelated skeletons under one root).
          for (let i = 0; i < 2; i++) expect(() => roots[i].addBehavior(copies[i], true)).toThrow();
          return;
        }
        roots.forEach((root, i) => root.addBehavior(copies[i], true));
        const [ik, other] = copies;
        expect(ik.roles).toEqual(reference);
        expect(other.roles).toEqual(reference);
        expect(ik.rig!.nodes.some((n, j) => n !== null && n === other.rig!.nodes[j])).toBe(false);
        if (reference.leftHand === undefined || reference.leftUpperArm === undefined) return;
        // A third of the way from the hand to the shoulder: within reach from any pose, the elbow bending.
        const reader = new PoseReader(ik.rig!);
        const hand = reader.getWorldPositionToRef(reference.leftHand, new Vector3());
        const shoulder = reader.getWorldPositionToRef(reference.leftUpperArm, new Vector3());
        ik.setTarget("leftHand", Vector3.Lerp(hand, shoulder, 0.3));
        let worst = Infinity;
        let otherSolves = 0;
        ik.onSolvedObservable.add(({ report }) => (worst = Math.max(...report.residuals) / ik.height));
        other.onSolvedObservable.add(() => otherSolves++);
        scene.render();
        expect(worst).toBeLessThan(1e-3);
        expect(otherSolves).toBe(0);
      } finally {
        engine.dispose();
      }
    }, 60_000);
  });
}
