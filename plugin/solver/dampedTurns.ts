import { damped, SCALE_AT } from "./dampedScratch.js";
import { slideBones } from "./dampedSlides.js";
import { projectRotation } from "./jointLimitProjection.js";
import { LIMIT_ROTATION } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import {
  quatConjugateMultiply,
  quatMultiply,
  quatMultiplyConjugate,
  quatNormalize,
  quatRotate,
} from "./quaternion.js";

/*
 * Taking one damped step (dampedSteps.ts): turning every joint by its part of the solved step, each held to
 * its limits, and placing the component again; a joint whose limit takes back a good part of its turn is
 * reported, so the step can be solved again with the direction it presses in blocked.
 */

/** The largest turn of any joint in one step (radians): the linear model holds only so far. */
const MAX_TURN = 0.5;
/** A limit that takes back more than this fraction of a joint's turn blocks the direction it took back. */
const PRESS_FRACTION = 0.25;

const temp = new Float64Array(24);
const ID = 0; // identity
const Q = 4; // a rotation
const V = 8; // a vector
const LIMIT = 12; // projectRotation's scratch (8)
const T = 20; // the turned local rotation

/**
 * Turns each joint by its part of Jᵀ y (scaled so no joint turns more than {@link MAX_TURN}), holds it to its
 * limits and places the component again from the base down. Returns true when a joint's limit took back a
 * good part of its turn: the step is then to be solved again with the direction that limit blocks taken out.
 */
export function takeStep(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  rows: number,
  cols: number,
): boolean {
  const { columnAxis, columnJoint, jacobian, numbers, rhs, turnColumns, turns } = damped;
  const parents = plan.rig.parents;
  const { localOffset, boneLength } = plan.scratch;
  // Each joint's turn ω = Σ (Jᵀ y)_col · axis_col, in model space, and the largest.
  let largest = 0;
  for (let col = 0; col < turnColumns;) {
    const r = columnJoint[col];
    let wx = 0,
      wy = 0,
      wz = 0;
    for (; col < turnColumns && columnJoint[col] === r; col++) {
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
  for (let col = 0; col < turnColumns;) {
    const r = columnJoint[col];
    while (col < turnColumns && columnJoint[col] === r) col++;
    if (turnLocal(plan, r, orientations)) pressed = true;
  }
  if (slideBones(plan, rows, cols)) pressed = true;
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
  const { blocked, held, numbers, turns } = damped;
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
}
