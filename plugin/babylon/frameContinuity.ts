import {
  quatConjugateMultiply,
  quatMultiply,
  quatNormalize,
  quatRotate,
  quatRotateInverse,
} from "../solver/quaternion.js";
import { projectRotation } from "../solver/jointLimitProjection.js";
import { LIMIT_ROTATION, type JointLimits } from "../solver/limits.js";
import type { SolveReport } from "../solver/plan.js";
import type { PoseBlock } from "./poseBlock.js";

/*
 * A solve that starts from the animated pose every frame meets its targets, but which of the many poses that
 * meet them it finds depends on where the iterations happen to go: on a redundant body (a neck and shoulders
 * sharing a head target, a ten-bone tail) two frames whose targets differ by a millimetre can converge 20–60°
 * apart, and the character pops. So each frame starts where the last one ended, carried on this frame's
 * animation: every joint the last frame wrote gets its written turn relative to the animated rotation
 * (`D = animated⁻¹ · written`) again on top of this frame's animated rotation, and what hangs below follows
 * rigidly. The solve then takes a small step from a pose it already knows, keeps to its configuration, and
 * needs fewer iterations. What is carried is what was written, blend weights included, so a target faded out
 * lets its joints go back to the animation; a frame that writes nothing carries nothing.
 */

/** A turn closer to identity than this (quaternion components) is not carried. */
const IDENTITY_EPSILON = 1e-12;

/** One character's carried turns, per joint; sized once per set of targets. */
export class FrameContinuity {
  /** Whether the last frame wrote, so this one may start from it. */
  valid = false;
  private readonly _turns: Float64Array;
  private readonly _carried: Uint8Array;
  private readonly _moved: Uint8Array;
  private readonly _oldPositions: Float64Array;
  private readonly _oldOrientations: Float64Array;
  private readonly _temp = new Float64Array(16);
  private readonly _keptPose: Float64Array;
  private readonly _keptResiduals: Float64Array;
  private readonly _keptOnLimit: Uint8Array;
  private readonly _keptNumbers = new Float64Array(4);

  constructor(jointCount: number, effectorCount: number) {
    this._keptPose = new Float64Array(7 * jointCount);
    this._keptResiduals = new Float64Array(effectorCount);
    this._keptOnLimit = new Uint8Array(jointCount);
    this._turns = new Float64Array(4 * jointCount);
    this._carried = new Uint8Array(jointCount);
    this._moved = new Uint8Array(jointCount);
    this._oldPositions = new Float64Array(3 * jointCount);
    this._oldOrientations = new Float64Array(4 * jointCount);
  }

  /** Forgets every turn: the next frame starts from its animated pose. */
  reset(): void {
    this.valid = false;
    this._carried.fill(0);
  }

  /** Joint `j` was written `written[wo..]` over its animated local rotation `animated[ao..]`. */
  capture(j: number, animated: Float64Array, ao: number, written: Float64Array, wo: number): void {
    const turns = this._turns;
    quatConjugateMultiply(turns, 4 * j, animated, ao, written, wo);
    if (turns[4 * j + 3] < 0) for (let i = 0; i < 4; i++) turns[4 * j + i] = -turns[4 * j + i];
    const w = turns[4 * j + 3];
    this._carried[j] = Number.isFinite(w) && 1 - w > IDENTITY_EPSILON ? 1 : 0;
  }

  /**
   * Turns each carried joint of the block's model-space pose by its carried turn (in its own frame) and
   * carries every read joint below it rigidly. Joints are visited parents first, as the block holds them.
   */
  apply(block: PoseBlock, parents: Int32Array, limits: JointLimits): void {
    const { positions, orientations, ints } = block;
    const carried = this._carried,
      moved = this._moved,
      oldP = this._oldPositions,
      oldO = this._oldOrientations,
      temp = this._temp;
    const count = block.size;
    for (let k = 0; k < count; k++) {
      const j = ints[k];
      const p = parents[j];
      const parentMoved = p >= 0 && moved[p] === 1;
      moved[j] = 0;
      if (!parentMoved && carried[j] === 0) continue;
      const j3 = 3 * j,
        j4 = 4 * j;
      for (let i = 0; i < 3; i++) oldP[j3 + i] = positions[j3 + i];
      for (let i = 0; i < 4; i++) oldO[j4 + i] = orientations[j4 + i];
      if (parentMoved) {
        // Where the joint sits and how it turns in its parent's frame, before; the same under the parent now.
        const p3 = 3 * p,
          p4 = 4 * p;
        for (let i = 0; i < 3; i++) temp[i] = oldP[j3 + i] - oldP[p3 + i];
        quatRotateInverse(temp, 0, oldO, p4, temp, 0);
        quatRotate(temp, 0, orientations, p4, temp, 0);
        for (let i = 0; i < 3; i++) positions[j3 + i] = positions[p3 + i] + temp[i];
        quatConjugateMultiply(temp, 4, oldO, p4, oldO, j4);
        quatMultiply(orientations, j4, orientations, p4, temp, 4);
      }
      if (carried[j] === 1) this._turn(j, p, orientations, limits);
      quatNormalize(orientations, j4);
      moved[j] = 1;
    }
  }

  /**
   * Joint j's local rotation turned by its carried turn and held to its limits (they are measured from the
   * rest pose, and this frame's animation under the carried turn may leave them: a target met at once would
   * then be written outside them, a little more each frame).
   */
  private _turn(j: number, p: number, orientations: Float64Array, limits: JointLimits): void {
    const temp = this._temp;
    const j4 = 4 * j;
    if (p >= 0) quatConjugateMultiply(temp, 0, orientations, 4 * p, orientations, j4);
    else for (let i = 0; i < 4; i++) temp[i] = orientations[j4 + i];
    quatMultiply(temp, 0, temp, 0, this._turns, j4);
    if (limits.flags[j] & LIMIT_ROTATION) {
      quatConjugateMultiply(temp, 4, limits.restLocal, j4, temp, 0);
      projectRotation(limits, j, temp, 4, temp, 8);
      quatMultiply(temp, 0, limits.restLocal, j4, temp, 4);
    }
    if (p >= 0) quatMultiply(orientations, j4, orientations, 4 * p, temp, 0);
    else for (let i = 0; i < 4; i++) orientations[j4 + i] = temp[i];
  }

  /** Keeps the solved pose and its report aside, to take back with {@link takeBack}. */
  keep(block: PoseBlock, report: SolveReport): void {
    const kept = this._keptPose;
    kept.set(block.positions);
    kept.set(block.orientations, block.positions.length);
    this._keptResiduals.set(report.residuals);
    this._keptOnLimit.set(report.onLimit);
    const n = this._keptNumbers;
    n[0] = report.iterations;
    n[1] = report.converged ? 1 : 0;
    n[2] = report.maxResidual;
    n[3] = report.escapes;
  }

  /** Puts back the pose and report of {@link keep}; the iterations of the solve since are added. */
  takeBack(block: PoseBlock, report: SolveReport): void {
    const kept = this._keptPose;
    const { positions, orientations } = block;
    const split = positions.length;
    for (let i = 0; i < split; i++) positions[i] = kept[i];
    for (let i = 0; i < orientations.length; i++) orientations[i] = kept[split + i];
    report.residuals.set(this._keptResiduals);
    report.onLimit.set(this._keptOnLimit);
    const n = this._keptNumbers;
    report.iterations += n[0];
    report.converged = n[1] === 1;
    report.maxResidual = n[2];
    report.escapes += n[3];
  }
}
