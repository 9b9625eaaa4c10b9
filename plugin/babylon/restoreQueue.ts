import type { Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import { quaternionFromArray } from "./arrayToBabylon.js";

/** A character's pose as the queue knows it: told when its entries have been put back. */
export interface QueuedPose {
  /** The queue has put back the rotations the pose handed it, or (for a pose it cannot) asks it to now. */
  afterQueueRestore(): void;
}

/**
 * What every character wrote at `beforeRender`, to put back after rendering in one pass: the quaternions
 * written and the values they held before, in the order written, with one mark per character after its own.
 *
 * After rendering, a hundred characters' joints and per-frame state have left the cache. Putting the
 * animation back character by character met each one's pipeline, pose and block (a handful of objects)
 * before the quaternions themselves; here the restore walks two arrays from end to start and meets only the
 * quaternions and each character's pose. Walking backwards keeps what was put back right where two
 * characters wrote one joint: the last writer puts back what the first wrote, the first then the animation.
 * A pose whose frame wrote more than plain node rotations (positions, Euler angles, bones) hands the queue
 * only its mark, and puts itself back when the walk reaches it.
 */
export class RestoreQueue {
  /** Counts the passes made: a pose's entries are waiting while the round it joined is this one. */
  round = 0;
  /** Per entry a quaternion written, or a pose's mark; null once cancelled. */
  private readonly _items: (Quaternion | QueuedPose | null)[] = [];
  /** Per entry 1 for a quaternion, 0 for a mark. */
  private _isRotation = new Uint8Array(64);
  /** Per entry the quaternion's values before the write (x y z w). */
  private _values = new Float64Array(4 * 64);
  private _count = 0;

  /** Entries waiting (cancelled ones between others included). */
  get count(): number {
    return this._count;
  }

  /** Quaternion `q` gets `values[o..o+3]` back after rendering. Allocates only past the largest frame yet. */
  addRotation(q: Quaternion, values: Float64Array, o: number): void {
    const i = this._reserve();
    this._items[i] = q;
    this._isRotation[i] = 1;
    const v = this._values;
    v[4 * i] = values[o];
    v[4 * i + 1] = values[o + 1];
    v[4 * i + 2] = values[o + 2];
    v[4 * i + 3] = values[o + 3];
  }

  /** `pose` is told after the entries added before this mark (since its previous mark) are put back. */
  addMark(pose: QueuedPose): void {
    const i = this._reserve();
    this._items[i] = pose;
    this._isRotation[i] = 0;
  }

  /**
   * Entries `from .. to - 1` are not to be put back (their pose put itself back first). Cancelled entries at
   * the end are dropped, so a frame driven by hand without rendering does not grow the queue.
   */
  cancel(from: number, to: number): void {
    const items = this._items;
    for (let i = from; i < to && i < this._count; i++) items[i] = null;
    while (this._count > 0 && items[this._count - 1] === null) this._count--;
  }

  /** After rendering: every entry, last first; then a new round. */
  restore(): void {
    const items = this._items,
      values = this._values,
      isRotation = this._isRotation;
    for (let i = this._count - 1; i >= 0; i--) {
      const item = items[i];
      if (item === null) continue;
      items[i] = null;
      if (isRotation[i] === 1) quaternionFromArray(item as Quaternion, values, 4 * i);
      else (item as QueuedPose).afterQueueRestore();
    }
    this._count = 0;
    this.round++;
  }

  private _reserve(): number {
    const i = this._count;
    if (i === this._isRotation.length) {
      const isRotation = new Uint8Array(2 * i);
      isRotation.set(this._isRotation);
      this._isRotation = isRotation;
      const values = new Float64Array(8 * i);
      values.set(this._values);
      this._values = values;
    }
    if (i === this._items.length) this._items.push(null);
    this._count = i + 1;
    return i;
  }
}
