import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { eulerToQuaternion, type RotationSource } from "./localRotation.js";
import {
  EULER,
  FOLD_SHIFT,
  SLOT_R,
  SLOT_RAW,
  SLOT_S,
  SLOT_STRIDE,
  SLOT_T,
  UNREAD,
  type JointHolder,
  type PoseBlock,
} from "./poseBlock.js";
import { foldAxis, foldJoint } from "./scaleFold.js";

/*
 * Reading a frame's pose from its joints, once: the counterpart of poseWrite.ts.
 */

/** What the read needs of a TransformNode or a Bone: both expose their local pose under these names. */
interface LocalPoseSource extends RotationSource {
  readonly position: { readonly x: number; readonly y: number; readonly z: number };
  readonly scaling: { readonly x: number; readonly y: number; readonly z: number };
  /** TransformNodes only. */
  readonly scalingDeterminant?: number;
}

/** Where the first loop of readBlock leaves its count, so that its loads are not optimised away. */
const touchSink = new Float64Array(1);

/** A Babylon vector or quaternion as the first loop of readBlock touches it (`_isDirty`: any field would do). */
interface Touched {
  readonly _isDirty?: boolean;
}

/**
 * Every slot's local transform from its holder, and its rotation exactly as found (to be put back bit for
 * bit): the one read of each joint in a frame (with `unreadOnly`, of the slots not read yet).
 *
 * A first, tight loop only touches every node and its three vectors (a crowd's frame meets them cold), so
 * the memory loads of all the joints are under way at once; the second then reads their values from cache.
 * Loaded inside the second loop, amid its stores and arithmetic, far fewer loads were in flight at a time;
 * gathered into an array first, the stores of the references cost more than they saved.
 */
export function readBlock(block: PoseBlock, unreadOnly: boolean): void {
  const holders = block.holders;
  const flags = block.bytes;
  const isBoneAt = block.isBoneAt;
  const n = holders.length;
  let touched = 0;
  for (let k = 0; k < n; k++) {
    // A Bone's getters do work of their own: only nodes are touched ahead.
    if (flags[isBoneAt + k] === 1 || (unreadOnly && (flags[k] & UNREAD) === 0)) continue;
    const node = holders[k] as TransformNode;
    const q = node.rotationQuaternion as Touched | null;
    // Each vector's change flag (Babylon's, on the same line as its numbers), not the numbers: the pose is
    // read once, below.
    if ((node.position as Touched)._isDirty) touched++;
    if ((node.scaling as Touched)._isDirty) touched++;
    if (q !== null && q._isDirty) touched++;
  }
  touchSink[0] = touched;
  const d = block.d;
  for (let k = 0; k < n; k++) {
    if (unreadOnly && (flags[k] & UNREAD) === 0) continue;
    const source = holders[k] as JointHolder & LocalPoseSource;
    const b = block.slotsAt + SLOT_STRIDE * k;
    const p = source.position;
    d[b + SLOT_T] = p.x;
    d[b + SLOT_T + 1] = p.y;
    d[b + SLOT_T + 2] = p.z;
    const q = source.rotationQuaternion;
    if (q !== null) {
      const x = q.x,
        y = q.y,
        z = q.z,
        w = q.w;
      d[b + SLOT_RAW] = x;
      d[b + SLOT_RAW + 1] = y;
      d[b + SLOT_RAW + 2] = z;
      d[b + SLOT_RAW + 3] = w;
      flags[k] = 0;
      // Normalised as readLocalRotation does: the solver needs unit rotations, Babylon composes what it finds.
      const len = Math.sqrt(x * x + y * y + z * z + w * w);
      if (len > 0 && len < Infinity) {
        const inv = 1 / len;
        d[b + SLOT_R] = x * inv;
        d[b + SLOT_R + 1] = y * inv;
        d[b + SLOT_R + 2] = z * inv;
        d[b + SLOT_R + 3] = w * inv;
      } else {
        d[b + SLOT_R] = d[b + SLOT_R + 1] = d[b + SLOT_R + 2] = 0;
        d[b + SLOT_R + 3] = 1;
      }
    } else {
      readEuler(block, k);
    }
    // TransformNodes multiply their scaling by scalingDeterminant (1 unless a mesh was mirrored by Babylon).
    const sc = source.scaling;
    const s = source.scalingDeterminant ?? 1;
    d[b + SLOT_S] = sc.x * s;
    d[b + SLOT_S + 1] = sc.y * s;
    d[b + SLOT_S + 2] = sc.z * s;
    if (d[b + SLOT_S] < 0 || d[b + SLOT_S + 1] < 0 || d[b + SLOT_S + 2] < 0) foldSlot(block, k, b);
  }
  if (!unreadOnly) block.touchedCount = 0;
}

/** A scale with a negative sign: its signs' half turn goes into the rotation (scaleFold.ts), and is noted. */
function foldSlot(block: PoseBlock, k: number, b: number): void {
  const axis = foldAxis(block.d, b + SLOT_S);
  foldJoint(axis, block.d, b + SLOT_R, block.d, b + SLOT_S);
  block.bytes[k] |= axis << FOLD_SHIFT;
}

/** A node rotated by Euler angles (no quaternion): they are what a restore puts back. */
function readEuler(block: PoseBlock, k: number): void {
  const e = (block.holders[k] as JointHolder & LocalPoseSource).rotation;
  const d = block.d;
  const b = block.slot(k);
  d[b + SLOT_RAW] = e.x;
  d[b + SLOT_RAW + 1] = e.y;
  d[b + SLOT_RAW + 2] = e.z;
  block.bytes[k] = EULER;
  eulerToQuaternion(d, b + SLOT_RAW, d, b + SLOT_R);
}
