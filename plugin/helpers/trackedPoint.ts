import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { FabrikError } from "../solver/index.js";

/** The tracked points of a {@link TrackedBody}. */
export type TrackedPointName = "head" | "leftHand" | "rightHand" | "hips" | "leftFoot" | "rightFoot";

/** `value` when it is a weight (0..1); else a FabrikError naming `name.weight`. */
export function checkedWeight(name: string, value: number): number {
  if (typeof value !== "number" || !(value >= 0 && value <= 1)) {
    throw new FabrikError(
      `TrackedBody: ${name}.weight must be a number in [0, 1], got ${String(value)}`,
      undefined,
      `${name}.weight`,
    );
  }
  return value;
}

/** `node` when it is a TransformNode or null; else a FabrikError naming `name`. */
export function checkedNode(name: string, node: TransformNode | null): TransformNode | null {
  if (node !== null && (typeof node !== "object" || typeof node.getAbsolutePosition !== "function")) {
    throw new FabrikError(
      `TrackedBody: ${name}.follow() takes a TransformNode or null, got ${String(node)}`,
      undefined,
      name,
    );
  }
  return node;
}

/**
 * One tracker's input: a world pose and a weight. Write `position` and `rotation` every frame (or
 * {@link follow} a node: a WebXR camera or controller grip), and set `weight` to 0 when the tracker is lost:
 * the body fades to its animation over the TrackedBody's `fadeTime`.
 *
 * The rotation says where the tracker points: its +Z is the way it faces (a headset's view, a controller's
 * pointing direction), its +Y its up. A headset looking ahead and level has the rotation of the character
 * facing its own forward.
 */
export class TrackedPoint {
  /** World position of the tracked joint (after {@link offset}: the head joint, the wrist). */
  readonly position = new Vector3();
  /** World rotation of the tracker. */
  readonly rotation = new Quaternion();
  /**
   * Where the joint sits in the tracker's own frame (world units): a headset's eyes are ahead of and above
   * the head joint, so about `(0, -0.1, -0.1)` for a head. Default zero.
   */
  readonly offset = new Vector3();
  private _weight: number;
  private _node: TransformNode | null = null;

  constructor(
    readonly name: TrackedPointName,
    weight: number,
  ) {
    this._weight = weight;
  }

  /** 0..1: how much the tracker drives the body. Setting it fades over the body's `fadeTime`. */
  get weight(): number {
    return this._weight;
  }

  set weight(value: number) {
    this._weight = checkedWeight(this.name, value);
  }

  /** The node followed each frame (its absolute position and rotation), or null. */
  get node(): TransformNode | null {
    return this._node;
  }

  /** Follows a node's world pose every frame (a WebXR camera or controller); null stops following. */
  follow(node: TransformNode | null): void {
    this._node = checkedNode(this.name, node);
  }

  /** @internal Copies the followed node's pose, if any. */
  _readNode(): void {
    const node = this._node;
    if (node === null) return;
    node.computeWorldMatrix(true);
    this.position.copyFrom(node.absolutePosition);
    this.rotation.copyFrom(node.absoluteRotationQuaternion);
  }

  /**
   * @internal The tracked joint's world position and the tracker's world forward (+Z) and up (+Y) into
   * `out` at `o` (9 numbers); false, writing nothing, when anything is not finite or the rotation is degenerate.
   */
  _read(out: Float64Array, o: number): boolean {
    const q = this.rotation;
    let x = q.x,
      y = q.y,
      z = q.z,
      w = q.w;
    const len = Math.sqrt(x * x + y * y + z * z + w * w);
    if (!(len > 1e-9) || !Number.isFinite(len)) return false;
    x /= len;
    y /= len;
    z /= len;
    w /= len;
    // Columns of the rotation: its images of +X, +Y and +Z.
    const xx = 1 - 2 * (y * y + z * z),
      xy = 2 * (x * y + w * z),
      xz = 2 * (x * z - w * y);
    const yx = 2 * (x * y - w * z),
      yy = 1 - 2 * (x * x + z * z),
      yz = 2 * (y * z + w * x);
    const zx = 2 * (x * z + w * y),
      zy = 2 * (y * z - w * x),
      zz = 1 - 2 * (x * x + y * y);
    const p = this.position,
      f = this.offset;
    const px = p.x + f.x * xx + f.y * yx + f.z * zx,
      py = p.y + f.x * xy + f.y * yy + f.z * zy,
      pz = p.z + f.x * xz + f.y * yz + f.z * zz;
    // Nothing is written unless it is all finite: the last good pose stays for the fade out.
    if (!(Number.isFinite(px) && Number.isFinite(py) && Number.isFinite(pz))) return false;
    out[o] = px;
    out[o + 1] = py;
    out[o + 2] = pz;
    out[o + 3] = zx;
    out[o + 4] = zy;
    out[o + 5] = zz;
    out[o + 6] = yx;
    out[o + 7] = yy;
    out[o + 8] = yz;
    return true;
  }
}
