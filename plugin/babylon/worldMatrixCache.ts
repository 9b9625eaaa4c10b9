import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { isPlain, readWorldMatrix } from "./worldMatrix.js";

/** A Babylon Vector3 or Quaternion: any change made to it in place sets this flag. */
interface FlaggedValue {
  readonly _isDirty: boolean;
}

/**
 * Babylon's own change tracking on a TransformNode (internal fields of Babylon 9, checked before use by
 * `isTrackedAndClean`): setters of the node set `_isDirty`, in-place changes of its vectors set theirs,
 * and every world-matrix computation clears them all and counts up `_childUpdateId`.
 */
interface TrackedNode {
  readonly _isDirty: boolean;
  readonly _childUpdateId: number;
  readonly _parentNode: unknown;
  readonly _position?: FlaggedValue;
  readonly _scaling?: FlaggedValue;
  readonly _rotation?: FlaggedValue;
  readonly _rotationQuaternion: FlaggedValue | null;
  readonly scalingDeterminant: number;
  readonly isWorldMatrixFrozen: boolean;
}

/**
 * A node's world matrix from `composeWorldMatrix`, composed again only when the node or an ancestor may have
 * changed since. A character's model root and the nodes above it are rarely animated and touched by nothing
 * else in the frame, so with a hundred characters every read of them misses the cache: composing the model
 * root's matrix was a sixth of the IK frame. Reading the flags instead takes 2–8 % off the frame of 100
 * standing characters (median 5 %, frames alternating between the two in one process); for characters whose
 * root moves every frame it costs 0–2 %.
 *
 * The check is Babylon's own notion of change, minus its per-render-id shortcut (which misses in-place
 * changes made after the node was computed within one render id): a node is unchanged when neither it nor
 * its position, scaling or rotation is flagged dirty (a new parent flags it too), and Babylon has not
 * recomputed it since it was composed here (which clears the flags, so its update count is compared too).
 * What Babylon does not flag is compared directly: `scalingDeterminant`, and the features composing leaves
 * to Babylon (billboards, pivots…). Frozen nodes, nodes left to Babylon and nodes without these internals
 * (another Babylon version) are never cached: composed every time, as before.
 */
export class WorldMatrixCache {
  /** The node composed last, when its chain is remembered; `_count` 0 means nothing is remembered. */
  private _node: TrackedNode | null = null;
  /** How many nodes the remembered chain has, the node and its ancestors. */
  private _count = 0;
  /** Compositions left before remembering is tried again, after it found the chain flagged dirty. */
  private _rememberAfter = 0;
  /**
   * Per node of the chain, from the node up: its update id and its `scalingDeterminant` when remembered. The
   * chain itself is walked through the nodes' parents: the check meets the nodes rather than a list of them
   * (a crowd's frame meets each character's objects cold), and a node given a new parent is flagged dirty.
   */
  private _marks = new Float64Array(8);

  /**
   * Writes the world matrix of `node` into `out` (Babylon's `Matrix.m` layout) unless `out` already holds it
   * from the previous call with the same node and `out`, which nothing else may write in between. Returns
   * whether `out` was written. Allocates nothing unless the parent chain got longer than ever before.
   */
  update(node: TransformNode, out: Float64Array): boolean {
    if (this._count > 0 && this._node === (node as unknown) && this._unchanged()) return false;
    this._count = 0;
    // A node left to Babylon is never remembered: its matrix is asked for afresh every time.
    if (readWorldMatrix(node, out)) {
      if (this._rememberAfter > 0) this._rememberAfter--;
      else this._remember(node);
    }
    return true;
  }

  /** Forgets the remembered chain: the next {@link update} composes. */
  invalidate(): void {
    this._count = 0;
    this._rememberAfter = 0;
  }

  private _unchanged(): boolean {
    const marks = this._marks;
    const count = this._count;
    let n: TrackedNode | null = this._node;
    for (let k = 0; k < count; k++) {
      if (n == null || !isTrackedAndClean(n)) return false;
      if (n._childUpdateId !== marks[2 * k] || n.scalingDeterminant !== marks[2 * k + 1]) return false;
      if (!isPlain(n as unknown as TransformNode)) return false;
      n = n._parentNode as TrackedNode | null;
    }
    // The top node has no parent still (giving it one would have flagged it).
    return n == null;
  }

  /**
   * Remembers the chain just composed, unless a node on it is flagged dirty: the flags clear only when
   * Babylon computes the node, which also counts up its update id, so such a chain could never be found
   * unchanged. A chain found dirty is most likely moving every frame, so trying to remember it is put off
   * for a few frames: trying every frame cost a character walking about 2 % of the frame (paired), and a
   * character that stops gets cached a few frames later.
   */
  private _remember(node: TransformNode): void {
    let count = 0;
    for (let n: unknown = node; n != null; n = (n as Partial<TrackedNode>)._parentNode) {
      const tracked = n as TrackedNode;
      if (!isTrackedAndClean(tracked)) {
        this._rememberAfter = RETRY_AFTER_DIRTY;
        return;
      }
      if (2 * count === this._marks.length) this._grow();
      this._marks[2 * count] = tracked._childUpdateId;
      this._marks[2 * count + 1] = tracked.scalingDeterminant;
      count++;
    }
    this._node = node as unknown as TrackedNode;
    this._count = count;
  }

  private _grow(): void {
    const marks = new Float64Array(2 * this._marks.length);
    marks.set(this._marks);
    this._marks = marks;
  }
}

/** Compositions for which remembering is put off after a chain was found flagged dirty. */
export const RETRY_AFTER_DIRTY = 15;

/**
 * True when `n` carries Babylon's change tracking (see TrackedNode; `!== false` also turns away a missing
 * flag) and nothing of it is flagged, nor is its world matrix frozen (a frozen matrix can be replaced
 * without a flag).
 */
function isTrackedAndClean(n: TrackedNode): boolean {
  // The vectors first: composing has just read them, while the node's own flag may sit on a line it did not.
  if (n._position?._isDirty !== false || n._scaling?._isDirty !== false || n._isDirty !== false) return false;
  // Babylon composes the Euler rotation only when there is no quaternion, and so does composeWorldMatrix.
  const q = n._rotationQuaternion;
  if ((q != null ? q._isDirty : n._rotation?._isDirty) !== false) return false;
  return (
    typeof n._childUpdateId === "number" && typeof n.scalingDeterminant === "number" && !n.isWorldMatrixFrozen
  );
}
