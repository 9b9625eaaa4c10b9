import { FabrikError } from "../solver/errors.js";
import type { SolveReport } from "../solver/plan.js";
import type { FabrikJoint } from "./jointLookup.js";
import { describeValue } from "./targetBinding.js";

/**
 * One frame of a character, as its passes see it: the pose read once from the joint nodes (model space, the
 * space of `behavior.rig.modelRoot`), and the means to change it. Changes are written to the nodes once,
 * with the solve's, at the end of the frame, and put back after the frame is rendered, so the next frame
 * starts from the animation again.
 *
 * (`FabrikFrame` is this with the behavior typed: see fabrikBehavior.ts, which this file does not import.)
 *
 * Numbers travel in Float64Arrays with an offset (V8 boxes doubles passed to calls it does not inline). A
 * joint is its index (`behavior.jointIndex`); only joints the frame reads can be asked for: those of the
 * targets' chains and those passes declare (see `FabrikPassOf.joints`), with their ancestors.
 */
export interface FabrikFrameOf<Behavior> {
  readonly behavior: Behavior;
  /** Seconds the animation clock advanced since the last frame (`scene.deltaTime`). */
  readonly deltaTime: number;
  /**
   * Model-space joint positions (x y z per joint) and unit orientations (x y z w per joint) of the joints
   * read: as animated and changed by the passes so far before the solve; as they will be written after it.
   */
  readonly positions: Float64Array;
  readonly orientations: Float64Array;
  /** The model root's world matrix of the pose read (Babylon `Matrix.m` layout). */
  readonly modelToWorld: Float64Array;
  /** Its inverse: world points into model space. */
  readonly worldToModel: Float64Array;
  /** The joint's local position (relative to its parent joint) into `out[o..o+2]`. */
  getLocalPosition(joint: number, out: Float64Array, o: number): void;
  /** Sets the joint's local position to `values[o..o+2]`. */
  setLocalPosition(joint: number, values: Float64Array, o: number): void;
  /** The joint's local rotation (unit quaternion x y z w) into `out[o..o+3]`. */
  getLocalRotation(joint: number, out: Float64Array, o: number): void;
  /** Sets the joint's local rotation to the unit quaternion `values[o..o+3]`. */
  setLocalRotation(joint: number, values: Float64Array, o: number): void;
  /**
   * In place: the model-space vector `v[o..o+2]` in the space of `joint` (its axes with scale), as a local
   * position of its child is; false when those axes cannot be inverted. Joint -1 is model space itself.
   */
  toJointSpace(joint: number, v: Float64Array, o: number): boolean;
  /**
   * Whether the joint's model-space axes (scale included) are a reflection: an odd number of mirrors in the
   * skeleton above it. Such a joint's world rotation, as Babylon decomposes its frame, is a half turn about Y
   * from its orientation here. Joint -1 (model space) is not.
   */
  isReflected(joint: number): boolean;
}

/**
 * A step of a character's frame, on the pose read once: before the solve (set targets and weights, adjust
 * the pose the solve starts from: a lowered hips, a turned neck) and after it (move what the solve does not:
 * a foot at its shin's end). Add it with `behavior.addPass`; FootPlacement, LookAt and Reach are passes.
 */
export interface FabrikPassOf<Behavior> {
  /** The joints the pass reads or changes: the frame reads them (and their ancestors) every frame. */
  readonly joints?: readonly FabrikJoint[];
  /** Before the solve, on the pose just read (and changed by the passes before this one). */
  beforeSolve?(frame: FabrikFrameOf<Behavior>): void;
  /**
   * After the solve, on the pose as it will be written (blended by the weights); what it changes is written
   * with the rest. Not called on frames without a solve.
   */
  afterSolve?(frame: FabrikFrameOf<Behavior>): void;
}

/** Where a pass runs among the others; see `FabrikBehavior.addPass`. */
export interface FabrikPassOptions {
  /**
   * Passes run in ascending order, then in the order they were added. Default 0. The helpers use negative
   * orders: FootPlacement -30 (the body first: hips and feet), LookAt -20, Reach -10.
   */
  order?: number;
}

/** What `FabrikBehavior.onSolvedObservable` carries: the same object every frame. */
export interface FabrikSolvedEventOf<Behavior> {
  readonly behavior: Behavior;
  /** The solver's report for this frame (reused; copy what you keep). Residuals are in model units. */
  readonly report: SolveReport;
  /** Joints written this frame. */
  readonly written: number;
}

/** Checks a pass and its options for `addPass`; returns its order. */
export function checkPass(pass: FabrikPassOf<unknown>, options: FabrikPassOptions, who: string): number {
  if (pass === null || typeof pass !== "object") {
    throw new FabrikError(
      `${who}: a pass is an object with beforeSolve and/or afterSolve, got ${describeValue(pass)}`,
      undefined,
      "pass",
    );
  }
  const order = options?.order ?? 0;
  if (typeof order !== "number" || !Number.isFinite(order)) {
    throw new FabrikError(`${who}: order must be a finite number, got ${String(order)}`, undefined, "order");
  }
  return order;
}
