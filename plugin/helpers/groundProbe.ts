import { Ray } from "@babylonjs/core/Culling/ray.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Scene } from "@babylonjs/core/scene.js";
import {
  copy,
  normalize3,
  quatScaleAngle,
  transformDirection,
  transformPoint,
  quatFromUnitVectors,
  quatMultiply,
} from "../rig/index.js";
import { vectorFromArray, type FabrikFrame } from "../babylon/index.js";
import type { FootSettings } from "./footPlacementOptions.js";
import { footPoint } from "./footPoint.js";
import {
  ALPHA,
  BASE,
  COS_TILT,
  DELTA,
  DT,
  FADE,
  FOOT,
  FOOT_MODEL,
  GOAL_POINT,
  GOAL_SURFACE,
  GOAL_WEIGHT,
  GROUND,
  HEIGHT,
  HIP_ALPHA,
  HIP_SMOOTHING,
  HIT,
  HIT_NORMAL,
  MODEL_PER_WORLD,
  MODEL_ROTATION,
  MODEL_TARGET,
  NORMAL_MODEL,
  POINT,
  RAY,
  REF_Y,
  SMOOTHING,
  SURFACE,
  TARGET,
  TILT,
  UP_MODEL,
  WEIGHT,
} from "./footSlots.js";
import type { LegState } from "./legState.js";
import { smoothingFactor } from "./smoothing.js";

/**
 * Where each foot goes this frame: a ray down through the foot finds the ground, each leg's ground (a
 * smoothed plane) follows what its ray finds, and the foot's target is that ground straight below it raised
 * by the foot's animated height above the animation's ground, its rotation turned to the ground's tilt.
 * Works in the frame's scalars `n` and each leg's state (see footSlots).
 */
export class GroundProbe {
  private readonly _ray = new Ray(new Vector3(), new Vector3(0, -1, 0), 1);
  private readonly _predicate: (mesh: AbstractMesh) => boolean;

  constructor(
    private readonly _scene: Scene,
    private readonly _settings: FootSettings,
    private readonly _n: Float64Array,
    ground: () => (mesh: AbstractMesh) => boolean,
  ) {
    this._predicate = (mesh) => ground()(mesh);
  }

  /** The frame's scalars: smoothing fractions, the animation's ground height, world up in model space. */
  frameScalars(frame: FabrikFrame): void {
    const n = this._n;
    const settings = this._settings;
    n[SMOOTHING] = settings.smoothing;
    smoothingFactor(n, DT, SMOOTHING, ALPHA);
    n[HIP_SMOOTHING] = settings.hipSmoothing;
    smoothingFactor(n, DT, HIP_SMOOTHING, HIP_ALPHA);
    const dt = n[DT];
    n[FADE] = settings.fadeTime > 0 ? (dt > 0 ? dt / settings.fadeTime : 0) : 1;
    // The animation's ground: the plane through the model root's origin, square to world up.
    n[REF_Y] = frame.modelToWorld[13];
    const w2m = frame.worldToModel;
    n[UP_MODEL] = w2m[4];
    n[UP_MODEL + 1] = w2m[5];
    n[UP_MODEL + 2] = w2m[6];
    n[MODEL_PER_WORLD] = Math.sqrt(w2m[4] * w2m[4] + w2m[5] * w2m[5] + w2m[6] * w2m[6]);
    normalize3(n, UP_MODEL, n, UP_MODEL);
    n[COS_TILT] = Math.cos(Math.min(settings.maxTilt, Math.PI / 2 - 1e-6));
    this._ray.length = settings.rayHeight + settings.maxStepDown;
  }

  /**
   * Over the frame just past, the leg's state moved toward the goals seen at its start: the exact solution of
   * the smoothing for goals held between frames, so a change seen at the same moment gives the same curve
   * at any frame rate (a frame of latency is the price).
   */
  advance(leg: LegState): void {
    const s = leg.s;
    const n = this._n;
    const fade = n[FADE];
    const goal = s[GOAL_WEIGHT];
    const w = s[WEIGHT];
    s[WEIGHT] = w < goal ? Math.min(goal, w + fade) : Math.max(goal, w - fade);
    const a = n[ALPHA];
    for (let k = 0; k < 3; k++) {
      s[POINT + k] += (s[GOAL_POINT + k] - s[POINT + k]) * a;
      s[SURFACE + k] += (s[GOAL_SURFACE + k] - s[SURFACE + k]) * a;
    }
    normalize3(s, SURFACE, s, SURFACE);
  }

  /** The animated foot and the leg's base in world space, the foot's height, and the ray above the foot. */
  readFoot(leg: LegState, frame: FabrikFrame): void {
    const s = leg.s;
    const n = this._n;
    footPoint(leg.leg, frame.positions, frame.orientations, s, FOOT_MODEL);
    transformPoint(s, FOOT, frame.modelToWorld, s, FOOT_MODEL);
    transformPoint(s, BASE, frame.modelToWorld, frame.positions, 3 * leg.leg.base);
    s[HEIGHT] = s[FOOT + 1] - n[REF_Y];
    n[RAY] = s[FOOT];
    n[RAY + 1] = n[REF_Y] + this._settings.rayHeight;
    n[RAY + 2] = s[FOOT + 2];
    vectorFromArray(this._ray.origin, n, RAY);
  }

  /**
   * Casts the leg's ray; on a hit no higher than `maxStepUp`, the point and the face's normal (turned up)
   * become the leg's goals.
   */
  cast(leg: LegState): boolean {
    const n = this._n;
    if (pickGround(this._scene, this._ray, this._predicate, n, HIT, n, HIT_NORMAL) === null) return false;
    if (!(n[HIT + 1] - n[REF_Y] <= this._settings.maxStepUp)) return false;
    const s = leg.s;
    copy(s, GOAL_POINT, n, HIT, 3);
    copy(s, GOAL_SURFACE, n, HIT_NORMAL, 3);
    return true;
  }

  /** This frame's goals, from the ray (or its absence). */
  takeGoals(leg: LegState, started: boolean): void {
    const s = leg.s;
    if (leg.grounded) {
      s[GOAL_WEIGHT] = 1;
      // A leg coming back from its animation starts at the ground it finds, not at an old one; without
      // smoothing, every frame takes the ground it finds.
      if (!(s[WEIGHT] > 0) || !(this._settings.smoothing > 0)) {
        copy(s, POINT, s, GOAL_POINT, 3);
        copy(s, SURFACE, s, GOAL_SURFACE, 3);
      }
    } else {
      s[GOAL_WEIGHT] = 0;
    }
    // The first frame shows the placement at once: a character may be created standing on a slope.
    if (!started) s[WEIGHT] = s[GOAL_WEIGHT];
  }

  /** The foot's target (world), its tilt, and the target in model space. */
  placeFoot(leg: LegState, frame: FabrikFrame): void {
    const s = leg.s;
    const n = this._n;
    // The ground straight below the foot, on the smoothed plane.
    const ny = s[SURFACE + 1] > 0.1 ? s[SURFACE + 1] : 0.1;
    s[GROUND] =
      s[POINT + 1] - (s[SURFACE] * (s[FOOT] - s[POINT]) + s[SURFACE + 2] * (s[FOOT + 2] - s[POINT + 2])) / ny;
    copy(s, TILT, s, SURFACE, 3);
    const cos = n[COS_TILT];
    if (s[TILT + 1] < cos) {
      const side = Math.sqrt(s[TILT] * s[TILT] + s[TILT + 2] * s[TILT + 2]);
      const sin = Math.sqrt(1 - cos * cos);
      s[TILT] = (s[TILT] / side) * sin;
      s[TILT + 1] = cos;
      s[TILT + 2] = (s[TILT + 2] / side) * sin;
    }
    // The foot keeps its animated distance to the ground measured square to its tilt: straight above the
    // ground, that is height / cos(tilt).
    const lift = s[GROUND] - n[REF_Y] + s[HEIGHT] * (1 / s[TILT + 1] - 1);
    s[TARGET] = s[FOOT];
    s[TARGET + 1] = s[FOOT + 1] + s[WEIGHT] * lift;
    s[TARGET + 2] = s[FOOT + 2];
    transformPoint(s, MODEL_TARGET, frame.worldToModel, s, TARGET);
    if (!leg.leg.align) return;
    // The animated orientation, turned from world up to the tilt (both in model space), by the weight.
    transformDirection(n, NORMAL_MODEL, frame.worldToModel, s, TILT);
    normalize3(n, NORMAL_MODEL, n, NORMAL_MODEL);
    quatFromUnitVectors(n, DELTA, n, UP_MODEL, n, NORMAL_MODEL);
    if (s[WEIGHT] < 1) quatScaleAngle(n, DELTA, s, WEIGHT);
    quatMultiply(s, MODEL_ROTATION, n, DELTA, frame.orientations, 4 * leg.leg.foot);
  }
}

/**
 * Casts `ray` at the meshes `predicate` accepts; on a hit, the point (world) into `point[po..po+2]` and the
 * face's normal turned up (world +Y; straight up when the face has none) into `normal[no..no+2]`; the mesh
 * hit, or null. Shared by FootPlacement and TrackedBody.
 */
export function pickGround(
  scene: Scene,
  ray: Ray,
  predicate: (mesh: AbstractMesh) => boolean,
  point: Float64Array,
  po: number,
  normal: Float64Array,
  no: number,
): AbstractMesh | null {
  const pick = scene.pickWithRay(ray, predicate);
  if (pick === null || !pick.hit || pick.pickedPoint === null) return null;
  readVector(pick.pickedPoint, point, po);
  // The face's own normal: interpolated vertex normals would round every step edge into a ramp.
  const face = pick.getNormal(true, false);
  if (face !== null) readVector(face, normal, no);
  if (face === null || !normalize3(normal, no, normal, no)) {
    normal[no] = normal[no + 2] = 0;
    normal[no + 1] = 1;
  }
  if (normal[no + 1] < 0) for (let k = 0; k < 3; k++) normal[no + k] = -normal[no + k];
  return pick.pickedMesh;
}

/** A small function of its own, so V8 inlines Babylon's getters in it and no component is boxed. */
function readVector(v: Vector3, out: Float64Array, o: number): void {
  out[o] = v.x;
  out[o + 1] = v.y;
  out[o + 2] = v.z;
}
