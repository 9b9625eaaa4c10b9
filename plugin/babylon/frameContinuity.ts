import {
  quatConjugateMultiply,
  quatMultiply,
  quatNormalize,
  quatRotate,
  quatRotateInverse,
} from "../solver/quaternion.js";
import { projectRotation } from "../solver/jointLimitProjection.js";
import { LIMIT_ROTATION, type JointLimits } from "../solver/limits.js";
import { pullTowardPose } from "../solver/answerNearPose.js";
import type { SolvePlan, SolveReport } from "../solver/plan.js";
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

/**
 * The temporaries of a frame's continuity, shared by every character (the frames run one after another) and
 * grown to the largest rig: a crowd's characters each keep only their turns.
 */
const shared = {
  moved: new Uint8Array(0),
  old: new Float64Array(0), // positions (3 per joint), then orientations (4 per joint)
  kept: new Float64Array(0), // a pose as `old`, then the report's residuals, then its numbers (4)
  keptOnLimit: new Uint8Array(0),
  temp: new Float64Array(16),
};

function grow(jointCount: number, effectorCount: number): void {
  if (shared.moved.length < jointCount) {
    shared.moved = new Uint8Array(jointCount);
    shared.old = new Float64Array(7 * jointCount);
    shared.keptOnLimit = new Uint8Array(jointCount);
  }
  if (shared.kept.length < 7 * jointCount + effectorCount + 4)
    shared.kept = new Float64Array(7 * jointCount + effectorCount + 4);
}

/** One character's carried turns, per joint; sized once per set of targets. */
export class FrameContinuity {
  /** Whether the last frame wrote, so this one may start from it. */
  valid = false;
  /**
   * Whether the last frame's write left any joint a turn to carry (every effector solved fresh leaves none:
   * the next solve then starts from this frame's pose exactly as a solve from the animation would).
   */
  carries = false;
  /** Per joint its turn (4 numbers). */
  private readonly _turns: Float64Array;
  /**
   * Per joint 1 where it is carried: one byte each in the turns' buffer, so the frame's walk over the joints
   * meets one or two lines of memory instead of a number per joint (a crowd's frame meets them cold).
   */
  private readonly _carried: Uint8Array;
  private readonly _joints: number;

  constructor(jointCount: number, effectorCount: number) {
    this._joints = jointCount;
    const buffer = new ArrayBuffer(33 * jointCount);
    this._turns = new Float64Array(buffer, 0, 4 * jointCount);
    this._carried = new Uint8Array(buffer, 32 * jointCount, jointCount);
    grow(jointCount, effectorCount);
  }

  /**
   * Loads what {@link apply} will meet for the read joints of `joints` (the block's joint per slot), adding
   * a number made of it to `sink[0]` (see CharacterPipeline's touch ahead; a double returned is boxed).
   * @internal
   */
  touch(joints: Int32Array, count: number, sink: Float64Array): void {
    const carried = this._carried,
      turns = this._turns;
    let sum = 0;
    for (let k = 0; k < count; k++) {
      const j = joints[k];
      if (carried[j] === 1) sum += turns[4 * j];
    }
    sink[0] += sum;
  }

  /** The next frame starts from its animated pose. */
  reset(): void {
    this.valid = false;
    this.carries = false;
  }

  /** Joint `j` is not carried (it is written this frame and carries nothing, or not written). */
  clear(j: number): void {
    this._carried[j] = 0;
  }

  /** Joint `j` was written `written[wo..]` over its animated local rotation `animated[ao..]`. */
  capture(j: number, animated: Float64Array, ao: number, written: Float64Array, wo: number): void {
    const turns = this._turns;
    quatConjugateMultiply(turns, 4 * j, animated, ao, written, wo);
    if (turns[4 * j + 3] < 0) for (let i = 0; i < 4; i++) turns[4 * j + i] = -turns[4 * j + i];
    const w = turns[4 * j + 3];
    const carried = Number.isFinite(w) && 1 - w > IDENTITY_EPSILON;
    this._carried[j] = carried ? 1 : 0;
    if (carried) this.carries = true;
  }

  /**
   * Turns each carried joint of the block's model-space pose by its carried turn (in its own frame) and
   * carries every read joint below it rigidly. Joints are visited parents first, as the block holds them.
   */
  apply(block: PoseBlock, parents: Int32Array, limits: JointLimits): void {
    const { positions, orientations, ints } = block;
    const carriedJoints = this._carried;
    const { moved, old, temp } = shared;
    const oldO = 3 * this._joints;
    const count = block.size;
    for (let k = 0; k < count; k++) {
      const j = ints[k];
      const p = parents[j];
      const parentMoved = p >= 0 && moved[p] === 1;
      const carried = carriedJoints[j] === 1;
      moved[j] = 0;
      if (!parentMoved && !carried) continue;
      const j3 = 3 * j,
        j4 = 4 * j;
      for (let i = 0; i < 3; i++) old[j3 + i] = positions[j3 + i];
      for (let i = 0; i < 4; i++) old[oldO + j4 + i] = orientations[j4 + i];
      if (parentMoved) {
        // Where the joint sits and how it turns in its parent's frame, before; the same under the parent now.
        const p3 = 3 * p,
          p4 = 4 * p;
        for (let i = 0; i < 3; i++) temp[i] = old[j3 + i] - old[p3 + i];
        quatRotateInverse(temp, 0, old, oldO + p4, temp, 0);
        quatRotate(temp, 0, orientations, p4, temp, 0);
        for (let i = 0; i < 3; i++) positions[j3 + i] = positions[p3 + i] + temp[i];
        quatConjugateMultiply(temp, 4, old, oldO + p4, old, oldO + j4);
        quatMultiply(orientations, j4, orientations, p4, temp, 4);
      }
      if (carried) this._turn(j, p, orientations, limits);
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
    const temp = shared.temp;
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
    const kept = shared.kept;
    const { positions, orientations } = block;
    const split = positions.length,
      end = split + orientations.length;
    kept.set(positions);
    kept.set(orientations, split);
    kept.set(report.residuals, end);
    shared.keptOnLimit.set(report.onLimit);
    const n = end + report.residuals.length;
    kept[n] = report.iterations;
    kept[n + 1] = report.converged ? 1 : 0;
    kept[n + 2] = report.maxResidual;
    kept[n + 3] = report.escapes;
  }

  /**
   * The block's solved pose, which meets its targets, pulled toward the pose of {@link keep} where it turned a
   * joint far from it (answerNearPose.ts), within `budget` iterations, the plan's report measured again. Returns
   * the iterations used.
   */
  pullTowardKept(plan: SolvePlan, block: PoseBlock, targets: Float64Array, budget: number): number {
    const { positions, orientations } = block;
    return pullTowardPose(plan, positions, orientations, shared.kept, positions.length, targets, budget);
  }

  /** Puts back the pose and report of {@link keep}; the iterations of the solve since are added. */
  takeBack(block: PoseBlock, report: SolveReport): void {
    const kept = shared.kept;
    const { positions, orientations } = block;
    const residuals = report.residuals;
    const split = positions.length,
      end = split + orientations.length;
    for (let i = 0; i < split; i++) positions[i] = kept[i];
    for (let i = 0; i < orientations.length; i++) orientations[i] = kept[split + i];
    for (let i = 0; i < residuals.length; i++) residuals[i] = kept[end + i];
    // The shared array is as long as the largest rig's: only this rig's part is read back.
    const onLimit = report.onLimit,
      keptOnLimit = shared.keptOnLimit;
    for (let i = 0; i < onLimit.length; i++) onLimit[i] = keptOnLimit[i];
    const n = end + residuals.length;
    report.iterations += kept[n];
    report.converged = kept[n + 1] === 1;
    report.maxResidual = kept[n + 2];
    report.escapes += kept[n + 3];
  }
}
