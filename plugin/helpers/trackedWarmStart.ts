import type { FabrikFrame, SkeletonRig } from "../babylon/index.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { slerp4 } from "./trackedMath.js";

/**
 * Where each frame's solve starts: the last frame's solution, not the animated pose. The behavior solves
 * every frame from the pose the passes leave, which with the animation off is the rest pose; a spine and two
 * arms reaching three targets have many solutions, and starting afresh each frame lands on a slightly
 * different one each time (the interior joints jitter) after many iterations. Started from the last solution,
 * the solve only follows the targets' motion.
 *
 * Each group starts from the last solution by its own weight, so a group whose tracker fades out starts
 * from (and shows) its animation again: the spine by the head's weight, each arm by its hand's. (The legs are
 * left out: two ends fix a leg's solution but for the knee's swing, and a foot hanging from the root, as on
 * Blender-IK rigs, is moved by the behavior itself.)
 */
export class TrackedWarmStart {
  /** Joints by group: spine (above the hips up to the head), left arm, right arm. */
  private readonly _joints: Int32Array;
  private readonly _group: Uint8Array;
  private readonly _solved: Float64Array;
  private readonly _q = new Float64Array(8);
  private _valid = false;

  constructor(rig: SkeletonRig, body: TrackedBodyRig) {
    const joints: number[] = [];
    const groups: number[] = [];
    for (let j = body.head; j !== body.hips; j = rig.parents[j]) {
      joints.push(j);
      groups.push(0);
    }
    body.sides.forEach((side, i) => {
      const shoulder = rig.parents[side.upperArm];
      for (const j of [shoulder, side.upperArm, side.lowerArm, side.hand]) {
        if (j < 0 || joints.includes(j)) continue;
        joints.push(j);
        groups.push(1 + i);
      }
    });
    this._joints = Int32Array.from(joints);
    this._group = Uint8Array.from(groups);
    this._solved = new Float64Array(4 * joints.length);
  }

  /** Every joint it reads and writes (the pass must declare them). */
  get joints(): readonly number[] {
    return Array.from(this._joints);
  }

  /** Forgets the last solution (a teleport, a calibration). */
  reset(): void {
    this._valid = false;
  }

  /**
   * After the frame's solve: whether it converged. A solve that did not (a target out of reach) is no place
   * to start from: pulled between the targets, successive solves started from each other's ends can swing
   * back and forth, while solves from the animation land on the same pose each frame.
   */
  solved(converged: boolean): void {
    if (!converged) this._valid = false;
  }

  /** After the solve: keeps the solution. */
  store(frame: FabrikFrame): void {
    for (let k = 0; k < this._joints.length; k++)
      frame.getLocalRotation(this._joints[k], this._solved, 4 * k);
    this._valid = true;
  }

  /** Replaces the kept solution's local rotation of `joint` (one of its joints) by `q[o..o+3]`. */
  replace(joint: number, q: Float64Array, o: number): void {
    for (let k = 0; k < this._joints.length; k++) {
      if (this._joints[k] !== joint) continue;
      for (let i = 0; i < 4; i++) this._solved[4 * k + i] = q[o + i];
      return;
    }
  }

  /**
   * Before the solve: each joint turned from its animated rotation toward the last solution by its group's
   * weight, `weights[o + group]` (spine, left arm, right arm). False when there is no solution yet.
   */
  apply(frame: FabrikFrame, weights: Float64Array, o: number): boolean {
    if (!this._valid) return false;
    const q = this._q;
    for (let k = 0; k < this._joints.length; k++) {
      const at = o + this._group[k];
      if (!(weights[at] > 0)) continue;
      const j = this._joints[k];
      frame.getLocalRotation(j, q, 0);
      for (let i = 0; i < 4; i++) q[4 + i] = this._solved[4 * k + i];
      slerp4(q, 0, q, 0, 4, weights, at);
      frame.setLocalRotation(j, q, 0);
    }
    return true;
  }
}
