import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { quaternionFromArray, vectorFromArray } from "./arrayToBabylon.js";
import {
  EULER,
  FOLD_SHIFT,
  POSITION_CHANGED,
  POSITION_WRITTEN,
  ROTATION_CHANGED,
  ROTATION_WRITTEN,
  SLOT_R,
  SLOT_RAW,
  SLOT_SAVED_T,
  SLOT_T,
  type PoseBlock,
} from "./poseBlock.js";
import { unfoldRotation } from "./scaleFold.js";

/*
 * Writing a frame's pose onto the joints once, and putting the animation back once after the frame.
 *
 * Joints without an animation channel are never rewritten by Babylon: without the restore, each frame would
 * start from the last frame's output and drift. Putting the animated values back after rendering gives
 * every frame the animation as its start, makes the weights a true blend from it, and makes detaching clean.
 * Values go back raw, as they were read, so a restore is bit for bit; a node rotated by Euler angles
 * (`rotationQuaternion === null`) is given a quaternion of the block's own for the write (Babylon ignores
 * Euler angles once a quaternion is set) and handed back its Euler angles on restore.
 */

const boneRotation = new Quaternion();
const bonePosition = new Vector3();
const written = new Float64Array(4);

/**
 * What Babylon gets for slot k's rotation (in a scratch of four): the solved one, turned back by the half turn
 * its scale's signs were folded with (scaleFold.ts).
 */
function babylonRotation(block: PoseBlock, k: number): Float64Array {
  const d = block.d;
  const o = block.slot(k) + SLOT_R;
  written[0] = d[o];
  written[1] = d[o + 1];
  written[2] = d[o + 2];
  written[3] = d[o + 3];
  unfoldRotation(block.bytes[k] >> FOLD_SHIFT, written, 0);
  return written;
}

/**
 * Writes every joint the frame changed (its rotation, its position, or both), once. Returns how many joints
 * were written.
 */
export function commitBlock(block: PoseBlock): number {
  const flags = block.bytes,
    ints = block.ints,
    touchedAt = block.touchedAt;
  let count = 0;
  for (let i = 0; i < block.touchedCount; i++) {
    const k = ints[touchedAt + i];
    const f = flags[k];
    if ((f & (ROTATION_CHANGED | POSITION_CHANGED)) === 0) continue;
    if (f & ROTATION_CHANGED) writeRotation(block, k);
    if (f & POSITION_CHANGED) writePosition(block, k);
    flags[k] =
      (f & ~(ROTATION_CHANGED | POSITION_CHANGED)) |
      (f & ROTATION_CHANGED ? ROTATION_WRITTEN : 0) |
      (f & POSITION_CHANGED ? POSITION_WRITTEN : 0);
    count++;
  }
  return count;
}

/**
 * Puts back what {@link commitBlock} replaced. With `untouchedOnly`, only where the joint still holds what
 * was written: a joint the animation has written since (a second lockstep substep before any render) keeps
 * its fresh value.
 */
export function restoreBlock(block: PoseBlock, untouchedOnly: boolean): void {
  const flags = block.bytes,
    ints = block.ints,
    touchedAt = block.touchedAt;
  for (let i = 0; i < block.touchedCount; i++) {
    const k = ints[touchedAt + i];
    const f = flags[k];
    if (f & ROTATION_WRITTEN && (!untouchedOnly || holdsWrittenRotation(block, k))) restoreRotation(block, k);
    block.written[k] = null;
    if (f & POSITION_WRITTEN && (!untouchedOnly || holdsWrittenPosition(block, k))) restorePosition(block, k);
    flags[k] = f & ~(ROTATION_WRITTEN | POSITION_WRITTEN | ROTATION_CHANGED | POSITION_CHANGED);
  }
  block.touchedCount = 0;
}

// One small function per kind, so V8 inlines Babylon's accessors in each: doubles crossing a call it does
// not inline are boxed.
function writeRotation(block: PoseBlock, k: number): void {
  const r = babylonRotation(block, k);
  if (block.bytes[block.isBoneAt + k] === 1) {
    // LOCAL space (0): a plain copy into the bone's local rotation.
    (block.holders[k] as Bone).setRotationQuaternion(quaternionFromArray(boneRotation, r, 0), 0);
    return;
  }
  const node = block.holders[k] as TransformNode;
  let q = node.rotationQuaternion;
  if (q === null) {
    q = block.owned[k] ?? (block.owned[k] = new Quaternion());
    node.rotationQuaternion = q;
  }
  quaternionFromArray(q, r, 0);
  block.written[k] = q;
}

function writePosition(block: PoseBlock, k: number): void {
  const d = block.d;
  const o = block.slot(k) + SLOT_T;
  if (block.bytes[block.isBoneAt + k] === 1) {
    const bone = block.holders[k] as Bone;
    bone.position = vectorFromArray(bonePosition, d, o);
    // A Bone keeps its own copy: what a restore compares is what it reports.
    const p = bone.position;
    d[o] = p.x;
    d[o + 1] = p.y;
    d[o + 2] = p.z;
    return;
  }
  vectorFromArray((block.holders[k] as TransformNode).position, d, o);
}

function holdsWrittenRotation(block: PoseBlock, k: number): boolean {
  const q = block.holders[k].rotationQuaternion;
  if (q === null) return false;
  // A node rotated by Euler angles still wears the block's quaternion: nothing has animated it since.
  if (block.bytes[k] & EULER) return q === block.owned[k];
  const r = babylonRotation(block, k);
  return q.x === r[0] && q.y === r[1] && q.z === r[2] && q.w === r[3];
}

function holdsWrittenPosition(block: PoseBlock, k: number): boolean {
  const p = block.holders[k].position;
  const d = block.d;
  const o = block.slot(k) + SLOT_T;
  return p.x === d[o] && p.y === d[o + 1] && p.z === d[o + 2];
}

function restoreRotation(block: PoseBlock, k: number): void {
  const d = block.d;
  const o = block.slot(k) + SLOT_RAW;
  if (block.bytes[block.isBoneAt + k] === 1) {
    (block.holders[k] as Bone).setRotationQuaternion(quaternionFromArray(boneRotation, d, o), 0);
    return;
  }
  // Straight into the quaternion written (a restore after rendering meets the node itself cold): nothing
  // but the animation swaps a node's quaternion, and it does not run between the write and the restore.
  const written = block.written[k];
  if (written !== null && (block.bytes[k] & EULER) === 0) {
    quaternionFromArray(written, d, o);
    return;
  }
  const node = block.holders[k] as TransformNode;
  if (block.bytes[k] & EULER) {
    node.rotationQuaternion = null;
    vectorFromArray(node.rotation, d, o);
    return;
  }
  const q = node.rotationQuaternion;
  if (q !== null) quaternionFromArray(q, d, o);
}

function restorePosition(block: PoseBlock, k: number): void {
  const d = block.d;
  const o = block.slot(k) + SLOT_SAVED_T;
  if (block.bytes[block.isBoneAt + k] === 1) {
    (block.holders[k] as Bone).position = vectorFromArray(bonePosition, d, o);
    return;
  }
  vectorFromArray((block.holders[k] as TransformNode).position, d, o);
}
