import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { composeWorldMatrix, isPlain } from "./worldMatrix.js";

/** A Babylon Vector3 or Quaternion: any change made to it in place sets this flag. */
interface FlaggedValue {
  readonly _isDirty: boolean;
}

/**
 * Babylon's own change tracking on a TransformNode (internal fields of Babylon 9, checked before use by
 * `isTracked`): setters of the node set `_isDirty`, in-place changes of its vectors set theirs, and every
 * world-matrix computation clears them all and counts up `_childUpdateId`.
 */
interface TrackedNode {
  readonly _isDirty: boolean;
  readonly _childUpdateId: number;
  readonly _parentNode: unknown;
  readonly _position: FlaggedValue;
  readonly _scaling: FlaggedValue;
  readonly _rotation: FlaggedValue;
  readonly _rotationQuaternion: FlaggedValue | null;
  readonly scalingDeterminant: number;
  readonly isWorldMatrixFrozen: boolean;
}

/**
 * A node's world matrix from `composeWorldMatrix`, composed again only when the node or an ancestor may have
 * changed since. A character's model root and the nodes above it are rarely animated and touched by nothing
 * else in the frame, so with a hundred characters every read of them misses the cache: composing the model
 * root's matrix was a sixth of the IK frame; checking the flags instead saved 8–10 % of it (measured on the
 * 100-character bench, frames alternating between the two in one process).
 *
 * The check is Babylon's own notion of change, minus its per-render-id shortcut (which misses in-place
 * changes made after the node was computed within one render id): a node is unchanged when neither it nor
 * its position, scaling or rotation is flagged dirty, and Babylon has not recomputed it since it was
 * composed here (which clears the flags, so its update count is compared too). What Babylon does not flag is
 * compared directly: the parent, `scalingDeterminant`, and the features composing leaves to Babylon
 * (billboards, pivots…). Frozen nodes, nodes left to Babylon and nodes without these internals (another
 * Babylon version) are never cached: composed every time, as before.
 */
export class WorldMatrixCache {
  /** The chain composed last, the node first; `_count` 0 means nothing is remembered. */
  private readonly _nodes: TrackedNode[] = [];
  private _count = 0;
  private _updateIds = new Float64Array(4);
  private _determinants = new Float64Array(4);

  /**
   * Writes the world matrix of `node` into `out` (Babylon's `Matrix.m` layout) unless `out` already holds it
   * from the previous call with the same node and `out`, which nothing else may write in between. Returns
   * whether `out` was written. Allocates nothing unless the parent chain got longer than ever before.
   */
  update(node: TransformNode, out: Float64Array): boolean {
    if (this._count > 0 && this._nodes[0] === (node as unknown) && this._unchanged()) return false;
    this._count = 0;
    if (composeWorldMatrix(node, out)) {
      this._remember(node);
    } else {
      // Forced: Babylon's same-render-id cache would miss an in-place change of an ancestor.
      const m = node.computeWorldMatrix(true).m;
      for (let i = 0; i < 16; i++) out[i] = m[i];
    }
    return true;
  }

  /** Forgets the remembered chain: the next {@link update} composes. */
  invalidate(): void {
    this._count = 0;
  }

  private _unchanged(): boolean {
    const nodes = this._nodes;
    const count = this._count;
    for (let k = 0; k < count; k++) {
      const n = nodes[k];
      if (n._isDirty || n._position._isDirty || n._scaling._isDirty) return false;
      // Babylon composes the Euler rotation only when there is no quaternion, and so does composeWorldMatrix.
      const q = n._rotationQuaternion;
      if (q != null ? q._isDirty : n._rotation._isDirty) return false;
      if (n._childUpdateId !== this._updateIds[k] || n.scalingDeterminant !== this._determinants[k])
        return false;
      if (n._parentNode !== (k + 1 < count ? nodes[k + 1] : null)) return false;
      if (n.isWorldMatrixFrozen || !isPlain(n as unknown as TransformNode)) return false;
    }
    return true;
  }

  private _remember(node: TransformNode): void {
    let count = 0;
    for (let n: unknown = node; n != null; n = (n as TrackedNode)._parentNode) {
      if (!isTracked(n) || n.isWorldMatrixFrozen) return;
      if (count === this._updateIds.length) this._grow();
      if (count < this._nodes.length) this._nodes[count] = n;
      else this._nodes.push(n);
      this._updateIds[count] = n._childUpdateId;
      this._determinants[count] = n.scalingDeterminant;
      count++;
    }
    this._count = count;
  }

  private _grow(): void {
    const ids = new Float64Array(2 * this._updateIds.length);
    ids.set(this._updateIds);
    this._updateIds = ids;
    const determinants = new Float64Array(ids.length);
    determinants.set(this._determinants);
    this._determinants = determinants;
  }
}

function isTracked(value: unknown): value is TrackedNode {
  const n = value as Partial<TrackedNode>;
  return (
    typeof n._isDirty === "boolean" &&
    typeof n._childUpdateId === "number" &&
    typeof n.scalingDeterminant === "number" &&
    isFlagged(n._position) &&
    isFlagged(n._scaling) &&
    isFlagged(n._rotation) &&
    (n._rotationQuaternion == null || isFlagged(n._rotationQuaternion))
  );
}

function isFlagged(value: unknown): value is FlaggedValue {
  return value != null && typeof (value as Partial<FlaggedValue>)._isDirty === "boolean";
}
