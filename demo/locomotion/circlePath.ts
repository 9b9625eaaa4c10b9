import { Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";

/**
 * Walks a holder node round a circle at a given speed, turned to face along the path (the characters face
 * +Z). Only x, z and the heading are set here; the height and tilt belong to the foot planter.
 */
export class CirclePath {
  private _angle: number;
  /** The heading, for the planter to combine with its tilt. */
  readonly heading = new Quaternion();

  constructor(
    private readonly _node: TransformNode,
    private readonly _radius: number,
    private readonly _speed: number,
    start = 0,
  ) {
    this._angle = start;
    this.advance(0);
  }

  advance(seconds: number): void {
    this._angle += (this._speed * seconds) / this._radius;
    const a = this._angle;
    this._node.position.x = this._radius * Math.cos(a);
    this._node.position.z = this._radius * Math.sin(a);
    // Counter-clockwise seen from above: the velocity is (-sin a, 0, cos a); yaw maps +Z onto it.
    Quaternion.RotationYawPitchRollToRef(Math.atan2(-Math.sin(a), Math.cos(a)), 0, 0, this.heading);
  }
}
