import { projectRotation } from "../solver/jointLimitProjection.js";
import { LIMIT_FIXED, LIMIT_ROTATION, type JointLimits } from "../solver/limits.js";
import type { SolvePlan } from "../solver/plan.js";
import { quatConjugateMultiply, quatMultiply } from "../solver/quaternion.js";
import { FrameContinuity } from "./frameContinuity.js";
import { ROTATION_CHANGED, SLOT_R, SLOT_STRIDE, type PoseBlock } from "./poseBlock.js";

/** Slots of {@link RotationBlend.numbers}: inputs kept in an array so no double is boxed on a call. */
export const GLOBAL_WEIGHT_SLOT = 0;
const JOINT_WEIGHT_SLOT = 1;
const LOCAL = 4;
const SCRATCH = 8;

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
  /** Joint per entry, parents first (a view of the layout, for tools). */
  readonly joints: Int32Array;
  /** What this frame wrote, as turns from the animation: where the next frame's solve starts. */
  readonly continuity: FrameContinuity;
  /**
   * Scratch inputs: [GLOBAL_WEIGHT_SLOT] is set by the caller before {@link compose}; the local rotation
   * being made at LOCAL, the limit projection's scratch at SCRATCH.
   */
  readonly numbers = new Float64Array(SCRATCH + 24);
  /**
   * The layout in one array (a frame meets it cold, and each array is one more fetch): per entry its joint
   * at 0, the effector whose orientation it takes (or -1) at `_matchedAt`, whether the solver turns it at
   * `_solvedAt`; the effectors turning entry `s` at `_touchEffectorsAt + [start(s), start(s + 1))`, the
   * starts at `_touchStartAt`.
   */
  private readonly _layout: Int32Array;
  private readonly _matchedAt: number;
  private readonly _touchStartAt: number;
  private readonly _touchEffectorsAt: number;
  private readonly _solvedAt: number;
  /** Per entry, 1 when no effector turning it is solved fresh each frame (see the constructor). */
  private readonly _carries: Uint8Array;

  /**
   * Lays out the rotations of `plan`. `matchOrientation[e]` is 1 for effectors that take their target's
   * orientation; `fresh[e]` is 1 for effectors whose chains start from the animation every frame rather than
   * from the last frame's answer (see FrameContinuity).
   */
  constructor(plan: SolvePlan, matchOrientation: Uint8Array, fresh: Uint8Array) {
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
    const starts = [0];
    for (let s = 0; s < m; s++) starts.push(starts[s] + touches[s].length);
    this._layout = Int32Array.from([
      ...sortedJoints,
      ...order.map((s) => matched[s]),
      ...starts,
      ...flat,
      ...order.map((s) => solved[s]),
    ]);
    this._matchedAt = m;
    this._touchStartAt = 2 * m;
    this._touchEffectorsAt = 3 * m + 1;
    this._solvedAt = 3 * m + 1 + flat.length;
    this.joints = this._layout.subarray(0, m);
    this._carries = Uint8Array.from(touches, (es) => (es.some((e) => fresh[e] === 1) ? 0 : 1));
    this.continuity = new FrameContinuity(n, plan.effectorCount);
  }

  /**
   * Loads what a frame of the blend will meet, continuity included (see FrameContinuity.touch).
   * @internal
   */
  touch(joints: Int32Array, count: number, sink: Float64Array): void {
    sink[0] += this.numbers[0] + this._layout[0] + this._carries[0];
    this.continuity.touch(joints, count, sink);
  }

  /**
   * Into the frame's local rotations (`block`): every entry's solved rotation, blended from the rotation the
   * frame holds (animated, or changed by a pass) by its weight. `orientations`: the solved model-space pose;
   * in `numbers` per effector (see CompiledTargets): its blend weight 0..1 at `blendAt` (0 for one skipped
   * this frame), the model-space orientation to take on at `orientationsAt` and whether it is usable this
   * frame at `validAt`. Returns the number of joints changed.
   */
  compose(
    block: PoseBlock,
    parents: Int32Array,
    orientations: Float64Array,
    numbersIn: Float64Array,
    blendAt: number,
    orientationsAt: number,
    validAt: number,
    limits: JointLimits,
  ): number {
    const layout = this._layout;
    const m = this._matchedAt;
    const numbers = this.numbers;
    const global = numbers[GLOBAL_WEIGHT_SLOT];
    const slots = block.d;
    const starts = this._touchStartAt,
      touchEffectors = this._touchEffectorsAt;
    let count = 0;
    const continuity = this.continuity;
    continuity.carries = false;
    for (let s = 0; s < m; s++) {
      continuity.clear(layout[s]);
      let weight = 0;
      for (let k = layout[starts + s]; k < layout[starts + s + 1]; k++) {
        const w = numbersIn[blendAt + layout[touchEffectors + k]];
        if (w > weight) weight = w;
      }
      weight *= global;
      if (!(weight > 0)) continue;
      const j = layout[s];
      const slot = block.ints[block.slotOfAt + j];
      const r = block.slotsAt + SLOT_STRIDE * slot + SLOT_R;
      const p = parents[j];
      const e = layout[this._matchedAt + s];
      if (e >= 0 && numbersIn[validAt + e] === 1) {
        if (!this._matchedLocal(j, p, orientations, numbersIn, orientationsAt + 4 * e, slots, r, limits))
          continue;
      } else if (layout[this._solvedAt + s] === 1) {
        if (p >= 0) quatConjugateMultiply(numbers, LOCAL, orientations, 4 * p, orientations, 4 * j);
        else for (let i = 0; i < 4; i++) numbers[LOCAL + i] = orientations[4 * j + i];
      } else {
        continue;
      }
      if (weight < 1) {
        numbers[JOINT_WEIGHT_SLOT] = weight;
        slerpFrom(numbers, LOCAL, slots, r, numbers, JOINT_WEIGHT_SLOT);
      }
      if (!isFiniteQuaternion(numbers, LOCAL)) continue;
      if (this._carries[s] === 1) continuity.capture(j, slots, r, numbers, LOCAL);
      slots[r] = numbers[LOCAL];
      slots[r + 1] = numbers[LOCAL + 1];
      slots[r + 2] = numbers[LOCAL + 2];
      slots[r + 3] = numbers[LOCAL + 3];
      block.mark(slot, ROTATION_CHANGED);
      count++;
    }
    continuity.valid = true;
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
    const n = this.numbers;
    const flags = limits.flags[j];
    if (flags & LIMIT_FIXED) {
      for (let i = 0; i < 4; i++) n[LOCAL + i] = animated[ao + i];
      return true;
    }
    if (p >= 0) quatConjugateMultiply(n, LOCAL, orientations, 4 * p, target, to);
    else for (let i = 0; i < 4; i++) n[LOCAL + i] = target[to + i];
    if (flags & LIMIT_ROTATION) {
      // Limits measure Δ = rest⁻¹ · local.
      quatConjugateMultiply(n, SCRATCH, limits.restLocal, 4 * j, n, LOCAL);
      projectRotation(limits, j, n, SCRATCH, n, SCRATCH + 4);
      quatMultiply(n, LOCAL, limits.restLocal, 4 * j, n, SCRATCH);
    }
    return true;
  }
}

/** q[qo..qo+3] = slerp(from[fo..], q, t[ti]) along the shorter arc; `t` in [0, 1]. */
export function slerpFrom(
  q: Float64Array,
  qo: number,
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
  let bx = q[qo],
    by = q[qo + 1],
    bz = q[qo + 2],
    bw = q[qo + 3];
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
  q[qo] = x / len;
  q[qo + 1] = y / len;
  q[qo + 2] = z / len;
  q[qo + 3] = w / len;
}

function isFiniteQuaternion(q: Float64Array, o: number): boolean {
  return (
    Number.isFinite(q[o]) &&
    Number.isFinite(q[o + 1]) &&
    Number.isFinite(q[o + 2]) &&
    Number.isFinite(q[o + 3])
  );
}
