import { copy, normalize3, quatScaleAngle } from "../babylon/arrayMath.js";
import type { FabrikFrame } from "../babylon/fabrikBehavior.js";
import { projectRotation } from "../solver/jointLimitProjection.js";
import type { JointLimits } from "../solver/limits.js";
import {
  quatConjugateMultiply,
  quatMultiply,
  quatMultiplyConjugate,
  quatRotate,
} from "../solver/quaternion.js";
import { lookRotation } from "./lookRotation.js";
import {
  CARRY,
  CUR_EYE,
  CUR_GAZE,
  EYE,
  FRACTION,
  GAZE,
  HEAD,
  LAYER_WEIGHT,
  LOCAL,
  LOOK,
  ORIENTATION,
  PARENT,
  PIVOT,
  SCRATCH,
  SHARE,
  SHIFT,
  TO,
  TURN,
  UP,
} from "./lookSlots.js";

/**
 * Shares the turn toward the look point out over the joints, lowest first: each turns its share of what is
 * left (about its own pivot, carrying everything above it), within its limits; the head gets the rest as
 * its target orientation. `v[LAYER_WEIGHT]` scales the turns written before the solve, as the behavior's
 * own weight scales what it writes.
 */
export function shareOutLook(
  v: Float64Array,
  frame: FabrikFrame,
  joints: readonly number[],
  shares: Float64Array,
  parents: Int32Array,
  limits: JointLimits | null,
  projection: Float64Array,
): void {
  const count = joints.length;
  // The rigid motion of everything above the joints turned so far: x' = carry · x + shift.
  v[CARRY] = v[CARRY + 1] = v[CARRY + 2] = 0;
  v[CARRY + 3] = 1;
  v[SHIFT] = v[SHIFT + 1] = v[SHIFT + 2] = 0;
  let remaining = 0;
  for (let k = 0; k < count; k++) remaining += shares[k];
  for (let k = 0; k < count; k++) {
    turnToward(v, frame, joints[k]);
    if (k === count - 1) break;
    v[FRACTION] = (remaining > 0 ? shares[k] / remaining : 1) * v[LAYER_WEIGHT];
    remaining -= shares[k];
    turnJoint(v, frame, joints[k], parents, limits, projection);
  }
}

/** Where joint `j`, the eye and the gaze are after the turns so far, and the turn still wanted (TURN). */
function turnToward(v: Float64Array, frame: FabrikFrame, j: number): void {
  const p = frame.positions;
  quatRotate(v, PIVOT, v, CARRY, p, 3 * j);
  quatRotate(v, CUR_EYE, v, CARRY, v, EYE);
  quatRotate(v, CUR_GAZE, v, CARRY, v, GAZE);
  for (let k = 0; k < 3; k++) {
    v[PIVOT + k] += v[SHIFT + k];
    v[CUR_EYE + k] += v[SHIFT + k];
    v[TO + k] = v[LOOK + k] - v[CUR_EYE + k];
  }
  if (!normalize3(v, TO, v, TO)) copy(v, TO, v, CUR_GAZE, 3);
  lookRotation(v, TURN, v, CUR_GAZE, v, TO, v, UP, v, SCRATCH);
  // The head's wanted orientation: its own, carried, then turned by all that is left.
  quatMultiply(v, HEAD, v, CARRY, frame.orientations, 4 * j);
  quatMultiply(v, HEAD, v, TURN, v, HEAD);
}

/**
 * Turns joint `j` by the fraction `v[FRACTION]` of TURN, within its limits, writes its local rotation to
 * the frame, and adds the turn it really took to the carried motion.
 */
function turnJoint(
  v: Float64Array,
  frame: FabrikFrame,
  j: number,
  parents: Int32Array,
  limits: JointLimits | null,
  projection: Float64Array,
): void {
  const orientations = frame.orientations;
  copy(v, SHARE, v, TURN, 4);
  quatScaleAngle(v, SHARE, v, FRACTION);
  // The joint's orientation now (carried) and wanted; its parent's now; the local rotation between.
  quatMultiply(v, ORIENTATION, v, CARRY, orientations, 4 * j);
  quatMultiply(v, LOCAL, v, SHARE, v, ORIENTATION);
  const parent = parents[j];
  if (parent >= 0) {
    quatMultiply(v, PARENT, v, CARRY, orientations, 4 * parent);
    quatConjugateMultiply(v, LOCAL, v, PARENT, v, LOCAL);
  }
  if (limits !== null) clampLocal(v, j, limits, projection);
  frame.setLocalRotation(j, v, LOCAL);
  // The turn taken: the joint's new orientation times the inverse of its carried one.
  if (parent >= 0) quatMultiply(v, LOCAL, v, PARENT, v, LOCAL);
  quatMultiplyConjugate(v, SHARE, v, LOCAL, v, ORIENTATION);
  quatMultiply(v, CARRY, v, SHARE, v, CARRY);
  // shift' = share · (shift − pivot) + pivot: the turn is about the joint's current place.
  for (let k = 0; k < 3; k++) v[SHIFT + k] -= v[PIVOT + k];
  quatRotate(v, SHIFT, v, SHARE, v, SHIFT);
  for (let k = 0; k < 3; k++) v[SHIFT + k] += v[PIVOT + k];
}

/** Keeps the local rotation at LOCAL within joint `j`'s limits, as the solver measures them (from rest). */
function clampLocal(v: Float64Array, j: number, limits: JointLimits, projection: Float64Array): void {
  // Δ = rest⁻¹ · local, projected onto the limits, then local = rest · Δ.
  quatConjugateMultiply(v, LOCAL, limits.restLocal, 4 * j, v, LOCAL);
  projectRotation(limits, j, v, LOCAL, projection, 0);
  quatMultiply(v, LOCAL, limits.restLocal, 4 * j, v, LOCAL);
}
