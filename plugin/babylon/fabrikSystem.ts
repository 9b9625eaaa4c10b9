import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { ISceneComponent } from "@babylonjs/core/sceneComponent.js";
import type { Nullable } from "@babylonjs/core/types.js";
import type { CharacterPipeline } from "./characterPipeline.js";
import { FabrikModelCache } from "./modelCache.js";
import { RestoreQueue } from "./restoreQueue.js";

/** When a character's frame runs: see `FabrikBehaviorOptions.stage`. */
export type FabrikStage = "beforeRender" | "afterAnimations";

/**
 * The scene-level system that runs every FabrikBehavior's pipeline: one observer at the solving stage and one
 * after rendering for the whole scene, however many characters, and the cache of their models' data
 * ({@link models}). A Babylon scene component, made by the first behavior attached in a scene
 * (`FabrikSystem.of(scene)`), disposed with the scene; its observers leave when its last character does.
 *
 * Characters run in the order their behaviors were attached, and put the animation back in the reverse
 * order, so where two write one joint the last writer puts back what the first wrote and the first then
 * puts back the animation.
 */
export class FabrikSystem implements ISceneComponent {
  /** The component's name in the scene (`scene._getComponent`). */
  static readonly NAME = "FabrikIK";
  readonly name = FabrikSystem.NAME;
  /** The per-model data its characters share: solver rigs, limit sets, plan layouts, workspaces. */
  readonly models = new FabrikModelCache();
  /** In the order they write: `afterAnimations` characters first (their stage comes first), then the rest. */
  private _afterAnimations: CharacterPipeline[] = [];
  private _beforeRender: CharacterPipeline[] = [];
  /** What the `beforeRender` characters wrote this frame, put back after rendering in one pass. */
  private readonly _restoreQueue = new RestoreQueue();
  /** Seconds the animation clock advanced this frame, for every character (one number: never boxed). */
  private readonly _clock = new Float64Array(1);
  private _afterAnimationsObserver: Nullable<Observer<Scene>> = null;
  private _beforeRenderObserver: Nullable<Observer<Scene>> = null;
  private _stepObserver: Nullable<Observer<Scene>> = null;
  private _restoreObserver: Nullable<Observer<Scene>> = null;

  private constructor(readonly scene: Scene) {}

  /** The scene's system, made when first asked for. */
  static of(scene: Scene): FabrikSystem {
    const found = scene._getComponent(FabrikSystem.NAME) as FabrikSystem | null;
    if (found !== null) return found;
    const system = new FabrikSystem(scene);
    scene._addComponent(system);
    return system;
  }

  /** How many characters it runs. */
  get characterCount(): number {
    return this._afterAnimations.length + this._beforeRender.length;
  }

  /**
   * Runs `pipeline` every frame at `stage`, after every observer of that stage added so far (the solve sees
   * what they did to targets this frame), and restores it before every after-render observer added so far.
   * Called by the behavior when it attaches.
   * @internal
   */
  add(pipeline: CharacterPipeline, stage: FabrikStage): void {
    if (stage === "afterAnimations") this._afterAnimations = [...this._afterAnimations, pipeline];
    else this._beforeRender = [...this._beforeRender, pipeline];
    // A lockstep step's restore puts back only what the animation has not rewritten: not the queue's way.
    pipeline.pose.useRestoreQueue(stage === "beforeRender" ? this._restoreQueue : null);
    this._observe();
  }

  /**
   * Stops running `pipeline`; the observers leave with the last character. Called by the behavior when it
   * detaches.
   * @internal
   */
  remove(pipeline: CharacterPipeline): void {
    this._afterAnimations = this._afterAnimations.filter((p) => p !== pipeline);
    this._beforeRender = this._beforeRender.filter((p) => p !== pipeline);
    pipeline.pose.useRestoreQueue(null);
    this._unobserve();
  }

  register(): void {}

  rebuild(): void {}

  /** With the scene: every character gets its animated pose back and the observers go. */
  dispose(): void {
    for (const pipeline of [...this._afterAnimations, ...this._beforeRender]) pipeline.dispose();
    this._afterAnimations = [];
    this._beforeRender = [];
    this._unobserve();
  }

  /** Every frame at `beforeRender`. */
  private readonly _runBeforeRender = (): void => {
    const pipelines = this._beforeRender;
    frameSeconds(this.scene, this._clock);
    for (let i = 0; i < pipelines.length; i++) pipelines[i].run(this._clock);
  };

  /** Every frame (every lockstep step) at `afterAnimations`. */
  private readonly _runAfterAnimations = (): void => {
    const pipelines = this._afterAnimations;
    frameSeconds(this.scene, this._clock);
    for (let i = 0; i < pipelines.length; i++) pipelines[i].run(this._clock);
  };

  /** After rendering, in the reverse of the order they wrote (the queue holds what `beforeRender` wrote). */
  private readonly _restore = (): void => {
    const early = this._afterAnimations;
    this._restoreQueue.restore();
    for (let i = early.length - 1; i >= 0; i--) early[i].restore();
  };

  /**
   * Under a deterministic lockstep engine each step animates and then solves at `afterAnimations`, with no
   * render between steps: their restore runs before each step.
   */
  private readonly _restoreBeforeStep = (): void => {
    const early = this._afterAnimations;
    for (let i = early.length - 1; i >= 0; i--) early[i].restoreUntouched();
  };

  /** Removes the observers of stages without characters. */
  private _unobserve(): void {
    if (this._afterAnimations.length === 0) {
      this._afterAnimationsObserver?.remove();
      this._stepObserver?.remove();
      this._afterAnimationsObserver = this._stepObserver = null;
    }
    if (this._beforeRender.length === 0) {
      this._beforeRenderObserver?.remove();
      this._beforeRenderObserver = null;
    }
    if (this._afterAnimations.length === 0 && this._beforeRender.length === 0) {
      this._restoreObserver?.remove();
      this._restoreObserver = null;
    }
  }

  /**
   * (Re)places the observers as a behavior attached now would have added its own: the stage observer after
   * every observer there (the solve sees what they did to targets this frame), the restore before every
   * after-render observer (those inserted first later still see the written pose).
   */
  private _observe(): void {
    const scene = this.scene;
    if (this._afterAnimations.length > 0) {
      this._afterAnimationsObserver?.remove();
      this._afterAnimationsObserver = scene.onAfterAnimationsObservable.add(this._runAfterAnimations);
      this._stepObserver ??= scene.onBeforeStepObservable.add(this._restoreBeforeStep, undefined, true);
    }
    if (this._beforeRender.length > 0) {
      this._beforeRenderObserver?.remove();
      this._beforeRenderObserver = scene.onBeforeRenderObservable.add(this._runBeforeRender);
    }
    this._restoreObserver?.remove();
    this._restoreObserver = scene.onAfterRenderObservable.add(this._restore, undefined, true);
  }
}

/**
 * Seconds the animation clock advanced in the last frame (`scene.deltaTime`), into `out[0]`: passes then
 * keep time with the pose they adjust, including `animationTimeScale` and Babylon's constant-step mode.
 * Before the clock has run once, the engine's frame time.
 */
function frameSeconds(scene: Scene, out: Float64Array): void {
  const ms = scene.deltaTime;
  if (typeof ms === "number" && ms >= 0 && Number.isFinite(ms)) {
    out[0] = ms / 1000;
  } else {
    const engineMs = scene.getEngine().getDeltaTime();
    out[0] = engineMs > 0 && Number.isFinite(engineMs) ? engineMs / 1000 : 0;
  }
}
