import type { FabrikFrame, SkeletonRig } from "../babylon/index.js";
import { quatConjugateMultiply, quatMultiply, quatMultiplyConjugate, quatScaleAngle } from "../rig/index.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { chestTwistShare } from "./trackedChestTwist.js";
import { slerp4 } from "./trackedMath.js";
import { SPINE_TWIST } from "./trackedSlots.js";

/**
 * The share of its length an arm spans, shoulder to hand, in the pose `p` (three numbers a joint), into
 * `out[o]` (a slot: a double returned from a call V8 does not inline is boxed).
 */
function armReach(
  p: Float64Array,
  upperArm: number,
  lowerArm: number,
  hand: number,
  out: Float64Array,
  o: number,
): void {
  let reach = 0,
    upper = 0,
    lower = 0;
  for (let k = 0; k < 3; k++) {
    const r = p[3 * hand + k] - p[3 * upperArm + k],
      u = p[3 * upperArm + k] - p[3 * lowerArm + k],
      l = p[3 * lowerArm + k] - p[3 * hand + k];
    reach += r * r;
    upper += u * u;
    lower += l * l;
  }
  out[o] = Math.sqrt(reach) / (Math.sqrt(upper) + Math.sqrt(lower));
}

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
 *
 * The spine's joints below the head take only `v[SPINE_TWIST]` of the last solution's twist about their bones
 * (see chestTwistShare), and the group's weight of the rest of their turn: the solve keeps the twist it starts
 * from, so a twist the arms put in the chest one frame would otherwise stay, and grow, over the next.
 */
export class TrackedWarmStart {
  /** Joints by group: spine (above the hips up to the head), left arm, right arm. */
  private readonly _joints: Int32Array;
  private readonly _group: Uint8Array;
  private readonly _solved: Float64Array;
  /** Scratch: two rotations, two more, then the weight and the twist's share (doubles passed in an array). */
  private readonly _q = new Float64Array(18);
  /** Per joint: the unit bone direction (to its child on the spine) in its own frame; zeros where none. */
  private readonly _axes: Float64Array;
  private _valid = false;
  /** How straight the straighter arm was in the last solution: its hand's distance from its shoulder / its length. */
  private readonly _stretch = new Float64Array(1);

  private readonly _body: TrackedBodyRig;

  constructor(rig: SkeletonRig, body: TrackedBodyRig) {
    this._body = body;
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
    this._axes = new Float64Array(3 * joints.length);
    // Each spine joint's bone runs to the joint before it in the list (its child on the way to the head).
    for (let k = 1; k < joints.length && groups[k] === 0; k++) {
      const t = rig.restTranslations,
        c = 3 * joints[k - 1];
      const len = Math.hypot(t[c], t[c + 1], t[c + 2]);
      if (len > 0) for (let i = 0; i < 3; i++) this._axes[3 * k + i] = t[c + i] / len;
    }
    this._group = Uint8Array.from(groups);
    this._solved = new Float64Array(4 * joints.length);
  }

  /** Every joint it reads and writes (the pass must declare them). */
  get joints(): readonly number[] {
    return Array.from(this._joints);
  }

  /**
   * `q[12..15]`: the animated rotation `q[0..3]` turned toward the solution `q[4..7]` by the weight `q[16]` of
   * its swing and the share `q[17]` × that of its twist about joint k's bone. False when joint k has no bone direction (the
   * head) or the turn is a half turn about a line square to the bone (no twist to tell).
   */
  private _startUntwisted(k: number): boolean {
    const q = this._q,
      a = this._axes,
      o = 3 * k;
    if (a[o] === 0 && a[o + 1] === 0 && a[o + 2] === 0) return false;
    // The turn from the animated rotation to the solution, in the joint's own frame: swing × twist.
    quatConjugateMultiply(q, 8, q, 0, q, 4);
    const d = q[8] * a[o] + q[9] * a[o + 1] + q[10] * a[o + 2];
    q[12] = d * a[o];
    q[13] = d * a[o + 1];
    q[14] = d * a[o + 2];
    q[15] = q[11];
    const n = Math.sqrt(q[12] * q[12] + q[13] * q[13] + q[14] * q[14] + q[15] * q[15]);
    if (!(n > 1e-9)) return false;
    for (let i = 12; i < 16; i++) q[i] /= n;
    // The swing into q[8..11], the twist kept in q[12..15]; each scaled by its share.
    quatMultiplyConjugate(q, 8, q, 8, q, 12);
    quatScaleAngle(q, 8, q, 16);
    q[17] *= q[16];
    quatScaleAngle(q, 12, q, 17);
    quatMultiply(q, 8, q, 8, q, 12);
    quatMultiply(q, 12, q, 0, q, 8);
    return true;
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
    const p = frame.positions;
    let most = 0;
    for (let i = 0; i < 2; i++) {
      const s = this._body.sides[i];
      armReach(p, s.upperArm, s.lowerArm, s.hand, this._stretch, 0);
      if (this._stretch[0] > most) most = this._stretch[0];
    }
    this._stretch[0] = most;
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
   * weight, `weights[o + group]` (spine, left arm, right arm), the spine's twist by `weights[SPINE_TWIST]` of
   * that (set here from the trackers: `weights` is the body's slots). False when there is no solution yet.
   */
  apply(frame: FabrikFrame, weights: Float64Array, o: number): boolean {
    if (!this._valid) return false;
    chestTwistShare(weights, this._body, this._stretch);
    const q = this._q;
    for (let k = 0; k < this._joints.length; k++) {
      const at = o + this._group[k];
      if (!(weights[at] > 0)) continue;
      const j = this._joints[k];
      frame.getLocalRotation(j, q, 0);
      for (let i = 0; i < 4; i++) q[4 + i] = this._solved[4 * k + i];
      if (this._group[k] === 0 && weights[SPINE_TWIST] < 1) {
        q[16] = weights[at];
        q[17] = weights[SPINE_TWIST];
        if (this._startUntwisted(k)) {
          frame.setLocalRotation(j, q, 12);
          continue;
        }
      }
      slerp4(q, 0, q, 0, 4, weights, at);
      frame.setLocalRotation(j, q, 0);
    }
    return true;
  }
}
