import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import {
  quaternionFromArray,
  vectorFromArray,
  type FabrikBehavior,
  type FabrikFrame,
  type FabrikPass,
  type FabrikSolvedEvent,
  type SkeletonRig,
} from "../babylon/index.js";
import { FabrikError } from "../solver/index.js";
import { attachedRig } from "./attached.js";
import { defaultGround } from "./footPlacementOptions.js";
import { createModelTarget } from "./modelTarget.js";
import { TrackedBodyRig } from "./trackedBodyRig.js";
import {
  trackedBodySettings,
  type TrackedBodyOptions,
  type TrackedBodySettings,
} from "./trackedBodyOptions.js";
import { TrackedCalibration } from "./trackedCalibration.js";
import { TrackedElbows } from "./trackedElbows.js";
import { TrackedGround } from "./trackedGround.js";
import { TrackedHandReach } from "./trackedHandReach.js";
import type { TrackedHint, TrackedHintName } from "./trackedHint.js";
import { HINT_NAMES, TrackedHints } from "./trackedHints.js";
import { TrackedHeels } from "./trackedHeels.js";
import { placeFeet } from "./trackedFeet.js";
import { blendHandsHeading } from "./trackedHandsHeading.js";
import {
  headHeading,
  headingTurn,
  hipsTracker,
  lowerForLegs,
  placeHips,
  raiseForHead,
  turnHips,
  writeHips,
} from "./trackedHips.js";
import { forgetFloor } from "./trackedFloor.js";
import { turnAbout } from "./trackedMath.js";
import { TrackedPoint, type TrackedPointName } from "./trackedPoint.js";
import { readTrackers } from "./trackedReads.js";
import {
  A,
  APPLIED,
  BODY_WEIGHT,
  C,
  DT,
  FOOT_TARGET,
  HAND_TARGET,
  HEAD_HEADING,
  HEAD_TARGET,
  HEADING,
  SLOTS,
  SUPPORT,
  VALID,
  WARM,
  WEIGHT,
} from "./trackedSlots.js";
import { handTarget, headTarget, headWithinReach } from "./trackedTargets.js";
import { TrackedKnees } from "./trackedKnees.js";
import { TrackedSteps } from "./trackedSteps.js";
import { TrackedWarmStart } from "./trackedWarmStart.js";

/** Where the tracked body runs among a frame's passes: before every other helper (it places the whole body). */
const TRACKED_BODY_ORDER = -40;

/** How far toward the last solution each solve starts (see TrackedWarmStart): the rest is the animation. */
const WARM_SHARE = 0.9;

/** The trackers, in the order of their slots. */
const POINTS: readonly TrackedPointName[] = [
  "head",
  "leftHand",
  "rightHand",
  "hips",
  "leftFoot",
  "rightFoot",
];

/**
 * A humanoid driven by tracked points: a headset and two controllers (head and hands), optionally hip and
 * foot trackers, each a world pose with a weight.
 *
 * ```ts
 * const body = new TrackedBody(ik, { height: 1.8 });
 * body.head.follow(xrCamera); // or write body.head.position / rotation each frame
 * body.leftHand.follow(leftGrip);
 * body.rightHand.follow(rightGrip);
 * body.leftHand.weight = 0; // lost: the arm fades back to its animation
 * ```
 *
 * Each frame, as a pass of the behavior's frame (order -40, before the other helpers), on the pose read once:
 * the hips are placed from the head (over the feet, taking part of the head's offset; a spine's length below
 * it along the lean, so crouching lowers them and bowing leans them), turned to the body's heading; the head
 * takes its tracker's place and rotation through the spine (the chain from the head to the joint above the
 * hips, within the limits); each hand its controller's, the elbow turned to where the wrist bends least; the
 * feet stay planted until the hips move or turn too far from them, then one steps along an arc (never both).
 * Elbow and knee hints (`leftElbow` … `rightKnee`: a position and a weight) swivel their limbs toward them
 * (TrackedHints). A tracker whose weight falls to 0, or whose pose is not finite, fades its part back to the
 * animation over `fadeTime`; with the head gone, the hips and legs fade back too. While attached it turns the
 * behavior's `holdConfiguration` off (it steers the configuration itself) and `settleOutOfReach` on (a body
 * lying down is out of its standing spine's reach, frame after frame). A frame allocates nothing.
 */
export class TrackedBody {
  readonly head = new TrackedPoint("head", 1);
  readonly leftHand = new TrackedPoint("leftHand", 1);
  readonly rightHand = new TrackedPoint("rightHand", 1);
  readonly hips = new TrackedPoint("hips", 0);
  readonly leftFoot = new TrackedPoint("leftFoot", 0);
  readonly rightFoot = new TrackedPoint("rightFoot", 0);
  /** Elbow and knee hints: where each should point (weight 0, none, by default; see TrackedHint). */
  readonly leftElbow: TrackedHint;
  readonly rightElbow: TrackedHint;
  readonly leftKnee: TrackedHint;
  readonly rightKnee: TrackedHint;
  /** The settings, editable at run time (checked when given to the constructor). */
  readonly settings: TrackedBodySettings;
  /** What the body measured of its avatar. */
  readonly body: TrackedBodyRig;
  /** Which meshes are ground (the `ground` option), changeable at run time. */
  ground: (mesh: AbstractMesh) => boolean;

  private readonly _rig: SkeletonRig;
  private readonly _points: readonly TrackedPoint[];
  private readonly _v = new Float64Array(SLOTS);
  private readonly _steps: TrackedSteps;
  private readonly _warm: TrackedWarmStart;
  private readonly _elbows: TrackedElbows;
  private readonly _reach: TrackedHandReach;
  private readonly _knees: TrackedKnees;
  private readonly _heels: TrackedHeels;
  private readonly _solved: Observer<FabrikSolvedEvent> | null;
  private readonly _calibration: TrackedCalibration;
  /** Target nodes: head, left hand, right hand, left foot, right foot. */
  private readonly _targets: TransformNode[];
  private readonly _effectors: number[];
  /** Weight last given to each effector. */
  private readonly _weights = new Float64Array(5);
  private readonly _pass: FabrikPass;
  private readonly _hints: TrackedHints;
  /** The hints' pass: after this body's, on the pose it leaves. */
  private readonly _hintPass: FabrikPass;
  /** Whether foot i is in the air (made once: a closure per frame would allocate). */
  private readonly _airborne = (i: number): boolean => this._steps.stepping(i);
  private readonly _auto: boolean;
  private readonly _held: readonly [boolean, boolean]; // the behavior's two settings before this body
  private _pending = false;
  private _started = false;
  private _disposed = false;

  constructor(
    readonly behavior: FabrikBehavior,
    options: TrackedBodyOptions = {},
  ) {
    const who = "TrackedBody";
    const rig = attachedRig(behavior, who);
    this.settings = trackedBodySettings(options, who);
    const body = new TrackedBodyRig(behavior, rig, who);
    this._rig = rig;
    this.body = body;
    this._points = [this.head, this.leftHand, this.rightHand, this.hips, this.leftFoot, this.rightFoot];
    const node = behavior.attachedNode!;
    this.ground = options.ground ?? defaultGround(rig.meshes, node);
    this._steps = new TrackedSteps(body, new TrackedGround(node.getScene(), body, () => this.ground));
    this._calibration = new TrackedCalibration(node, body, behavior.modelToWorld!);
    const scene = node.getScene();
    const names = ["head", "left hand", "right hand", "left foot", "right foot"];
    this._targets = names.map((n) => createModelTarget(behavior, scene, `TrackedBody ${n} target`));
    const [left, right] = body.sides;
    this._effectors = [body.head, left.hand, right.hand, left.foot, right.foot];
    if (options.height !== undefined) this._calibration.toHeight(options.height, who);
    // Every effector starts at weight 0: the first frame fades them in from the animation.
    behavior.setTarget(body.head, this._targets[0], {
      chainLength: body.headChain,
      matchOrientation: true,
      weight: 0,
    });
    for (let i = 0; i < 2; i++) {
      behavior.setTarget(this._effectors[1 + i], this._targets[1 + i], {
        chainLength: options.collarbones !== false ? body.handChain : undefined,
        matchOrientation: true,
        weight: 0,
      });
      behavior.setTarget(this._effectors[3 + i], this._targets[3 + i], { matchOrientation: true, weight: 0 });
    }
    this._auto = options.autoUpdate ?? true;
    this._warm = new TrackedWarmStart(rig, body);
    this._knees = new TrackedKnees(body, rig.parents);
    this._heels = new TrackedHeels(behavior, body);
    this._elbows = new TrackedElbows(behavior, rig, body);
    this._reach = new TrackedHandReach(rig, body, options.collarbones !== false);
    const hints = (this._hints = new TrackedHints(rig, body));
    [this.leftElbow, this.rightElbow, this.leftKnee, this.rightKnee] = hints.hints;
    this._hintPass = hints.pass(this._v, this._weights, this.settings);
    this._pass = {
      joints: [
        ...new Set([...body.joints, ...this._warm.joints, ...this._reach.joints, ...this._heels.joints]),
      ],
      beforeSolve: (frame) => this._run(frame),
      afterSolve: (frame) => {
        this._warm.store(frame);
        this._elbows.store(frame, this._warm, this._v, this._hints.turned);
        this._reach.store(frame);
      },
    };
    this._solved = behavior.onSolvedObservable.add((event) => this._warm.solved(event.report.converged));
    behavior.addPass(this._pass, { order: TRACKED_BODY_ORDER });
    this._held = [behavior.holdConfiguration, behavior.settleOutOfReach];
    behavior.holdConfiguration = false;
    behavior.settleOutOfReach = true;
    behavior.addPass(this._hintPass, { order: TRACKED_BODY_ORDER + 1 });
  }

  /** The scale applied to the avatar by calibration (1: its own size). */
  get scale(): number {
    return this._calibration.scale;
  }

  /** Steps taken so far. */
  get steps(): number {
    return this._steps.steps;
  }

  /** Whether the left (0) or right (1) foot is in the air: stepping, or both in a jump (never untracked). */
  isStepping(foot: 0 | 1): boolean {
    return this._steps.stepping(foot);
  }

  /** The weight a tracker or hint shows this frame (its `weight`, faded over `fadeTime`). */
  appliedWeight(point: TrackedPointName | TrackedHintName): number {
    const i = POINTS.indexOf(point as TrackedPointName);
    return i >= 0 ? this._v[APPLIED + i] : this._hints.applied(HINT_NAMES.indexOf(point as TrackedHintName));
  }

  /**
   * Scales the avatar to the player, keeping its proportions: to a player `height` metres tall, or, with no
   * argument, so its head joint stands as high as the head tracker is now (the player standing straight, as
   * in a T-pose). Returns the scale. Throws a FabrikError for a height outside [0.5, 3] m or a head tracker
   * out of reach of a standing avatar.
   */
  calibrate(height?: number): number {
    const who = "TrackedBody calibrate()";
    if (this._disposed) throw new FabrikError(`${who}: this TrackedBody was disposed`);
    const scale =
      height === undefined
        ? (this.head._readNode(), this._calibration.toTracker(this.head, this._rig.modelRoot!, who))
        : this._calibration.toHeight(height, who);
    this._steps.reset();
    return scale;
  }

  /**
   * Forgets where the body was, after a teleport or a cut (the trackers jump): the next frame starts as the
   * first one did, the heading from the head, the feet planted afresh under the hips, the hips placed at once
   * and every chain solved from the animation. Weights and calibration stay. Does nothing once disposed.
   */
  reset(): void {
    if (this._disposed) return;
    this._started = false;
    this._steps.reset();
    this._warm.reset();
    this._reach.reset();
    this._heels.reset();
    forgetFloor(this._v);
    this.behavior.resetContinuity();
  }

  /** The avatar's standing height at the scale applied (world units). */
  get height(): number {
    return this._calibration.height;
  }

  /** With `autoUpdate: false`: this frame lasts `dt` seconds; call it before the behavior solves. */
  update(dt: number): void {
    this._v[DT] = this._pending ? this._v[DT] + dt : dt;
    this._pending = true;
  }

  /** Leaves the behavior's frame, removes the targets and puts the avatar's scale back. Idempotent. */
  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this.behavior.removePass(this._pass);
    this.behavior.removePass(this._hintPass);
    this._solved?.remove();
    if (this.behavior.rig === this._rig) for (const j of this._effectors) this.behavior.removeTarget(j);
    for (const node of this._targets) node.dispose();
    this._calibration.reset();
    [this.behavior.holdConfiguration, this.behavior.settleOutOfReach] = this._held;
  }

  private _run(frame: FabrikFrame): void {
    if (this._auto) this._v[DT] = frame.deltaTime;
    else if (!this._pending) return;
    this._pending = false;
    if (this._disposed || this.behavior.rig !== this._rig) return;
    this._step(frame);
    this._hints.due = true;
  }

  /** One frame, `_v[DT]` seconds long. */
  private _step(frame: FabrikFrame): void {
    const v = this._v;
    if (!(v[DT] > 0 && Number.isFinite(v[DT]))) v[DT] = 0;
    const dt = v[DT];
    readTrackers(this._points, v, frame.worldToModel, this.settings);
    const body = this.body;
    const wHead = v[APPLIED];
    const wBody = Math.max(wHead, v[APPLIED + 3]);
    if (v[VALID] === 1) {
      if (!headHeading(v, body)) {
        // The head's way cannot be told: keep the heading (the body's forward before any).
        if (!this._started) for (let k = 0; k < 3; k++) v[HEAD_HEADING + k] = body.frame[k];
        else for (let k = 0; k < 3; k++) v[HEAD_HEADING + k] = v[HEADING + k];
      }
      v[C] = this.settings.handsTurn;
      if (v[C] > 0) blendHandsHeading(v, body);
      if (!this._started) for (let k = 0; k < 3; k++) v[HEADING + k] = v[HEAD_HEADING + k];
      const t = this.settings.turnSmoothing;
      v[A] = !(t > 0) ? 1 : 1 - Math.exp(-dt / t);
      turnAbout(v, HEADING, HEAD_HEADING, body.frame, 3, A);
      this._started = true;
    }
    if (this._started) {
      headingTurn(v, body);
      this._steps.support(v, SUPPORT, v);
      placeHips(v, body, this.settings);
      hipsTracker(v);
      if (wBody > 0) this._steps.update(v, this.settings, frame);
      else this._steps.reset(); // untracked: no steps; tracked again, the feet are planted afresh
      placeFeet(v, body, this._steps, this._heels);
      lowerForLegs(v, body, FOOT_TARGET, this._airborne);
      turnHips(v, body, this.settings, frame.orientations, 4 * body.hips);
      raiseForHead(v, body, FOOT_TARGET, this._airborne);
      const k = this.behavior.weight;
      v[WARM] = WARM_SHARE * wHead * k;
      v[WARM + 1] = WARM_SHARE * v[APPLIED + 1] * k;
      v[WARM + 2] = WARM_SHARE * v[APPLIED + 2] * k;
      // The legs start from the animation each frame (their knees bent forward): a leg's solution is
      // fixed by its two ends, and a foot that hangs from the root (Blender-IK rigs) is moved by the behavior.
      v[WARM + 3] = 0;
      this._warm.apply(frame, v, WARM);
      if (wBody > 0) {
        v[BODY_WEIGHT] = wBody * k;
        this._knees.bend(frame, v);
        writeHips(frame, v, this.body, this._rig.parents);
        this._heels.bendToes(frame, v, BODY_WEIGHT);
        this._knees.carry(frame, v);
      }
      this._steps.swing(v, FOOT_TARGET);
      for (let i = 0; i < 2; i++) this._write(3 + i, FOOT_TARGET + 7 * i);
      if (v[VALID] === 1) {
        headTarget(v, body);
        headWithinReach(v, body);
        this._write(0, HEAD_TARGET);
      }
      for (let i = 0; i < 2; i++) {
        if (v[VALID + 1 + i] === 1 && handTarget(v, body, i)) {
          this._reach.limit(v, i);
          this._write(1 + i, HAND_TARGET + 7 * i);
        }
      }
    }
    const started = this._started ? 1 : 0;
    v[WEIGHT] = wHead * started;
    this._weigh(0);
    v[WEIGHT] = v[APPLIED + 1] * started;
    this._weigh(1);
    v[WEIGHT] = v[APPLIED + 2] * started;
    this._weigh(2);
    v[WEIGHT] = wBody * started;
    this._weigh(3);
    this._weigh(4);
  }

  /** Writes target `t`'s place and rotation from `v[o..o+6]`. */
  private _write(t: number, o: number): void {
    const node = this._targets[t];
    vectorFromArray(node.position, this._v, o);
    quaternionFromArray(node.rotationQuaternion!, this._v, o + 3);
  }

  /** Gives effector `e` the weight `v[WEIGHT]` when it changed. */
  private _weigh(e: number): void {
    const w = this._v[WEIGHT];
    if (this._weights[e] === w) return;
    this._weights[e] = w;
    this.behavior.setTargetWeight(this._effectors[e], w);
  }
}
