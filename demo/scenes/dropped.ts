import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { FilesInputStore } from "@babylonjs/core/Misc/filesInputStore.js";
import { addCharacter, loadContainer } from "../stage/character.js";
import { createFloor } from "../stage/floor.js";
import { createStage } from "../stage/stage.js";
import { TargetHandles } from "../targets/targetHandles.js";
import type { SceneDefinition } from "./types.js";

export const MODEL_EXTENSIONS = [".glb", ".gltf", ".vrm"];

/**
 * The user's own character, dropped on the page: IK is attached at once, and the panel lists the
 * effectors it found; clicking one puts a draggable target on it.
 */
export const droppedScene: SceneDefinition = {
  id: "model",
  title: "Your model",
  async create({ engine, canvas, file }) {
    if (file === undefined) throw new Error("Drop a .glb, .gltf or .vrm character onto the page.");
    const lower = file.name.toLowerCase();
    if (!MODEL_EXTENSIONS.some((e) => lower.endsWith(e))) {
      throw new Error(`"${file.name}" is not a .glb, .gltf or .vrm file, so it cannot be a glTF character.`);
    }
    // A .gltf dropped with its .bin and textures: the loader finds them by name under the "file:" root.
    let rootUrl: string | undefined;
    if (file.companions !== undefined && file.companions.length > 0) {
      for (const companion of file.companions)
        FilesInputStore.FilesToLoad[companion.name.toLowerCase()] = companion;
      rootUrl = "file:";
    }
    const stage = createStage(engine, canvas);
    try {
      const container = await loadContainer(stage.scene, file.data, file.name, rootUrl);
      const name = file.name.replace(/\.[^.]+$/, "");
      const character = addCharacter(stage, container, { name });
      const { min, max } = character.holder.getHierarchyBoundingVectors(true);
      const size = Math.max(Vector3.Distance(min, max), 1e-3);
      const center = Vector3.Center(min, max);
      const tile = 10 ** Math.round(Math.log10(size / 2));
      createFloor(stage.scene, size * 14, min.y, tile);
      const camera = stage.camera;
      camera.setTarget(center, false, false, true);
      camera.radius = size * 1.5;
      camera.minZ = size * 0.005;
      camera.maxZ = size * 200;
      camera.lowerRadiusLimit = size * 0.1;
      camera.upperRadiusLimit = size * 20;
      camera.panningSensibility = 1000 / size;
      stage.scene.fogDensity = 0.09 / size;
      const handles = new TargetHandles(stage.scene, size * 0.04);
      return {
        stage,
        character,
        characters: [character],
        handles,
        hint: "Click an effector below to give it a target, then drag the sphere.",
        dispose() {
          handles.dispose();
          stage.scene.dispose();
        },
      };
    } catch (error) {
      stage.scene.dispose();
      throw error;
    }
  },
};
