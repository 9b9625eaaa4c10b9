import type { FabrikBehavior } from "./fabrikBehavior.js";
import type { FabrikFrameOf, FabrikPassOf, FabrikSolvedEventOf } from "./fabrikFrame.js";

/*
 * The behavior's frame types, with the behavior's own type filled in (fabrikFrame.ts leaves it open, so the
 * pipeline does not depend on the behavior).
 */

/** One frame of a character, as passes and `onBeforeSolveObservable` observers see it: see FabrikFrameOf. */
export type FabrikFrame = FabrikFrameOf<FabrikBehavior>;
/** A step of a character's frame: see FabrikPassOf and {@link FabrikBehavior.addPass}. */
export type FabrikPass = FabrikPassOf<FabrikBehavior>;
/** What {@link FabrikBehavior.onSolvedObservable} carries: the same object every frame. */
export type FabrikSolvedEvent = FabrikSolvedEventOf<FabrikBehavior>;
/** What {@link FabrikBehavior.onBeforeSolveObservable} carries: the frame itself, after the passes. */
export type FabrikBeforeSolveEvent = FabrikFrame;
