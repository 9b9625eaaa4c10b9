import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { FabrikError } from "../solver/index.js";
import { checkHeight } from "./trackedBodyOptions.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import type { TrackedPoint } from "./trackedPoint.js";

/**
 * Where a standing person's head joint (the top of the neck, where a skeleton's head bone starts) sits, as a
 * fraction of their height. Anthropometric tables put the skull's base at about 91 % of stature; the
 * project's 1.75 m mannequin has its head joint at 1.60 m.
 */
export const HEAD_JOINT_FRACTION = 0.914;

/**
 * Scales an avatar to its player, uniformly, so its proportions stay its own: the node the behavior sits on
 * is scaled from the scaling it had when the body was made.
 */
export class TrackedCalibration {
  private readonly _base: Vector3;
  /** World units per model unit along up, at the base scaling. */
  private readonly _unit: number;
  private _scale = 1;

  constructor(
    private readonly _node: TransformNode,
    private readonly _body: TrackedBodyRig,
    modelToWorld: Float64Array,
  ) {
    this._base = _node.scaling.clone();
    const up = _body.frame;
    const m = modelToWorld;
    this._unit = Math.hypot(
      up[3] * m[0] + up[4] * m[4] + up[5] * m[8],
      up[3] * m[1] + up[4] * m[5] + up[5] * m[9],
      up[3] * m[2] + up[4] * m[6] + up[5] * m[10],
    );
  }

  /** The scale applied (1: the avatar's own size). */
  get scale(): number {
    return this._scale;
  }

  /** The avatar's standing height (world units, at the scale applied): its head joint over the ground, / 0.914. */
  get height(): number {
    return (this._body.standHead * this._unit * this._scale) / HEAD_JOINT_FRACTION;
  }

  /** Scales the avatar to a player `height` metres tall. */
  toHeight(height: number, who: string): number {
    checkHeight(height, who);
    return this._apply((height * HEAD_JOINT_FRACTION) / (this._body.standHead * this._unit));
  }

  /**
   * Scales the avatar so its head joint stands where the head tracker is now, over the ground (the plane
   * through the model root's origin, square to the body's up): the player stands straight, as in a T-pose.
   */
  toTracker(head: TrackedPoint, modelRoot: TransformNode, who: string): number {
    const numbers = new Float64Array(9);
    if (!head._read(numbers, 0)) {
      throw new FabrikError(`${who}: needs the head tracker's pose (it is not finite)`, undefined, "head");
    }
    const origin = modelRoot.getAbsolutePosition();
    const standing = numbers[1] - origin.y;
    const rest = this._body.standHead * this._unit;
    if (!(standing > 0.25 * rest && standing < 4 * rest)) {
      throw new FabrikError(
        `${who}: the head tracker is ${standing.toFixed(3)} above the ground; stand straight ` +
          `(between ${(0.25 * rest).toFixed(3)} and ${(4 * rest).toFixed(3)} for this avatar)`,
        undefined,
        "head",
      );
    }
    return this._apply(standing / rest);
  }

  /** Back to the avatar's own size. */
  reset(): void {
    this._apply(1);
  }

  private _apply(scale: number): number {
    this._scale = scale;
    this._node.scaling.copyFrom(this._base).scaleInPlace(scale);
    this._node.computeWorldMatrix(true);
    return scale;
  }
}
