import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { FilesInputStore } from "@babylonjs/core/Misc/filesInputStore.js";
import type { AssetContainer } from "@babylonjs/core/assetContainer.js";
import { addCharacter, idleClip, loadContainer, type Character } from "../stage/character.js";
import { checkModelFile, explainLoadError } from "../stage/fileCheck.js";
import { createFloor } from "../stage/floor.js";
import { createStage } from "../stage/stage.js";
import { unevenGround } from "../stage/unevenGround.js";
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
    await checkModelFile(file);
    // A .gltf dropped with its .bin and textures: the loader finds them by name under the "file:" root.
    let rootUrl: string | undefined;
    if (file.companions !== undefined && file.companions.length > 0) {
      for (const companion of file.companions)
        FilesInputStore.FilesToLoad[companion.name.toLowerCase()] = companion;
      rootUrl = "file:";
    }
    const stage = createStage(engine, canvas);
    try {
      let container: AssetContainer;
      try {
        container = await loadContainer(stage.scene, file.data, file.name, rootUrl);
      } catch (error) {
        throw new Error(explainLoadError(file, error), { cause: error });
      }
      const name = file.name.replace(/\.[^.]+$/, "");
      // Standing still, so targets placed on it stay where they were put; the panel offers the other clips.
      const play = idleClip(container.animationGroups.map((g) => g.name));
      const character = addCharacter(stage, container, { name, play });
      const skin = character.holder.getHierarchyBoundingVectors(true);
      const bones = skeletonBounds(character);
      const skinSize = Vector3.Distance(skin.min, skin.max);
      const boneSize = Vector3.Distance(bones.min, bones.max);
      // Some files load with their skin scaled far beyond their skeleton: frame the skeleton, IK's subject.
      const mismatch = boneSize > 0 && skinSize > SKIN_TO_SKELETON * boneSize;
      const { min, max } = mismatch ? bones : skin;
      const size = Math.max(Vector3.Distance(min, max), 1e-3);
      const center = Vector3.Center(min, max);
      const tile = 10 ** Math.round(Math.log10(size / 2));
      const floor = createFloor(stage.scene, size * 14, min.y, tile);
      const ground = unevenGround(stage.scene, character, floor, size * 14, min.y, max.y - min.y, tile);
      const camera = stage.camera;
      camera.setTarget(center, false, false, true);
      camera.radius = size * 1.5;
      camera.minZ = size * 0.005;
      camera.maxZ = size * 200;
      camera.lowerRadiusLimit = size * 0.1;
      camera.upperRadiusLimit = size * 20;
      camera.panningSensibility = 1000 / size;
      stage.scene.fogDensity = 0.09 / size;
      const handles = new TargetHandles(stage.scene, size * 0.06);
      return {
        stage,
        character,
        characters: [character],
        handles,
        hint: mismatch
          ? `Its skin loaded ${(skinSize / boneSize).toFixed(0)}× larger than its skeleton (a loader problem ` +
            "with some files): IK moves the skeleton, the skin may not follow. The view shows the skeleton."
          : "Click an effector below to give it a target, then drag the sphere." +
            (ground !== null ? " Uneven ground shows the legs FootPlacement finds by itself." : ""),
        switches:
          ground === null
            ? undefined
            : [
                {
                  id: "ground",
                  label: `Feet on uneven ground (${ground.feet.legs.length} legs)`,
                  get on() {
                    return ground.on;
                  },
                  set(on: boolean) {
                    ground.on = on;
                  },
                },
              ],
        metrics: () => ({
          skinToSkeleton: boneSize > 0 ? skinSize / boneSize : 0,
          legs: ground?.feet.legs.length ?? 0,
          groundedLegs: ground?.feet.legs.filter((leg) => leg.grounded).length ?? 0,
        }),
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

/** A skin more than this many times its skeleton's size (bounding diagonals) was not loaded as made. */
const SKIN_TO_SKELETON = 6;

/** The world bounds of a character's joints, as they stand now. */
function skeletonBounds(character: Character): { min: Vector3; max: Vector3 } {
  const min = new Vector3(Infinity, Infinity, Infinity);
  const max = new Vector3(-Infinity, -Infinity, -Infinity);
  for (const node of character.ik.rig?.nodes ?? []) {
    if (node === null) continue;
    const p = node.computeWorldMatrix(true).getTranslation();
    min.minimizeInPlace(p);
    max.maximizeInPlace(p);
  }
  return Number.isFinite(min.x) ? { min, max } : { min: Vector3.Zero(), max: Vector3.Zero() };
}
