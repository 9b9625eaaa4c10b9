import type { JointLimits } from "../solver/limits.js";
import type { Pose } from "../solver/pose.js";
import { quatConjugateMultiply, quatRotate } from "../solver/quaternion.js";
import {
  animatedKnee,
  KNEE_FOOT_LOCAL,
  KNEE_GOAL,
  KNEE_OUT,
  KNEE_SHIN_OUT,
  KNEE_SLOTS,
  placeKnee,
  restBendAxis,
} from "../rig/index.js";
import type { FramePose } from "./framePose.js";
import { slerpFrom } from "./rotationBlend.js";
import type { SkeletonRig } from "./skeletonRig.js";

/* Slots of the scratch array. */
const ROTATION = 0;
const LOCAL = 4;
const VECTOR = 8;
const WEIGHT = 11;
/** The foot's animated model-space orientation, read before the solve. */
const ANIMATED = 12;
/** The orientation the foot is to take (model space), and 1 when it has one this frame. */
const GOAL_ROTATION = 16;
const HAS_ROTATION = 20;
const SLOTS = 21;

/**
 * A target on a foot that does not hang below its leg but sits where its shin ends (rigs made for
 * Blender's IK keep the feet under the root; see `footShin`), as FootPlacement places such feet: the solver
 * pulls the shin, its chain the thigh, to the knee's place and orientation a two-bone answer gives for the
 * foot's goal (`placeKnee`, within the knee's limits); after the solve, on the pose as it will be written,
 * the foot bone is moved to where the shin then ends, and written (and put back) with the rest of the pose.
 */
export class ShinEndTarget {
  readonly thigh: number;
  private readonly _knee = new Float64Array(KNEE_SLOTS);
  private readonly _bend = new Float64Array(3);
  private readonly _n = new Float64Array(SLOTS);
  private readonly _parents: Int32Array;

  constructor(
    rig: SkeletonRig,
    readonly foot: number,
    readonly shin: number,
  ) {
    this.thigh = rig.parents[shin];
    restBendAxis(rig, this.thigh, shin, rig.restPositions, 3 * foot, this._bend, 0);
    this._parents = rig.parents;
  }

  /**
   * Before the solve, on the animated `pose`: turns the foot's goal at `targets[t..t+2]` (model space) into
   * the shin's, its knee's place there and the shin's orientation into `orientations[o..o+3]`. With
   * `turnFoot`, `orientations[o..o+3]` holds the foot's own goal orientation on entry, kept for {@link place}.
   */
  aim(
    pose: Pose,
    limits: JointLimits,
    targets: Float64Array,
    t: number,
    orientations: Float64Array,
    o: number,
    turnFoot: boolean,
  ): void {
    const n = this._n;
    n[HAS_ROTATION] = turnFoot ? 1 : 0;
    if (turnFoot) for (let i = 0; i < 4; i++) n[GOAL_ROTATION + i] = orientations[o + i];
    const k = this._knee;
    animatedKnee(
      k,
      pose.positions,
      pose.orientations,
      this.thigh,
      this.shin,
      pose.positions,
      3 * this.foot,
      this._bend,
      0,
      limits,
    );
    for (let i = 0; i < 3; i++) k[KNEE_GOAL + i] = targets[t + i];
    placeKnee(k);
    for (let i = 0; i < 3; i++) targets[t + i] = k[KNEE_OUT + i];
    for (let i = 0; i < 4; i++) orientations[o + i] = k[KNEE_SHIN_OUT + i];
    for (let i = 0; i < 4; i++) n[ANIMATED + i] = pose.orientations[4 * this.foot + i];
  }

  /**
   * After the solve, on `frame` as it will be written (weights, limits, other chains included): moves the
   * foot bone to where the shin ends, and turns it toward the orientation {@link aim} kept, if any, by the
   * weight `blend[b] × global[g]` (weights come in arrays: V8 boxes a double passed to a call it does not
   * inline).
   */
  place(frame: FramePose, blend: Float64Array, b: number, global: Float64Array, g: number): void {
    const p = frame.positions,
      o = frame.orientations;
    const n = this._n;
    const parent = this._parents[this.foot];
    quatRotate(n, VECTOR, o, 4 * this.shin, this._knee, KNEE_FOOT_LOCAL);
    for (let k = 0; k < 3; k++) n[VECTOR + k] += p[3 * this.shin + k] - (parent >= 0 ? p[3 * parent + k] : 0);
    if (!frame.toJointSpace(parent, n, VECTOR)) return;
    frame.setLocalPosition(this.foot, n, VECTOR);
    if (n[HAS_ROTATION] !== 1) return;
    for (let i = 0; i < 4; i++) n[ROTATION + i] = n[GOAL_ROTATION + i];
    n[WEIGHT] = blend[b] * global[g];
    if (n[WEIGHT] < 1) slerpFrom(n, ROTATION, n, ANIMATED, n, WEIGHT);
    if (parent >= 0) quatConjugateMultiply(n, LOCAL, o, 4 * parent, n, ROTATION);
    else for (let i = 0; i < 4; i++) n[LOCAL + i] = n[ROTATION + i];
    frame.setLocalRotation(this.foot, n, LOCAL);
  }
}
