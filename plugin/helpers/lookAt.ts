import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import {
  PoseReader,
  quaternionFromArray,
  TargetBinding,
  vectorFromArray,
  type FabrikBehavior,
  type FabrikFrame,
  type FabrikPass,
  type SkeletonRig,
  type TargetSource,
  type Vector3Like,
} from "../babylon/index.js";
import {
  copy,
  normalize3,
  quatConjugateMultiply,
  quatRotate,
  slerpDirection,
  transformDirection,
  transformPoint,
} from "../rig/index.js";
import { FabrikError } from "../solver/index.js";
import { attachedRig } from "./attached.js";
import { checkLookAtOptionNames, lookJoints, nonNegative, type LookAtOptions } from "./lookAtOptions.js";
import { LookTurns } from "./lookTurns.js";
import { createModelTarget } from "./modelTarget.js";
import { smoothingFactor } from "./smoothing.js";

export type { LookAtOptions } from "./lookAtOptions.js";

/* Slots of the scalar array: every per-frame number lives here (doubles crossing calls V8 does not
   inline are boxed), vectors and quaternions included. */
const DT = 0;
const SMOOTHING = 1;
const FRACTION = 2;
const LAYER_WEIGHT = 3;
const DISTANCE = 4;
/** The head's gaze in its own frame (constant). */
const GAZE_LOCAL = 5;
/** Model space: world up, the animated eye and gaze, the wanted gaze, the look point. */
const UP = 8;
const EYE = 11;
const GAZE = 14;
const WANTED = 17;
const LOOK = 20;
/** World space: the eye, the smoothed gaze, its goal, the target point. */
const EYE_WORLD = 23;
const DIR = 26;
const GOAL_DIR = 29;
const POINT = 32;
/** The head target: its place and orientation (model space), from the share-out. */
const PIVOT = 35;
const HEAD = 38;
/** Scratch for the rest gaze. */
const TO = 42;
const ORIENTATION = 45;
// The shown and the goal weight live here too: as object fields they were boxed in some JIT tiers.
const CURRENT = 49;
const GOAL_WEIGHT = 50;
const SLOTS = 51;

/** Where the look runs among a frame's passes: after FootPlacement (the body), before Reach and the user's. */
const LOOK_AT_ORDER = -20;

/**
 * Turns the head (and neck, optionally chest) toward a point, within the behavior's joint limits, weighted
 * and smoothed over time.
 *
 * ```ts
 * const look = new LookAt(ik, { chest: true });
 * look.target = camera;          // a Vector3 (read live), a node, or a function; null fades back out
 * ```
 *
 * Each frame (a pass of the behavior's frame, order -20: after FootPlacement has set the body down) the
 * wanted gaze (smoothed on the sphere around the head, in world space, so the eyes stay on the point while
 * the body turns) is split into a turn about world up and a tilt, and shared out from the lowest joint up.
 * The joints below the head are turned in the frame's pose before the solve (written with the solve's
 * output, put back after rendering), each kept within the limits the behavior uses (`behavior.limits`); the
 * head gets a target with the remaining turn as its orientation (`matchOrientation`, chain length 1 at its
 * own place), which the solver keeps within the head's limits. Clearing the target (or `weight` 0) fades the look out;
 * at 0 the head's target is removed and the animation shows exactly.
 *
 * Why not one target per joint: the behavior writes a matched orientation only for the effector itself,
 * and the joints below a matched effector are then written against the solver's unmatched orientation,
 * so nested orientation targets (neck and head) come out wrong; turning them in the frame sidesteps that.
 *
 * A frame allocates nothing.
 */
export class LookAt {
  /** The weight to fade toward while a target is set, 0..1. */
  weight = 1;
  maxAngle: number;
  smoothing: number;
  fadeTime: number;
  /** The turning joints, parents first; the last is the head. */
  readonly joints: readonly number[];
  /** The head's target node (model space), for debug views. */
  readonly headTarget: TransformNode;

  private _binding: TargetBinding | null = null;
  private readonly _rig: SkeletonRig;
  /** The frame being run: the pose read once by the behavior's pipeline. */
  private _frame: FabrikFrame | null = null;
  private readonly _pass: FabrikPass;
  private readonly _auto: boolean;
  /** With `autoUpdate: false`: whether {@link update} was called since the last frame. */
  private _pending = false;
  private readonly _head: TransformNode | Bone;
  private readonly _turns: LookTurns;
  private readonly _v = new Float64Array(SLOTS);
  private _installed = false;
  private _tracking = false;
  private _disposed = false;

  constructor(
    readonly behavior: FabrikBehavior,
    options: LookAtOptions = {},
  ) {
    const who = "LookAt";
    const rig = attachedRig(behavior, who);
    const scene = behavior.attachedNode!.getScene();
    checkLookAtOptionNames(options, who);
    this._rig = rig;
    this.joints = lookJoints(behavior, options, who);
    const n = this.joints.length;
    const shares =
      options.shares ?? this.joints.map((_, i) => (options.chest === true && i === 0 && n > 2 ? 0.5 : 1));
    if (
      shares.length !== n ||
      shares.some((s) => typeof s !== "number" || !(s >= 0) || !Number.isFinite(s))
    ) {
      throw new FabrikError(
        `${who}: shares must hold one finite number >= 0 per joint (${n})`,
        undefined,
        "shares",
      );
    }
    this.maxAngle = nonNegative(options.maxAngle ?? (100 * Math.PI) / 180, "maxAngle", who);
    this.smoothing = nonNegative(options.smoothing ?? 0.12, "smoothing", who);
    this.fadeTime = nonNegative(options.fadeTime ?? 0.3, "fadeTime", who);

    const head = this.joints[n - 1];
    this._head = rig.nodes[head] ?? rig.bones[head][0];
    this._gazeFromRest(head, options.forward, who);
    this._turns = new LookTurns(rig.parents, this.joints, Float64Array.from(shares));
    this.headTarget = createModelTarget(behavior, scene, `${rig.names[head]} look target`);
    this._auto = options.autoUpdate ?? true;
    this._pass = { joints: this.joints, beforeSolve: (frame) => this._run(frame) };
    behavior.addPass(this._pass, { order: LOOK_AT_ORDER });
  }

  /** What to look at: a Vector3 (read live), a node, a function returning a point, or null to look away. */
  get target(): TargetSource | null {
    return this._binding?.source ?? null;
  }
  set target(value: TargetSource | null) {
    // Checked and read as the behavior's own targets are: a non-finite point is refused here, and a node is
    // read from its local transforms, never from Babylon's same-frame cache.
    this._binding = value === null ? null : TargetBinding.create(value, "LookAt.target");
  }

  /** The weight shown this frame (it fades toward `weight`, or 0 without a target). */
  get currentWeight(): number {
    return this._v[CURRENT];
  }

  /**
   * With `autoUpdate: false`: this frame lasts `dt` seconds (calls add up until the frame runs). The look runs
   * when the behavior's frame does, on the pose it reads.
   */
  update(dt: number): void {
    this._v[DT] = this._pending ? this._v[DT] + dt : dt;
    this._pending = true;
  }

  /** Leaves the behavior's frame and removes the head's target. Idempotent. */
  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this.behavior.removePass(this._pass);
    if (this._installed && this.behavior.rig === this._rig) this.behavior.removeTarget(this._head);
    this._installed = false;
    this.headTarget.dispose();
  }

  /** The pass: a frame of the look, on the pose the behavior's pipeline read. */
  private _run(frame: FabrikFrame): void {
    if (this._auto) this._v[DT] = frame.deltaTime;
    else if (!this._pending) return;
    this._pending = false;
    this._frame = frame;
    try {
      this._step();
    } finally {
      this._frame = null;
    }
  }

  /** One frame, `_v[DT]` seconds long. */
  private _step(): void {
    if (this._disposed) return;
    const ik = this.behavior;
    if (ik.rig !== this._rig) return;
    this._advance();
    const valid = this._readTarget();
    this._v[GOAL_WEIGHT] = valid ? Math.max(0, Math.min(1, this.weight)) : 0;
    if (!(this._v[CURRENT] > 0) && !(this._v[GOAL_WEIGHT] > 0)) {
      this._tracking = false;
      if (this._installed) {
        ik.removeTarget(this._head);
        this._installed = false;
      }
      return;
    }
    this._readHead();
    if (!this._tracking) {
      // Start from where the head looks now, so the turn toward the point is smoothed too.
      copy(this._v, DIR, this._v, GOAL_DIR, 3);
      this._tracking = true;
    }
    if (valid) {
      this._takeGoal();
      // Without smoothing the gaze goes where the target is now, not where it was a frame ago.
      if (!(this.smoothing > 0)) copy(this._v, DIR, this._v, GOAL_DIR, 3);
    }
    // A disabled behavior solves nothing; turning the neck alone would look half done.
    if (!(this._v[CURRENT] > 0) || !ik.enabled) return;
    this._lookPoint();
    this._v[LAYER_WEIGHT] = ik.weight;
    this._distribute();
    this._writeHeadTarget();
    if (!this._installed) {
      ik.setTarget(this._head, this.headTarget, { chainLength: 1, matchOrientation: true });
      this._installed = true;
    }
  }

  /**
   * Over the frame just past, the weight and the smoothed gaze moved toward the goals seen at its start (see
   * FootPlacement): the exact solution for goals held between frames, the same at any frame rate.
   */
  private _advance(): void {
    const v = this._v;
    const dt = v[DT];
    const step = this.fadeTime > 0 ? (dt > 0 ? dt / this.fadeTime : 0) : 1;
    const goal = this._v[GOAL_WEIGHT];
    const c = this._v[CURRENT];
    this._v[CURRENT] = c < goal ? Math.min(goal, c + step) : Math.max(goal, c - step);
    if (!this._tracking) return;
    v[SMOOTHING] = this.smoothing;
    smoothingFactor(v, DT, SMOOTHING, FRACTION);
    slerpDirection(v, DIR, v, DIR, v, GOAL_DIR, v, FRACTION);
  }

  /** The animated eye and gaze (model space), world up in model space, and the eye in world space. */
  private _readHead(): void {
    const v = this._v;
    const reader = this._frame!;
    const head = this.joints[this.joints.length - 1];
    const w2m = reader.worldToModel;
    v[UP] = w2m[4];
    v[UP + 1] = w2m[5];
    v[UP + 2] = w2m[6];
    normalize3(v, UP, v, UP);
    copy(v, EYE, reader.positions, 3 * head, 3);
    quatRotate(v, GAZE, reader.orientations, 4 * head, v, GAZE_LOCAL);
    transformPoint(v, EYE_WORLD, reader.modelToWorld, v, EYE);
    if (!this._tracking) {
      transformDirection(v, GOAL_DIR, reader.modelToWorld, v, GAZE);
      normalize3(v, GOAL_DIR, v, GOAL_DIR);
    }
  }

  /** The wanted gaze (world), from the eye to the target, and its distance. */
  private _takeGoal(): void {
    const v = this._v;
    const x = v[POINT] - v[EYE_WORLD],
      y = v[POINT + 1] - v[EYE_WORLD + 1],
      z = v[POINT + 2] - v[EYE_WORLD + 2];
    const length = Math.sqrt(x * x + y * y + z * z);
    if (!(length > 0)) return;
    v[GOAL_DIR] = x / length;
    v[GOAL_DIR + 1] = y / length;
    v[GOAL_DIR + 2] = z / length;
    v[DISTANCE] = length;
  }

  /**
   * The point to look at this frame (model space): along the smoothed gaze at the target's distance, no
   * further than `maxAngle` from the animated gaze, and only the current weight of the way there.
   */
  private _lookPoint(): void {
    const v = this._v;
    const w2m = this._frame!.worldToModel;
    transformDirection(v, WANTED, w2m, v, DIR);
    normalize3(v, WANTED, v, WANTED);
    let d = v[GAZE] * v[WANTED] + v[GAZE + 1] * v[WANTED + 1] + v[GAZE + 2] * v[WANTED + 2];
    d = d > 1 ? 1 : d < -1 ? -1 : d;
    const angle = Math.acos(d);
    v[FRACTION] = angle > this.maxAngle ? (this._v[CURRENT] * this.maxAngle) / angle : this._v[CURRENT];
    slerpDirection(v, WANTED, v, GAZE, v, WANTED, v, FRACTION);
    const modelPerWorld = Math.sqrt(w2m[4] * w2m[4] + w2m[5] * w2m[5] + w2m[6] * w2m[6]);
    const distance = v[DISTANCE] * modelPerWorld;
    for (let k = 0; k < 3; k++) v[LOOK + k] = v[EYE + k] + v[WANTED + k] * distance;
  }

  /**
   * Shares the turn toward the look point out over the joints (see {@link LookTurns}): the joints below the
   * head are turned in the frame's pose, and the head's place and wanted orientation land in PIVOT and HEAD.
   */
  private _distribute(): void {
    const v = this._v;
    this._turns.distribute(
      this._frame!,
      this.behavior.limits,
      v,
      EYE,
      GAZE,
      UP,
      LOOK,
      LAYER_WEIGHT,
      PIVOT,
      HEAD,
    );
  }

  /** The head's target: where it is now (after the turns below it), turned by the rest of the look. */
  private _writeHeadTarget(): void {
    const v = this._v;
    const node = this.headTarget;
    // From the array: doubles passed to a Babylon setter V8 does not inline would be boxed.
    vectorFromArray(node.position, v, PIVOT);
    quaternionFromArray(node.rotationQuaternion!, v, HEAD);
  }

  /** The target's world position into POINT; false when it is not a finite point. */
  private _readTarget(): boolean {
    return this._binding !== null && this._binding.readWorld(this._v, POINT);
  }

  /** The head's gaze in its own frame, from the forward direction at rest. */
  private _gazeFromRest(head: number, forward: Vector3Like | undefined, who: string): void {
    const v = this._v;
    if (forward !== undefined) {
      v[GAZE] = forward.x;
      v[GAZE + 1] = forward.y;
      v[GAZE + 2] = forward.z;
    } else {
      // glTF characters face +Z of their root: that axis, in world space, then in model space.
      const m = this.behavior.attachedNode!.computeWorldMatrix(true).m;
      v[TO] = m[8];
      v[TO + 1] = m[9];
      v[TO + 2] = m[10];
      // Read once, now (it reads the pose on construction): the model root's matrix as it stands.
      transformDirection(v, GAZE, new PoseReader(this._rig).worldToModel, v, TO);
    }
    if (!normalize3(v, GAZE, v, GAZE)) {
      throw new FabrikError(`${who}: forward must be a non-zero, finite direction`, undefined, "forward");
    }
    // rest⁻¹ (the conjugate of the head's rest orientation) applied to the gaze.
    v[ORIENTATION] = v[ORIENTATION + 1] = v[ORIENTATION + 2] = 0;
    v[ORIENTATION + 3] = 1;
    quatConjugateMultiply(v, ORIENTATION, this._rig.restOrientations, 4 * head, v, ORIENTATION);
    quatRotate(v, GAZE_LOCAL, v, ORIENTATION, v, GAZE);
  }
}
