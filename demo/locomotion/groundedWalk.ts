import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { FootPlacement, type FootPlacementLeg } from "../../plugin/helpers/index.js";
import type { Character } from "../stage/character.js";
import type { Terrain } from "../stage/terrain.js";
import { CirclePath } from "./circlePath.js";
import { treadmillSpeed } from "./strideSpeed.js";

export interface GroundedWalkOptions {
  /** The in-place walk clip. */
  readonly clip: string;
  /** The legs for FootPlacement; default: a humanoid's two feet. */
  readonly legs?: readonly FootPlacementLeg[];
  /** Radius of the circle walked, metres. */
  readonly radius: number;
  /**
   * Whether the body tilts with the ground under the feet (many legs) or stays upright (bipeds), and how
   * fast it follows: a time constant in seconds.
   */
  readonly tilt: boolean;
  readonly smoothing: number;
}

const UP = Vector3.UpReadOnly;

/**
 * A character walking an in-place clip round a circle on uneven ground: the holder moves at the clip's
 * own treadmill speed (so planted feet do not slide), rides at the terrain's height (tilted with it, for
 * many legs), and the plugin's FootPlacement puts each foot on the ground under it and lowers the hips where
 * a leg cannot reach.
 */
export class GroundedWalk {
  readonly feet: FootPlacement;
  /** Metres per second along the path, measured from the clip. */
  readonly speed: number;
  /** Largest foot-to-target distance after the last solve, metres. */
  footError = 0;
  private readonly _path: CirclePath;
  private readonly _tilt = Quaternion.Identity();
  private readonly _tiltGoal = Quaternion.Identity();
  private readonly _normal = new Vector3();
  private _y: number;

  constructor(
    private readonly _character: Character,
    private readonly _terrain: Terrain,
    private readonly _options: GroundedWalkOptions,
  ) {
    const ik = _character.ik;
    const rig = ik.rig!;
    const holder = _character.holder;
    const footJoints = _options.legs?.map((l) => l.foot) ?? ["leftFoot", "rightFoot"];
    const feetNodes = footJoints.map((f) => rig.nodes[ik.jointIndex(f)]!);
    const walk = _character.animations.find((g) => g.name.replace(/^.*:/, "") === _options.clip)!;
    this.speed = treadmillSpeed(walk, feetNodes, holder);
    _character.play(_options.clip);
    this._path = new CirclePath(holder, _options.radius, this.speed);
    holder.rotationQuaternion = Quaternion.Identity();
    this._y = _terrain.heightAt(holder.position.x, holder.position.z) || 0;
    this._place();

    const ground = _terrain.mesh;
    this.feet = new FootPlacement(ik, {
      ...(_options.legs !== undefined ? { legs: _options.legs } : {}),
      ground: (mesh) => mesh === ground,
      // Driven below, after the holder has moved this frame.
      autoUpdate: false,
    });
    const scene = holder.getScene();
    // insertFirst: everything here must happen before the behavior (added earlier) solves this frame.
    scene.onBeforeRenderObservable.add(() => this._frame(scene.deltaTime / 1000), undefined, true);
    ik.onSolvedObservable.add(() => this._measure());
  }

  private _frame(seconds: number): void {
    this._path.advance(seconds);
    const k = 1 - Math.exp(-seconds / this._options.smoothing);
    const holder = this._character.holder;
    const goal = this._options.tilt
      ? this._groundPlane()
      : this._terrain.heightAt(holder.position.x, holder.position.z);
    if (Number.isFinite(goal)) this._y += (goal - this._y) * k;
    Quaternion.SlerpToRef(this._tilt, this._tiltGoal, k, this._tilt);
    this._place();
    this.feet.update(seconds);
  }

  private _place(): void {
    const holder = this._character.holder;
    holder.position.y = this._y;
    this._tilt.multiplyToRef(this._path.heading, holder.rotationQuaternion!);
  }

  /**
   * The plane that best fits the ground under the feet (as FootPlacement found it last frame): sets the tilt
   * goal to its normal, returns its height under the holder. Least squares y = a·x + b·z + c.
   */
  private _groundPlane(): number {
    const holder = this._character.holder;
    const cx = holder.position.x,
      cz = holder.position.z;
    let n = 0,
      sx = 0,
      sz = 0,
      sy = 0,
      sxx = 0,
      sxz = 0,
      szz = 0,
      sxy = 0,
      szy = 0;
    for (const leg of this.feet.legs) {
      if (!leg.grounded) continue;
      const p = leg.targetPosition;
      const x = p.x - cx,
        z = p.z - cz,
        y = leg.groundHeight;
      n++;
      sx += x;
      sz += z;
      sy += y;
      sxx += x * x;
      sxz += x * z;
      szz += z * z;
      sxy += x * y;
      szy += z * y;
    }
    if (n < 3) return this._terrain.heightAt(cx, cz);
    const mx = sx / n,
      mz = sz / n,
      my = sy / n;
    const cxx = sxx - n * mx * mx,
      cxz = sxz - n * mx * mz,
      czz = szz - n * mz * mz;
    const cxy = sxy - n * mx * my,
      czy = szy - n * mz * my;
    const det = cxx * czz - cxz * cxz;
    if (Math.abs(det) < 1e-9) return my;
    const a = (cxy * czz - czy * cxz) / det;
    const b = (czy * cxx - cxy * cxz) / det;
    this._normal.set(-a, 1, -b).normalize();
    Quaternion.FromUnitVectorsToRef(UP, this._normal, this._tiltGoal);
    return my - a * mx - b * mz;
  }

  private _measure(): void {
    const ik = this._character.ik;
    const rig = ik.rig!;
    this._character.holder.getScene().incrementRenderId();
    let worst = 0;
    for (const leg of this.feet.legs) {
      if (leg.weight < 1) continue;
      const node = rig.nodes[leg.foot]!;
      worst = Math.max(
        worst,
        Vector3.Distance(node.computeWorldMatrix(true).getTranslation(), leg.targetPosition),
      );
    }
    this.footError = worst;
  }
}
