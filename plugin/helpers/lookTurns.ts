import type { FabrikFrame } from "../babylon/index.js";
import {
  copy,
  normalize3,
  quatConjugateMultiply,
  quatMultiply,
  quatMultiplyConjugate,
  quatRotate,
  quatScaleAngle,
} from "../rig/index.js";
import { projectRotation, type JointLimits } from "../solver/index.js";
import { lookRotation } from "./lookRotation.js";

/* Slots of the scratch array: every per-frame number lives here (doubles crossing calls V8 does not inline
   are boxed), vectors and quaternions included. */
const FRACTION = 0;
const WEIGHT = 1;
/** Model space, copied in: the animated eye and gaze, world up, the look point. */
const EYE = 2;
const GAZE = 5;
const UP = 8;
const LOOK = 11;
/** The rigid motion of everything above the joints turned so far: x' = carry·x + shift. */
const CARRY = 14;
const SHIFT = 18;
/** Per joint: its place, the eye and gaze carried, the way to the look point, the turn still wanted. */
const PIVOT = 21;
const CUR_GAZE = 24;
const CUR_EYE = 27;
const TO = 30;
const TURN = 33;
const SHARE = 37;
const ORIENTATION = 41;
const PARENT = 45;
const LOCAL = 49;
const HEAD = 53;
const SCRATCH = 57;
const SLOTS = 75;

/**
 * How a {@link LookAt}'s turn is shared out over its joints (chest, neck, head), lowest first: each turns
 * its share of what is left, about its own pivot and carrying everything above it, within its limits, and
 * is set in the frame's pose; the head gets the rest as its target orientation. A frame allocates nothing.
 */
export class LookTurns {
  private readonly _s = new Float64Array(SLOTS);
  private readonly _projection = new Float64Array(16);

  /**
   * @param joints the turning joints, parents first; the last is the head, which is never written here.
   * @param _shares one share per joint (any scale).
   */
  constructor(
    private readonly _parents: Int32Array,
    readonly joints: readonly number[],
    private readonly _shares: Float64Array,
  ) {}

  /**
   * Turns the joints toward the look point. In, from `v` (model space): the animated eye at `eye`, the gaze
   * at `gaze`, world up at `up`, the look point at `look`, and at `weight` the weight that scales the turns
   * written before the solve (as the behavior's own weight scales what it writes). Out: the head's place
   * after the turns below it into `v[pivotOut..]`, and its wanted orientation into `v[headOut..]`.
   */
  distribute(
    frame: FabrikFrame,
    limits: JointLimits | null,
    v: Float64Array,
    eye: number,
    gaze: number,
    up: number,
    look: number,
    weight: number,
    pivotOut: number,
    headOut: number,
  ): void {
    const s = this._s;
    copy(s, EYE, v, eye, 3);
    copy(s, GAZE, v, gaze, 3);
    copy(s, UP, v, up, 3);
    copy(s, LOOK, v, look, 3);
    s[WEIGHT] = v[weight];
    const joints = this.joints;
    const count = joints.length;
    s[CARRY] = s[CARRY + 1] = s[CARRY + 2] = 0;
    s[CARRY + 3] = 1;
    s[SHIFT] = s[SHIFT + 1] = s[SHIFT + 2] = 0;
    let remaining = 0;
    for (let k = 0; k < count; k++) remaining += this._shares[k];
    for (let k = 0; k < count; k++) {
      this._turnToward(frame, joints[k]);
      if (k === count - 1) break;
      s[FRACTION] = (remaining > 0 ? this._shares[k] / remaining : 1) * s[WEIGHT];
      remaining -= this._shares[k];
      this._turnJoint(frame, limits, joints[k]);
    }
    copy(v, pivotOut, s, PIVOT, 3);
    copy(v, headOut, s, HEAD, 4);
  }

  /** Where joint `j`, the eye and the gaze are after the turns so far, and the turn still wanted (TURN). */
  private _turnToward(frame: FabrikFrame, j: number): void {
    const s = this._s;
    const p = frame.positions;
    quatRotate(s, PIVOT, s, CARRY, p, 3 * j);
    quatRotate(s, CUR_EYE, s, CARRY, s, EYE);
    quatRotate(s, CUR_GAZE, s, CARRY, s, GAZE);
    for (let k = 0; k < 3; k++) {
      s[PIVOT + k] += s[SHIFT + k];
      s[CUR_EYE + k] += s[SHIFT + k];
      s[TO + k] = s[LOOK + k] - s[CUR_EYE + k];
    }
    if (!normalize3(s, TO, s, TO)) copy(s, TO, s, CUR_GAZE, 3);
    lookRotation(s, TURN, s, CUR_GAZE, s, TO, s, UP, s, SCRATCH);
    // The head's wanted orientation: its own, carried, then turned by all that is left.
    quatMultiply(s, HEAD, s, CARRY, frame.orientations, 4 * j);
    quatMultiply(s, HEAD, s, TURN, s, HEAD);
  }

  /**
   * Turns joint `j` by the fraction `FRACTION` of TURN, within its limits, writes its local rotation to the
   * frame, and adds the turn it really took to the carried motion.
   */
  private _turnJoint(frame: FabrikFrame, limits: JointLimits | null, j: number): void {
    const s = this._s;
    const orientations = frame.orientations;
    copy(s, SHARE, s, TURN, 4);
    quatScaleAngle(s, SHARE, s, FRACTION);
    // The joint's orientation now (carried) and wanted; its parent's now; the local rotation between.
    quatMultiply(s, ORIENTATION, s, CARRY, orientations, 4 * j);
    quatMultiply(s, LOCAL, s, SHARE, s, ORIENTATION);
    const parent = this._parents[j];
    if (parent >= 0) {
      quatMultiply(s, PARENT, s, CARRY, orientations, 4 * parent);
      quatConjugateMultiply(s, LOCAL, s, PARENT, s, LOCAL);
    }
    if (limits !== null) this._clampLocal(limits, j);
    frame.setLocalRotation(j, s, LOCAL);
    // The turn taken: the joint's new orientation times the inverse of its carried one.
    if (parent >= 0) quatMultiply(s, LOCAL, s, PARENT, s, LOCAL);
    quatMultiplyConjugate(s, SHARE, s, LOCAL, s, ORIENTATION);
    quatMultiply(s, CARRY, s, SHARE, s, CARRY);
    // shift' = share · (shift − pivot) + pivot: the turn is about the joint's current place.
    for (let k = 0; k < 3; k++) s[SHIFT + k] -= s[PIVOT + k];
    quatRotate(s, SHIFT, s, SHARE, s, SHIFT);
    for (let k = 0; k < 3; k++) s[SHIFT + k] += s[PIVOT + k];
  }

  /** Keeps the local rotation at LOCAL within joint `j`'s limits, as the solver measures them (from rest). */
  private _clampLocal(limits: JointLimits, j: number): void {
    const s = this._s;
    // Δ = rest⁻¹ · local, projected onto the limits, then local = rest · Δ.
    quatConjugateMultiply(s, LOCAL, limits.restLocal, 4 * j, s, LOCAL);
    projectRotation(limits, j, s, LOCAL, this._projection, 0);
    quatMultiply(s, LOCAL, limits.restLocal, 4 * j, s, LOCAL);
  }
}
