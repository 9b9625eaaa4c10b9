import type { Behavior } from "@babylonjs/core/Behaviors/behavior.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { IInspectable } from "@babylonjs/core/Misc/iInspectable.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import type { Nullable } from "@babylonjs/core/types.js";
import type { SolveSettings } from "../solver/fabrik.js";
import type { JointLimits, JointLimitSpec } from "../solver/limits.js";
import type { SolvePlan } from "../solver/plan.js";
import type { Rig } from "../solver/rig.js";
import {
  attachCharacter,
  checkAttachable,
  continuumSectionsOf,
  detachCharacter,
  requireAttached,
  setCharacterLimit,
  setSectionMaxBend,
  type AttachedCharacter,
} from "./attachedCharacter.js";
import type { FabrikBehaviorOptions, FabrikStage } from "./behaviorOptions.js";
import { BehaviorSettings } from "./behaviorSettings.js";
import type { FabrikContinuumSection, FabrikContinuumSectionInfo } from "./continuumOptions.js";
import type { EndEffectorInfo } from "./endEffectors.js";
import type { FabrikFrame, FabrikPass, FabrikSolvedEvent } from "./behaviorEvents.js";
import { checkPass, type FabrikPassOptions } from "./fabrikFrame.js";
import type { HumanoidRoles } from "../rig/index.js";
import { findJointIndex, labelOf, resolveJoint, type FabrikJoint } from "./jointLookup.js";
import { shinOf } from "./limbChains.js";
import type { SkeletonRig } from "./skeletonRig.js";
import type { TargetSource } from "./targetBinding.js";
import {
  changeTargetWeight,
  entryOf,
  installTargets,
  makeTargetEntry,
  putTarget,
  refuseTargetWeight,
  replaceContinuumSections,
} from "./targetEditing.js";
import { WATCHED_PRESOLVE, WATCHED_SOLVED, WatchedObservable } from "./watchedObservable.js";
import {
  checkTargetOptions,
  targetInfo,
  type FabrikTargetInfo,
  type FabrikTargetOptions,
} from "./targetOptions.js";

export type { FabrikBehaviorOptions, FabrikLimitPreset, FabrikStage } from "./behaviorOptions.js";
export type { FabrikBeforeSolveEvent, FabrikFrame, FabrikPass, FabrikSolvedEvent } from "./behaviorEvents.js";

/**
 * Full-body FABRIK inverse kinematics for a skinned character, on top of its animation.
 *
 * ```ts
 * const ik = new FabrikBehavior();
 * character.addBehavior(ik, true);            // the skinned mesh or any node above it (glTF `__root__`)
 * ik.setTarget("leftHand", cupNode);          // a humanoid role or a bone name
 * ik.setTarget("RightFoot", () => footPoint, { pole: kneeHint });
 * ```
 *
 * Every frame (see {@link FabrikBehaviorOptions.stage}) the scene's FabrikSystem runs the character's
 * pipeline: read the animated pose from the joint nodes once, run the passes (FootPlacement, LookAt, Reach,
 * yours: {@link addPass}), solve every target at once (chains meeting at a joint share it), write local
 * rotations to the joint nodes (or bones without nodes) once, blended from the animated ones by `weight`.
 * After the frame is rendered the animated values are put back, so the next frame starts from the animation
 * again (joints without animation channels would otherwise drift) and detaching leaves the animated pose.
 * Scale above the skeleton is fine (the glTF mirror, ×100); inside it, uniform per joint. Frames allocate nothing.
 */
export class FabrikBehavior implements Behavior<TransformNode> {
  /** Fired after each frame's write-back, with the solver's report. */
  readonly onSolvedObservable: Observable<FabrikSolvedEvent> = new WatchedObservable(this, WATCHED_SOLVED);
  /** When false, nothing is read or written (the passes wait too): the animated pose is left as it is. */
  enabled = true;
  /** True: a frame after one in which Babylon drew none of the character's meshes is skipped, as when disabled. */
  skipWhenHidden = false;
  /** @internal */ _watched = 0;
  /**
   * Each frame's solve starts from the last frame's written pose carried on this frame's animation, so a
   * redundant body does not pop between poses (see FrameContinuity). False: every frame from the animation.
   */
  continuity = true;
  /** With continuity: an answer far from last frame's is pulled back near it (SolveSettings.holdConfiguration). */
  holdConfiguration = true;
  /** With continuity: after a solve short of its targets, the next settles early (SolveSettings.fellShort). */
  settleOutOfReach = false;
  attachedNode: Nullable<TransformNode> = null;
  /** Fired when the set of effectors changes (a new joint or chain length, a removal): the plan was rebuilt. */
  readonly onTargetsChangedObservable = new Observable<FabrikBehavior>();
  /**
   * Fired each frame the behavior solves, with the frame: after the pose was read and the passes ran, before
   * the targets are read. Observers see this frame's pose (the joint nodes still hold the animation; nothing
   * is written before the solve) and whatever they do to targets and weights (move a target node,
   * `setTarget`, {@link setTargetWeight}, `removeTarget`) or to the frame's pose is used by this frame's solve.
   * Not fired while disabled, at weight 0, without targets, or when the model root's matrix cannot be inverted.
   */
  readonly onBeforeSolveObservable: Observable<FabrikFrame> = new WatchedObservable(this, WATCHED_PRESOLVE);
  /** Fired at the end of {@link attach}, the rig ready: tools (`installFabrikInspector`) set up here. */
  readonly onAttachObservable = new Observable<FabrikBehavior>();
  /** Fired at the start of {@link detach}, while the rig is still there: tools take themselves down here. */
  readonly onDetachObservable = new Observable<FabrikBehavior>();
  /** Inspector rows, filled after `installFabrikInspector(this)`: an Inspector `additionalNodes` entry. */
  inspectableCustomProperties: IInspectable[] = [];
  private readonly _settings: BehaviorSettings;
  private _character: AttachedCharacter | null = null;

  constructor(options: FabrikBehaviorOptions = {}) {
    this._settings = new BehaviorSettings(options);
  }

  /** The behavior's name, constant: `node.getBehaviorByName("FabrikIK")`. */
  get name(): string {
    return "FabrikIK";
  }

  getClassName(): string {
    return "FabrikBehavior";
  }

  init(): void {}

  /** Global blend, 0..1: 0 leaves the animated pose exactly as it is, 1 shows the full IK pose. */
  get weight(): number {
    return this._settings.weight;
  }
  set weight(value: number) {
    this._settings.weight = value;
  }

  /** An effector within this fraction of the character's {@link height} counts as reached. */
  get tolerance(): number {
    return this._settings.tolerance;
  }
  set tolerance(value: number) {
    this._settings.setTolerance(value, this._character);
  }

  get maxIterations(): number {
    return this._settings.maxIterations;
  }
  set maxIterations(value: number) {
    this._settings.setMaxIterations(value, this._character);
  }

  get stage(): FabrikStage {
    return this._settings.options.stage;
  }

  /** The rig being driven, or null before attach. */
  get rig(): SkeletonRig | null {
    return this._character?.rig ?? null;
  }

  /** The solver's view of the rig (model space, shared by copies of the model), or null before attach. */
  get solverRig(): Rig | null {
    return this._character?.model.rig ?? null;
  }

  /** Candidate end effectors (joints with no child joint), in joint order. Empty before attach. */
  get effectors(): readonly EndEffectorInfo[] {
    return this._character?.effectors ?? [];
  }

  /** Recognised humanoid roles: role → joint index. Empty for other rigs and before attach. */
  get roles(): Readonly<HumanoidRoles> {
    return this._character?.roles ?? {};
  }

  /**
   * The joint limits every plan uses; edit them with {@link setLimit}. Copies of one model share one set, which
   * refuses `setJointLimit`; `setLimit` first gives this behavior a copy (this getter then returns the copy).
   */
  get limits(): JointLimits | null {
    return this._character?.limits ?? null;
  }

  /**
   * The character's height in model space, the unit of `tolerance`: how far its body joints (those carrying
   * skin or meshes; not IK-control and pole bones, arm span or tails held out) reach along up in the rest pose.
   * A body lying flat (a snake stretched out) takes a quarter of its longest extent. 1 before attach.
   */
  get height(): number {
    return this._character?.height ?? 1;
  }

  /** @deprecated The same as {@link height}, which it now means (it was the rest pose's bounding diagonal). */
  get modelSize(): number {
    return this.height;
  }

  /** The compiled solve plan for the current targets (read-only, for tools), or null without targets. */
  get plan(): SolvePlan | null {
    return this._character?.targets?.plan ?? null;
  }

  /** The current targets, in effector order (a fresh array of snapshots each call). */
  get targets(): readonly FabrikTargetInfo[] {
    return (this._character?.entries ?? []).map(targetInfo);
  }

  /** Model-space target points (x y z per effector) of the last solve, live; null without targets. */
  get targetPositions(): Float64Array | null {
    return this._character?.targets?.targets ?? null;
  }

  /** The current plan's solver settings (tolerance in model units, iteration cap), live; null without targets. */
  get solveSettings(): Readonly<SolveSettings> | null {
    return this._character?.targets?.settings ?? null;
  }

  /** The model root's world matrix (Babylon `Matrix.m` layout) of the last pose read, live; null before attach. */
  get modelToWorld(): Float64Array | null {
    return this._character?.pipeline.pose.modelToWorld ?? null;
  }

  /** Joints whose local rotations the behavior writes for the current targets, parents first. */
  get writtenJoints(): Int32Array {
    return this._character?.targets?.blend.joints ?? new Int32Array(0);
  }

  /** The passes of the character's frame, in the order they run (see {@link addPass}). */
  get passes(): readonly FabrikPass[] {
    return this._character?.pipeline.passes ?? [];
  }

  attach(node: TransformNode): void {
    if (this.attachedNode === node) return;
    checkAttachable(this.attachedNode, node);
    this._character = attachCharacter(this, node, this._settings.options);
    this.attachedNode = node;
    this.onAttachObservable.notifyObservers(this);
  }

  /** Puts the animated pose back, leaves the scene's system and forgets the rig and targets. Idempotent. */
  detach(): void {
    const character = this._character;
    if (character === null) return;
    this.onDetachObservable.notifyObservers(this);
    this._character = null;
    this.attachedNode = null;
    detachCharacter(character);
  }

  /**
   * The joint index of a bone or glTF node name, a humanoid role, a joint node or a Bone, else -1. A bone name
   * wins over a role of the same spelling; an index is returned as it is when it is one of the rig's joints.
   */
  jointIndex(joint: FabrikJoint): number {
    const c = this._character;
    return c === null ? -1 : findJointIndex(c.rig, c.roles, joint);
  }

  /** Whether `joint` has a target. */
  hasTarget(joint: FabrikJoint): boolean {
    return entryOf(this._character?.entries ?? [], this.jointIndex(joint)) >= 0;
  }

  /**
   * Pulls a joint toward a target, every frame until {@link removeTarget}. Setting a joint's target again
   * replaces it (and its options). Throws a {@link FabrikError} naming the problem, and changes nothing, for
   * an unknown joint, a root joint, a target that is not a finite point, or a bad option.
   *
   * A Vector3 target is read live each frame, and checked now. A function or node target is checked each
   * frame: when it yields a non-finite point, that effector is skipped for the frame (its chain shows the
   * animation) rather than written with NaN; a non-finite pole is ignored for the frame.
   *
   * A foot that does not hang below its leg but sits where its shin ends (rigs made for Blender's IK keep
   * the feet under the root; see {@link shinOf}), given no chainLength, is placed as FootPlacement places such
   * feet: the thigh and shin bend, the knee within its limits, so the shin ends on the target, and the foot
   * bone is moved there (and turned, with matchOrientation) until the frame is drawn. The solver's effector
   * is then the shin (`plan.effectorJoints`), which cannot have a target of its own meanwhile; no pole.
   */
  setTarget(joint: FabrikJoint, target: TargetSource, options: FabrikTargetOptions = {}): void {
    const who = `FabrikIK setTarget(${labelOf(joint)})`;
    const character = this._attached(who);
    const j = resolveJoint(character, joint, who);
    const checked = checkTargetOptions(options, who, j);
    const entry = makeTargetEntry(character, j, labelOf(joint), target, checked, who);
    const changed = putTarget(character, entry, this._settings, who);
    if (changed) this.onTargetsChangedObservable.notifyObservers(this);
  }

  /**
   * Changes the weight of `joint`'s target (see {@link FabrikTargetOptions.weight}) and nothing else: the
   * plan, the target and its options stay, nothing is allocated, so it can run every frame (a weight easing
   * in and out). Used from the next solve on, or from this frame's solve when called in a pass or in
   * {@link onBeforeSolveObservable}. Throws a {@link FabrikError}, changing nothing, for a weight that is not
   * a number in [0, 1], an unknown joint, or a joint without a target.
   */
  setTargetWeight(joint: FabrikJoint, weight: number): void {
    if (changeTargetWeight(this._character, this.jointIndex(joint), weight)) return;
    const who = `FabrikIK setTargetWeight(${labelOf(joint)})`;
    refuseTargetWeight(this._attached(who), joint, weight, who);
  }

  /** Stops pulling `joint`: its chain shows its animation again. Returns false when it had no target. */
  removeTarget(joint: FabrikJoint): boolean {
    const who = `FabrikIK removeTarget(${labelOf(joint)})`;
    const character = this._attached(who);
    const j = resolveJoint(character, joint, who);
    if (!character.entries.some((e) => e.joint === j)) return false;
    const rest = character.entries.filter((e) => e.joint !== j);
    installTargets(character, rest, this._settings, who);
    this.onTargetsChangedObservable.notifyObservers(this);
    return true;
  }

  /** Removes every target. */
  clearTargets(): void {
    const character = this._character;
    if (character === null || character.targets === null) return;
    installTargets(character, [], this._settings, "FabrikIK clearTargets()");
    this.onTargetsChangedObservable.notifyObservers(this);
  }

  /**
   * Sets (or with `undefined` clears) the limits of a joint, effective from the next frame without any
   * recompilation. Angles are radians, relative to the joint's rest local rotation (see `JointLimitSpec`).
   */
  setLimit(joint: FabrikJoint, spec: JointLimitSpec | undefined): void {
    const who = `FabrikIK setLimit(${labelOf(joint)})`;
    const character = this._attached(who);
    setCharacterLimit(character, resolveJoint(character, joint, who), spec, who);
  }

  /** A copy of a joint's limits, or undefined when it is free. */
  getLimit(joint: FabrikJoint): JointLimitSpec | undefined {
    const who = `FabrikIK getLimit(${labelOf(joint)})`;
    const character = this._attached(who);
    return structuredClone(character.limits.specs[resolveJoint(character, joint, who)]);
  }

  /**
   * Replaces the continuum sections (`[]`: none), as the `continuumSections` option gives them, and compiles
   * the targets again. Throws a {@link FabrikError}, changing nothing, for a bad set.
   */
  setContinuumSections(sections: readonly FabrikContinuumSection[]): void {
    const who = "FabrikIK setContinuumSections()";
    const { options } = this._settings;
    if (replaceContinuumSections(this._character, options, this._settings, sections, who))
      this.onTargetsChangedObservable.notifyObservers(this);
  }

  /** The `continuumSections` option found on the rig, each used or not by the targets (fresh; [] detached). */
  get continuumSections(): readonly FabrikContinuumSectionInfo[] {
    return this._character === null ? [] : continuumSectionsOf(this._character);
  }

  /**
   * Sets continuum section `section`'s bend limit (radians in (0, 2π)), from the next solve, without
   * recompiling. Throws a {@link FabrikError}, changing nothing, for an unknown section or a bad angle.
   */
  setContinuumMaxBend(section: number, maxBend: number): void {
    const who = `FabrikIK setContinuumMaxBend(${String(section)})`;
    setSectionMaxBend(this._attached(who), this._settings.options.continuumSections, section, maxBend, who);
  }

  /**
   * The shin `joint` sits at the end of when it does not hang below its leg, as a foot of a rig made for
   * Blender's IK does (under the root, where its shin ends), else -1: a `leftFoot`/`rightFoot` role at the
   * end of its side's `LowerLeg`, or a joint hanging above a leg at the end of one of its child-less bones
   * (checked on the rest pose and the current one). {@link setTarget} places such a joint through its leg.
   */
  shinOf(joint: FabrikJoint): number {
    const j = this.jointIndex(joint);
    return j < 0 ? -1 : shinOf(this._character!, j);
  }

  /**
   * Adds a step to the character's frame (see {@link FabrikPass}): its `beforeSolve` runs on the pose just
   * read, before the solve, its `afterSolve` on the pose as it will be written. Passes run by
   * `options.order`, then in the order they were added. The pass's joints are read every frame from now on.
   * Throws a {@link FabrikError} when the behavior is not attached or a joint is unknown.
   */
  addPass(pass: FabrikPass, options: FabrikPassOptions = {}): void {
    const who = "FabrikIK addPass()";
    const character = this._attached(who);
    const order = checkPass(pass, options, who);
    const joints = (pass.joints ?? []).map((joint) => resolveJoint(character, joint, who));
    character.pipeline.removePass(pass);
    character.pipeline.addPass(pass, order, joints);
  }

  /** The next frame solves from its animation, not from this one's answer (after a teleport or a cut). */
  resetContinuity(): void {
    this._character?.pipeline.resetContinuity();
  }

  /** Removes a pass added with {@link addPass}; false when it was not there (or the behavior is detached). */
  removePass(pass: FabrikPass): boolean {
    return this._character?.pipeline.removePass(pass) ?? false;
  }

  /** One frame of the pipeline and the restore after it, as the scene's system runs them (tests drive them). */
  private readonly _onStage = (): void => this._character?.pipeline.run(ONE_FRAME);
  private readonly _onAfterRender = (): void => this._character?.pipeline.restore();
  private readonly _attached = (who: string): AttachedCharacter => requireAttached(this._character, who);
}

/** The time step of a frame driven by hand: the animation clock is not consulted. */
const ONE_FRAME = new Float64Array([1 / 60]);
