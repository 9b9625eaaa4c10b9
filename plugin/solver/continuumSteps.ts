import { copyOnLimit, copyPose } from "./componentPose.js";
import { clampBends, growUnknowns, placeUnknowns, readUnknowns, unknowns } from "./continuumUnknowns.js";
import { solveDamped } from "./dampedLeastSquares.js";
import { damped, growDampedScratch } from "./dampedScratch.js";
import type { SolvePlan } from "./plan.js";

/*
 * Damped least-squares steps (Levenberg–Marquardt) on the arcs of a component's continuum sections. Near a
 * hard target the passes can crawl: each fits one section to where the other left the tip, and sections in
 * series trade the error back and forth, removing a few per cent of it an iteration (the residual falls as
 * 1/k, not geometrically). The arcs themselves have few unknowns, two per section (and three per free joint
 * beside them; continuumUnknowns.ts), so steps on those numbers converge in a handful where the passes would
 * spend their whole budget. The Jacobian is taken by forward differences of the component placed from its
 * unknowns: one more placement a column, each far cheaper than a pass's fitting of every arc.
 */

/** Steps in one round: enough for Newton's rate to take a crawl's few millimetres to the tolerance. */
export const ARC_ROUND_STEPS = 8;
/** A finite-difference step of an unknown, in radians. */
const DIFFERENCE = 1e-7;
/** Damping λ as a fraction of the component's reach: the start, and the largest before giving up. */
const START_DAMPING = 1e-3;
const MAX_DAMPING = 10;
/** A kept step that removes less than this fraction of the squared error ends the round (a minimum). */
const SLOW_GAIN = 0.05;

// Slots of steps.numbers: doubles live there, never in locals handed across calls (V8 boxes those).
const ERROR_AT = 0;
const NEXT_AT = 1;
const DAMPING_AT = 2;
const START_AT = 3;

/**
 * The steps' own scratch, grown to the largest rig seen (never allocated per solve after). The Jacobian, the
 * normal matrix, the residuals (then the damped solve's y: the step is Jᵀ y) and the pose a round started from
 * (put back when it found nothing better) are the damped steps' (dampedScratch.ts): the two never run at once.
 */
const steps = {
  /** The unknowns of the last kept step. */
  kept: new Float64Array(0),
  /** The step Jᵀ y, one a column. */
  step: new Float64Array(0),
  /** Per effector row: its position at the current unknowns. */
  at: new Float64Array(0),
  numbers: new Float64Array(4),
};

function grow(plan: SolvePlan, rows: number): void {
  growUnknowns(plan);
  const cols = unknowns.params.length;
  growDampedScratch(plan, rows, cols);
  if (steps.kept.length < cols) {
    steps.kept = new Float64Array(cols);
    steps.step = new Float64Array(cols);
  }
  if (steps.at.length < rows) steps.at = new Float64Array(rows);
}

/**
 * Up to `maxSteps` damped steps on component c's arcs (and free joints), from the pose given, whose sections
 * must be arcs as the passes leave them. Returns the steps taken. The pose left is the best the steps
 * reached, or the one given when no step helped; residuals are the caller's to measure.
 */
export function arcSteps(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  maxSteps: number,
): number {
  const rows = 3 * (plan.componentEffectorStart[c + 1] - plan.componentEffectorStart[c]);
  grow(plan, rows);
  const cols = readUnknowns(plan, c, positions, orientations);
  if (cols === 0 || rows === 0) return 0;
  const { boneLength } = plan.scratch;
  let reach = 0;
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
    reach += boneLength[plan.activeJoints[k]];
  if (!(reach > 0)) return 0;
  copyPose(plan, c, positions, orientations, damped.savedPositions, damped.savedOrientations);
  copyOnLimit(plan, c, plan.report.onLimit, damped.savedOnLimit);
  const { kept, numbers } = steps;
  const params = unknowns.params;
  numbers[DAMPING_AT] = START_DAMPING * reach;
  // The pose given, placed again from its own unknowns: the error the steps must beat.
  placeUnknowns(plan, c, positions, orientations);
  errorAt(plan, c, positions, targets, ERROR_AT, true);
  numbers[START_AT] = numbers[ERROR_AT];
  let taken = 0;
  while (taken < maxSteps && numbers[DAMPING_AT] <= MAX_DAMPING * reach) {
    if (reached(plan, c, positions, targets)) break;
    taken++;
    fillJacobian(plan, c, positions, orientations, cols);
    if (!solveDamped(damped.jacobian, damped.normal, damped.rhs, rows, cols, numbers, DAMPING_AT)) break;
    stepFromSolve(rows, cols);
    // A section on its bend limit that the step would take past it slides along the limit instead: the
    // step is solved again with its bend held (only its side turns). Steps merely cut back onto the limit
    // crawl as the passes do (docs/continuum.md).
    if (holdBends(plan, rows, cols)) {
      errorAt(plan, c, positions, targets, ERROR_AT, true);
      if (!solveDamped(damped.jacobian, damped.normal, damped.rhs, rows, cols, numbers, DAMPING_AT)) break;
      stepFromSolve(rows, cols);
    }
    for (let i = 0; i < cols; i++) {
      kept[i] = params[i];
      params[i] += steps.step[i];
    }
    clampBends(plan);
    placeUnknowns(plan, c, positions, orientations);
    errorAt(plan, c, positions, targets, NEXT_AT, false);
    if (numbers[NEXT_AT] < numbers[ERROR_AT]) {
      const slow = numbers[NEXT_AT] > (1 - SLOW_GAIN) * numbers[ERROR_AT];
      errorAt(plan, c, positions, targets, ERROR_AT, true);
      numbers[DAMPING_AT] *= 0.5;
      if (slow) break;
    } else {
      for (let i = 0; i < cols; i++) params[i] = kept[i];
      placeUnknowns(plan, c, positions, orientations);
      numbers[DAMPING_AT] *= 4;
    }
  }
  if (!(numbers[ERROR_AT] < numbers[START_AT])) {
    copyPose(plan, c, damped.savedPositions, damped.savedOrientations, positions, orientations);
    copyOnLimit(plan, c, damped.savedOnLimit, plan.report.onLimit);
  }
  return taken;
}

/** True when every effector of component c is within the tolerance of its target. */
function reached(plan: SolvePlan, c: number, positions: Float64Array, targets: Float64Array): boolean {
  const { componentEffectors, effectorJoints } = plan;
  const tolerance = plan.scratch.tolerance[0];
  for (let k = plan.componentEffectorStart[c]; k < plan.componentEffectorStart[c + 1]; k++) {
    const e = componentEffectors[k];
    const j3 = 3 * effectorJoints[e];
    const dx = positions[j3] - targets[3 * e],
      dy = positions[j3 + 1] - targets[3 * e + 1],
      dz = positions[j3 + 2] - targets[3 * e + 2];
    if (dx * dx + dy * dy + dz * dz > tolerance * tolerance) return false;
  }
  return true;
}

/**
 * The weighted squared error of component c's effectors into numbers[slot]; with `record`, also the weighted
 * residuals into rhs and the effectors' positions into `at` (where the next Jacobian is taken).
 */
function errorAt(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
  slot: number,
  record: boolean,
): void {
  const { componentEffectors, effectorJoints, effectorWeights } = plan;
  const first = plan.componentEffectorStart[c];
  let sum = 0;
  for (let k = first; k < plan.componentEffectorStart[c + 1]; k++) {
    const e = componentEffectors[k];
    const w = effectorWeights[e];
    const j3 = 3 * effectorJoints[e],
      row = 3 * (k - first);
    for (let i = 0; i < 3; i++) {
      const r = w * (targets[3 * e + i] - positions[j3 + i]);
      sum += r * r;
      if (record) {
        damped.rhs[row + i] = r;
        steps.at[row + i] = positions[j3 + i];
      }
    }
  }
  steps.numbers[slot] = sum;
}

/** J (rows × cols): how each effector moves per unit of each unknown, by forward differences. */
function fillJacobian(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  cols: number,
): void {
  const { componentEffectors, effectorJoints, effectorWeights } = plan;
  const first = plan.componentEffectorStart[c];
  const { jacobian } = damped;
  const at = steps.at;
  const params = unknowns.params;
  for (let col = 0; col < cols; col++) {
    params[col] += DIFFERENCE;
    placeUnknowns(plan, c, positions, orientations);
    params[col] -= DIFFERENCE;
    for (let k = first; k < plan.componentEffectorStart[c + 1]; k++) {
      const e = componentEffectors[k];
      const w = effectorWeights[e];
      const j3 = 3 * effectorJoints[e],
        row = 3 * (k - first);
      for (let i = 0; i < 3; i++)
        jacobian[(row + i) * cols + col] = (w * (positions[j3 + i] - at[row + i])) / DIFFERENCE;
    }
  }
  // The pose goes back to the current unknowns (the residuals in rhs were recorded there).
  placeUnknowns(plan, c, positions, orientations);
}

/** The step Jᵀ y, from the damped solve's y in rhs. */
function stepFromSolve(rows: number, cols: number): void {
  const { jacobian, rhs } = damped;
  const step = steps.step;
  for (let i = 0; i < cols; i++) {
    let s = 0;
    for (let r = 0; r < rows; r++) s += jacobian[r * cols + i] * rhs[r];
    step[i] = s;
  }
}

/**
 * For every section on its bend limit whose step points past it, takes the bend's own direction out of its
 * two columns of J (the bend vector's length is then held to first order, its side still free). True when
 * any was held: the step must be solved again.
 */
function holdBends(plan: SolvePlan, rows: number, cols: number): boolean {
  const { count, maxBend } = plan.continuum;
  const { sectionColumn, params } = unknowns;
  const jacobian = damped.jacobian;
  const step = steps.step;
  let held = false;
  for (let s = 0; s < count; s++) {
    const col = sectionColumn[s];
    if (col < 0) continue;
    const a = params[col],
      b = params[col + 1];
    const length = Math.sqrt(a * a + b * b);
    if (!(length >= maxBend[s] * (1 - 1e-6)) || a * step[col] + b * step[col + 1] <= 0) continue;
    held = true;
    const ra = a / length,
      rb = b / length;
    for (let r = 0; r < rows; r++) {
      const o = r * cols + col;
      const radial = jacobian[o] * ra + jacobian[o + 1] * rb;
      jacobian[o] -= radial * ra;
      jacobian[o + 1] -= radial * rb;
    }
  }
  return held;
}
