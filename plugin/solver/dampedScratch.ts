/*
 * The damped steps' scratch (dampedSteps.ts and the files it calls: dampedJacobian.ts, dampedTurns.ts), grown
 * to the largest component seen, so never allocated per solve once a rig has been solved.
 */

import type { SolvePlan } from "./plan.js";

/** The doubles of the steps, in `numbers`: the error, the next step's error, the damping, a step's turn scale. */
export const ERROR_AT = 0;
export const NEXT_AT = 1;
export const DAMPING_AT = 2;
export const SCALE_AT = 3;

export const damped = {
  /** J, rows × cols, row-major: how each effector moves per radian about each column's axis. */
  jacobian: new Float64Array(0),
  /** J Jᵀ + λ² I, then its Cholesky factor. */
  normal: new Float64Array(0),
  /** The weighted residuals, then y = (J Jᵀ + λ² I)⁻¹ r. */
  rhs: new Float64Array(0),
  /** Each joint's turn of the step, in model space (3 a joint). */
  turns: new Float64Array(0),
  /**
   * Each column's joint and model-space axis: the turns' columns first, then from `turnColumns` on the
   * slides' (a stretching bone's direction; dampedSlides.ts).
   */
  columnJoint: new Int32Array(0),
  columnAxis: new Float64Array(0),
  turnColumns: 0,
  /** 1 for a joint pressing on its limit in the current step, and the direction it blocks (3 a joint). */
  held: new Uint8Array(0),
  blocked: new Float64Array(0),
  /** The pose a step starts from, with its on-limit flags. */
  savedPositions: new Float64Array(0),
  savedOrientations: new Float64Array(0),
  savedOnLimit: new Uint8Array(0),
  /**
   * Doubles live here, not in locals handed across calls: a double passed to or returned from a call V8 did
   * not inline is boxed, an allocation per step.
   */
  numbers: new Float64Array(4),
};

/** Grows the scratch for `rows` residuals and `cols` columns on plan's rig. */
export function growDampedScratch(plan: SolvePlan, rows: number, cols: number): void {
  const n = plan.rig.jointCount;
  if (damped.jacobian.length < rows * cols) damped.jacobian = new Float64Array(rows * cols);
  if (damped.normal.length < rows * rows) damped.normal = new Float64Array(rows * rows);
  if (damped.rhs.length < rows) damped.rhs = new Float64Array(rows);
  if (damped.columnJoint.length < cols) {
    damped.columnJoint = new Int32Array(cols);
    damped.columnAxis = new Float64Array(3 * cols);
  }
  if (damped.held.length < n) {
    damped.held = new Uint8Array(n);
    damped.savedPositions = new Float64Array(3 * n);
    damped.savedOrientations = new Float64Array(4 * n);
    damped.savedOnLimit = new Uint8Array(n);
    damped.blocked = new Float64Array(3 * n);
    damped.turns = new Float64Array(3 * n);
  }
}
