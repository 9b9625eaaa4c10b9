import type { AbstractEngine } from "@babylonjs/core/Engines/abstractEngine.js";
import type { Character } from "../stage/character.js";
import type { Stage } from "../stage/stage.js";
import type { TargetHandles } from "../targets/targetHandles.js";

/** A file the user dropped (or a test handed over): its name tells the format. */
export interface DroppedFile {
  readonly name: string;
  readonly data: File | Uint8Array;
  /** Files dropped with it: a .gltf's .bin and textures. */
  readonly companions?: readonly File[];
}

export interface SceneContext {
  readonly engine: AbstractEngine;
  readonly canvas: HTMLCanvasElement;
  /** Only for the "your model" scene. */
  readonly file?: DroppedFile;
}

/** A switch of the scene's own, shown in the panel beside the common ones. */
export interface SceneSwitch {
  /** Unique in the page: the checkbox's id is `toggle-<id>`. */
  readonly id: string;
  readonly label: string;
  readonly on: boolean;
  set(on: boolean): void;
}

/** One running demo scene: its own Babylon scene, disposed as a whole when the user switches. */
export interface DemoScene {
  readonly stage: Stage;
  /** The character the panel's effector list, limits and debug toggles drive; null without one. */
  readonly character: Character | null;
  /** Every character in the scene (the panel's switches apply to all of them). */
  readonly characters: readonly Character[];
  /** Draggable targets, when the scene has any. */
  readonly handles: TargetHandles | null;
  /** One line telling the user what to do. */
  readonly hint: string;
  /** The scene's own switches, if any. */
  readonly switches?: readonly SceneSwitch[];
  /** Extra live numbers for the status line and for the browser tests (metres, seconds). */
  metrics?(): Record<string, number>;
  dispose(): void;
}

export interface SceneDefinition {
  readonly id: string;
  readonly title: string;
  create(context: SceneContext): Promise<DemoScene>;
}
