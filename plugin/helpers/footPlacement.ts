import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import { copy, KNEE_SLOTS, restBendAxis, transformPoint } from "../rig/index.js";
import {
  quaternionFromArray,
  vectorFromArray,
  type FabrikBehavior,
  type FabrikFrame,
  type FabrikPass,
  PoseReader,
  type SkeletonRig,
} from "../babylon/index.js";
import { FabrikError } from "../solver/index.js";
import { attachedRig } from "./attached.js";
import { commonAncestorOf, resolveLegs } from "./footLegs.js";
import { footPoint } from "./footPoint.js";
import { BodyTilt } from "./bodyTilt.js";
import {
  checkOptionNames,
  defaultGround,
  footSettings,
  type FootPlacementOptions,
  type FootSettings,
} from "./footPlacementOptions.js";
import {
  APPLIED,
  BASE,
  BEND_LOCAL,
  DROP,
  DT,
  FOOT,
  HIP_ALPHA,
  KNEE_ROTATION,
  KNEE_TARGET,
  LENGTH,
  MODEL_ROTATION,
  MODEL_TARGET,
  SCALAR_SLOTS,
  TARGET,
  TILT_AMOUNT,
  TURN,
  WEIGHT,
} from "./footSlots.js";
import { GroundProbe } from "./groundProbe.js";
import { legLength, lowerHips, neededDrop } from "./hipsDrop.js";
import { LegState, type FootPlacementLegInfo } from "./legState.js";
import { createModelTarget } from "./modelTarget.js";
import { limitShin, moveShinFoot, placeShinKnee } from "./shinEndLegs.js";

export type { FootPlacementLeg } from "./footLegs.js";
export type { FootPlacementOptions } from "./footPlacementOptions.js";
export type { FootPlacementLegInfo } from "./legState.js";

/** Where the feet run among a frame's passes: first, so the others see the body where it stands. */
const FOOT_PLACEMENT_ORDER = -30;

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
 * normal, up to `maxTilt`, keeping the pitch and roll the animation gives it over flat ground; the hips come
 * down by what the leg that is furthest from reaching
 * needs. A leg over a hole (no hit within `maxStepDown`) fades back to its animation and its target is
 * removed. Each foot's ground follows its ray with a time constant in seconds, applied exactly for the
 * time that passed, so the result does not depend on the frame rate.
 *
 * It is a pass of the behavior's frame (see `FabrikBehavior.addPass`, order -30: the body first), on the
 * pose the behavior reads once: the hips are lowered in that pose before the solve, written with the solve's
 * output and put back after the frame is rendered, so nothing accumulates.
 *
 * A foot that does not hang below its leg (rigs made for Blender's IK keep the feet under the root, each
 * where its child-less shin ends; see {@link FootPlacementLeg.shin}) is placed through its knee: the knee's
 * target is where a two-bone solution (thigh and shin, the knee bending about its hinge, within its range,
 * when the behavior's limits give it one) ends the shin on the foot's target, and the shin takes the
 * orientation that does so; after the solve, the foot bone is moved to where the shin then ends and turned to
 * the ground, and written and put back with the rest.
 *
 * A frame allocates nothing of its own; Babylon's picking allocates its result objects for each ray.
 *
 * Give the behavior a generous `maxIterations` (60 or more): a nearly straight leg whose foot must come a
 * few millimetres closer is the slowest case for FABRIK, and standing legs are nearly straight.
 */
export class FootPlacement implements FootSettings {
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
  tiltBody: number;
  /** Which meshes are ground. */
  ground: (mesh: AbstractMesh) => boolean;
  /** The joint lowered when legs cannot reach. */
  readonly hips: number;

  private readonly _legs: LegState[];
  private readonly _rig: SkeletonRig;
  /** Legs whose foot sits at a shin's end: their knees are placed, their feet moved after the solve. */
  private readonly _shinLegs: LegState[];
  private readonly _knee = new Float64Array(KNEE_SLOTS);
  private readonly _tilt: BodyTilt;
  private readonly _probe: GroundProbe;
  /** Scalars of the frame: doubles passed to (or returned from) calls V8 does not inline are boxed. */
  private readonly _n = new Float64Array(SCALAR_SLOTS);
  private readonly _pass: FabrikPass;
  private readonly _retry: Observer<FabrikBehavior>;
  private readonly _auto: boolean;
  /** With `autoUpdate: false`: whether {@link update} was called since the last frame. */
  private _pending = false;
  private _drop = 0;
  private _goalDrop = 0;
  private _started = false;
  private _disposed = false;

  constructor(
    readonly behavior: FabrikBehavior,
    options: FootPlacementOptions = {},
  ) {
    const who = "FootPlacement";
    const rig = attachedRig(behavior, who);
    checkOptionNames(options, who);
    const scene: Scene = behavior.attachedNode!.getScene();
    this._rig = rig;
    // The pose at hand, read once for the set-up (the frames read it through the behavior's pipeline).
    const reader = new PoseReader(rig);
    const w2m = reader.worldToModel;
    const legs = resolveLegs(
      behavior,
      options.legs,
      {
        positions: reader.positions,
        orientations: reader.orientations,
        up: [w2m[4], w2m[5], w2m[6]],
        worldToModel: w2m,
      },
      who,
    );
    this.hips = findHips(behavior, rig, legs, options, who);
    this._tilt = new BodyTilt(this.hips, legs.length >= 3 ? (behavior.roles.head ?? -1) : -1);
    // Defaults scale with the legs, measured in world units on the pose at hand.
    const modelPerWorld = Math.hypot(w2m[4], w2m[5], w2m[6]);
    let total = 0;
    const foot = new Float64Array(3);
    for (const leg of legs) {
      footPoint(leg, reader.positions, reader.orientations, foot, 0);
      legLength(this._n, reader.positions, rig.parents, leg, foot, 0);
      total += this._n[LENGTH];
    }
    const settings = footSettings(options, total / legs.length / modelPerWorld, legs.length, who);
    this.maxStepUp = settings.maxStepUp;
    this.maxStepDown = settings.maxStepDown;
    this.rayHeight = settings.rayHeight;
    this.maxTilt = settings.maxTilt;
    this.smoothing = settings.smoothing;
    this.hipSmoothing = settings.hipSmoothing;
    this.fadeTime = settings.fadeTime;
    this.maxHipDrop = settings.maxHipDrop;
    this.legExtension = settings.legExtension;
    this.tiltBody = settings.tiltBody;
    this.lowerHips = settings.lowerHips;
    this.ground = options.ground ?? defaultGround(rig.meshes, behavior.attachedNode!);
    this._probe = new GroundProbe(scene, this, this._n, () => this.ground);

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
      for (let j = leg.base; j >= 0 && !leg.lowered; j = rig.parents[j]) leg.lowered = j === this.hips;
    }
    this._shinLegs = this._legs.filter((leg) => leg.leg.shin >= 0);
    for (const leg of this._shinLegs) {
      footPoint(leg.leg, rig.restPositions, rig.restOrientations, foot, 0);
      restBendAxis(rig, leg.leg.base, leg.leg.shin, foot, 0, leg.s, BEND_LOCAL);
    }
    this._auto = options.autoUpdate ?? true;
    // The frame reads the legs, the hips and what carries them, not fingers and face.
    const joints = [this.hips, ...legs.flatMap((l) => [l.foot, l.base, l.effector, l.shin])];
    // The head says which way the body's length runs, for its tilt (which needs three legs or more).
    if (legs.length >= 3) joints.push(behavior.roles.head ?? -1);
    const read = [...new Set(joints.filter((j) => j >= 0))];
    this._pass = {
      joints: read,
      beforeSolve: (frame) => this._run(frame),
      afterSolve: this._shinLegs.length > 0 ? (frame) => this._moveFeet(frame) : undefined,
    };
    behavior.addPass(this._pass, { order: FOOT_PLACEMENT_ORDER });
    // A leg whose target was refused tries again once the targets change.
    this._retry = behavior.onTargetsChangedObservable.add(() =>
      this._legs.forEach((leg) => (leg.refused = false)),
    );
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
   * With `autoUpdate: false`: this frame lasts `dt` seconds (calls add up until the frame runs). The feet are
   * placed when the behavior's frame runs, on the pose it reads: call it each frame before the behavior
   * solves (frames without a call place nothing).
   */
  update(dt: number): void {
    this._n[DT] = this._pending ? this._n[DT] + dt : dt;
    this._pending = true;
  }

  /** Leaves the behavior's frame and removes the targets. Idempotent. */
  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this.behavior.removePass(this._pass);
    this.behavior.onTargetsChangedObservable.remove(this._retry);
    const ownRig = this.behavior.rig === this._rig;
    for (const leg of this._legs) {
      if (leg.installed && ownRig) this.behavior.removeTarget(leg.leg.effector);
      leg.installed = false;
      leg.target.dispose();
    }
    this._n[APPLIED] = 0;
  }

  /** The pass before the solve: a frame of the feet, on the pose the behavior's pipeline read. */
  private _run(frame: FabrikFrame): void {
    if (this._auto) this._n[DT] = frame.deltaTime;
    else if (!this._pending) return;
    this._pending = false;
    this._step(frame);
  }

  /** One frame, `_n[DT]` seconds long. */
  private _step(frame: FabrikFrame): void {
    if (this._disposed) return;
    const ik = this.behavior;
    // Detached (or attached again to another rig): nothing of ours to drive.
    if (ik.rig !== this._rig) return;
    const started = this._started;
    this._started = true;
    const probe = this._probe;
    probe.frameScalars(frame);
    const n = this._n;
    // The body turns with the ground the feet found before; the legs' tops turn with it.
    this._tilt.begin(n, frame, this._legs, this.enabled && ik.enabled ? this.tiltBody * ik.weight : 0);
    let needed = 0;
    for (let i = 0; i < this._legs.length; i++) {
      const leg = this._legs[i];
      probe.advance(leg);
      probe.readFoot(leg, frame);
      if (leg.lowered) this._carryBase(leg, frame);
      leg.grounded = this.enabled && probe.cast(leg);
      probe.takeGoals(leg, started);
      if (leg.s[WEIGHT] > 0) {
        probe.placeFoot(leg, frame);
        if (leg.leg.shin >= 0) limitShin(leg, this._knee, frame, this._limits());
        if (this.lowerHips) {
          neededDrop(this, n, frame.positions, this._rig.parents, leg);
          if (n[DROP] > needed) needed = n[DROP];
        }
        // A foot at a shin's end waits for the hips: its knee is placed from where they end up.
        if (leg.leg.shin >= 0) continue;
        this._writeTarget(leg);
        if (!leg.installed && !leg.refused)
          leg.install(ik, { chainLength: leg.chainLength, matchOrientation: leg.align });
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
    if (n[APPLIED] > 0) lowerHips(n, frame, this._rig.parents, this.hips);
    this._tilt.apply(n, frame, this._rig.parents, this.hips);
    if (this.tiltBody > 0) this._tilt.follow(this._legs, frame, n, this.maxTilt);
    if (this._shinLegs.length > 0) this._placeKnees(frame);
  }

  /** The knees of the feet at their shins' ends, once the hips are settled. */
  private _placeKnees(frame: FabrikFrame): void {
    for (let i = 0; i < this._shinLegs.length; i++) {
      const leg = this._shinLegs[i];
      if (!(leg.s[WEIGHT] > 0)) continue;
      placeShinKnee(leg, this._knee, this._n, frame, this._tilt);
      const s = leg.s;
      vectorFromArray(leg.target.position, s, KNEE_TARGET);
      quaternionFromArray(leg.target.rotationQuaternion!, s, KNEE_ROTATION);
      // The thigh turns to put the knee in place; the shin takes the orientation that ends it on the ground.
      if (!leg.installed && !leg.refused)
        leg.install(this.behavior, { chainLength: 1, matchOrientation: true });
    }
  }

  /** The pass after the solve: each foot at a shin's end goes where its shin now ends. */
  private _moveFeet(frame: FabrikFrame): void {
    if (this._disposed || this.behavior.rig !== this._rig) return;
    const n = this._n;
    n[TURN] = this.behavior.weight;
    for (let i = 0; i < this._shinLegs.length; i++) {
      const leg = this._shinLegs[i];
      // A leg placed by its bone's end has no foot joint of its own to move.
      if (leg.installed && leg.leg.site === null) moveShinFoot(leg, n, frame, this._rig.parents);
    }
  }

  /** The leg's top (`s[BASE]`, world) where the body's turn this frame carries it. */
  private _carryBase(leg: LegState, frame: FabrikFrame): void {
    const n = this._n;
    if (!(n[TILT_AMOUNT] > 0)) return;
    transformPoint(leg.s, BASE, frame.worldToModel, leg.s, BASE);
    this._tilt.carry(n, leg.s, BASE);
    transformPoint(leg.s, BASE, frame.modelToWorld, leg.s, BASE);
  }

  /** Writes the leg's model-space target to its node. */
  private _writeTarget(leg: LegState): void {
    const s = leg.s;
    // From the array: doubles passed to a Babylon setter V8 does not inline would be boxed.
    vectorFromArray(leg.target.position, s, MODEL_TARGET);
    if (leg.leg.align) quaternionFromArray(leg.target.rotationQuaternion!, s, MODEL_ROTATION);
  }

  /** The behavior's limits, when they are this rig's. */
  private _limits() {
    const limits = this.behavior.limits;
    return limits !== null && limits.rig.jointCount === this._rig.jointCount ? limits : null;
  }
}

/** The joint lowered: as asked, or the `hips` role when it carries every leg, else the joint the legs meet at. */
function findHips(
  behavior: FabrikBehavior,
  rig: SkeletonRig,
  legs: readonly { readonly base: number }[],
  options: FootPlacementOptions,
  who: string,
): number {
  if (options.hips !== undefined) {
    const hips = behavior.jointIndex(options.hips);
    if (hips < 0) throw new FabrikError(`${who}: no hips joint ${String(options.hips)} in the rig`);
    return hips;
  }
  const named = behavior.roles.hips;
  const bases = legs.map((l) => l.base);
  const hips =
    named !== undefined && commonAncestorOf(rig.parents, [named, ...bases]) === named
      ? named
      : commonAncestorOf(rig.parents, bases);
  return hips >= 0 ? hips : legs[0].base;
}
