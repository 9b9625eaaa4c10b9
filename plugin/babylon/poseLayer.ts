import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { SkeletonRig } from "./skeletonRig.js";
import { quaternionFromArray, vectorFromArray } from "./arrayToBabylon.js";

const POSITION = 1;
const ROTATION = 2;
const EULER = 4;

/**
 * Changes to the animated pose made between the animation and the IK solve (a lowered hips, a neck turned
 * toward a look target), undone after the frame is rendered.
 *
 * The solve then starts from the adjusted pose, and the next frame starts from the animation again: joints
 * without an animation channel are never rewritten by Babylon, so an adjustment left in place would add up
 * frame after frame. Values are saved raw and put back bit for bit, and only where the joint still holds
 * what was written: a joint the animation has written since (a second lockstep substep) keeps the new value.
 */
export class PoseLayer {
  private readonly _holders: (TransformNode | Bone)[];
  private readonly _isBone: Uint8Array;
  /** Per slot: what was saved and written, rotation (x y z w) then position (x y z). */
  private readonly _saved: Float64Array;
  private readonly _written: Float64Array;
  /** Per slot: POSITION / ROTATION bits held, EULER when the node was rotated by Euler angles. */
  private readonly _held: Uint8Array;
  private readonly _owned: (Quaternion | null)[];
  private readonly _slotOf: Int32Array;
  private readonly _vector = new Vector3();
  private readonly _quaternion = new Quaternion();
  private _any = false;

  /** `joints`: the joints this layer may change. */
  constructor(rig: SkeletonRig, joints: readonly number[]) {
    const n = joints.length;
    this._holders = joints.map((j) => rig.nodes[j] ?? rig.bones[j][0]);
    this._isBone = Uint8Array.from(joints, (j) => (rig.nodes[j] === null ? 1 : 0));
    this._saved = new Float64Array(7 * n);
    this._written = new Float64Array(7 * n);
    this._held = new Uint8Array(n);
    this._owned = new Array<Quaternion | null>(n).fill(null);
    this._slotOf = new Int32Array(rig.jointCount).fill(-1);
    joints.forEach((j, s) => (this._slotOf[j] = s));
  }

  /** The joint's current local position (the animated one until written) into `out[o..o+2]`. */
  readPosition(joint: number, out: Float64Array, o: number): void {
    const p = this._holders[this._slotOf[joint]].position;
    out[o] = p.x;
    out[o + 1] = p.y;
    out[o + 2] = p.z;
  }

  /** Sets the joint's local position to `values[o..o+2]`, saving the value it replaces. */
  writePosition(joint: number, values: Float64Array, o: number): void {
    const s = this._slotOf[joint];
    const holder = this._holders[s];
    const saved = this._saved;
    const s7 = 7 * s;
    if ((this._held[s] & POSITION) === 0) {
      const p = holder.position;
      saved[s7 + 4] = p.x;
      saved[s7 + 5] = p.y;
      saved[s7 + 6] = p.z;
      this._held[s] |= POSITION;
    }
    // From the array: doubles passed to a Babylon setter V8 does not inline would be boxed.
    if (this._isBone[s] === 1) {
      (holder as Bone).position = vectorFromArray(this._vector, values, o);
    } else {
      vectorFromArray((holder as TransformNode).position, values, o);
    }
    // Read back: a Bone stores its own copy, and what is compared on restore is what the holder reports.
    const p = holder.position;
    this._written[s7 + 4] = p.x;
    this._written[s7 + 5] = p.y;
    this._written[s7 + 6] = p.z;
    this._any = true;
  }

  /** Sets the joint's local rotation to the quaternion `values[o..o+3]`, saving the value it replaces. */
  writeRotation(joint: number, values: Float64Array, o: number): void {
    const s = this._slotOf[joint];
    const holder = this._holders[s];
    const saved = this._saved;
    const s7 = 7 * s;
    if ((this._held[s] & ROTATION) === 0) {
      const q = holder.rotationQuaternion;
      if (q !== null) {
        saved[s7] = q.x;
        saved[s7 + 1] = q.y;
        saved[s7 + 2] = q.z;
        saved[s7 + 3] = q.w;
      } else {
        // Only nodes can lack a quaternion; Babylon ignores Euler angles once one is set.
        const e = (holder as TransformNode).rotation;
        saved[s7] = e.x;
        saved[s7 + 1] = e.y;
        saved[s7 + 2] = e.z;
        this._held[s] |= EULER;
      }
      this._held[s] |= ROTATION;
    }
    if (this._isBone[s] === 1) {
      // LOCAL space (0): a plain copy into the bone's local rotation.
      (holder as Bone).setRotationQuaternion(quaternionFromArray(this._quaternion, values, o), 0);
    } else {
      const node = holder as TransformNode;
      let q = node.rotationQuaternion;
      if (q === null) {
        q = this._owned[s] ?? (this._owned[s] = new Quaternion());
        node.rotationQuaternion = q;
      }
      quaternionFromArray(q, values, o);
    }
    const q = holder.rotationQuaternion!;
    const written = this._written;
    written[s7] = q.x;
    written[s7 + 1] = q.y;
    written[s7 + 2] = q.z;
    written[s7 + 3] = q.w;
    this._any = true;
  }

  /** Puts back every saved value whose joint still holds what was written. */
  restore(): void {
    if (!this._any) return;
    for (let s = 0; s < this._holders.length; s++) {
      const held = this._held[s];
      if (held & POSITION) this._restorePosition(s);
      if (held & ROTATION) this._restoreRotation(s, held);
      this._held[s] = 0;
    }
    this._any = false;
  }

  // One small method per kind, so V8 inlines Babylon's accessors in each: doubles crossing a call it does
  // not inline are boxed.
  private _restorePosition(s: number): void {
    const holder = this._holders[s];
    const saved = this._saved,
      written = this._written;
    const s7 = 7 * s;
    const p = holder.position;
    if (p.x !== written[s7 + 4] || p.y !== written[s7 + 5] || p.z !== written[s7 + 6]) return;
    if (this._isBone[s] === 1) {
      (holder as Bone).position = vectorFromArray(this._vector, saved, s7 + 4);
    } else {
      vectorFromArray((holder as TransformNode).position, saved, s7 + 4);
    }
  }

  private _restoreRotation(s: number, held: number): void {
    const holder = this._holders[s];
    const saved = this._saved,
      written = this._written;
    const s7 = 7 * s;
    const q = holder.rotationQuaternion;
    if (q === null || q.x !== written[s7] || q.y !== written[s7 + 1]) return;
    if (q.z !== written[s7 + 2] || q.w !== written[s7 + 3]) return;
    if (held & EULER) {
      const node = holder as TransformNode;
      node.rotationQuaternion = null;
      node.rotation.set(saved[s7], saved[s7 + 1], saved[s7 + 2]);
    } else if (this._isBone[s] === 1) {
      const r = quaternionFromArray(this._quaternion, saved, s7);
      (holder as Bone).setRotationQuaternion(r, 0);
    } else {
      quaternionFromArray(q, saved, s7);
    }
  }
}
