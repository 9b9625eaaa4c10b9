import { Engine } from "@babylonjs/core/Engines/engine.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import { showDebugViews } from "./stage/debugView.js";
import { limitsSwitch } from "./stage/limitsSwitch.js";
import type { DemoScene, DroppedFile, SceneDefinition } from "./scenes/types.js";

/** The panel's switches; they carry over from scene to scene. */
export interface Settings {
  ik: boolean;
  limits: boolean;
  debug: boolean;
  weight: number;
}

/** Owns the engine and the one running scene; opening another builds it first, then swaps. */
export class DemoApp {
  readonly engine: Engine;
  readonly settings: Settings = { ik: true, limits: true, debug: false, weight: 1 };
  current: DemoScene | null = null;
  currentId = "";
  lastError: string | null = null;
  readonly onSceneChanged = new Observable<DemoScene>();
  /** A message while a scene loads, null when done. */
  readonly onLoading = new Observable<string | null>();
  readonly onError = new Observable<string>();

  private _limits: ((on: boolean) => void)[] = [];
  private _hideDebug: (() => void) | null = null;
  private _queue: Promise<unknown> = Promise.resolve();

  constructor(readonly canvas: HTMLCanvasElement) {
    this.engine = new Engine(canvas, true, {
      // Screenshots and tests read the canvas back after the frame.
      preserveDrawingBuffer: true,
      stencil: true,
      adaptToDeviceRatio: true,
    });
    this.engine.runRenderLoop(() => {
      const scene = this.current?.stage.scene;
      if (scene !== undefined && scene.activeCamera !== null) scene.render();
    });
    window.addEventListener("resize", () => this.engine.resize());
  }

  /**
   * Builds a scene and, once its shaders are ready, shows it in place of the current one. Calls queue up;
   * on failure the current scene stays, `onError` carries a readable message, and the result is null.
   */
  open(definition: SceneDefinition, file?: DroppedFile): Promise<DemoScene | null> {
    const next = this._queue.then(() => this._open(definition, file));
    this._queue = next;
    return next;
  }

  private async _open(definition: SceneDefinition, file?: DroppedFile): Promise<DemoScene | null> {
    this.onLoading.notifyObservers(
      file !== undefined ? `Loading ${file.name}…` : `Loading ${definition.title}…`,
    );
    let demo: DemoScene | null = null;
    try {
      demo = await definition.create({ engine: this.engine, canvas: this.canvas, file });
      await demo.stage.scene.whenReadyAsync();
    } catch (error) {
      demo?.dispose();
      this.lastError = readable(error, file);
      this.onLoading.notifyObservers(null);
      this.onError.notifyObservers(this.lastError);
      return null;
    }
    const previous = this.current;
    this._hideDebug?.();
    this._hideDebug = null;
    this.current = demo;
    this.currentId = definition.id;
    this.lastError = null;
    previous?.dispose();
    this._limits = demo.characters.map((c) => limitsSwitch(c.ik));
    this.applySettings();
    this.onLoading.notifyObservers(null);
    this.onSceneChanged.notifyObservers(demo);
    return demo;
  }

  set<K extends keyof Settings>(key: K, value: Settings[K]): void {
    this.settings[key] = value;
    this.applySettings();
  }

  applySettings(): void {
    const demo = this.current;
    if (demo === null) return;
    const { ik, limits, debug, weight } = this.settings;
    for (const character of demo.characters) {
      character.ik.enabled = ik;
      character.ik.weight = weight;
    }
    for (const set of this._limits) set(limits);
    if (debug && this._hideDebug === null) {
      this._hideDebug = showDebugViews(demo.characters);
    } else if (!debug && this._hideDebug !== null) {
      this._hideDebug();
      this._hideDebug = null;
    }
  }
}

function readable(error: unknown, file?: DroppedFile): string {
  const message = error instanceof Error ? error.message : String(error);
  if (file === undefined) return message;
  // The file checks and the dropped scene name the file themselves.
  if (message.includes(`"${file.name}"`) || message.includes("has no skeleton")) return message;
  return `Could not use "${file.name}": ${message}`;
}
