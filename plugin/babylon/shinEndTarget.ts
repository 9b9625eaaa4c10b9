import type { JointLimits } from "../solver/limits.js";
import type { Pose } from "../solver/pose.js";
import { quatConjugateMultiply, quatRotate } from "../solver/quaternion.js";
import { PoseLayer } from "./poseLayer.js";
import {
  animatedKnee,
  KNEE_FOOT_LOCAL,
  KNEE_GOAL,
  KNEE_OUT,
  KNEE_SHIN_OUT,
  KNEE_SLOTS,
  placeKnee,
  restBendAxis,
  toJointSpace,
} from "../rig/index.js";
import { PoseReader } from "./poseReader.js";
import { slerpFrom } from "./rotationWriter.js";
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
 * foot's goal (`placeKnee`, within the knee's limits); once the behavior has written its pose, the foot bone
 * is moved to where the shin now ends, and put back after the frame with the rest of the pose.
 */
export class ShinEndTarget {
  readonly thigh: number;
  private readonly _knee = new Float64Array(KNEE_SLOTS);
  private readonly _bend = new Float64Array(3);
  private readonly _n = new Float64Array(SLOTS);
  /** Reads the pose as written (weights, limits, other chains included) to find the shin's end. */
  private readonly _reader: PoseReader;
  private readonly _layer: PoseLayer;

  constructor(
    rig: SkeletonRig,
    readonly foot: number,
    readonly shin: number,
  ) {
    this.thigh = rig.parents[shin];
    restBendAxis(rig, this.thigh, shin, foot, this._bend, 0);
    this._reader = new PoseReader(rig);
    const parent = rig.parents[foot];
    this._reader.readOnly(parent >= 0 ? [foot, shin, parent] : [foot, shin]);
    this._layer = new PoseLayer(rig, [foot]);
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
      this.foot,
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
   * After the behavior's write: moves the foot bone to where the shin ends in the written pose, and turns
   * it toward the orientation {@link aim} kept, if any, by the weight `blend[b] × global[g]` (weights come
   * in arrays: V8 boxes a double passed to a call it does not inline).
   */
  place(blend: Float64Array, b: number, global: Float64Array, g: number): void {
    const reader = this._reader;
    reader.read();
    if (!reader.worldToModelValid) return;
    const p = reader.positions,
      o = reader.orientations;
    const n = this._n;
    const parent = reader.rig.parents[this.foot];
    quatRotate(n, VECTOR, o, 4 * this.shin, this._knee, KNEE_FOOT_LOCAL);
    for (let k = 0; k < 3; k++) n[VECTOR + k] += p[3 * this.shin + k] - (parent >= 0 ? p[3 * parent + k] : 0);
    if (!toJointSpace(reader.bases, parent, n, VECTOR)) return;
    this._layer.writePosition(this.foot, n, VECTOR);
    if (n[HAS_ROTATION] !== 1) return;
    for (let i = 0; i < 4; i++) n[ROTATION + i] = n[GOAL_ROTATION + i];
    n[WEIGHT] = blend[b] * global[g];
    if (n[WEIGHT] < 1) slerpFrom(n, n, ANIMATED, n, WEIGHT);
    if (parent >= 0) quatConjugateMultiply(n, LOCAL, o, 4 * parent, n, ROTATION);
    else for (let i = 0; i < 4; i++) n[LOCAL + i] = n[ROTATION + i];
    this._layer.writeRotation(this.foot, n, LOCAL);
  }

  /** Puts the foot bone back where the animation had it (unless the animation has written it since). */
  restore(): void {
    this._layer.restore();
  }
}
