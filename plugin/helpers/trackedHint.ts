import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { FabrikError } from "../solver/index.js";
import { checkedNode, checkedWeight } from "./trackedPoint.js";

/** The elbow and knee hints of a {@link TrackedBody}. */
export type TrackedHintName = "leftElbow" | "rightElbow" | "leftKnee" | "rightKnee";

/** A vector's text for a message: its three numbers, or what was given instead. */
function describeVector(value: unknown): string {
  if (value === null || typeof value !== "object") return String(value);
  const v = value as { x?: unknown; y?: unknown; z?: unknown };
  return `(${String(v.x)}, ${String(v.y)}, ${String(v.z)})`;
}

/**
 * Where an elbow or a knee should point: a world position (an elbow or knee tracker, a point the user
 * picks) and a weight. It decides the limb's swivel, the plane of the elbow (knee) about the line from the
 * shoulder to the wrist (hip to ankle), blended by its weight with the body's own choice (elbows down and
 * out, knees forward); the hand (foot) stays on its target. Weight 0 (the default) is no hint; setting it
 * fades over the TrackedBody's `fadeTime`, as a tracker's does.
 */
export class TrackedHint {
  private readonly _position = new Vector3();
  private _weight = 0;
  private _node: TransformNode | null = null;

  constructor(readonly name: TrackedHintName) {}

  /**
   * World position the elbow (knee) should point toward. Assigning checks it (a FabrikError for a
   * non-finite one, the hint unchanged); written in place (`position.copyFrom(p)`) it is read each frame,
   * and a non-finite one then counts as lost: the hint fades out, as a tracker does.
   */
  get position(): Vector3 {
    return this._position;
  }

  set position(value: Vector3) {
    const v = value as Partial<Vector3> | null;
    if (
      v === null ||
      typeof v !== "object" ||
      !Number.isFinite(v.x) ||
      !Number.isFinite(v.y) ||
      !Number.isFinite(v.z)
    ) {
      throw new FabrikError(
        `TrackedBody: ${this.name}.position must be a Vector3 of finite numbers, got ${describeVector(value)}`,
        undefined,
        `${this.name}.position`,
      );
    }
    this._position.copyFromFloats(v.x!, v.y!, v.z!);
  }

  /** 0..1: how much the hint decides the limb's swivel. Setting it fades over the body's `fadeTime`. */
  get weight(): number {
    return this._weight;
  }

  set weight(value: number) {
    this._weight = checkedWeight(this.name, value);
  }

  /** The node followed each frame (its absolute position), or null. */
  get node(): TransformNode | null {
    return this._node;
  }

  /** Follows a node's world position every frame (an elbow or knee tracker); null stops following. */
  follow(node: TransformNode | null): void {
    this._node = checkedNode(this.name, node);
  }

  /** @internal Copies the followed node's position, if any. */
  _readNode(): void {
    const node = this._node;
    if (node === null) return;
    node.computeWorldMatrix(true);
    this._position.copyFrom(node.absolutePosition);
  }
}
