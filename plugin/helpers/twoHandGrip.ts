import { Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import {
  nodeRotationToModel,
  quaternionFromArray,
  TargetBinding,
  vectorFromArray,
  type FabrikBehavior,
  type FabrikFrame,
  type FabrikPass,
} from "../babylon/index.js";
import { transformPoint } from "../rig/index.js";
import { attachedRig } from "./attached.js";
import { ArmGrip } from "./armGrip.js";
import {
  alignHandles,
  blendPose,
  isMirrored,
  gripToModel,
  turnGripOver,
  handOnGrip,
  modelRotationToWorld,
  objectFromHand,
  POSE,
  uniformScale,
} from "./gripFrames.js";
import {
  placeBetweenReaches,
  PLACE_CENTER_0,
  PLACE_CENTER_1,
  PLACE_REACH_0,
  PLACE_REACH_1,
  PLACE_SHIFT,
  PLACE_SLOTS,
  PLACE_WEIGHT_0,
  PLACE_WEIGHT_1,
} from "./gripPlacement.js";
import { createModelTarget } from "./modelTarget.js";
import {
  armJoints,
  checkGripOptionNames,
  checkObject,
  checkTarget,
  checkWeight,
  readHandle,
  type GripHandle,
  type TwoHandGripOptions,
} from "./twoHandGripOptions.js";

export type { GripHandle, TwoHandGripOptions } from "./twoHandGripOptions.js";

/* Slots of the number array (every per-frame number lives here: V8 boxes doubles crossing calls). Poses are
   7 numbers, model space unless said: place then orientation. */
const GRIP = 0; // the handles as given, object frame: left, right
const MODEL_GRIP = 14; // the handles in model form this frame: left, right
const OBJECT = 28; // the object's pose
const CANDIDATE = 35; // the object's pose one hand alone would give it
const GOAL = 42; // the target's pose
const HANDLE = 49; // the handles' poses: left, right
const HELD = 63; // where the hands are: left, right
const SCALE = 77; // the object's scaling
const UNIT = 80; // model units per world unit
const SHARE = 81; // the right hand's share of the object's pose
const TARGET_WEIGHT = 82;
const WORLD = 83; // the object's world pose
const ALIGN = 90; // how far the refit turns the object to put both handles on the hands' places
const SLOTS = 91;

/** Where the grip runs among a frame's passes: after Reach (-10), before the user's (0). */
const TWO_HAND_GRIP_ORDER = -5;

/**
 * Two hands holding one rigid object (a rifle, a box, a steering wheel), the object's pose solved with the
 * arms'. Each hand has a handle, its pose in the object's frame; the object follows an optional target node.
 *
 * ```ts
 * const grip = new TwoHandGrip(ik, {
 *   object: rifle,
 *   right: { position: new Vector3(0, -0.04, -0.1), rotation: rightGrip },
 *   left: { position: new Vector3(0, -0.02, 0.3), rotation: leftGrip },
 *   target: aim, // the rifle's wanted pose; null: it rides on the animated hands
 * });
 * ```
 *
 * Each frame (a pass of the behavior's frame, order -5), before the solve: the object's wanted pose (the
 * animated hands', blended toward the target's by `targetWeight`) is moved, keeping its rotation, by the
 * least that puts both handles within their arms' reach (a ball about each shoulder); the hands get targets
 * on the handles, orientation matched. After the solve each arm closes its grip in closed form (see
 * armGrip.ts: the last of the solve's tolerance, and the swivel that lets the wrist take the handle's
 * rotation within its limits), and the object is placed where the hands hold it. When the handles are further
 * apart than the arms span, `leftWeight` and `rightWeight` decide who leads: the object sits on a leading
 * hand (weight 1 against 0) and the other comes as close as it can; equal weights share the miss.
 *
 * The object is written in world space (it must have no parent) after the solve, in the frame it is drawn.
 * A frame allocates nothing.
 */
export class TwoHandGrip {
  /** The held object. */
  readonly object: TransformNode;
  /** The hands' target nodes (model space), for debug views: left, right. */
  readonly handleTargets: readonly [TransformNode, TransformNode];
  /**
   * The last frame's grip errors, world units and radians: left distance, left angle, right distance, right
   * angle, between each hand and its handle on the object as placed.
   */
  readonly errors = new Float64Array(4);

  private readonly _v = new Float64Array(SLOTS);
  private readonly _place = new Float64Array(PLACE_SLOTS);
  private readonly _arms: readonly [ArmGrip, ArmGrip];
  private readonly _pass: FabrikPass;
  private _binding: TargetBinding | null = null;
  private _leftWeight: number;
  private _rightWeight: number;
  private _reachable = true;
  private _disposed = false;

  constructor(
    readonly behavior: FabrikBehavior,
    options: TwoHandGripOptions,
  ) {
    attachedRig(behavior, "TwoHandGrip");
    checkGripOptionNames(options);
    const arms = [armJoints(behavior, "left"), armJoints(behavior, "right")];
    this.object = checkObject(options.object);
    readHandle(options.left, "left", this._v, GRIP);
    readHandle(options.right, "right", this._v, GRIP + POSE);
    this.target = options.target ?? null;
    this.targetWeight = checkWeight(options.targetWeight ?? 1, "targetWeight");
    this._leftWeight = checkWeight(options.leftWeight ?? 1, "leftWeight");
    this._rightWeight = checkWeight(options.rightWeight ?? 1, "rightWeight");
    // Checked: nothing below throws.
    const object = this.object;
    object.rotationQuaternion ??= Quaternion.FromEulerVector(object.rotation);
    this._arms = [new ArmGrip(...arms[0]), new ArmGrip(...arms[1])];
    const scene = object.getScene();
    this.handleTargets = [
      createModelTarget(behavior, scene, `${object.name} left handle`),
      createModelTarget(behavior, scene, `${object.name} right handle`),
    ];
    for (let side = 0; side < 2; side++) {
      behavior.setTarget(arms[side][3], this.handleTargets[side], { matchOrientation: true });
    }
    this._pass = {
      joints: arms.flat().slice(1),
      beforeSolve: (frame) => this._before(frame),
      afterSolve: (frame) => this._after(frame),
    };
    behavior.addPass(this._pass, { order: TWO_HAND_GRIP_ORDER });
  }

  /** The node the object follows, or null (it rides on the animated hands). */
  get target(): TransformNode | null {
    return (this._binding?.source as TransformNode | undefined) ?? null;
  }
  set target(value: TransformNode | null) {
    const node = checkTarget(value);
    this._binding = node === null ? null : TargetBinding.create(node, "TwoHandGrip.target");
  }

  /** How far the object goes from the animated hands' pose toward the target's, 0..1. */
  get targetWeight(): number {
    return this._v[TARGET_WEIGHT];
  }
  set targetWeight(value: number) {
    this._v[TARGET_WEIGHT] = checkWeight(value, "targetWeight");
  }

  /** How much the left hand leads when the object cannot be held by both, 0..1. */
  get leftWeight(): number {
    return this._leftWeight;
  }
  set leftWeight(value: number) {
    this._leftWeight = checkWeight(value, "leftWeight");
  }

  /** How much the right hand leads when the object cannot be held by both, 0..1. */
  get rightWeight(): number {
    return this._rightWeight;
  }
  set rightWeight(value: number) {
    this._rightWeight = checkWeight(value, "rightWeight");
  }

  /** Whether, in the last frame, both handles were within their arms' reach (the loop could close). */
  get reachable(): boolean {
    return this._reachable;
  }

  /** Moves a hand's handle (checked as the constructor checks it). */
  setHandle(side: "left" | "right", handle: GripHandle): void {
    readHandle(handle, side, this._v, side === "left" ? GRIP : GRIP + POSE);
  }

  /** Leaves the behavior's frame and removes the hands' targets. Idempotent. */
  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this.behavior.removePass(this._pass);
    if (this.behavior.rig !== null) {
      for (const arm of this._arms) this.behavior.removeTarget(arm.hand);
    }
    for (const node of this.handleTargets) node.dispose();
  }

  /** Before the solve: the object's wanted pose, moved into both arms' reach, and the hands' targets. */
  private _before(frame: FabrikFrame): void {
    const v = this._v;
    if (this.object.isDisposed()) return;
    const mirrored = isMirrored(frame.modelToWorld);
    uniformScale(frame.worldToModel, v, UNIT);
    const s = this.object.scaling;
    v[SCALE] = s.x;
    v[SCALE + 1] = s.y;
    v[SCALE + 2] = s.z;
    gripToModel(v, MODEL_GRIP, v, GRIP, v, SCALE, v, UNIT, mirrored);
    gripToModel(v, MODEL_GRIP + POSE, v, GRIP + POSE, v, SCALE, v, UNIT, mirrored);
    for (let side = 0; side < 2; side++)
      if (frame.isReflected(this._arms[side].hand)) turnGripOver(v, MODEL_GRIP + side * POSE + 3);
    const wl = this._leftWeight,
      wr = this._rightWeight;
    v[SHARE] = wl + wr > 0 ? wr / (wl + wr) : 0.5;
    // A leading hand keeps its whole grip (the object sits on it); equal weights trade rotation for place.
    v[ALIGN] = wl + wr > 0 ? 1 - Math.abs(wl - wr) / (wl + wr) : 1;
    // The pose the animated hands give the object, then toward the target's.
    readHand(frame, this._arms[0].hand, v, HELD);
    readHand(frame, this._arms[1].hand, v, HELD + POSE);
    objectFromHand(v, OBJECT, v, HELD, v, MODEL_GRIP);
    objectFromHand(v, CANDIDATE, v, HELD + POSE, v, MODEL_GRIP + POSE);
    blendPose(v, OBJECT, v, CANDIDATE, v, SHARE);
    const binding = this._binding;
    if (binding !== null && v[TARGET_WEIGHT] > 0 && !(binding.source as TransformNode).isDisposed()) {
      const m = binding.readWorldMatrix()!;
      transformPoint(v, GOAL, frame.worldToModel, m, 12);
      if (
        nodeRotationToModel(m, frame.worldToModel, mirrored, v, GOAL + 3) &&
        Number.isFinite(v[GOAL] + v[GOAL + 1] + v[GOAL + 2])
      ) {
        blendPose(v, OBJECT, v, GOAL, v, TARGET_WEIGHT);
      }
    }
    this._placeInReach(frame);
    for (let side = 0; side < 2; side++) {
      const h = HANDLE + side * POSE;
      handOnGrip(v, h, v, OBJECT, v, MODEL_GRIP + side * POSE);
      const node = this.handleTargets[side];
      // From the array, not through set(…): doubles handed to a call V8 does not inline are boxed.
      vectorFromArray(node.position, v, h);
      quaternionFromArray(node.rotationQuaternion!, v, h + 3);
    }
  }

  /** Moves the object (keeping its rotation) by the least that brings both handles within reach. */
  private _placeInReach(frame: FabrikFrame): void {
    const v = this._v;
    const place = this._place;
    const p = frame.positions;
    for (let side = 0; side < 2; side++) {
      const arm = this._arms[side];
      const h = HANDLE + side * POSE;
      const c = side === 0 ? PLACE_CENTER_0 : PLACE_CENTER_1;
      handOnGrip(v, h, v, OBJECT, v, MODEL_GRIP + side * POSE);
      for (let i = 0; i < 3; i++) place[c + i] = p[3 * arm.upper + i] - v[h + i];
      const r = side === 0 ? PLACE_REACH_0 : PLACE_REACH_1;
      place[r] = 0;
      addDistance(p, 3 * arm.lower, 3 * arm.upper, place, r);
      addDistance(p, 3 * arm.hand, 3 * arm.lower, place, r);
    }
    place[PLACE_WEIGHT_0] = this._leftWeight;
    place[PLACE_WEIGHT_1] = this._rightWeight;
    this._reachable = placeBetweenReaches(place);
    for (let i = 0; i < 3; i++) v[OBJECT + i] += place[PLACE_SHIFT + i];
  }

  /** After the solve: each arm closes its grip, and the object goes where the hands hold it. */
  private _after(frame: FabrikFrame): void {
    const v = this._v;
    if (this.object.isDisposed()) return;
    const limits = this.behavior.limits;
    this._arms[0].close(frame, limits, v, HANDLE, v, HELD);
    this._arms[1].close(frame, limits, v, HANDLE + POSE, v, HELD + POSE);
    objectFromHand(v, OBJECT, v, HELD, v, MODEL_GRIP);
    objectFromHand(v, CANDIDATE, v, HELD + POSE, v, MODEL_GRIP + POSE);
    blendPose(v, OBJECT, v, CANDIDATE, v, SHARE);
    alignHandles(v, OBJECT, v, MODEL_GRIP, MODEL_GRIP + POSE, v, HELD, HELD + POSE, v, ALIGN, SHARE);
    const m2w = frame.modelToWorld;
    transformPoint(v, WORLD, m2w, v, OBJECT);
    modelRotationToWorld(v, WORLD + 3, v, OBJECT + 3, m2w, isMirrored(m2w));
    const object = this.object;
    vectorFromArray(object.position, v, WORLD);
    quaternionFromArray(object.rotationQuaternion!, v, WORLD + 3);
    for (let side = 0; side < 2; side++) {
      const h = HANDLE + side * POSE;
      const held = HELD + side * POSE;
      handOnGrip(v, h, v, OBJECT, v, MODEL_GRIP + side * POSE);
      this.errors[2 * side] = 0;
      addDistance(v, h, held, this.errors, 2 * side);
      this.errors[2 * side] /= v[UNIT];
      let dot = 0;
      for (let i = 3; i < POSE; i++) dot += v[h + i] * v[held + i];
      this.errors[2 * side + 1] = 2 * Math.acos(Math.min(1, Math.abs(dot)));
    }
  }
}

/** The hand's model-space pose (place, orientation) as the frame holds it. */
function readHand(frame: FabrikFrame, hand: number, out: Float64Array, o: number): void {
  const p = frame.positions;
  const q = frame.orientations;
  for (let i = 0; i < 3; i++) out[o + i] = p[3 * hand + i];
  for (let i = 0; i < 4; i++) out[o + 3 + i] = q[4 * hand + i];
}

/** Adds the distance between points `v[a..]` and `v[b..]` to `out[o]` (no double crosses the call). */
function addDistance(v: Float64Array, a: number, b: number, out: Float64Array, o: number): void {
  out[o] += Math.sqrt((v[a] - v[b]) ** 2 + (v[a + 1] - v[b + 1]) ** 2 + (v[a + 2] - v[b + 2]) ** 2);
}
