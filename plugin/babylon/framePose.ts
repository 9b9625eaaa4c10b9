import { FabrikError } from "../solver/errors.js";
import type { Pose } from "../solver/pose.js";
import { invertAffineMatrix, setIdentityMatrix } from "./affineMatrix.js";
import type { FabrikFrameOf } from "./fabrikFrame.js";
import {
  EULER,
  POSITION_CHANGED,
  PoseBlock,
  ROTATION_CHANGED,
  ROTATION_WRITTEN,
  POSITION_WRITTEN,
  SLOT_R,
  SLOT_RAW,
  SLOT_SAVED_T,
  SLOT_T,
  UNREAD,
  wantedJoints,
} from "./poseBlock.js";
import { readBlock } from "./poseRead.js";
import { commitBlock, restoreBlock } from "./poseWrite.js";
import type { QueuedPose, RestoreQueue } from "./restoreQueue.js";
import type { SkeletonRig } from "./skeletonRig.js";
import { blockKinematics, slotIsReflection, toSlotSpace } from "./slotKinematics.js";
import { WorldMatrixCache } from "./worldMatrixCache.js";

/**
 * A character's pose for one frame: read once from its joint nodes (or bones without nodes) into a
 * {@link PoseBlock}, changed by passes and the solve, written once (`poseWrite`) and put back after the frame.
 *
 * The linked TransformNode is the source of truth for glTF joints (Babylon copies it into the Bone only
 * while rendering). Joint world matrices are never asked of Babylon: the pose is composed here from the
 * local transforms, so Babylon's per-render cache, which misses in-place changes, never feeds it stale
 * matrices; the model root's matrix is composed again only when Babylon's change flags say it may have
 * moved (`WorldMatrixCache`).
 */
export class FramePose implements FabrikFrameOf<object>, QueuedPose {
  deltaTime = 0;
  readonly modelToWorld = new Float64Array(16);
  readonly worldToModel = new Float64Array(16);
  /** False when the model root is scaled to zero; `worldToModel` then holds the identity. */
  worldToModelValid = true;
  /** The pose the solver works in: the block's arrays. */
  readonly solverPose: Pose;
  /** Set by every change a pass makes; the pipeline then brings model space up to date. */
  changed = false;
  /** True while joints hold what {@link commit} wrote and the animation's values wait to be put back. */
  held = false;
  private _block: PoseBlock;
  private readonly _rootCache = new WorldMatrixCache();
  /** The rig's model root, kept here: a frame then does not meet the rig object. */
  private readonly _modelRoot: SkeletonRig["modelRoot"];
  /** Where {@link commit} hands what to put back (see RestoreQueue), or null: see {@link useRestoreQueue}. */
  private _queue: RestoreQueue | null = null;
  /** The queue's round in which this pose's entries wait (-1: none), and where they sit. */
  private _queuedRound = -1;
  private _queuedFrom = 0;
  private _queuedTo = 0;
  /** Whether the waiting entries put back everything written (else the mark asks the pose to). */
  private _queuedAll = false;

  constructor(
    readonly behavior: object,
    readonly rig: SkeletonRig,
  ) {
    setIdentityMatrix(this.modelToWorld);
    setIdentityMatrix(this.worldToModel);
    this._modelRoot = rig.modelRoot;
    this._block = new PoseBlock(rig, new Uint8Array(rig.jointCount));
    this.solverPose = { positions: this._block.positions, orientations: this._block.orientations };
  }

  get block(): PoseBlock {
    return this._block;
  }
  get positions(): Float64Array {
    return this._block.positions;
  }
  get orientations(): Float64Array {
    return this._block.orientations;
  }

  /**
   * From now on the frame reads `joints` and their ancestors. What the old layout knew of joints both hold is
   * kept; joints it wrote that the new one drops get their animated values back now. Allocates: call it when
   * the set changes, not per frame. Returns whether joints were added (unread until {@link readUnread}).
   */
  setJoints(joints: ArrayLike<number>): boolean {
    const wanted = wantedJoints(this.rig.parents, joints);
    if (wanted === null) throw new FabrikError("FramePose: a joint index is not one of the rig's");
    const old = this._block;
    let same = true;
    for (let j = 0; j < wanted.length && same; j++) same = wanted[j] === (old.slotOf[j] >= 0 ? 1 : 0);
    if (same) return false;
    if (this.held) {
      // Put back what the new layout will not know about.
      let dropped = false;
      for (let k = 0; k < old.size; k++) {
        if (wanted[old.joints[k]] === 0 && old.bytes[k] & (ROTATION_WRITTEN | POSITION_WRITTEN))
          dropped = true;
      }
      if (dropped) this.restore();
    }
    const block = new PoseBlock(this.rig, wanted);
    block.copyFrom(old);
    this._block = block;
    (this.solverPose as { positions: Float64Array }).positions = block.positions;
    (this.solverPose as { orientations: Float64Array }).orientations = block.orientations;
    let added = false;
    for (let k = 0; k < block.size; k++) if (block.bytes[k] & UNREAD) added = true;
    return added;
  }

  /** Reads every joint's local transform, runs forward kinematics, and reads the model root's matrix. */
  read(): void {
    const block = this._block;
    readBlock(block, false);
    blockKinematics(block);
    this._readRoot();
    this.changed = false;
  }

  /** Reads the joints that joined the layout since the last {@link read}, then brings model space up to date. */
  readUnread(): void {
    readBlock(this._block, true);
    this.refresh();
  }

  /** Model space from the local transforms as they are now (after passes changed them, or the solve's). */
  refresh(): void {
    blockKinematics(this._block);
    this.changed = false;
  }

  /**
   * Writes every joint the frame changed (see `commitBlock`); with a queue, hands it what to put back after
   * rendering. Returns how many joints were written.
   */
  commit(): number {
    const written = commitBlock(this._block);
    if (written === 0) return 0;
    this.held = true;
    if (this._queue !== null) this._enqueue(this._queue);
    return written;
  }

  /**
   * From now on {@link commit} hands what to put back to `queue` (the scene's, for characters solving at
   * `beforeRender`), or keeps it (null: the owner calls {@link restore}). Entries waiting in the old queue
   * are withdrawn (the pose still holds what it wrote); a pose holding a write joins the new one at once.
   */
  useRestoreQueue(queue: RestoreQueue | null): void {
    this._leaveQueue();
    this._queue = queue;
    if (queue !== null && this.held) this._enqueue(queue);
  }

  /** Puts back every joint the frame wrote (see `restoreBlock`). */
  restore(): void {
    if (!this.held) return;
    this._leaveQueue();
    restoreBlock(this._block, false);
    this.held = false;
  }

  /** Like {@link restore}, but a joint the animation has written since keeps its fresh value. */
  restoreUntouched(): void {
    if (!this.held) return;
    this._leaveQueue();
    restoreBlock(this._block, true);
    this.held = false;
  }

  /** @internal The queue has put back this pose's rotations, or asks it to put back what it wrote. */
  afterQueueRestore(): void {
    this._queuedRound = -1;
    // The block's written flags stay until the next read clears them: nothing consults them while not held.
    if (this._queuedAll) this.held = false;
    else this.restore();
  }

  /**
   * The rotations just written, with the values they replace; a frame that wrote positions, Euler-angle
   * nodes or bones hands only its mark, and puts itself back when the queue reaches it.
   */
  private _enqueue(queue: RestoreQueue): void {
    this._leaveQueue();
    const block = this._block;
    const flags = block.bytes,
      ints = block.ints;
    let all = true;
    for (let i = 0; i < block.touchedCount && all; i++) {
      const k = ints[block.touchedAt + i];
      all =
        (flags[k] & (POSITION_WRITTEN | EULER)) === 0 &&
        flags[block.isBoneAt + k] === 0 &&
        ((flags[k] & ROTATION_WRITTEN) === 0 || block.written[k] !== null);
    }
    this._queuedFrom = queue.count;
    if (all) {
      for (let i = 0; i < block.touchedCount; i++) {
        const k = ints[block.touchedAt + i];
        if (flags[k] & ROTATION_WRITTEN)
          queue.addRotation(block.written[k]!, block.d, block.slot(k) + SLOT_RAW);
      }
    }
    queue.addMark(this);
    this._queuedTo = queue.count;
    this._queuedAll = all;
    this._queuedRound = queue.round;
  }

  /** Withdraws the entries waiting in the queue, if any. */
  private _leaveQueue(): void {
    const queue = this._queue;
    if (queue !== null && this._queuedRound === queue.round) queue.cancel(this._queuedFrom, this._queuedTo);
    this._queuedRound = -1;
  }

  getLocalPosition(joint: number, out: Float64Array, o: number): void {
    const b = this._block.slot(this._slot(joint)) + SLOT_T;
    const d = this._block.d;
    out[o] = d[b];
    out[o + 1] = d[b + 1];
    out[o + 2] = d[b + 2];
  }

  setLocalPosition(joint: number, values: Float64Array, o: number): void {
    const k = this._slot(joint);
    const block = this._block;
    const d = block.d;
    const b = block.slot(k);
    if ((block.bytes[k] & POSITION_CHANGED) === 0) {
      d[b + SLOT_SAVED_T] = d[b + SLOT_T];
      d[b + SLOT_SAVED_T + 1] = d[b + SLOT_T + 1];
      d[b + SLOT_SAVED_T + 2] = d[b + SLOT_T + 2];
      block.mark(k, POSITION_CHANGED);
    }
    d[b + SLOT_T] = values[o];
    d[b + SLOT_T + 1] = values[o + 1];
    d[b + SLOT_T + 2] = values[o + 2];
    this.changed = true;
  }

  getLocalRotation(joint: number, out: Float64Array, o: number): void {
    const b = this._block.slot(this._slot(joint)) + SLOT_R;
    const d = this._block.d;
    out[o] = d[b];
    out[o + 1] = d[b + 1];
    out[o + 2] = d[b + 2];
    out[o + 3] = d[b + 3];
  }

  setLocalRotation(joint: number, values: Float64Array, o: number): void {
    const k = this._slot(joint);
    const d = this._block.d;
    const b = this._block.slot(k) + SLOT_R;
    d[b] = values[o];
    d[b + 1] = values[o + 1];
    d[b + 2] = values[o + 2];
    d[b + 3] = values[o + 3];
    this._block.mark(k, ROTATION_CHANGED);
    this.changed = true;
  }

  toJointSpace(joint: number, v: Float64Array, o: number): boolean {
    if (joint < 0) return true;
    return toSlotSpace(this._block, this._slot(joint), v, o);
  }

  isReflected(joint: number): boolean {
    return joint >= 0 && slotIsReflection(this._block, this._slot(joint));
  }

  /** The slot of `joint`; a joint the frame does not read is a mistake of the caller's. */
  private _slot(joint: number): number {
    const block = this._block;
    const k = joint >= 0 && joint < this.rig.jointCount ? block.ints[block.slotOfAt + joint] : -1;
    if (k < 0) this._refuse(joint);
    return k;
  }

  private _refuse(joint: number): never {
    const name = this.rig.names[joint];
    throw new FabrikError(
      `FabrikFrame: ${name === undefined ? `joint ${joint}` : `"${name}"`} is not read by this frame; ` +
        "declare it in the pass's joints",
      joint >= 0 && joint < this.rig.jointCount ? joint : undefined,
      "joint",
    );
  }

  private _readRoot(): void {
    const root = this._modelRoot;
    if (root === null) return;
    if (this._rootCache.update(root, this.modelToWorld)) {
      this.worldToModelValid = invertAffineMatrix(this.modelToWorld, this.worldToModel);
    }
  }
}
