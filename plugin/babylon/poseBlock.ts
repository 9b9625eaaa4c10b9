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

/**
 * One character's per-frame state in one block of memory, sized to the joints it reads and writes: the
 * model-space pose the solver works in (positions and orientations, indexed by joint as the solver needs),
 * and per read joint its slot (see the offsets above), flags and holder. Built when the set of joints
 * changes (new targets, passes), never per frame.
 */
export class PoseBlock {
  /** Model-space joint positions (3 per joint) and unit orientations (4 per joint). */
  readonly positions: Float64Array;
  readonly orientations: Float64Array;
  /** The slots' numbers, `SLOT_STRIDE` per slot. */
  readonly slots: Float64Array;
  /** Joint per slot, parents first; the parent's slot (-1 for a root joint); the slot of a joint or -1. */
  readonly joints: Int32Array;
  readonly parentSlot: Int32Array;
  readonly slotOf: Int32Array;
  readonly flags: Uint8Array;
  readonly isBone: Uint8Array;
  readonly holders: readonly JointHolder[];
  /** Quaternions of the block's own, for nodes rotated by Euler angles (made when first written). */
  readonly owned: (Quaternion | null)[];

  /** `wanted`: 1 per joint to read (ancestors of wanted joints must be wanted too). */
  constructor(rig: SkeletonRig, wanted: Uint8Array) {
    const n = rig.jointCount;
    let count = 0;
    for (let j = 0; j < n; j++) count += wanted[j];
    const f64 = 7 * n + SLOT_STRIDE * count;
    const i32 = 2 * count + n;
    const bytes = 8 * f64 + 4 * i32 + 2 * count;
    const buffer = new ArrayBuffer((bytes + 7) & ~7);
    this.positions = new Float64Array(buffer, 0, 3 * n);
    this.orientations = new Float64Array(buffer, 24 * n, 4 * n);
    this.slots = new Float64Array(buffer, 56 * n, SLOT_STRIDE * count);
    let offset = 8 * f64;
    this.joints = new Int32Array(buffer, offset, count);
    this.parentSlot = new Int32Array(buffer, (offset += 4 * count), count);
    this.slotOf = new Int32Array(buffer, (offset += 4 * count), n);
    this.flags = new Uint8Array(buffer, (offset += 4 * n), count);
    this.isBone = new Uint8Array(buffer, offset + count, count);
    this.slotOf.fill(-1);
    const holders: JointHolder[] = [];
    for (let j = 0, k = 0; j < n; j++) {
      if (wanted[j] === 0) continue;
      this.joints[k] = j;
      this.slotOf[j] = k;
      const p = rig.parents[j];
      this.parentSlot[k] = p >= 0 ? this.slotOf[p] : -1;
      const node = rig.nodes[j];
      holders.push(node ?? rig.bones[j][0]);
      this.isBone[k] = node === null ? 1 : 0;
      this.flags[k] = UNREAD;
      k++;
    }
    this.holders = holders;
    this.owned = new Array<Quaternion | null>(count).fill(null);
  }

  get size(): number {
    return this.joints.length;
  }

  /**
   * Takes over what `from` knows of the joints both hold (numbers, flags, own quaternions), so a layout can
   * change in the middle of a frame without reading again or losing what was written.
   */
  copyFrom(from: PoseBlock): void {
    this.positions.set(from.positions);
    this.orientations.set(from.orientations);
    for (let k = 0; k < this.joints.length; k++) {
      const old = from.slotOf[this.joints[k]];
      if (old < 0) continue;
      this.slots.set(from.slots.subarray(SLOT_STRIDE * old, SLOT_STRIDE * (old + 1)), SLOT_STRIDE * k);
      this.flags[k] = from.flags[old];
      this.owned[k] = from.owned[old];
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
