import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { FabrikBehavior } from "../babylon/index.js";
import { FabrikError } from "../solver/index.js";

/**
 * The scene of an attached behavior; helpers need the rig, so they are built after attaching and say so
 * otherwise (Babylon defers `addBehavior` while a scene is loading unless asked not to).
 */
export function attachedScene(ik: FabrikBehavior, who: string): Scene {
  const node = ik.attachedNode;
  if (node === null || ik.rig === null) {
    throw new FabrikError(
      `${who}: the behavior is not attached; add it to the character first (mesh.addBehavior(ik, true))`,
    );
  }
  return node.getScene();
}

/**
 * Runs `callback` every frame between the animation and the behavior's solve: in the observable of the
 * behavior's stage, inserted first, so it runs before the behavior whatever the order of creation. What the
 * callback moves (targets, a lowered hips) is then seen by the solve of the same frame.
 */
export function addBeforeSolve(ik: FabrikBehavior, scene: Scene, callback: () => void): Observer<Scene> {
  const observable =
    ik.stage === "afterAnimations" ? scene.onAfterAnimationsObservable : scene.onBeforeRenderObservable;
  return observable.add(callback, undefined, true)!;
}

/**
 * Seconds the animation clock advanced in the last frame (`scene.deltaTime`), into `out[slot]`: helpers
 * then keep time with the pose they adjust, including `animationTimeScale` and Babylon's constant-step
 * mode. Before the clock has run once, the engine's frame time. (Written to an array: a returned double
 * would be boxed on every frame.)
 */
export function frameSeconds(scene: Scene, out: Float64Array, slot: number): void {
  const ms = scene.deltaTime;
  if (typeof ms === "number" && ms >= 0 && Number.isFinite(ms)) {
    out[slot] = ms / 1000;
  } else {
    const engineMs = scene.getEngine().getDeltaTime();
    out[slot] = engineMs > 0 && Number.isFinite(engineMs) ? engineMs / 1000 : 0;
  }
}
