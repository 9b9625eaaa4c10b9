import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { packTypedArrays } from "../solver/packArrays.js";

/** A joint's local rotation lives on its linked TransformNode (glTF) or, without one, on the Bone itself. */
export type RotationHolder = TransformNode | Bone;

/**
 * The local rotations of the joints the IK writes, as the animation left them, so they can be put back.
 *
 * Joints without an animation channel are never rewritten by the animation; without a restore, each frame's
 * IK would start from the last frame's IK output and drift (babylon-notes §2.3). Capturing the animated
 * values before writing and restoring them after rendering gives every frame the animated pose as its
 * start, makes `weight` a true blend from it, and makes detaching clean.
 *
 * Values are copied raw, not normalised, so a restore is bit-for-bit. A node rotated by Euler angles
 * (`rotationQuaternion === null`) is given a quaternion of the snapshot's own for the write (Babylon ignores
 * Euler angles once a quaternion is set) and handed back its Euler angles on restore.
 */
export class LocalRotationSnapshot {
  /** True between {@link capture} and the next restore. */
  held = false;
  private readonly _holders: readonly RotationHolder[];
  private readonly _isNode: Uint8Array;
  private readonly _saved: Float64Array;
  private readonly _savedEuler: Float64Array;
  private readonly _hadQuaternion: Uint8Array;
  /** What was written per joint (1 in `_wrote`), to tell an untouched joint from a re-animated one. */
  private readonly _written: Float64Array;
  private readonly _wrote: Uint8Array;
  /** Quaternions of our own for Euler-rotated nodes, made the first time a node needs one. */
  private readonly _owned: (Quaternion | null)[];
  private readonly _boneScratch = new Quaternion();

  constructor(holders: readonly RotationHolder[]) {
    const n = holders.length;
    this._holders = holders;
    this._isNode = new Uint8Array(n);
    for (let i = 0; i < n; i++) this._isNode[i] = isTransformNode(holders[i]) ? 1 : 0;
    this._saved = new Float64Array(4 * n);
    this._savedEuler = new Float64Array(3 * n);
    this._hadQuaternion = new Uint8Array(n);
    this._written = new Float64Array(4 * n);
    this._wrote = new Uint8Array(n);
    this._owned = new Array<Quaternion | null>(n).fill(null);
    packTypedArrays(this);
  }

  get size(): number {
    return this._holders.length;
  }

  /** Remembers every joint's current local rotation. */
  capture(): void {
    const saved = this._saved;
    for (let i = 0; i < this._holders.length; i++) {
      const holder = this._holders[i];
      const q = holder.rotationQuaternion;
      if (q !== null) {
        saved[4 * i] = q.x;
        saved[4 * i + 1] = q.y;
        saved[4 * i + 2] = q.z;
        saved[4 * i + 3] = q.w;
        this._hadQuaternion[i] = 1;
      } else {
        // Only nodes can lack a quaternion; a Bone always decomposes one.
        const e = (holder as TransformNode).rotation;
        this._savedEuler[3 * i] = e.x;
        this._savedEuler[3 * i + 1] = e.y;
        this._savedEuler[3 * i + 2] = e.z;
        this._hadQuaternion[i] = 0;
      }
      this._wrote[i] = 0;
    }
    this.held = true;
  }

  /** Sets joint `i`'s local rotation to the unit quaternion `q[o..o+3]` (in place: no object is kept). */
  write(i: number, q: Float64Array, o: number): void {
    const holder = this._holders[i];
    if (this._isNode[i] === 1) {
      const node = holder as TransformNode;
      let target = node.rotationQuaternion;
      if (target === null) {
        target = this._owned[i] ?? (this._owned[i] = new Quaternion());
        target.set(q[o], q[o + 1], q[o + 2], q[o + 3]);
        node.rotationQuaternion = target;
      } else {
        target.set(q[o], q[o + 1], q[o + 2], q[o + 3]);
      }
    } else {
      const scratch = this._boneScratch;
      scratch.set(q[o], q[o + 1], q[o + 2], q[o + 3]);
      // LOCAL space (0): a plain copy into the bone's local rotation.
      (holder as Bone).setRotationQuaternion(scratch, 0);
    }
    const written = this._written;
    written[4 * i] = q[o];
    written[4 * i + 1] = q[o + 1];
    written[4 * i + 2] = q[o + 2];
    written[4 * i + 3] = q[o + 3];
    this._wrote[i] = 1;
  }

  /** Puts back every joint written since {@link capture}. */
  restore(): void {
    if (!this.held) return;
    for (let i = 0; i < this._holders.length; i++) if (this._wrote[i] === 1) this._restoreOne(i);
    this.held = false;
  }

  /**
   * Puts back only the joints that still hold what was written: a joint the animation has written again
   * since (a second lockstep substep before any render) keeps its fresh animated value.
   */
  restoreUntouched(): void {
    if (!this.held) return;
    const written = this._written;
    for (let i = 0; i < this._holders.length; i++) {
      if (this._wrote[i] === 0) continue;
      const q = this._holders[i].rotationQuaternion;
      if (
        q !== null &&
        q.x === written[4 * i] &&
        q.y === written[4 * i + 1] &&
        q.z === written[4 * i + 2] &&
        q.w === written[4 * i + 3]
      ) {
        this._restoreOne(i);
      } else if (this._hadQuaternion[i] === 0 && q !== null && q === this._owned[i]) {
        this._restoreOne(i);
      }
    }
    this.held = false;
  }

  /** Forgets the capture without touching any joint (nothing was written). */
  release(): void {
    this.held = false;
  }

  private _restoreOne(i: number): void {
    const holder = this._holders[i];
    const saved = this._saved;
    if (this._isNode[i] === 1) {
      const node = holder as TransformNode;
      if (this._hadQuaternion[i] === 1) {
        const q = node.rotationQuaternion;
        if (q !== null) q.set(saved[4 * i], saved[4 * i + 1], saved[4 * i + 2], saved[4 * i + 3]);
      } else {
        node.rotationQuaternion = null;
        node.rotation.set(this._savedEuler[3 * i], this._savedEuler[3 * i + 1], this._savedEuler[3 * i + 2]);
      }
    } else {
      const scratch = this._boneScratch;
      scratch.set(saved[4 * i], saved[4 * i + 1], saved[4 * i + 2], saved[4 * i + 3]);
      (holder as Bone).setRotationQuaternion(scratch, 0);
    }
    this._wrote[i] = 0;
  }
}

function isTransformNode(holder: RotationHolder): holder is TransformNode {
  // Bone and TransformNode are both Nodes; only a Bone belongs to a skeleton.
  return typeof (holder as Partial<Bone>).getSkeleton !== "function";
}
