import { Ray } from "@babylonjs/core/Culling/ray.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { Nullable } from "@babylonjs/core/types.js";
import {
  PoseLayer,
  PoseReader,
  quaternionFromArray,
  vectorFromArray,
  type FabrikBehavior,
  type FabrikJoint,
  type FabrikSolvedEvent,
  type SkeletonRig,
} from "../babylon/index.js";
import {
  animatedKnee,
  copy,
  KNEE_ANIMATED,
  KNEE_BEND,
  KNEE_END,
  KNEE_FOOT_LOCAL,
  KNEE_GOAL,
  KNEE_HINGE,
  KNEE_HIP,
  KNEE_MAX,
  KNEE_MIN,
  KNEE_OUT,
  KNEE_REACH,
  KNEE_SHIN,
  KNEE_SHIN_OUT,
  KNEE_SLOTS,
  kneeReach,
  normalize3,
  placeKnee,
  quatConjugateMultiply,
  quatFromUnitVectors,
  quatMultiply,
  quatMultiplyConjugate,
  quatRotate,
  quatScaleAngle,
  restBendAxis,
  toJointSpace,
  transformDirection,
  transformPoint,
} from "../rig/index.js";
import { FabrikError } from "../solver/index.js";
import { commonAncestorOf, resolveLegs, type FootPlacementLeg, type ResolvedLeg } from "./footLegs.js";
import { addBeforeSolve, attachedScene, frameSeconds } from "./frameHook.js";
import { createModelTarget } from "./modelTarget.js";
import { smoothingFactor } from "./smoothing.js";

export type { FootPlacementLeg } from "./footLegs.js";

export interface FootPlacementOptions {
  /**
   * The legs to place: foot joints (bone names, roles, nodes, indices) or {@link FootPlacementLeg}s. Default:
   * the feet of a humanoid (`leftFoot`, `rightFoot` below their upper legs, or sitting where their shins
   * end on rigs that hang the feet from the root), plus its hands when they rest lower than halfway down
   * the shins (a quadruped's front legs). Creatures without humanoid legs must list theirs.
   */
  legs?: readonly (FabrikJoint | FootPlacementLeg)[];
  /**
   * Which meshes are ground. Default: every enabled, visible, pickable mesh that is not part of the
   * character. Give your own to skip props and to keep picking cheap in large scenes.
   */
  ground?: (mesh: AbstractMesh) => boolean;
  /** How far (world units) above the animation's ground a foot may be lifted. Default: half the mean leg length. */
  maxStepUp?: number;
  /** How far below it a foot may reach down. Default: half the mean leg length. */
  maxStepDown?: number;
  /**
   * Where each ray starts, in world units above the animation's ground under the foot. Default: `maxStepUp`
   * (ground higher than a foot may step is not seen at all).
   */
  rayHeight?: number;
  /** The most a foot turns to follow the ground's slope, in radians. Default: 30°. */
  maxTilt?: number;
  /**
   * Time constant (seconds) with which each foot's ground (height and slope) follows what its ray finds.
   * The hips follow the smoothed ground, so they are smooth too. Default: 0.06.
   */
  smoothing?: number;
  /** An extra time constant for the hips on top of that, for jerky clips. Default: 0 (none). */
  hipSmoothing?: number;
  /** Seconds for a leg to fade to its animation over a hole, and back. Default: 0.2. */
  fadeTime?: number;
  /** Lower the hips when a leg cannot reach the ground otherwise. Default: true. */
  lowerHips?: boolean;
  /** The joint lowered. Default: the `hips` role when it carries every leg, else the joint the legs meet at. */
  hips?: FabrikJoint;
  /** The most the hips are lowered, in world units. Default: half the mean leg length. */
  maxHipDrop?: number;
  /**
   * How far a leg may stretch, as a fraction of its length, before the hips come down; a leg the animation
   * stretches further keeps the animation's stretch. Default: 0.95.
   */
  legExtension?: number;
  /**
   * Update every frame by itself, with the animation clock's time step (default). With false, call
   * {@link FootPlacement.update} yourself, each frame after the animation and before the behavior's solve.
   */
  autoUpdate?: boolean;
}

/** What a leg is doing (live: updated every frame). */
export interface FootPlacementLegInfo {
  /** The joint put on the ground. */
  readonly foot: number;
  readonly name: string;
  readonly chainLength: number;
  /** The joint at the top of the leg's chain (it keeps its place and turns). */
  readonly base: number;
  readonly align: boolean;
  /**
   * The shin whose end the foot sits at, for a foot that does not hang below its leg (see
   * {@link FootPlacementLeg.shin}); -1 otherwise.
   */
  readonly shin: number;
  /**
   * The node the leg's target is written to, in model space: the foot's, or for a foot at a shin's end, the
   * knee's (position and the shin's orientation).
   */
  readonly target: TransformNode;
  /** Whether the ray under the foot found ground this frame. */
  readonly grounded: boolean;
  /** How much of the placement shows, 0..1: it fades to 0 (the animation) over holes. */
  readonly weight: number;
  /** The height (world Y) of the smoothed ground plane straight below the foot. */
  readonly groundHeight: number;
  /** The smoothed ground normal (world), within `maxTilt` of straight up. */
  readonly normal: Vector3;
  /** Where the foot is sent this frame (world). */
  readonly targetPosition: Vector3;
}

/* Slots of a leg's state array. */
const WEIGHT = 0;
const GOAL_WEIGHT = 1;
/** The ground as a smoothed plane: a point on it and its normal (world). */
const POINT = 2;
const GOAL_POINT = 5;
const SURFACE = 8;
const GOAL_SURFACE = 11;
/** The foot's tilt: the surface normal within `maxTilt` of up. */
const TILT = 14;
const GROUND = 17;
const TARGET = 18;
/** The animated foot, its animated height above the animation's ground, and the leg's base (world). */
const FOOT = 21;
const HEIGHT = 24;
const BASE = 25;
/** The target in model space: position, then orientation. */
const MODEL_TARGET = 28;
const MODEL_ROTATION = 31;
/** A foot at a shin's end: where it sits in the shin's frame (model units) this frame. */
const SHIN_END = 35;
/** …and the bend axis for a straight leg, in the thigh's frame (from the rest pose). */
const BEND_LOCAL = 38;
/** …and its knee's target in model space: position, then the shin's orientation. */
const KNEE_TARGET = 41;
const KNEE_ROTATION = 44;
/**
 * …and its animated shin as the behavior's limits keep it: orientation, bend axis (model space), whether
 * that is a hinge and the turn the hinge allows from the animated angle, and how far from the hip the
 * shin's end is (animated) and may get (model units).
 */
const SHIN_ORIENTATION = 48;
const SHIN_AXIS = 52;
const SHIN_HINGE = 55;
const SHIN_MIN = 56;
const SHIN_MAX = 57;
const SHIN_STRETCH = 58;
const SHIN_REACH = 59;
const LEG_SLOTS = 60;

class LegState implements FootPlacementLegInfo {
  /**
   * Everything per frame lives in this array (see the slots above): the ground is kept as a smoothed plane
   * rather than a smoothed height, so a foot sliding over an even slope sees no lag at all while a step
   * edge still blends over time.
   */
  readonly s = new Float64Array(LEG_SLOTS);
  grounded = false;
  /** Whether the behavior holds a target for this leg. */
  installed = false;
  /** Whether the leg hangs below the joint the hips lowering moves. */
  lowered = false;
  private readonly _normal = new Vector3(0, 1, 0);
  private readonly _target = new Vector3();

  constructor(
    readonly leg: ResolvedLeg,
    readonly target: TransformNode,
  ) {
    this.s[SURFACE + 1] = this.s[GOAL_SURFACE + 1] = this.s[TILT + 1] = 1;
  }

  get foot(): number {
    return this.leg.foot;
  }
  get name(): string {
    return this.leg.name;
  }
  get chainLength(): number {
    return this.leg.chainLength;
  }
  get base(): number {
    return this.leg.base;
  }
  get align(): boolean {
    return this.leg.align;
  }
  get shin(): number {
    return this.leg.shin;
  }
  get weight(): number {
    return this.s[WEIGHT];
  }
  get groundHeight(): number {
    return this.s[GROUND];
  }
  get normal(): Vector3 {
    return this._normal.set(this.s[TILT], this.s[TILT + 1], this.s[TILT + 2]);
  }
  get targetPosition(): Vector3 {
    return this._target.set(this.s[TARGET], this.s[TARGET + 1], this.s[TARGET + 2]);
  }
}

/* Slots of the scalar array. */
const DT = 0;
const ALPHA = 1;
const HIP_ALPHA = 2;
const FADE = 3;
const REF_Y = 4;
const MODEL_PER_WORLD = 5;
const COS_TILT = 6;
const DROP = 7;
const LENGTH = 8;
const APPLIED = 9;
const SMOOTHING = 10;
const HIP_SMOOTHING = 11;
const UP_MODEL = 12;
const NORMAL_MODEL = 15;
const DELTA = 18;
const VECTOR = 22;
const HIT = 25;
const TURN = 28;
const REACH = 29;
const RAY = 30;
const SCALAR_SLOTS = 33;

const OPTION_KEYS = [
  "legs",
  "ground",
  "maxStepUp",
  "maxStepDown",
  "rayHeight",
  "maxTilt",
  "smoothing",
  "hipSmoothing",
  "fadeTime",
  "lowerHips",
  "hips",
  "maxHipDrop",
  "legExtension",
  "autoUpdate",
];

/**
 * Puts a character's feet on the ground under them, every frame, on top of its animation.
 *
 * ```ts
 * const ik = new FabrikBehavior();
 * character.addBehavior(ik, true);
 * const feet = new FootPlacement(ik, { ground: (mesh) => mesh.metadata?.ground === true });
 * // …
 * feet.dispose();
 * ```
 *
 * Each frame, after the animation and before the behavior solves: a ray goes down through each foot to the
 * ground meshes; the foot's target is the ground straight below it raised by the foot's animated height
 * above the animation's ground (the plane through the model root's origin), measured square to the
 * surface, so a lifted foot stays lifted and a planted one rests on the slope; a foot with toes, and any
 * humanoid foot (a leaf joint or one ending in an `_end` node has a sole too), turns with the ground's
 * normal, up to `maxTilt`, keeping the pitch and roll the animation gives it over flat ground; the hips come down by what the leg that is furthest from reaching
 * needs. A leg over a hole (no hit within `maxStepDown`) fades back to its animation and its target is
 * removed. Each foot's ground follows its ray with a time constant in seconds, applied exactly for the
 * time that passed, so the result does not depend on the frame rate.
 *
 * The hips are lowered by moving the hips joint's node between the animation and the solve; the animated
 * position is put back after the frame is rendered, so nothing accumulates.
 *
 * A foot that does not hang below its leg (rigs made for Blender's IK keep the feet under the root, each
 * where its child-less shin ends; see {@link FootPlacementLeg.shin}) is placed through its knee: the knee's
 * target is where a two-bone solution (thigh and shin, the knee bending about its hinge, within its range,
 * when the behavior's limits give it one) ends the shin on the foot's target, and the shin takes the
 * orientation that does so; once the behavior has solved (`onSolvedObservable`), the foot bone is moved to
 * where the shin now ends and turned to the ground, and put back after the frame like the hips.
 *
 * A frame allocates nothing of its own; Babylon's picking allocates its result objects for each ray.
 *
 * Give the behavior a generous `maxIterations` (60 or more): a nearly straight leg whose foot must come a
 * few millimetres closer is the slowest case for FABRIK, and standing legs are nearly straight.
 */
export class FootPlacement {
  /** When false, the legs fade back to their animation (and the hips rise) over `fadeTime`. */
  enabled = true;
  maxStepUp: number;
  maxStepDown: number;
  rayHeight: number;
  maxTilt: number;
  smoothing: number;
  hipSmoothing: number;
  fadeTime: number;
  lowerHips: boolean;
  maxHipDrop: number;
  legExtension: number;
  /** Which meshes are ground. */
  ground: (mesh: AbstractMesh) => boolean;
  /** The joint lowered when legs cannot reach. */
  readonly hips: number;

  private readonly _legs: LegState[];
  private readonly _scene: Scene;
  private readonly _rig: SkeletonRig;
  private readonly _reader: PoseReader;
  private readonly _layer: PoseLayer;
  /** Legs whose foot sits at a shin's end: their knees are placed, their feet moved after the solve. */
  private readonly _shinLegs: LegState[];
  private readonly _knee = new Float64Array(KNEE_SLOTS);
  private _solvedObserver: Nullable<Observer<FabrikSolvedEvent>> = null;
  private readonly _ray = new Ray(new Vector3(), new Vector3(0, -1, 0), 1);
  private readonly _predicate = (mesh: AbstractMesh): boolean => this.ground(mesh);
  /** Scalars of the frame: doubles passed to (or returned from) calls V8 does not inline are boxed. */
  private readonly _n = new Float64Array(SCALAR_SLOTS);
  private _drop = 0;
  private _goalDrop = 0;
  private _started = false;
  private _disposed = false;
  private _frameObserver: Nullable<Observer<Scene>> = null;
  private _restoreObserver: Nullable<Observer<Scene>>;

  constructor(
    readonly behavior: FabrikBehavior,
    options: FootPlacementOptions = {},
  ) {
    const who = "FootPlacement";
    const scene = attachedScene(behavior, who);
    for (const key of Object.keys(options)) {
      if (!OPTION_KEYS.includes(key)) {
        throw new FabrikError(`${who}: unknown option "${key}" (options are ${OPTION_KEYS.join(", ")})`);
      }
    }
    const rig = behavior.rig!;
    this._scene = scene;
    this._rig = rig;
    this._reader = new PoseReader(rig);
    const w2m = this._reader.worldToModel;
    const legs = resolveLegs(
      behavior,
      options.legs,
      {
        positions: this._reader.positions,
        orientations: this._reader.orientations,
        up: [w2m[4], w2m[5], w2m[6]],
      },
      who,
    );

    let hips: number;
    if (options.hips !== undefined) {
      hips = behavior.jointIndex(options.hips);
      if (hips < 0) throw new FabrikError(`${who}: no hips joint ${String(options.hips)} in the rig`);
    } else {
      const named = behavior.roles.hips;
      const bases = legs.map((l) => l.base);
      hips =
        named !== undefined && commonAncestorOf(rig.parents, [named, ...bases]) === named
          ? named
          : commonAncestorOf(rig.parents, bases);
      if (hips < 0) hips = legs[0].base;
    }
    this.hips = hips;
    // From here on each frame reads only the legs, the hips and what carries them, not fingers and face.
    this._reader.readOnly([
      hips,
      ...legs.flatMap((l) =>
        l.shin >= 0 ? [l.foot, l.base, l.effector, l.shin] : [l.foot, l.base, l.effector],
      ),
    ]);

    // Defaults scale with the legs, measured in world units on the pose at hand.
    const modelPerWorld = Math.hypot(w2m[4], w2m[5], w2m[6]);
    let total = 0;
    for (const leg of legs) {
      this._legLength(leg);
      total += this._n[LENGTH];
    }
    const legLength = total / legs.length / modelPerWorld;
    this.maxStepUp = positive(options.maxStepUp ?? 0.5 * legLength, "maxStepUp", who);
    this.maxStepDown = positive(options.maxStepDown ?? 0.5 * legLength, "maxStepDown", who);
    this.rayHeight = positive(options.rayHeight ?? this.maxStepUp, "rayHeight", who);
    this.maxTilt = positive(options.maxTilt ?? Math.PI / 6, "maxTilt", who);
    this.smoothing = positive(options.smoothing ?? 0.06, "smoothing", who);
    this.hipSmoothing = positive(options.hipSmoothing ?? 0, "hipSmoothing", who);
    this.fadeTime = positive(options.fadeTime ?? 0.2, "fadeTime", who);
    this.maxHipDrop = positive(options.maxHipDrop ?? 0.5 * legLength, "maxHipDrop", who);
    this.legExtension = positive(options.legExtension ?? 0.95, "legExtension", who);
    this.lowerHips = options.lowerHips ?? true;
    const root = behavior.attachedNode!;
    const own = new Set<AbstractMesh>(rig.meshes);
    this.ground =
      options.ground ??
      ((mesh) =>
        mesh.isEnabled() &&
        mesh.isVisible &&
        mesh.isPickable &&
        !own.has(mesh) &&
        mesh !== root &&
        !mesh.isDescendantOf(root));

    this._legs = legs.map(
      (leg) =>
        new LegState(
          leg,
          createModelTarget(
            behavior,
            scene,
            leg.shin >= 0 ? `${rig.names[leg.shin]} knee target` : `${leg.name} foot target`,
          ),
        ),
    );
    for (const leg of this._legs) {
      for (let j = leg.base; j >= 0 && !leg.lowered; j = rig.parents[j]) leg.lowered = j === hips;
    }
    this._shinLegs = this._legs.filter((leg) => leg.leg.shin >= 0);
    for (const leg of this._shinLegs) {
      restBendAxis(rig, leg.leg.base, leg.leg.shin, leg.leg.foot, leg.s, BEND_LOCAL);
    }
    this._layer = new PoseLayer(rig, [hips, ...this._shinLegs.map((leg) => leg.foot)]);
    if (this._shinLegs.length > 0) {
      this._solvedObserver = behavior.onSolvedObservable.add(() => this._moveFeet());
    }
    if (options.autoUpdate ?? true) {
      this._frameObserver = addBeforeSolve(behavior, scene, () => {
        frameSeconds(scene, this._n, DT);
        this._step();
      });
    }
    this._restoreObserver = scene.onAfterRenderObservable.add(() => this._layer.restore());
  }

  /** The legs, with what each is doing this frame. */
  get legs(): readonly FootPlacementLegInfo[] {
    return this._legs;
  }

  /** How far (world units) the hips are lowered this frame. */
  get hipsOffset(): number {
    return this._n[APPLIED];
  }

  /**
   * One frame of `dt` seconds: cast the rays, smooth, set the targets, lower the hips. Call it yourself only
   * with `autoUpdate: false`, after the animation and before the behavior solves (for example in an
   * `onBeforeRenderObservable` observer added before the behavior was attached, or inserted first).
   */
  update(dt: number): void {
    this._n[DT] = dt;
    this._step();
  }

  /** Removes the observers and the targets and puts the hips back. Idempotent. */
  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this._frameObserver?.remove();
    this._restoreObserver?.remove();
    this._solvedObserver?.remove();
    this._frameObserver = this._restoreObserver = this._solvedObserver = null;
    this._layer.restore();
    const ownRig = this.behavior.rig === this._rig;
    for (const leg of this._legs) {
      if (leg.installed && ownRig) this.behavior.removeTarget(leg.leg.effector);
      leg.installed = false;
      leg.target.dispose();
    }
    this._n[APPLIED] = 0;
  }

  /** One frame, `_n[DT]` seconds long. */
  private _step(): void {
    if (this._disposed) return;
    this._layer.restore();
    const ik = this.behavior;
    // Detached (or attached again to another rig): nothing of ours to drive.
    if (ik.rig !== this._rig) return;
    const reader = this._reader;
    reader.read();
    if (!reader.worldToModelValid) return;
    const started = this._started;
    this._started = true;
    this._frameScalars();
    const n = this._n;
    let needed = 0;
    for (let i = 0; i < this._legs.length; i++) {
      const leg = this._legs[i];
      this._advance(leg);
      this._readFoot(leg);
      leg.grounded = this.enabled && this._cast(leg);
      this._takeGoals(leg, started);
      if (leg.s[WEIGHT] > 0) {
        this._placeFoot(leg);
        if (leg.leg.shin >= 0) this._limitShin(leg);
        if (this.lowerHips) {
          this._neededDrop(leg);
          if (n[DROP] > needed) needed = n[DROP];
        }
        // A foot at a shin's end waits for the hips: its knee is placed from where they end up.
        if (leg.leg.shin >= 0) continue;
        this._writeTarget(leg);
        if (!leg.installed) {
          ik.setTarget(leg.leg.effector, leg.target, {
            chainLength: leg.chainLength,
            matchOrientation: leg.align,
          });
          leg.installed = true;
        }
      } else {
        copy(leg.s, TARGET, leg.s, FOOT, 3);
        if (leg.installed) {
          ik.removeTarget(leg.leg.effector);
          leg.installed = false;
        }
      }
    }
    if (needed > this.maxHipDrop) needed = this.maxHipDrop;
    // With no hip smoothing of its own the drop follows the smoothed ground at once.
    this._drop = started ? this._drop + (this._goalDrop - this._drop) * n[HIP_ALPHA] : needed;
    this._goalDrop = needed;
    if (!(this.hipSmoothing > 0)) this._drop = needed;
    n[APPLIED] = ik.enabled ? this._drop * ik.weight : 0;
    if (n[APPLIED] > 0) this._lowerHips();
    if (this._shinLegs.length > 0) this._placeKnees();
  }

  /** The knees of the feet at their shins' ends, once the hips are settled. */
  private _placeKnees(): void {
    for (let i = 0; i < this._shinLegs.length; i++) {
      const leg = this._shinLegs[i];
      if (!(leg.s[WEIGHT] > 0)) continue;
      this._placeKnee(leg);
      const s = leg.s;
      vectorFromArray(leg.target.position, s, KNEE_TARGET);
      quaternionFromArray(leg.target.rotationQuaternion!, s, KNEE_ROTATION);
      if (!leg.installed) {
        // The thigh turns to put the knee in place; the shin takes the orientation that ends it on the ground.
        this.behavior.setTarget(leg.leg.effector, leg.target, { chainLength: 1, matchOrientation: true });
        leg.installed = true;
      }
    }
  }

  /** The frame's scalars: smoothing fractions, the animation's ground height, world up in model space. */
  private _frameScalars(): void {
    const n = this._n;
    const reader = this._reader;
    n[SMOOTHING] = this.smoothing;
    smoothingFactor(n, DT, SMOOTHING, ALPHA);
    n[HIP_SMOOTHING] = this.hipSmoothing;
    smoothingFactor(n, DT, HIP_SMOOTHING, HIP_ALPHA);
    const dt = n[DT];
    n[FADE] = this.fadeTime > 0 ? (dt > 0 ? dt / this.fadeTime : 0) : 1;
    // The animation's ground: the plane through the model root's origin, square to world up.
    n[REF_Y] = reader.modelToWorld[13];
    const w2m = reader.worldToModel;
    n[UP_MODEL] = w2m[4];
    n[UP_MODEL + 1] = w2m[5];
    n[UP_MODEL + 2] = w2m[6];
    n[MODEL_PER_WORLD] = Math.sqrt(w2m[4] * w2m[4] + w2m[5] * w2m[5] + w2m[6] * w2m[6]);
    normalize3(n, UP_MODEL, n, UP_MODEL);
    n[COS_TILT] = Math.cos(Math.min(this.maxTilt, Math.PI / 2 - 1e-6));
    this._ray.length = this.rayHeight + this.maxStepDown;
  }

  /**
   * Over the frame just past, the leg's state moved toward the goals seen at its start: the exact solution of
   * the smoothing for goals held between frames, so a change seen at the same moment gives the same curve
   * at any frame rate (a frame of latency is the price).
   */
  private _advance(leg: LegState): void {
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
  private _readFoot(leg: LegState): void {
    const s = leg.s;
    const reader = this._reader;
    transformPoint(s, FOOT, reader.modelToWorld, reader.positions, 3 * leg.leg.foot);
    transformPoint(s, BASE, reader.modelToWorld, reader.positions, 3 * leg.leg.base);
    s[HEIGHT] = s[FOOT + 1] - this._n[REF_Y];
    const n = this._n;
    n[RAY] = s[FOOT];
    n[RAY + 1] = n[REF_Y] + this.rayHeight;
    n[RAY + 2] = s[FOOT + 2];
    vectorFromArray(this._ray.origin, n, RAY);
  }

  /**
   * Casts the leg's ray; on a hit no higher than `maxStepUp`, the point and the face's normal (turned up)
   * become the leg's goals.
   */
  private _cast(leg: LegState): boolean {
    const pick = this._scene.pickWithRay(this._ray, this._predicate);
    if (pick === null || !pick.hit || pick.pickedPoint === null) return false;
    const s = leg.s;
    const n = this._n;
    readVector(pick.pickedPoint, n, HIT);
    if (!(n[HIT + 1] - n[REF_Y] <= this.maxStepUp)) return false;
    copy(s, GOAL_POINT, n, HIT, 3);
    // The face's own normal: interpolated vertex normals would round every step edge into a ramp.
    const normal = pick.getNormal(true, false);
    if (normal !== null) readVector(normal, s, GOAL_SURFACE);
    if (normal === null || !normalize3(s, GOAL_SURFACE, s, GOAL_SURFACE)) {
      s[GOAL_SURFACE] = s[GOAL_SURFACE + 2] = 0;
      s[GOAL_SURFACE + 1] = 1;
    }
    if (s[GOAL_SURFACE + 1] < 0) for (let k = 0; k < 3; k++) s[GOAL_SURFACE + k] = -s[GOAL_SURFACE + k];
    return true;
  }

  /** This frame's goals, from the ray (or its absence). */
  private _takeGoals(leg: LegState, started: boolean): void {
    const s = leg.s;
    if (leg.grounded) {
      s[GOAL_WEIGHT] = 1;
      // A leg coming back from its animation starts at the ground it finds, not at an old one; without
      // smoothing, every frame takes the ground it finds.
      if (!(s[WEIGHT] > 0) || !(this.smoothing > 0)) {
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
  private _placeFoot(leg: LegState): void {
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
    const reader = this._reader;
    transformPoint(s, MODEL_TARGET, reader.worldToModel, s, TARGET);
    if (!leg.leg.align) return;
    // The animated orientation, turned from world up to the tilt (both in model space), by the weight.
    transformDirection(n, NORMAL_MODEL, reader.worldToModel, s, TILT);
    normalize3(n, NORMAL_MODEL, n, NORMAL_MODEL);
    quatFromUnitVectors(n, DELTA, n, UP_MODEL, n, NORMAL_MODEL);
    if (s[WEIGHT] < 1) quatScaleAngle(n, DELTA, s, WEIGHT);
    quatMultiply(s, MODEL_ROTATION, n, DELTA, reader.orientations, 4 * leg.leg.foot);
  }

  /**
   * A foot at a shin's end, before the hips are settled: where it sits in the shin's frame, and the animated
   * shin as the behavior's limits keep it (see `animatedKnee`), with how far the leg reaches.
   */
  private _limitShin(leg: LegState): void {
    const s = leg.s;
    const k = this._knee;
    const reader = this._reader;
    const limits = this.behavior.limits;
    animatedKnee(
      k,
      reader.positions,
      reader.orientations,
      leg.leg.base,
      leg.leg.shin,
      leg.leg.foot,
      s,
      BEND_LOCAL,
      limits !== null && limits.rig.jointCount === this._rig.jointCount ? limits : null,
    );
    copy(s, SHIN_END, k, KNEE_FOOT_LOCAL, 3);
    kneeReach(k);
    copy(s, SHIN_ORIENTATION, k, KNEE_SHIN, 4);
    copy(s, SHIN_AXIS, k, KNEE_BEND, 3);
    s[SHIN_HINGE] = k[KNEE_HINGE];
    s[SHIN_MIN] = k[KNEE_MIN];
    s[SHIN_MAX] = k[KNEE_MAX];
    s[SHIN_REACH] = k[KNEE_REACH];
    const x = k[KNEE_END] - k[KNEE_HIP],
      y = k[KNEE_END + 1] - k[KNEE_HIP + 1],
      z = k[KNEE_END + 2] - k[KNEE_HIP + 2];
    s[SHIN_STRETCH] = Math.sqrt(x * x + y * y + z * z);
  }

  /**
   * A foot at a shin's end, once the hips are settled: the knee's target (`KNEE_TARGET`, and the shin's
   * orientation `KNEE_ROTATION`) that ends the shin on the foot's target, from the hip as lowered.
   */
  private _placeKnee(leg: LegState): void {
    const s = leg.s;
    const k = this._knee;
    const n = this._n;
    const reader = this._reader;
    const p = reader.positions;
    const shin = leg.leg.shin,
      thigh = leg.leg.base;
    for (let i = 0; i < 3; i++) {
      k[KNEE_ANIMATED + i] = p[3 * shin + i];
      k[KNEE_HIP + i] = p[3 * thigh + i];
      k[KNEE_GOAL + i] = s[MODEL_TARGET + i];
    }
    copy(k, KNEE_SHIN, s, SHIN_ORIENTATION, 4);
    copy(k, KNEE_BEND, s, SHIN_AXIS, 3);
    k[KNEE_HINGE] = s[SHIN_HINGE];
    k[KNEE_MIN] = s[SHIN_MIN];
    k[KNEE_MAX] = s[SHIN_MAX];
    quatRotate(k, KNEE_END, k, KNEE_SHIN, s, SHIN_END);
    for (let i = 0; i < 3; i++) k[KNEE_END + i] += k[KNEE_ANIMATED + i];
    // The hips came down by `_n[APPLIED]` world units, and the leg with them.
    if (leg.lowered && n[APPLIED] > 0) {
      const w2m = reader.worldToModel;
      const drop = n[APPLIED];
      for (let i = 0; i < 3; i++) {
        k[KNEE_HIP + i] -= drop * w2m[4 + i];
        k[KNEE_ANIMATED + i] -= drop * w2m[4 + i];
        k[KNEE_END + i] -= drop * w2m[4 + i];
      }
    }
    placeKnee(k);
    copy(s, KNEE_TARGET, k, KNEE_OUT, 3);
    copy(s, KNEE_ROTATION, k, KNEE_SHIN_OUT, 4);
  }

  /**
   * After the solve: each foot at a shin's end goes where its shin now ends (whatever the solve made of the
   * knee: limits, weights), turned as {@link _placeFoot} decided. Through the layer, so it is put back after
   * the frame like the hips.
   */
  private _moveFeet(): void {
    if (this._disposed || this.behavior.rig !== this._rig) return;
    let any = false;
    for (let i = 0; i < this._shinLegs.length; i++) if (this._shinLegs[i].installed) any = true;
    if (!any) return;
    const reader = this._reader;
    // The solved pose (the animated one was used up by the frame's step).
    reader.read();
    if (!reader.worldToModelValid) return;
    const p = reader.positions;
    const o = reader.orientations;
    const n = this._n;
    const parents = this._rig.parents;
    for (let i = 0; i < this._shinLegs.length; i++) {
      const leg = this._shinLegs[i];
      if (!leg.installed) continue;
      const s = leg.s;
      const foot = leg.leg.foot;
      const parent = parents[foot];
      // The shin's end, relative to the foot's parent, in model space.
      quatRotate(n, VECTOR, o, 4 * leg.leg.shin, s, SHIN_END);
      for (let k = 0; k < 3; k++) {
        n[VECTOR + k] += p[3 * leg.leg.shin + k] - (parent >= 0 ? p[3 * parent + k] : 0);
      }
      if (!this._toParentSpace(parent, VECTOR)) continue;
      this._layer.writePosition(foot, n, VECTOR);
      if (!leg.leg.align) continue;
      copy(n, DELTA, s, MODEL_ROTATION, 4);
      // The behavior blends what it writes by its weight; the foot is written here, so it is blended here
      // (from its animated orientation, which the solve left alone).
      n[TURN] = this.behavior.weight;
      if (n[TURN] < 1) {
        quatMultiplyConjugate(n, DELTA, n, DELTA, o, 4 * foot);
        quatScaleAngle(n, DELTA, n, TURN);
        quatMultiply(n, DELTA, n, DELTA, o, 4 * foot);
      }
      if (parent >= 0) quatConjugateMultiply(n, DELTA, o, 4 * parent, n, DELTA);
      this._layer.writeRotation(foot, n, DELTA);
    }
  }

  /** Writes the leg's model-space target to its node. */
  private _writeTarget(leg: LegState): void {
    const s = leg.s;
    // From the array: doubles passed to a Babylon setter V8 does not inline would be boxed.
    vectorFromArray(leg.target.position, s, MODEL_TARGET);
    if (leg.leg.align) quaternionFromArray(leg.target.rotationQuaternion!, s, MODEL_ROTATION);
  }

  /**
   * Into `_n[DROP]`: how far the hips must come down for the leg to reach its target without stretching
   * past the larger of its animated stretch and `legExtension` of its length, i.e. the least d ≥ 0 with
   * |T − (B − d·up)| ≤ reach.
   */
  private _neededDrop(leg: LegState): void {
    const n = this._n;
    const s = leg.s;
    if (leg.leg.shin >= 0) this._shinReach(leg);
    else this._footReach(leg);
    const reach = n[REACH];
    const vx = s[TARGET] - s[BASE],
      vy = s[TARGET + 1] - s[BASE + 1],
      vz = s[TARGET + 2] - s[BASE + 2];
    const vv = vx * vx + vy * vy + vz * vz;
    if (vv <= reach * reach) {
      n[DROP] = 0;
      return;
    }
    // |v + d·up|² = reach² → d² + 2·vy·d + (vv − reach²) = 0; the smaller root is the least drop.
    const disc = vy * vy - vv + reach * reach;
    const d = disc >= 0 ? -vy - Math.sqrt(disc) : -vy;
    n[DROP] = d > 0 ? d : 0;
  }

  /** Into `_n[REACH]`: how far (world units) the leg may stretch, the larger of as animated and as allowed. */
  private _footReach(leg: LegState): void {
    const n = this._n;
    const s = leg.s;
    const ax = s[FOOT] - s[BASE],
      ay = s[FOOT + 1] - s[BASE + 1],
      az = s[FOOT + 2] - s[BASE + 2];
    const animated = Math.sqrt(ax * ax + ay * ay + az * az);
    this._legLength(leg.leg);
    n[REACH] = Math.max(animated, (this.legExtension * n[LENGTH]) / n[MODEL_PER_WORLD]);
  }

  /**
   * {@link _footReach} for a foot at a shin's end: the shin as the limits keep it, and no straighter than its
   * hinge lets it get.
   */
  private _shinReach(leg: LegState): void {
    const n = this._n;
    const s = leg.s;
    this._legLength(leg.leg);
    const extended = Math.min(this.legExtension * n[LENGTH], s[SHIN_REACH]);
    n[REACH] = Math.max(s[SHIN_STRETCH], extended) / n[MODEL_PER_WORLD];
  }

  /** Into `_n[LENGTH]`: the leg's length along its chain, in model units, on the pose last read. */
  private _legLength(leg: ResolvedLeg): void {
    if (leg.shin >= 0) {
      this._shinLength(leg);
      return;
    }
    const p = this._reader.positions;
    const parents = this._rig.parents;
    let length = 0;
    for (let j = leg.foot; j !== leg.base; j = parents[j]) {
      const k = parents[j];
      const dx = p[3 * j] - p[3 * k],
        dy = p[3 * j + 1] - p[3 * k + 1],
        dz = p[3 * j + 2] - p[3 * k + 2];
      length += Math.sqrt(dx * dx + dy * dy + dz * dz);
    }
    this._n[LENGTH] = length;
  }

  /** {@link _legLength} of a foot at a shin's end: the thigh, and the shin to where the foot sits. */
  private _shinLength(leg: ResolvedLeg): void {
    const p = this._reader.positions;
    const a = 3 * leg.base,
      b = 3 * leg.shin,
      c = 3 * leg.foot;
    const tx = p[b] - p[a],
      ty = p[b + 1] - p[a + 1],
      tz = p[b + 2] - p[a + 2];
    const sx = p[c] - p[b],
      sy = p[c + 1] - p[b + 1],
      sz = p[c + 2] - p[b + 2];
    this._n[LENGTH] = Math.sqrt(tx * tx + ty * ty + tz * tz) + Math.sqrt(sx * sx + sy * sy + sz * sz);
  }

  /** Moves the hips joint `_n[APPLIED]` world units down, in its parent's space. */
  private _lowerHips(): void {
    const n = this._n;
    const w2m = this._reader.worldToModel;
    const drop = n[APPLIED];
    // World (0, −drop, 0) in model space, then in the parent's space.
    n[DELTA] = -drop * w2m[4];
    n[DELTA + 1] = -drop * w2m[5];
    n[DELTA + 2] = -drop * w2m[6];
    if (!this._toParentSpace(this._rig.parents[this.hips], DELTA)) return;
    this._layer.readPosition(this.hips, n, VECTOR);
    n[VECTOR] += n[DELTA];
    n[VECTOR + 1] += n[DELTA + 1];
    n[VECTOR + 2] += n[DELTA + 2];
    this._layer.writePosition(this.hips, n, VECTOR);
  }

  /**
   * In place: the model-space vector `_n[v..v+2]` in the space of joint `parent` (scale included), as a
   * local position is; false when that joint's axes cannot be inverted. A root joint's space is model space.
   */
  private _toParentSpace(parent: number, v: number): boolean {
    return toJointSpace(this._reader.bases, parent, this._n, v);
  }
}

/** A small function of its own, so V8 inlines Babylon's getters in it and no component is boxed. */
function readVector(v: Vector3, out: Float64Array, o: number): void {
  out[o] = v.x;
  out[o + 1] = v.y;
  out[o + 2] = v.z;
}

function positive(value: unknown, option: string, who: string): number {
  if (typeof value !== "number" || !(value >= 0) || !Number.isFinite(value)) {
    throw new FabrikError(
      `${who}: ${option} must be a finite number >= 0, got ${String(value)}`,
      undefined,
      option,
    );
  }
  return value;
}
