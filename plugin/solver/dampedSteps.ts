import { copyOnLimit, copyPose } from "./componentPose.js";
import { solveDamped } from "./dampedLeastSquares.js";
import { projectRotation } from "./jointLimitProjection.js";
import { LIMIT_FIXED, LIMIT_HINGE, LIMIT_ROTATION, LIMIT_STRETCH } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import {
  quatConjugateMultiply,
  quatMultiply,
  quatMultiplyConjugate,
  quatNormalize,
  quatRotate,
} from "./quaternion.js";
import { measureResiduals } from "./residuals.js";

/*
 * Damped least-squares steps (Levenberg–Marquardt) on the turns of every joint of a component at once. FABRIK
 * moves one joint at a time; where several effectors pull on one chest or pelvis, or hinge axes are skewed (a
 * robot arm), each pass undoes part of the other's work and the error creeps down. A damped step moves all
 * joints toward all targets together, at the rate of Newton's method near a solution. A hinge turns about its
 * axis (one column), any other joint about the three model axes. Each step is held to the limits; a joint
 * whose limit takes back a good part of its turn blocks the direction taken back, and the step is solved
 * again with that joint turning only across it (a second press holds it whole), so the steps slide along
 * limit boundaries. A step is kept only when it lowers the sum of squared distances, the quantity least
 * squares lowers (the sum of distances is not smooth where an effector sits on its target).
 */

/** Damping as a fraction of the component's reach: its usual start (in percent: an integer), and the end. */
export const DAMPING_PERCENT = 5;
const MAX_DAMPING = 10;
/** The largest turn of any joint in one step (radians): the linear model holds only so far. */
const MAX_TURN = 0.5;
/** A limit that takes back more than this fraction of a joint's turn blocks the direction it took back. */
const PRESS_FRACTION = 0.25;
/** Re-solves of one step after joints were found pressing on their limits. */
const MAX_REFITS = 4;

/** Scratch grown to the largest component seen (never per solve once a rig has been solved). */
let jacobian = new Float64Array(0);
let normal = new Float64Array(0);
let rhs = new Float64Array(0);
let turns = new Float64Array(0);
let columnJoint = new Int32Array(0);
let columnAxis = new Float64Array(0);
let held = new Uint8Array(0);
let savedPositions = new Float64Array(0);
let savedOrientations = new Float64Array(0);
let savedOnLimit = new Uint8Array(0);
let blocked = new Float64Array(0);
const temp = new Float64Array(24);
/** The steps' doubles: the error, the next step's error, the damping, a step's turn scale. */
const numbers = new Float64Array(4);
const [ERROR_AT, NEXT_AT, DAMPING_AT, SCALE_AT] = [0, 1, 2, 3];
const ID = 0; // identity
const Q = 4; // a rotation
const V = 8; // a vector
const LIMIT = 12; // projectRotation's scratch (8)
const T = 20; // the turned local rotation

/** True for a component of hinges and fixed joints only, none stretching: a robot arm. */
export function takesDampedSteps(plan: SolvePlan, c: number): boolean {
  const flags = plan.scratch.flags;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const f = flags[plan.rotatingJoints[ri]];
    if (!(f & (LIMIT_HINGE | LIMIT_FIXED)) || f & LIMIT_STRETCH) return false;
  }
  return !stretches(plan, c);
}

/** True when a bone of component c may stretch (the steps keep lengths, so they leave such components alone). */
export function stretches(plan: SolvePlan, c: number): boolean {
  const flags = plan.scratch.flags;
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
    if (flags[plan.activeJoints[k]] & LIMIT_STRETCH) return true;
  return false;
}

/**
 * Up to `maxSteps` damped steps on component c from the pose given (orientations as the oriented passes
 * keep them), damped from `dampingPercent` of its reach. Returns the steps taken; leaves the best pose reached,
 * within every limit, residuals measured; nothing changes when no step helps.
 */
export function dampedSteps(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  maxSteps: number,
  dampingPercent = DAMPING_PERCENT,
): number {
  const first = plan.componentEffectorStart[c],
    last = plan.componentEffectorStart[c + 1];
  const rows = 3 * (last - first);
  const cols = countColumns(plan, c);
  if (cols === 0 || rows === 0) return 0;
  grow(plan, rows, cols);
  const { boneLength, maxResidual, tolerance } = plan.scratch;
  let reach = 0;
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
    reach += boneLength[plan.activeJoints[k]];
  if (!(reach > 0)) return 0;
  // Doubles live in `numbers`, not in locals handed across calls: a double passed to or returned from a call
  // V8 did not inline is boxed, an allocation per step.
  numbers[DAMPING_AT] = 0.01 * dampingPercent * reach;
  clearHeld(plan, c);
  measureResiduals(plan, first, last, positions, targets);
  squaredError(plan, first, last, ERROR_AT);
  let steps = 0,
    refits = 0;
  while (steps < maxSteps && maxResidual[0] > tolerance[0] && numbers[DAMPING_AT] <= MAX_DAMPING * reach) {
    steps++;
    fillColumns(plan, c, orientations);
    fillJacobian(plan, c, positions, targets, rows, cols);
    if (!solveDamped(jacobian, normal, rhs, rows, cols, numbers, DAMPING_AT)) break;
    keep(plan, c, positions, orientations, true);
    if (takeStep(plan, c, positions, orientations, rows, cols) && refits < MAX_REFITS) {
      // Some joint pressed on its limit: the same step again, that joint turning only along its limit.
      refits++;
      steps--;
      keep(plan, c, positions, orientations, false);
      continue;
    }
    measureResiduals(plan, first, last, positions, targets);
    squaredError(plan, first, last, NEXT_AT);
    if (numbers[NEXT_AT] < numbers[ERROR_AT]) {
      numbers[ERROR_AT] = numbers[NEXT_AT];
      numbers[DAMPING_AT] *= 0.5;
      // A new pose: the limits it presses on are found again.
      refits = 0;
      clearHeld(plan, c);
    } else {
      keep(plan, c, positions, orientations, false);
      measureResiduals(plan, first, last, positions, targets);
      numbers[DAMPING_AT] *= 4;
    }
  }
  return steps;
}

/** Keeps (`save`) the pose a step starts from, or puts it back: the steps' own copy, not the solve's best. */
function keep(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  save: boolean,
): void {
  const onLimit = plan.report.onLimit;
  if (save) {
    copyPose(plan, c, positions, orientations, savedPositions, savedOrientations);
    copyOnLimit(plan, c, onLimit, savedOnLimit);
  } else {
    copyPose(plan, c, savedPositions, savedOrientations, positions, orientations);
    copyOnLimit(plan, c, savedOnLimit, onLimit);
  }
}

function clearHeld(plan: SolvePlan, c: number): void {
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++)
    held[plan.rotatingJoints[ri]] = 0;
}

function grow(plan: SolvePlan, rows: number, cols: number): void {
  const n = plan.rig.jointCount;
  if (jacobian.length < rows * cols) jacobian = new Float64Array(rows * cols);
  if (normal.length < rows * rows) normal = new Float64Array(rows * rows);
  if (rhs.length < rows) rhs = new Float64Array(rows);
  if (columnJoint.length < cols) {
    columnJoint = new Int32Array(cols);
    columnAxis = new Float64Array(3 * cols);
  }
  if (held.length < n) {
    held = new Uint8Array(n);
    savedPositions = new Float64Array(3 * n);
    savedOrientations = new Float64Array(4 * n);
    savedOnLimit = new Uint8Array(n);
    blocked = new Float64Array(3 * n);
    turns = new Float64Array(3 * n);
  }
}

function countColumns(plan: SolvePlan, c: number): number {
  const flags = plan.scratch.flags;
  let cols = 0;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const f = flags[plan.rotatingJoints[ri]];
    if (!(f & LIMIT_FIXED)) cols += f & LIMIT_HINGE ? 1 : 3;
  }
  return cols;
}

/** The sum of the effectors' squared residuals, into numbers[at]. */
function squaredError(plan: SolvePlan, first: number, last: number, at: number): void {
  const residuals = plan.report.residuals;
  let sum = 0;
  for (let k = first; k < last; k++) {
    const r = residuals[plan.componentEffectors[k]];
    sum += r * r;
  }
  numbers[at] = sum;
}

/** Each column's joint and model-space axis: a hinge's own axis, else X, Y and Z; zero for a held joint. */
function fillColumns(plan: SolvePlan, c: number, orientations: Float64Array): void {
  const flags = plan.scratch.flags;
  const limits = plan.limits;
  let col = 0;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const r = plan.rotatingJoints[ri];
    const f = flags[r];
    if (f & LIMIT_FIXED) continue;
    const count = f & LIMIT_HINGE ? 1 : 3;
    // The hinge axis turns with the joint (a turn about it leaves it where it is).
    if (count === 1) quatRotate(temp, V, orientations, 4 * r, limits.hingeAxis, 3 * r);
    for (let a = 0; a < count; a++, col++) {
      columnJoint[col] = r;
      if (count === 1) {
        for (let i = 0; i < 3; i++) columnAxis[3 * col + i] = held[r] === 1 ? 0 : temp[V + i];
        continue;
      }
      // A joint pressing on its limit turns only across the direction the limit blocks.
      const n = held[r] === 1 ? blocked[3 * r + a] : 0;
      for (let i = 0; i < 3; i++) columnAxis[3 * col + i] = (i === a ? 1 : 0) - n * blocked[3 * r + i];
    }
  }
}

/** J (rows × cols, row-major): how each effector moves per radian about each column's axis; r = w (target − effector). */
function fillJacobian(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
  rows: number,
  cols: number,
): void {
  const { componentEffectors, effectorJoints, effectorWeights } = plan;
  const first = plan.componentEffectorStart[c];
  jacobian.fill(0, 0, rows * cols);
  for (let k = first; k < plan.componentEffectorStart[c + 1]; k++) {
    const e = componentEffectors[k];
    const w = effectorWeights[e];
    const ej = effectorJoints[e];
    const row = 3 * (k - first);
    for (let i = 0; i < 3; i++) rhs[row + i] = w * (targets[3 * e + i] - positions[3 * ej + i]);
    if (w === 0) continue;
    for (let col = 0; col < cols; col++) {
      const r = columnJoint[col];
      if (!moves(plan, r, ej)) continue;
      const dx = positions[3 * ej] - positions[3 * r],
        dy = positions[3 * ej + 1] - positions[3 * r + 1],
        dz = positions[3 * ej + 2] - positions[3 * r + 2];
      const ax = columnAxis[3 * col],
        ay = columnAxis[3 * col + 1],
        az = columnAxis[3 * col + 2];
      jacobian[row * cols + col] = w * (ay * dz - az * dy);
      jacobian[(row + 1) * cols + col] = w * (az * dx - ax * dz);
      jacobian[(row + 2) * cols + col] = w * (ax * dy - ay * dx);
    }
  }
}

/** True when turning joint r moves joint j (j lies in r's subtree; every active joint lies in the base's). */
function moves(plan: SolvePlan, r: number, j: number): boolean {
  const index = plan.activeIndex[r];
  if (index < 0) return true;
  const k = plan.activeIndex[j];
  return k > index && k < plan.subtreeEnd[index];
}

/**
 * Turns each joint by its part of Jᵀ y (scaled so no joint turns more than {@link MAX_TURN}), holds it to its
 * limits and places the component again from the base down. Returns true when a joint's limit took back a
 * good part of its turn: the step is then to be solved again with the direction that limit blocks taken out.
 */
function takeStep(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  rows: number,
  cols: number,
): boolean {
  const parents = plan.rig.parents;
  const { localOffset, boneLength } = plan.scratch;
  // Each joint's turn ω = Σ (Jᵀ y)_col · axis_col, in model space, and the largest.
  let largest = 0;
  for (let col = 0; col < cols;) {
    const r = columnJoint[col];
    let wx = 0,
      wy = 0,
      wz = 0;
    for (; col < cols && columnJoint[col] === r; col++) {
      let d = 0;
      for (let i = 0; i < rows; i++) d += jacobian[i * cols + col] * rhs[i];
      wx += d * columnAxis[3 * col];
      wy += d * columnAxis[3 * col + 1];
      wz += d * columnAxis[3 * col + 2];
    }
    turns[3 * r] = wx;
    turns[3 * r + 1] = wy;
    turns[3 * r + 2] = wz;
    const angle = Math.sqrt(wx * wx + wy * wy + wz * wz);
    if (angle > largest) largest = angle;
  }
  numbers[SCALE_AT] = largest > MAX_TURN ? MAX_TURN / largest : 1;
  // Every local rotation as it is, then the turned ones turned: L' = R(parent⁻¹ ω) · L, so the joint's
  // orientation becomes R(ω) · O.
  const base = plan.componentBase[c];
  readLocal(plan, base, orientations);
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
    readLocal(plan, plan.activeJoints[k], orientations);
  let pressed = false;
  for (let col = 0; col < cols;) {
    const r = columnJoint[col];
    while (col < cols && columnJoint[col] === r) col++;
    if (turnLocal(plan, r, orientations)) pressed = true;
  }
  // Forward kinematics, the base first.
  placeJoint(plan, base, orientations);
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
    const j = plan.activeJoints[k];
    const q = parents[j];
    quatRotate(temp, V, orientations, 4 * q, localOffset, 3 * j);
    const len = boneLength[j];
    for (let i = 0; i < 3; i++) positions[3 * j + i] = positions[3 * q + i] + len * temp[V + i];
    placeJoint(plan, j, orientations);
  }
  return pressed;
}

function readLocal(plan: SolvePlan, j: number, orientations: Float64Array): void {
  const p = plan.rig.parents[j];
  const local = plan.scratch.currentLocal;
  if (p >= 0) quatConjugateMultiply(local, 4 * j, orientations, 4 * p, orientations, 4 * j);
  else for (let i = 0; i < 4; i++) local[4 * j + i] = orientations[4 * j + i];
}

/** orientation of j = its parent's · its local rotation. */
function placeJoint(plan: SolvePlan, j: number, orientations: Float64Array): void {
  const p = plan.rig.parents[j];
  const local = plan.scratch.currentLocal;
  if (p >= 0) quatMultiply(orientations, 4 * j, orientations, 4 * p, local, 4 * j);
  else for (let i = 0; i < 4; i++) orientations[4 * j + i] = local[4 * j + i];
  quatNormalize(orientations, 4 * j);
}

/**
 * Turns joint r's local rotation by scale · ω (model space, in `turns`; the scale in numbers), held to its limits. Returns true when
 * the limit took back more than half the turn: the joint presses on its limit, and is held from now on.
 */
function turnLocal(plan: SolvePlan, r: number, orientations: Float64Array): boolean {
  const scale = numbers[SCALE_AT];
  const local = plan.scratch.currentLocal;
  const wx = scale * turns[3 * r],
    wy = scale * turns[3 * r + 1],
    wz = scale * turns[3 * r + 2];
  const angle = Math.sqrt(wx * wx + wy * wy + wz * wz);
  if (!(angle > 1e-15)) return false;
  temp[V] = wx / angle;
  temp[V + 1] = wy / angle;
  temp[V + 2] = wz / angle;
  const p = plan.rig.parents[r];
  if (p >= 0) {
    // The axis into the parent's frame.
    temp[ID] = -orientations[4 * p];
    temp[ID + 1] = -orientations[4 * p + 1];
    temp[ID + 2] = -orientations[4 * p + 2];
    temp[ID + 3] = orientations[4 * p + 3];
    quatRotate(temp, V, temp, ID, temp, V);
  }
  const s = Math.sin(0.5 * angle);
  temp[Q] = temp[V] * s;
  temp[Q + 1] = temp[V + 1] * s;
  temp[Q + 2] = temp[V + 2] * s;
  temp[Q + 3] = Math.cos(0.5 * angle);
  quatMultiply(local, 4 * r, temp, Q, local, 4 * r);
  quatNormalize(local, 4 * r);
  if ((plan.scratch.flags[r] & LIMIT_ROTATION) === 0) return false;
  // Δ = rest⁻¹ · L, held to the limits, and back.
  const limits = plan.limits;
  for (let i = 0; i < 4; i++) temp[T + i] = local[4 * r + i];
  quatConjugateMultiply(temp, Q, limits.restLocal, 4 * r, local, 4 * r);
  projectRotation(limits, r, temp, Q, temp, LIMIT);
  plan.report.onLimit[r] = temp[LIMIT + 7];
  quatMultiply(local, 4 * r, limits.restLocal, 4 * r, temp, Q);
  if (held[r] === 1) return false;
  // What the limit took back, b = L_turned · L⁻¹, as a turn in model space: where it is a good part of the
  // turn, the joint presses on its limit, and the step is solved again with that direction blocked.
  quatMultiplyConjugate(temp, Q, temp, T, local, 4 * r);
  if (temp[Q + 3] < 0) for (let i = 0; i < 4; i++) temp[Q + i] = -temp[Q + i];
  const sinHalf = Math.sqrt(temp[Q] * temp[Q] + temp[Q + 1] * temp[Q + 1] + temp[Q + 2] * temp[Q + 2]);
  if (!(2 * Math.atan2(sinHalf, temp[Q + 3]) > PRESS_FRACTION * angle)) return false;
  for (let i = 0; i < 3; i++) temp[V + i] = temp[Q + i] / sinHalf;
  if (p >= 0) quatRotate(temp, V, orientations, 4 * p, temp, V);
  for (let i = 0; i < 3; i++) blocked[3 * r + i] = temp[V + i];
  held[r] = 1;
  return true;
  return false;
}
