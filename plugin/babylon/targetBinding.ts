import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { FabrikError } from "../solver/errors.js";
import type { Vector3Like } from "./poseReader.js";
import { WorldMatrixCache } from "./worldMatrixCache.js";

/** Anything with readable x y z w, such as a Babylon `Quaternion`. */
export type QuaternionLike = {
  readonly x: number;
  readonly y: number;
  readonly z: number;
  readonly w: number;
};

/**
 * Where a target (or pole) is, in world space:
 *
 * - a `Vector3` (or any `{ x, y, z }`): read live every frame, so moving the vector moves the target;
 * - a `TransformNode` (a mesh, an empty, a joint of another character): its world position every frame;
 * - a function returning a `Vector3`: called once per frame, when the behavior solves.
 */
export type TargetSource = Vector3Like | TransformNode | (() => Vector3Like);

const KIND_VECTOR = 0;
const KIND_NODE = 1;
const KIND_FUNCTION = 2;

/**
 * A target source, told apart once (when it is set) so the per-frame read is a switch on a number rather
 * than repeated type tests.
 */
export class TargetBinding {
  /** A node source's world matrix and what keeps it (null for the other kinds). */
  private readonly _worldMatrix: Float64Array | null;
  private readonly _worldMatrixCache: WorldMatrixCache | null;

  private constructor(
    readonly source: TargetSource,
    private readonly _kind: number,
  ) {
    const isNode = _kind === KIND_NODE;
    this._worldMatrix = isNode ? new Float64Array(16) : null;
    this._worldMatrixCache = isNode ? new WorldMatrixCache() : null;
  }

  /**
   * Checks a source and binds it. A Vector3 (and a node's current position) must be finite now; a function
   * is not called here, since calling it may have side effects: it is checked on every frame instead.
   * `who` names the caller in errors (`setTarget("LeftHand")`).
   */
  static create(source: unknown, who: string): TargetBinding {
    if (typeof source === "function") return new TargetBinding(source as () => Vector3Like, KIND_FUNCTION);
    if (source instanceof TransformNode) {
      const binding = new TargetBinding(source, KIND_NODE);
      if (!binding.readWorld(createScratch, 0)) {
        throw new FabrikError(
          `${who}: node "${source.name}" has a non-finite world position`,
          undefined,
          who,
        );
      }
      return binding;
    }
    if (isVectorLike(source)) {
      if (!isFiniteVector(source)) {
        throw new FabrikError(
          `${who}: the target is not a finite point (${source.x}, ${source.y}, ${source.z})`,
          undefined,
          who,
        );
      }
      return new TargetBinding(source, KIND_VECTOR);
    }
    throw new FabrikError(
      `${who}: a target must be a Vector3, a TransformNode or a function returning a Vector3, got ` +
        describeValue(source),
      undefined,
      who,
    );
  }

  get isNode(): boolean {
    return this._kind === KIND_NODE;
  }

  /** A node source's world matrix as the last {@link readWorld} or {@link readWorldMatrix} left it (else null). */
  get lastWorldMatrix(): Float64Array | null {
    return this._worldMatrix;
  }

  /**
   * A node source's world matrix now (Babylon's `Matrix.m` layout; null for a point or a function), composed
   * from the local transforms up the parent chain rather than taken from Babylon's per-render cache, which
   * misses in-place changes made since it was last computed (a target parented to a joint the animation just
   * moved). A node and parents that did not move since cost a few flag reads (`WorldMatrixCache`).
   */
  readWorldMatrix(): Float64Array | null {
    const m = this._worldMatrix;
    if (m === null) return null;
    this._worldMatrixCache!.update(this.source as TransformNode, m);
    return m;
  }

  /**
   * Writes the world position to `out[o..o+2]`; returns false when it is not finite (a function that
   * returned NaN or nothing, a node gone singular), so the caller can skip the target for this frame.
   */
  readWorld(out: Float64Array, o: number): boolean {
    const kind = this._kind;
    if (kind === KIND_NODE) {
      const m = this.readWorldMatrix()!;
      out[o] = m[12];
      out[o + 1] = m[13];
      out[o + 2] = m[14];
    } else {
      const v =
        kind === KIND_VECTOR
          ? (this.source as Vector3Like)
          : ((this.source as () => Vector3Like)() as Vector3Like | null | undefined);
      if (v == null) return false;
      out[o] = v.x;
      out[o + 1] = v.y;
      out[o + 2] = v.z;
    }
    return Number.isFinite(out[o]) && Number.isFinite(out[o + 1]) && Number.isFinite(out[o + 2]);
  }
}

const createScratch = new Float64Array(3);

export function isVectorLike(value: unknown): value is Vector3Like {
  if (value === null || typeof value !== "object") return false;
  const v = value as Partial<Vector3Like>;
  return typeof v.x === "number" && typeof v.y === "number" && typeof v.z === "number";
}

export function isFiniteVector(v: Vector3Like): boolean {
  return Number.isFinite(v.x) && Number.isFinite(v.y) && Number.isFinite(v.z);
}

export function isQuaternionLike(value: unknown): value is QuaternionLike {
  if (!isVectorLike(value)) return false;
  return typeof (value as Partial<QuaternionLike>).w === "number";
}

export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") {
    const name = (value as { getClassName?: () => string }).getClassName?.();
    return name !== undefined ? `a ${name}` : "an object without x, y, z";
  }
  return typeof value === "string" ? `the string "${value}"` : String(value);
}
