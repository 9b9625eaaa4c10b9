import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { SkeletonRig } from "./skeletonRig.js";

/** A joint's local transform lives on its linked TransformNode (glTF) or, without one, on the Bone itself. */
export type JointHolder = TransformNode | Bone;

/*
 * Per slot (a joint the frame reads), `SLOT_STRIDE` numbers side by side, so everything the frame knows of a
 * joint shares a few cache lines: its local translation, unit rotation and scale as the frame has them (read,
 * then changed by passes and the solve: what is written), the rotation exactly as read (or the Euler angles
 * of a node without a quaternion) and the translation as read once a pass changes it (both put back after
 * the frame), and its model-space basis.
 */
export const SLOT_T = 0;
export const SLOT_R = 3;
export const SLOT_S = 7;
export const SLOT_RAW = 10;
export const SLOT_SAVED_T = 14;
export const SLOT_BASIS = 17;
export const SLOT_STRIDE = 26;

/* Flags per slot. */
/** The node was rotated by Euler angles when read: `SLOT_RAW` holds them. */
export const EULER = 1;
export const ROTATION_CHANGED = 2;
export const POSITION_CHANGED = 4;
export const ROTATION_WRITTEN = 8;
export const POSITION_WRITTEN = 16;
/** Joined the layout during a frame: not read yet. */
export const UNREAD = 32;
/** Bits 6–7: the half turn its scale's signs were folded into its rotation with (scaleFold.ts), 0 for none. */
export const FOLD_SHIFT = 6;

/**
 * One character's per-frame state in one block of memory, sized to the joints it reads and writes: the
 * model-space pose the solver works in (positions and orientations, indexed by joint as the solver needs),
 * and per read joint its slot (see the offsets above), flags and holder. Built when the set of joints
 * changes (new targets, passes), never per frame.
 *
 * The per-frame loops go through three views of the block, `d` (numbers), `ints` and `bytes`, at the
 * offsets below, rather than through a typed array per kind: with a hundred characters each frame meets
 * every character's arrays cold, and each array object is one more fetch from memory before its numbers.
 */
export class PoseBlock {
  /** Numbers: positions (3 per joint) at 0, orientations (4 per joint) at {@link orientationsAt}, the slots at {@link slotsAt}. */
  readonly d: Float64Array;
  readonly orientationsAt: number;
  readonly slotsAt: number;
  /**
   * Whole numbers: per slot its joint at 0 (parents first), its parent's slot (-1 for a root joint) at
   * {@link parentAt}, the touched slots at {@link touchedAt} (see {@link touchedCount}); per joint its slot
   * (or -1) at {@link slotOfAt}.
   */
  readonly ints: Int32Array;
  readonly parentAt: number;
  readonly touchedAt: number;
  readonly slotOfAt: number;
  /** Per slot: its flags at 0, 1 when its holder is a Bone at {@link isBoneAt}. */
  readonly bytes: Uint8Array;
  readonly isBoneAt: number;
  /** Views for the solver and the frame's passes: model-space positions and orientations. */
  readonly positions: Float64Array;
  readonly orientations: Float64Array;
  /** Views for building and tools (not the frame's loops): joint per slot, slot per joint. */
  readonly joints: Int32Array;
  readonly slotOf: Int32Array;
  /**
   * How many slots the frame changed or wrote (listed at {@link touchedAt}), so writing and putting back
   * visit those alone (a character reads its arm's ancestors every frame, and writes the arm).
   */
  touchedCount = 0;
  readonly holders: readonly JointHolder[];
  /** Quaternions of the block's own, for nodes rotated by Euler angles (made when first written). */
  readonly owned: (Quaternion | null)[];
  /** The quaternion each node slot's rotation was written into, until put back. */
  readonly written: (Quaternion | null)[];

  /** `wanted`: 1 per joint to read (ancestors of wanted joints must be wanted too). */
  constructor(rig: SkeletonRig, wanted: Uint8Array) {
    const n = rig.jointCount;
    let count = 0;
    for (let j = 0; j < n; j++) count += wanted[j];
    const f64 = 7 * n + SLOT_STRIDE * count;
    const i32 = 3 * count + n;
    const buffer = new ArrayBuffer((8 * f64 + 4 * i32 + 2 * count + 7) & ~7);
    this.d = new Float64Array(buffer, 0, f64);
    this.orientationsAt = 3 * n;
    this.slotsAt = 7 * n;
    this.positions = new Float64Array(buffer, 0, 3 * n);
    this.orientations = new Float64Array(buffer, 24 * n, 4 * n);
    this.ints = new Int32Array(buffer, 8 * f64, i32);
    this.parentAt = count;
    this.touchedAt = 2 * count;
    this.slotOfAt = 3 * count;
    this.joints = new Int32Array(buffer, 8 * f64, count);
    this.slotOf = new Int32Array(buffer, 8 * f64 + 12 * count, n);
    this.bytes = new Uint8Array(buffer, 8 * f64 + 4 * i32, 2 * count);
    this.isBoneAt = count;
    this.slotOf.fill(-1);
    const holders: JointHolder[] = [];
    for (let j = 0, k = 0; j < n; j++) {
      if (wanted[j] === 0) continue;
      this.joints[k] = j;
      this.slotOf[j] = k;
      const p = rig.parents[j];
      this.ints[this.parentAt + k] = p >= 0 ? this.slotOf[p] : -1;
      const node = rig.nodes[j];
      holders.push(node ?? rig.bones[j][0]);
      this.bytes[this.isBoneAt + k] = node === null ? 1 : 0;
      this.bytes[k] = UNREAD;
      k++;
    }
    this.holders = holders;
    this.owned = new Array<Quaternion | null>(count).fill(null);
    this.written = new Array<Quaternion | null>(count).fill(null);
  }

  get size(): number {
    return this.joints.length;
  }

  /** Offset in {@link d} of slot `k`'s numbers. */
  slot(k: number): number {
    return this.slotsAt + SLOT_STRIDE * k;
  }

  /** Sets `bit` (a CHANGED flag) on slot `k`, listing the slot among the touched ones the first time. */
  mark(k: number, bit: number): void {
    const f = this.bytes[k];
    if ((f & (ROTATION_CHANGED | POSITION_CHANGED | ROTATION_WRITTEN | POSITION_WRITTEN)) === 0) {
      this.ints[this.touchedAt + this.touchedCount++] = k;
    }
    this.bytes[k] = f | bit;
  }

  /**
   * Takes over what `from` knows of the joints both hold (numbers, flags, own quaternions), so a layout can
   * change in the middle of a frame without reading again or losing what was written.
   */
  copyFrom(from: PoseBlock): void {
    this.positions.set(from.positions);
    this.orientations.set(from.orientations);
    for (let k = 0; k < this.size; k++) {
      const old = from.slotOf[this.joints[k]];
      if (old < 0) continue;
      const at = from.slot(old);
      this.d.set(from.d.subarray(at, at + SLOT_STRIDE), this.slot(k));
      this.bytes[k] = from.bytes[old];
      this.owned[k] = from.owned[old];
      this.written[k] = from.written[old];
      if (this.bytes[k] & (ROTATION_CHANGED | POSITION_CHANGED | ROTATION_WRITTEN | POSITION_WRITTEN)) {
        this.ints[this.touchedAt + this.touchedCount++] = k;
      }
    }
  }
}

/**
 * 1 per joint in `joints` and their ancestors (forward kinematics needs them), 0 elsewhere; `null` when a
 * joint is not one of the rig's.
 */
export function wantedJoints(parents: Int32Array, joints: ArrayLike<number>): Uint8Array | null {
  const n = parents.length;
  const wanted = new Uint8Array(n);
  for (let k = 0; k < joints.length; k++) {
    const joint = joints[k];
    if (!Number.isInteger(joint) || joint < 0 || joint >= n) return null;
    for (let j = joint; j >= 0 && wanted[j] === 0; j = parents[j]) wanted[j] = 1;
  }
  return wanted;
}
