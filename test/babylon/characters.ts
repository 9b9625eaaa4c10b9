// Loading the third-party characters of ../shared/assets for the Babylon-layer tests (not a test file).
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { ImportMeshAsync } from "@babylonjs/core/Loading/sceneLoader.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { Scene } from "@babylonjs/core/scene.js";
import "@babylonjs/loaders/glTF/2.0/index.js";

/** The shared assets folder: /work/shared/assets, two levels above the project. */
export const ASSETS_DIR = fileURLToPath(new URL("../../../shared/assets/", import.meta.url));

export interface Character {
  /** Folder under the assets directory, also the character's name in inventory.txt. */
  readonly folder: string;
  readonly file: string;
  readonly path: string;
  readonly present: boolean;
}

function character(folder: string, file: string): Character {
  const path = `${ASSETS_DIR}${folder}/${file}`;
  return { folder, file, path, present: existsSync(path) };
}

export const CHARACTERS: readonly Character[] = [
  character("RiggedSimple", "RiggedSimple.glb"),
  character("SimpleSkin", "SimpleSkin.gltf"),
  character("RiggedFigure", "RiggedFigure.glb"),
  character("CesiumMan", "CesiumMan.glb"),
  character("RobotExpressive", "RobotExpressive.glb"),
  character("Fox", "Fox.glb"),
  character("QuaterniusSpider", "Spider.glb"),
  character("QuaterniusSnake", "Snake.glb"),
  character("RecursiveSkeletons", "RecursiveSkeletons.glb"),
];

/** The project's own generated characters (assets/*.glb), used by always-on tests. */
export const PROJECT_ASSETS_DIR = fileURLToPath(new URL("../../assets/", import.meta.url));

export const OWN_CHARACTERS: readonly Character[] = ["mannequin", "creature", "tentacle", "figure"].map(
  (name) => {
    const path = `${PROJECT_ASSETS_DIR}${name}.glb`;
    return { folder: name, file: `${name}.glb`, path, present: existsSync(path) };
  },
);

/** Shared characters the per-rig tests load by name but the loops over CHARACTERS leave out. */
const OTHERS: readonly Character[] = [
  character("QuaterniusTrex", "Trex.glb"),
  character("QuaterniusHorse", "Horse.glb"),
  character("QuaterniusWorkerWoman", "Worker.glb"),
];

export function characterNamed(folder: string): Character {
  return [...CHARACTERS, ...OTHERS].find((c) => c.folder === folder)!;
}

/** Whether to skip the tests on `c`: the unit project's setup (test/sharedSummary.ts) says once which are absent. */
export function noteIfMissing(c: Character): boolean {
  return !c.present;
}

export interface Loaded {
  readonly engine: NullEngine;
  readonly scene: Scene;
  /** The glTF `__root__`. */
  readonly root: AbstractMesh;
}

// NullEngine warns about bone uniforms on every skinned mesh; it is harmless noise in these tests.
Logger.LogLevels = Logger.ErrorLogLevel;

/** Loads a character into a fresh NullEngine scene with a camera (render() needs one). */
export async function loadCharacter(c: Character): Promise<Loaded> {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  new FreeCamera("camera", new Vector3(0, 1, -5), scene);
  const bytes = readFileSync(c.path);
  // Babylon's .gltf (JSON) plugin cannot load from an ArrayBufferView, but it takes a data: URL.
  const gltf = c.file.endsWith(".gltf");
  const source = gltf ? `data:model/gltf+json;base64,${bytes.toString("base64")}` : new Uint8Array(bytes);
  const result = await ImportMeshAsync(source, scene, { pluginExtension: gltf ? ".gltf" : ".glb" });
  return { engine, scene, root: result.meshes[0] };
}

export interface InventoryEntry {
  readonly joints: number;
  /** Leaf joints (node names as the inventory prints them) with their depth in joints (root = 1). */
  readonly leaves: readonly { readonly name: string; readonly depth: number }[];
}

/** Joint counts and leaves per character, read from inventory.txt; null when the file is absent. */
export function readInventory(): Map<string, InventoryEntry> | null {
  const path = `${ASSETS_DIR}inventory.txt`;
  if (!existsSync(path)) return null;
  const inventory = new Map<string, InventoryEntry>();
  const sections = readFileSync(path, "utf8").split(/^=+$/m);
  for (let i = 1; i + 1 < sections.length; i += 2) {
    const folder = sections[i].trim().split(/\s+/)[0];
    const body = sections[i + 1];
    const joints = Number(/joints \(union\)\s*:\s*(\d+)/.exec(body)?.[1]);
    const leafBlock = /leaf joints\s*:[^\n]*\n((?:\s{4}\S[^\n]*\n)+)/.exec(body)?.[1] ?? "";
    const leaves = [...leafBlock.matchAll(/\s*([^,\n]+?)\(d(\d+)\)/g)]
      .filter((m) => !m[0].includes("leaf joints with"))
      .map((m) => ({ name: m[1].trim(), depth: Number(m[2]) }));
    inventory.set(folder, { joints, leaves });
  }
  return inventory;
}

/** Babylon names unnamed glTF nodes `node<index>`; the inventory prints them `#<index>`. */
export function babylonNodeName(inventoryName: string): string {
  return inventoryName.startsWith("#") ? `node${inventoryName.slice(1)}` : inventoryName;
}
