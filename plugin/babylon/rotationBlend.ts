import { projectRotation } from "../solver/jointLimitProjection.js";
import { LIMIT_FIXED, LIMIT_ROTATION, type JointLimits } from "../solver/limits.js";
import type { SolvePlan } from "../solver/plan.js";
import { quatConjugateMultiply, quatMultiply } from "../solver/quaternion.js";
import { ROTATION_CHANGED, SLOT_R, SLOT_STRIDE, type PoseBlock } from "./poseBlock.js";

/** Slots of {@link RotationBlend.numbers}: inputs kept in an array so no double is boxed on a call. */
export const GLOBAL_WEIGHT_SLOT = 0;
const JOINT_WEIGHT_SLOT = 1;

/**
 * Turns a solve into the local rotations the frame writes, blended from the animated ones.
 *
 * The joints written are those whose local rotation a solve changes: the plan's rotating joints (chain
 * bases and every moved joint with moved children). Effectors and the joints hanging below keep their
 * animated local rotations, which is exactly "carried along rigidly"; an effector whose target orientation
 * is matched is written too. Each joint's local rotation is `conj(parent) · joint` of the solved model-space
 * orientations, so the mirrored glTF `__root__`, armature scales and parents above the model root never
 * enter: they are the same on both sides of the product.
 *
 * Blend weight of a joint: the global weight times the largest weight of the effectors whose chains turn it
 * (a shared spine joint follows the most wanted effector rather than the average, so fading one hand out does
 * not slacken the other's reach). A joint whose blend weight is 0 is not touched at all.
 */
export class RotationBlend {
  /** Joint per entry, parents first. */
  readonly joints: Int32Array;
  /** Scratch inputs: [GLOBAL_WEIGHT_SLOT] is set by the caller before {@link compose}. */
  readonly numbers: Float64Array;
  /** Effectors whose chains turn entry `s`: `touchEffectors[touchStart[s] .. touchStart[s + 1])`. */
  private readonly _touchStart: Int32Array;
  private readonly _touchEffectors: Int32Array;
  /** 1 when the solver turns the entry's joint. */
  private readonly _solved: Uint8Array;
  /** Effector whose target orientation the entry's joint takes, or -1. */
  private readonly _matched: Int32Array;
  private readonly _local: Float64Array;
  private readonly _scratch: Float64Array;

  /**
   * Lays out the rotations of `plan`. `matchOrientation[e]` is 1 for effectors that take their target's
   * orientation.
   */
  constructor(plan: SolvePlan, matchOrientation: Uint8Array) {
    const n = plan.rig.jointCount;
    const parents = plan.rig.parents;
    const slotOf = new Int32Array(n).fill(-1);
    const joints: number[] = [];
    const solved: number[] = [];
    const matched: number[] = [];
    const addSlot = (j: number): number => {
      if (slotOf[j] < 0) {
        slotOf[j] = joints.length;
        joints.push(j);
        solved.push(0);
        matched.push(-1);
      }
      return slotOf[j];
    };
    for (let k = 0; k < plan.rotatingJoints.length; k++) solved[addSlot(plan.rotatingJoints[k])] = 1;
    for (let e = 0; e < plan.effectorCount; e++) {
      if (matchOrientation[e]) matched[addSlot(plan.effectorJoints[e])] = e;
    }
    // Parents first, so a blend walks the tree downwards like the solver (and like Babylon's FK).
    const order = joints.map((_, s) => s).sort((a, b) => joints[a] - joints[b]);
    const sortedJoints = order.map((s) => joints[s]);
    for (let s = 0; s < sortedJoints.length; s++) slotOf[sortedJoints[s]] = s;

    // The effectors turning each entry: every joint from the effector up to its component's base.
    const touches: number[][] = sortedJoints.map(() => []);
    for (let e = 0; e < plan.effectorCount; e++) {
      const first = plan.effectorPathStart[e],
        last = plan.effectorPathStart[e + 1];
      const top = last > first ? parents[plan.effectorPath[first]] : -1;
      const path = [top];
      for (let k = first; k < last; k++) path.push(plan.effectorPath[k]);
      for (const j of path) {
        if (j < 0) continue;
        const s = slotOf[j];
        if (s < 0) continue;
        if (j === plan.effectorJoints[e] && !matchOrientation[e]) continue;
        if (!touches[s].includes(e)) touches[s].push(e);
      }
    }
    const m = sortedJoints.length;
    const flat = touches.flat();
    // One block: the layout and the scratch of a frame.
    const buffer = new ArrayBuffer(8 * (4 + 4 + 24) + 4 * (m + m + 1 + flat.length) + m + 7);
    this.numbers = new Float64Array(buffer, 0, 4);
    this._local = new Float64Array(buffer, 32, 4);
    this._scratch = new Float64Array(buffer, 64, 24);
    let offset = 256;
    this.joints = Int32Array.from(sortedJoints);
    this._matched = new Int32Array(buffer, offset, m);
    this._matched.set(order.map((s) => matched[s]));
    this._touchStart = new Int32Array(buffer, (offset += 4 * m), m + 1);
    for (let s = 0; s < m; s++) this._touchStart[s + 1] = this._touchStart[s] + touches[s].length;
    this._touchEffectors = new Int32Array(buffer, (offset += 4 * (m + 1)), flat.length);
    this._touchEffectors.set(flat);
    this._solved = new Uint8Array(buffer, offset + 4 * flat.length, m);
    this._solved.set(order.map((s) => solved[s]));
  }

  /**
   * Into the frame's local rotations (`pose`): every entry's solved rotation, blended from the rotation the
   * frame holds (animated, or changed by a pass) by its weight. `orientations`: the solved model-space pose;
   * `effectorBlend`: per effector 0..1 (0 for one skipped this frame); `targetOrientations` and
   * `orientationValid`: per effector, the model-space orientation to take on and whether it is usable this
   * frame. Returns the number of joints changed.
   */
  compose(
    block: PoseBlock,
    parents: Int32Array,
    orientations: Float64Array,
    effectorBlend: Float64Array,
    targetOrientations: Float64Array,
    orientationValid: Uint8Array,
    limits: JointLimits,
  ): number {
    const joints = this.joints;
    const numbers = this.numbers;
    const global = numbers[GLOBAL_WEIGHT_SLOT];
    const local = this._local;
    const slots = block.slots;
    let count = 0;
    for (let s = 0; s < joints.length; s++) {
      let weight = 0;
      for (let k = this._touchStart[s]; k < this._touchStart[s + 1]; k++) {
        const w = effectorBlend[this._touchEffectors[k]];
        if (w > weight) weight = w;
      }
      weight *= global;
      if (!(weight > 0)) continue;
      const j = joints[s];
      const slot = block.slotOf[j];
      const r = SLOT_STRIDE * slot + SLOT_R;
      const p = parents[j];
      const e = this._matched[s];
      if (e >= 0 && orientationValid[e] === 1) {
        if (!this._matchedLocal(j, p, orientations, targetOrientations, 4 * e, slots, r, limits)) continue;
      } else if (this._solved[s] === 1) {
        if (p >= 0) quatConjugateMultiply(local, 0, orientations, 4 * p, orientations, 4 * j);
        else for (let i = 0; i < 4; i++) local[i] = orientations[4 * j + i];
      } else {
        continue;
      }
      if (weight < 1) {
        numbers[JOINT_WEIGHT_SLOT] = weight;
        slerpFrom(local, slots, r, numbers, JOINT_WEIGHT_SLOT);
      }
      if (!isFiniteQuaternion(local)) continue;
      slots[r] = local[0];
      slots[r + 1] = local[1];
      slots[r + 2] = local[2];
      slots[r + 3] = local[3];
      block.flags[slot] |= ROTATION_CHANGED;
      count++;
    }
    return count;
  }

  /**
   * The local rotation that gives joint `j` the model-space orientation `target[to..]` under its solved
   * parent, kept within the joint's limits; for a fixed joint, the rotation it has (`animated[ao..]`).
   */
  private _matchedLocal(
    j: number,
    p: number,
    orientations: Float64Array,
    target: Float64Array,
    to: number,
    animated: Float64Array,
    ao: number,
    limits: JointLimits,
  ): boolean {
    const local = this._local;
    const flags = limits.flags[j];
    if (flags & LIMIT_FIXED) {
      for (let i = 0; i < 4; i++) local[i] = animated[ao + i];
      return true;
    }
    if (p >= 0) quatConjugateMultiply(local, 0, orientations, 4 * p, target, to);
    else for (let i = 0; i < 4; i++) local[i] = target[to + i];
    if (flags & LIMIT_ROTATION) {
      const scratch = this._scratch;
      // Limits measure Δ = rest⁻¹ · local.
      quatConjugateMultiply(scratch, 0, limits.restLocal, 4 * j, local, 0);
      projectRotation(limits, j, scratch, 0, scratch, 4);
      quatMultiply(local, 0, limits.restLocal, 4 * j, scratch, 0);
    }
    return true;
  }
}

/** q[0..3] = slerp(from[fo..], q, t[ti]) along the shorter arc; `t` in [0, 1]. */
export function slerpFrom(
  q: Float64Array,
  from: Float64Array,
  fo: number,
  t: Float64Array,
  ti: number,
): void {
  const u = t[ti];
  const ax = from[fo],
    ay = from[fo + 1],
    az = from[fo + 2],
    aw = from[fo + 3];
  let bx = q[0],
    by = q[1],
    bz = q[2],
    bw = q[3];
  let dot = ax * bx + ay * by + az * bz + aw * bw;
  if (dot < 0) {
    bx = -bx;
    by = -by;
    bz = -bz;
    bw = -bw;
    dot = -dot;
  }
  let wa: number, wb: number;
  if (dot > 0.9999) {
    // Nearly equal: linear blend, normalised below (sin θ would divide by ~0).
    wa = 1 - u;
    wb = u;
  } else {
    const theta = Math.acos(dot);
    const sin = Math.sin(theta);
    wa = Math.sin((1 - u) * theta) / sin;
    wb = Math.sin(u * theta) / sin;
  }
  const x = wa * ax + wb * bx,
    y = wa * ay + wb * by,
    z = wa * az + wb * bz,
    w = wa * aw + wb * bw;
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  q[0] = x / len;
  q[1] = y / len;
  q[2] = z / len;
  q[3] = w / len;
}

function isFiniteQuaternion(q: Float64Array): boolean {
  return Number.isFinite(q[0]) && Number.isFinite(q[1]) && Number.isFinite(q[2]) && Number.isFinite(q[3]);
}
