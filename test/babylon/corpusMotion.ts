// Smooth, limit-respecting joint motion for the character corpus test (not a test file): each joint the
// behavior turns follows its own random walk of local rotations, projected onto the behavior's own limits,
// so the effectors' forward-kinematics positions are targets the behavior can meet all at once.
import { projectRotation } from "../../plugin/solver/jointLimitProjection.js";
import type { JointLimits } from "../../plugin/solver/limits.js";
import { quatConjugateMultiply, quatFromUnitVectors, quatMultiply } from "../../plugin/solver/quaternion.js";
import { random } from "./fabrikHarness.js";

/** Largest rotation per axis of a joint's walk (radians), before its limits cut it back. */
const AMPLITUDE = 0.7;
/** Periods of the walk's sines, in frames: slow enough that no joint turns more than ~3° per frame. */
const PERIODS: readonly [number, number] = [150, 400];
/** Frames the character holds its rest pose (a T-pose on humanoids) before the walk eases in. */
export const REST_FRAMES = 10;
const EASE_FRAMES = 40;

/** An arm to hang along the body for part of the run: targets near the chain's own line. */
export interface HangingArm {
  readonly upperArm: number;
  readonly lowerArm: number;
  /** Joints of the arm below the upper arm that the walk eases back toward rest while it hangs. */
  readonly below: readonly number[];
}

/** The arms to hang, and the rest pose (model space) and up direction that say where "down" is. */
export interface Hanging {
  readonly arms: readonly HangingArm[];
  readonly restPositions: Float64Array;
  readonly restOrientations: Float64Array;
  readonly up: readonly [number, number, number];
  /** When they hang: from and to, as fractions of the run. Default 0.55 to 0.85. */
  readonly window?: readonly [number, number];
}

/**
 * Local rotations over frames for `joints` (relative to the rest local, as the limits measure them):
 * Δ(t) = project(exp(v(t))) with v a sum of two sines per axis, zero for the first {@link REST_FRAMES}
 * frames and eased in after. In the hanging window the given arms swing down along `up` with their elbows
 * eased toward straight, as arms hang by the body.
 */
export class LimitedWalk {
  private readonly _waves: Float64Array;
  private readonly _window: readonly [number, number];
  private readonly _hangRotation = new Map<number, Float64Array>();
  private readonly _eased = new Set<number>();
  private readonly _scratch = new Float64Array(16);

  constructor(
    readonly limits: JointLimits,
    readonly joints: readonly number[],
    readonly frames: number,
    seed: number,
    hanging?: Hanging,
  ) {
    const rnd = random(seed);
    // Per joint and axis: two (amplitude, angular frequency, phase) triples.
    this._waves = Float64Array.from({ length: joints.length * 18 }, (_, i) => {
      const k = i % 3;
      if (k === 0) return (AMPLITUDE / 2) * (0.5 + 0.5 * rnd());
      if (k === 1) return (2 * Math.PI) / (PERIODS[0] + (PERIODS[1] - PERIODS[0]) * rnd());
      return 2 * Math.PI * rnd();
    });
    const moving = new Set(joints);
    this._window = hanging?.window ?? [0.55, 0.85];
    for (const arm of hanging?.arms ?? []) {
      if (!moving.has(arm.upperArm)) continue;
      this._hangRotation.set(arm.upperArm, hangDelta(arm, hanging!));
      for (const j of arm.below) this._eased.add(j);
    }
  }

  /** Fills `out` (4 per joint of `joints`, in that order) with the frame's limited local rotations Δ. */
  deltas(frame: number, out: Float64Array): void {
    const ease = smoothstep((frame - REST_FRAMES) / EASE_FRAMES);
    const [from, to] = this._window;
    const t = (frame / this.frames - from) / (to - from);
    const hanging = t > 0 && t < 1 ? Math.sin(Math.PI * t) ** 2 : 0;
    const v = [0, 0, 0];
    for (let i = 0; i < this.joints.length; i++) {
      const j = this.joints[i];
      for (let axis = 0; axis < 3; axis++) {
        let s = 0;
        for (let w = 0; w < 2; w++) {
          const o = 18 * i + 9 * w + 3 * axis;
          s += this._waves[o] * Math.sin(this._waves[o + 1] * frame + this._waves[o + 2]);
        }
        v[axis] = ease * s;
      }
      const hang = this._hangRotation.get(j);
      if (hang !== undefined && hanging > 0) {
        // Blended in rotation-vector space: smooth in time, and exactly the hanging arm at the window's middle.
        const h = rotationVector(hang);
        for (let axis = 0; axis < 3; axis++) v[axis] = (1 - hanging) * v[axis] + hanging * h[axis];
      } else if (this._eased.has(j)) {
        for (let axis = 0; axis < 3; axis++) v[axis] *= 1 - 0.9 * hanging;
      }
      exp(v, out, 4 * i);
      projectRotation(this.limits, j, out, 4 * i, this._scratch, 0);
    }
  }
}

/**
 * Δ that swings the upper arm, about its own joint in model space, from its rest direction to straight
 * down: with O the joint's rest model orientation and R the model-space swing, Δ = O⁻¹ · R · O.
 */
function hangDelta(arm: HangingArm, hanging: Hanging): Float64Array {
  const { restPositions: positions, restOrientations: orientations, up } = hanging;
  const a = arm.upperArm,
    b = arm.lowerArm;
  const v = new Float64Array(6);
  const len = Math.hypot(...[0, 1, 2].map((i) => positions[3 * b + i] - positions[3 * a + i]));
  const upLen = Math.hypot(...up);
  for (let i = 0; i < 3; i++) {
    v[i] = (positions[3 * b + i] - positions[3 * a + i]) / len;
    v[3 + i] = -up[i] / upLen;
  }
  const r = new Float64Array(4);
  quatFromUnitVectors(r, 0, v, 0, v, 3);
  const q = new Float64Array(4);
  // R · O, then O⁻¹ · (R · O).
  quatMultiply(q, 0, r, 0, orientations, 4 * a);
  quatConjugateMultiply(q, 0, orientations, 4 * a, q, 0);
  return q;
}

function smoothstep(x: number): number {
  const t = Math.min(1, Math.max(0, x));
  return t * t * (3 - 2 * t);
}

/** Rotation vector (axis × angle) of a unit quaternion, the shorter way round. */
function rotationVector(q: Float64Array): [number, number, number] {
  const sign = q[3] < 0 ? -1 : 1;
  const s = Math.hypot(q[0], q[1], q[2]);
  if (s < 1e-12) return [0, 0, 0];
  const angle = 2 * Math.atan2(s, sign * q[3]);
  return [(sign * q[0] * angle) / s, (sign * q[1] * angle) / s, (sign * q[2] * angle) / s];
}

/** out[o..o+3] = the unit quaternion of rotation vector v. */
function exp(v: readonly number[], out: Float64Array, o: number): void {
  const angle = Math.hypot(v[0], v[1], v[2]);
  const s = angle > 1e-12 ? Math.sin(angle / 2) / angle : 0.5;
  out[o] = v[0] * s;
  out[o + 1] = v[1] * s;
  out[o + 2] = v[2] * s;
  out[o + 3] = Math.cos(angle / 2);
}
