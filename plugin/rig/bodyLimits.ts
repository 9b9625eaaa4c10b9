import {
  createJointLimits,
  type JointLimitSpec,
  type JointLimits,
  type SwingLimitSpec,
  type TwistLimitSpec,
  type Vector3Tuple,
} from "../solver/limits.js";
import { quatRotate, quatRotateInverse } from "../solver/quaternion.js";
import type { Rig } from "../solver/rig.js";
import { cross, dot, normalize, scale, sub, type BodyFrame, type Vec3 } from "./bodyFrame.js";

export const DEG = Math.PI / 180;

/** No side of a cone closes completely, even when the rest pose already sits past the anatomical range. */
const MIN_SWING = 5 * DEG;
/** A rest bend smaller than this is modelling noise, not a hint of which way the elbow or knee folds. */
const MIN_BEND_HINT = 1 * DEG;
/** A swing direction this close to the bone (sine of the angle) says nothing about the cone's sides. */
export const MIN_PERPENDICULAR = 0.2;

/** How far (radians) a bone may swing from rest toward a model-space direction. */
export interface Reach {
  dir: Vec3;
  angle: number;
}

/** Allowed rotation (radians) about a model-space body axis, min ≤ 0 ≤ max. */
export interface Turn {
  axis: Vec3;
  min: number;
  max: number;
}

/**
 * Joint limits from ranges given about a character's body axes (up, left, forward): the shapes a preset
 * builds with. Each turns body-space directions into the specs `setJointLimit` takes, with every axis in the
 * parent's rest frame and every angle measured from the rest pose, around exactly the bone axis the solver
 * uses. The humanoid preset subclasses it with one method per joint.
 */
export class BodyLimits {
  protected readonly rig: Rig;
  protected readonly body: BodyFrame;
  /** Only read for the bone axes, so the preset measures around exactly the axis the solver will. */
  private readonly limits: JointLimits;
  private readonly scratch = new Float64Array(3);

  constructor(rig: Rig, body: BodyFrame) {
    this.rig = rig;
    this.body = body;
    this.limits = createJointLimits(rig);
  }

  /**
   * A hinge about the axis that folds the bone toward `fold`, or toward the rest bend when it is a plausible
   * hint (`accept`). Its range runs from straight to `flex` past straight, minus what the rest pose already
   * bends, so the straight limb and the rest pose are both inside.
   */
  protected hinge(
    j: number,
    upper: number | undefined,
    flex: number,
    fold: Vec3,
    accept: (bendDirection: Vec3) => boolean,
  ): JointLimitSpec {
    const f = this.boneDirection(j);
    const parent = upper ?? this.rig.parents[j];
    const u = normalize(sub(this.position(j), this.position(parent))) ?? f;
    const bent = perpendicular(f, u);
    let axis: Vec3 | undefined;
    if (bent !== undefined && Math.acos(clamp(dot(u, f), -1, 1)) > MIN_BEND_HINT && accept(bent)) {
      axis = normalize(cross(u, f));
    }
    // Without a hint, or a straight rest: fold toward the anatomical side, or toward up as a last resort.
    axis ??= normalize(cross(f, perpendicular(fold, f) ?? perpendicular(this.body.up, f) ?? fold));
    axis ??= this.body.left;
    // The rest bend about that axis: from the upper bone to this one.
    const up = perpendicular(u, axis),
      fp = perpendicular(f, axis);
    const restBend = up && fp ? Math.atan2(dot(axis, cross(up, fp)), dot(up, fp)) : 0;
    return {
      hinge: {
        axis: this.toParent(j, axis),
        min: Math.min(0, -restBend),
        max: clamp(flex - restBend, 0, Math.PI),
      },
    };
  }

  /** Swing and twist from allowed rotations about three body axes, whatever the bone's own direction. */
  protected turns(j: number, turns: Turn[]): JointLimitSpec {
    const b = this.boneDirection(j);
    // The body axis nearest the bone becomes twist; the other two swing the bone sideways.
    let k = 0;
    for (let i = 1; i < turns.length; i++) {
      if (Math.abs(dot(turns[i].axis, b)) > Math.abs(dot(turns[k].axis, b))) k = i;
    }
    const along = dot(turns[k].axis, b) >= 0;
    const twist: TwistLimitSpec = along
      ? { min: turns[k].min, max: turns[k].max }
      : { min: -turns[k].max, max: -turns[k].min };
    const reaches: Reach[] = [];
    for (let i = 0; i < turns.length; i++) {
      if (i === k) continue;
      // A positive turn about `axis` carries the bone's tip toward axis × bone.
      const toward = cross(turns[i].axis, b);
      reaches.push({ dir: toward, angle: turns[i].max }, { dir: scale(toward, -1), angle: -turns[i].min });
    }
    return { swing: this.reaches(j, reaches), twist };
  }

  /**
   * An elliptical cone from reaches toward body directions. "Up" is the first reach that is not along the
   * bone; each of the four sides takes the reach pointing most nearly its way, so mirrored limbs need no
   * special case.
   */
  protected reaches(j: number, reaches: Reach[]): SwingLimitSpec {
    const b = this.boneDirection(j);
    const usable: Reach[] = [];
    for (const r of reaches) {
      const d = perpendicular(r.dir, b, MIN_PERPENDICULAR);
      if (d !== undefined) usable.push({ dir: d, angle: clamp(r.angle, MIN_SWING, Math.PI) });
    }
    // Only a bone along every given direction lands here; any cone frame will do then.
    const upDir = usable.length > 0 ? usable[0].dir : (perpendicular(this.body.forward, b) ?? this.body.up);
    const rightDir = normalize(cross(b, upDir)) ?? this.body.left;
    const fallback = usable.length > 0 ? usable.reduce((s, r) => s + r.angle, 0) / usable.length : MIN_SWING;
    const side = (s: Vec3): number => {
      let best: Reach | undefined,
        bestDot = 0.5;
      for (const r of usable) {
        const d = dot(r.dir, s);
        if (d > bestDot) {
          best = r;
          bestDot = d;
        }
      }
      return best !== undefined ? best.angle : fallback;
    };
    return {
      up: side(upDir),
      right: side(rightDir),
      down: side(scale(upDir, -1)),
      left: side(scale(rightDir, -1)),
      upAxis: this.toParent(j, upDir),
    };
  }

  /** Model-space direction of the solver's bone axis of `j` (toward its main child). */
  protected boneDirection(j: number): Vec3 {
    quatRotate(this.scratch, 0, this.rig.restOrientations, 4 * j, this.limits.boneAxis, 3 * j);
    return normalize([this.scratch[0], this.scratch[1], this.scratch[2]]) ?? this.body.up;
  }

  protected position(j: number): Vec3 {
    const p = this.rig.restPositions;
    return [p[3 * j], p[3 * j + 1], p[3 * j + 2]];
  }

  /** A model-space direction in the parent's rest frame, where limit specs take their axes. */
  protected toParent(j: number, v: Vec3): Vector3Tuple {
    const p = this.rig.parents[j];
    if (p < 0) return [v[0], v[1], v[2]];
    this.scratch[0] = v[0];
    this.scratch[1] = v[1];
    this.scratch[2] = v[2];
    quatRotateInverse(this.scratch, 0, this.rig.restOrientations, 4 * p, this.scratch, 0);
    return [this.scratch[0], this.scratch[1], this.scratch[2]];
  }
}

/** v without its component along unit `axis`, normalised; undefined when less than `min` of it is left. */
export function perpendicular(v: Vec3, axis: Vec3, min = 1e-6): Vec3 | undefined {
  const len = Math.hypot(v[0], v[1], v[2]);
  const h = sub(v, scale(axis, dot(v, axis)));
  return Math.hypot(h[0], h[1], h[2]) > min * len ? normalize(h) : undefined;
}

export function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}
