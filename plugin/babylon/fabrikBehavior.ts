import type { Behavior } from "@babylonjs/core/Behaviors/behavior.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { IInspectable } from "@babylonjs/core/Misc/iInspectable.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { Observable, type Observer } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { Nullable } from "@babylonjs/core/types.js";
import { FabrikError } from "../solver/errors.js";
import { solvePlan, type SolveSettings } from "../solver/fabrik.js";
import {
  copyJointLimits,
  createJointLimits,
  isJointLimitsShared,
  setJointLimit,
  type JointLimits,
  type JointLimitSpec,
} from "../solver/limits.js";
import { setEffectorWeight, setPlanLimits, type SolvePlan, type SolveReport } from "../solver/plan.js";
import type { Pose } from "../solver/pose.js";
import { createRig, type Rig } from "../solver/rig.js";
import { characterHeight, deformingJoints, modelSpaceUp } from "./characterHeight.js";
import { compileSharedPlan, shareLimits, shareRig, sharedWorkspace } from "./sharedRigData.js";
import { discoverEndEffectors, type EndEffectorInfo } from "./endEffectors.js";
import { fitLimitsToAnimations } from "./animationLimits.js";
import {
  controlFootShin,
  findHumanoidRoles,
  footShin,
  humanoidLimitPreset,
  HUMANOID_ROLES,
  isAncestor,
  jointDepths,
  type HumanoidRole,
  type HumanoidRoles,
} from "../rig/index.js";
import { PoseReader } from "./poseReader.js";
import { GLOBAL_WEIGHT_SLOT, RotationWriter } from "./rotationWriter.js";
import { ShinEndTarget } from "./shinEndTarget.js";
import { buildSkeletonRig, type SkeletonRig } from "./skeletonRig.js";
import {
  describeValue,
  isQuaternionLike,
  TargetBinding,
  type QuaternionLike,
  type TargetSource,
} from "./targetBinding.js";
import { nodeRotationToModel, quaternionRotationToModel } from "./targetOrientation.js";

/** When the behavior solves each frame; see {@link FabrikBehaviorOptions.stage}. */
export type FabrikStage = "beforeRender" | "afterAnimations";

/** Which joint limits a behavior starts with; see {@link FabrikBehaviorOptions.limits}. */
export type FabrikLimitPreset = "humanoid" | "none";

/**
 * A joint, by bone name (or glTF node name), humanoid role, linked TransformNode, Bone, or joint index (its
 * place in `rig.names`, as tools and helpers hold it: names need not be unique, indices are).
 */
export type FabrikJoint = string | number | TransformNode | Bone;

export interface FabrikBehaviorOptions {
  /**
   * `"beforeRender"` (default): solve in `scene.onBeforeRenderObservable`, once per frame, after animations,
   * root motion and the camera, and before the skeletons are prepared for drawing. Targets moved by your own
   * `onBeforeRender` observers are seen in the same frame if those observers were added before the behavior
   * was attached (or with `insertFirst`), else one frame late.
   * `"afterAnimations"`: solve in `scene.onAfterAnimationsObservable`, straight after the animations (once per
   * lockstep substep in deterministic lockstep mode, each step starting from the animated pose again; not at
   * all when animations are skipped).
   */
  stage?: FabrikStage;
  /**
   * An effector within this fraction of the character's height (see {@link FabrikBehavior.height}) counts as
   * reached. Default 1e-3: about 1.6 mm on a 1.75 m human, whatever its arm span or control bones.
   */
  tolerance?: number;
  /**
   * Iteration cap per frame. Default 100, for long tails, tentacles and many-legged creatures on hard
   * frames; a frame ends as soon as every effector is within tolerance (most take a few iterations), so the
   * cap costs only on frames that would otherwise end short.
   */
  maxIterations?: number;
  /**
   * `"humanoid"` (default): when humanoid roles are recognised, anatomically plausible limits for spine, neck,
   * head, shoulders, arms and legs (see `humanoidLimitPreset`); other rigs start free. `"none"`: every joint
   * free. Either way, {@link FabrikBehavior.setLimit} edits them at any time.
   */
  limits?: FabrikLimitPreset;
  /**
   * With the `"humanoid"` preset (default true): at attach, widen the preset's limits until they contain
   * every rotation key of every AnimationGroup in the scene that drives the rig's joints (see
   * `fitLimitsToAnimations`), so the character's own clips never leave them and a moving target does not drag
   * a joint away from its animation. Groups created after attach are not seen (call `fitLimitsToAnimations`
   * with them). A hinge the clips turn off its axis becomes a swing cone + twist. No effect with `"none"`.
   */
  fitLimitsToAnimations?: boolean;
  /**
   * When the attached node holds several unrelated skeletons (a scene root with several characters), the
   * skeleton (or its name) whose rig to drive. Skins sharing joint nodes are one rig either way.
   */
  skeleton?: Skeleton | string;
}

export interface FabrikTargetOptions {
  /**
   * How much of the IK pose to show for this effector, 0..1 (default 1): the chain's joints are slerped from
   * their animated rotations by `weight × behavior.weight`. Where chains share joints, a shared joint takes
   * the largest weight of the effectors turning it. Also sets the effector's pull where branches meet.
   */
  weight?: number;
  /**
   * How many bones above the effector may move; the joint that many levels up keeps its place but turns.
   * A joint with a recognised humanoid role (named by role or by bone name) gets its limb by default, so a
   * reaching hand never bends the spine:
   * - hand: up to the upper arm (2 on most rigs: shoulder and elbow turn); lower arm: 1;
   * - foot, toes, lower leg: up to the upper leg (hip and knee turn);
   * - head, neck: up to the upper chest (or chest, or spine), which turns with the neck and carries the
   *   arms along; give `chainLength: 1` to turn the neck alone;
   * - shoulder: up to the chest; upper arm: up to the shoulder; spine joints: up to the spine or hips.
   * Any other joint: every bone up to the root. A foot role that sits where its shin ends instead of
   * below its leg (Blender-IK rigs keep feet under the root) is placed through its leg, see
   * {@link FabrikBehavior.setTarget}; any other role whose limb root does not lie above it has no default,
   * and setTarget says so.
   */
  chainLength?: number;
  /**
   * The effector also takes the target's world rotation (hands holding a handle, feet flat on a slope):
   * the target node's, or `rotation`'s. Needs a TransformNode target or the `rotation` option. The rotation
   * is kept within the effector's own limits. Babylon's convention under a mirrored glTF root is used: the
   * effector's `absoluteRotationQuaternion` becomes the target's.
   */
  matchOrientation?: boolean;
  /** A world rotation for the effector to take (read live, like a Vector3 target). Implies `matchOrientation`. */
  rotation?: QuaternionLike;
  /** A bend hint: the chain's inner joints (elbow, knee) bend toward this point. Same kinds as a target. */
  pole?: TargetSource;
}

/** What {@link FabrikBehavior.onSolvedObservable} carries: the same object every frame. */
export interface FabrikSolvedEvent {
  readonly behavior: FabrikBehavior;
  /** The solver's report for this frame (reused; copy what you keep). Residuals are in model units. */
  readonly report: SolveReport;
  /** Joints written this frame. */
  readonly written: number;
}

/**
 * What {@link FabrikBehavior.onBeforeSolveObservable} carries: the same object every frame, its matrices live
 * (copy what you keep).
 */
export interface FabrikBeforeSolveEvent {
  readonly behavior: FabrikBehavior;
  /** The model root's world matrix of the pose just read (Babylon `Matrix.m` layout). */
  readonly modelToWorld: Float64Array;
  /** Its inverse: world points into the model space the solve works in. */
  readonly worldToModel: Float64Array;
}

/** A target as set, for tools and inspectors (see {@link FabrikBehavior.targets}). */
export interface FabrikTargetInfo {
  readonly joint: number;
  /** How the user named the joint. */
  readonly label: string;
  readonly source: TargetSource;
  readonly weight: number;
  /**
   * As given or defaulted by role; undefined: up to the root; 1 for a foot at its shin's end (the shin's
   * chain, see {@link FabrikBehavior.shinOf}). `plan.chainLengths` has the resolved value.
   */
  readonly chainLength: number | undefined;
  readonly matchOrientation: boolean;
  readonly rotation: QuaternionLike | null;
  readonly pole: TargetSource | null;
}

interface TargetEntry {
  readonly joint: number;
  /** How the user named the joint, for messages. */
  readonly label: string;
  readonly binding: TargetBinding;
  /** Changed in place by `setTargetWeight`. */
  weight: number;
  readonly chainLength: number | undefined;
  readonly matchOrientation: boolean;
  readonly rotation: QuaternionLike | null;
  readonly pole: TargetBinding | null;
  /** For a foot at its shin's end: what turns its goal into the shin's and moves the foot; else null. */
  readonly shinEnd: ShinEndTarget | null;
}

/** Everything sized by the current set of effectors, allocated when it changes and never per frame. */
interface Compiled {
  readonly entries: readonly TargetEntry[];
  readonly plan: SolvePlan;
  readonly writer: RotationWriter;
  readonly targets: Float64Array;
  readonly poles: Float64Array;
  readonly orientations: Float64Array;
  readonly orientationValid: Uint8Array;
  readonly match: Uint8Array;
  readonly blend: Float64Array;
  readonly settings: SolveSettings;
  readonly event: { behavior: FabrikBehavior; report: SolveReport; written: number };
}

/** Where a role's default chain stops: the first of these roles found above the joint is the chain's base. */
const CHAIN_BASES: Partial<Record<HumanoidRole, readonly HumanoidRole[]>> = {
  spine: ["hips"],
  chest: ["spine", "hips"],
  upperChest: ["spine", "hips"],
  neck: ["upperChest", "chest", "spine"],
  head: ["upperChest", "chest", "spine"],
  leftShoulder: ["upperChest", "chest", "spine"],
  rightShoulder: ["upperChest", "chest", "spine"],
  leftUpperArm: ["leftShoulder", "upperChest", "chest", "spine"],
  rightUpperArm: ["rightShoulder", "upperChest", "chest", "spine"],
  leftLowerArm: ["leftUpperArm"],
  rightLowerArm: ["rightUpperArm"],
  leftHand: ["leftUpperArm"],
  rightHand: ["rightUpperArm"],
  leftUpperLeg: ["hips"],
  rightUpperLeg: ["hips"],
  leftLowerLeg: ["leftUpperLeg"],
  rightLowerLeg: ["rightUpperLeg"],
  leftFoot: ["leftUpperLeg"],
  rightFoot: ["rightUpperLeg"],
  leftToes: ["leftUpperLeg"],
  rightToes: ["rightUpperLeg"],
};

/**
 * The behavior's iteration cap per frame unless told otherwise. What a frame needs depends more on how many
 * effectors meet at turning bases than on chain length (see docs/convergence.md), and a solve stops as soon
 * as its effectors are within tolerance, so the cap is a constant, large enough for long tails, tentacles
 * and many-legged bodies.
 */
const DEFAULT_BEHAVIOR_MAX_ITERATIONS = 100;

/** An effector skipped for a frame still needs a pull > 0 in the solver; this one is negligible. */
const SKIPPED_PULL = 1e-6;

const STAGES: readonly FabrikStage[] = ["beforeRender", "afterAnimations"];
const PRESETS: readonly FabrikLimitPreset[] = ["humanoid", "none"];
const OPTION_KEYS = ["stage", "tolerance", "maxIterations", "limits", "fitLimitsToAnimations", "skeleton"];
const TARGET_OPTION_KEYS = ["weight", "chainLength", "matchOrientation", "rotation", "pole"];

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
 * Every frame (see {@link FabrikBehaviorOptions.stage}) it reads the animated pose from the joint nodes,
 * solves every target at once (chains meeting at a joint share it), and writes local rotations back to the
 * joint nodes (or bones without nodes), blended from the animated ones by `weight`. After the frame is
 * rendered the animated rotations are put back, so the next frame starts from the animation again (joints
 * without animation channels would otherwise drift) and detaching leaves the animated pose. The written
 * pose is there from the solve until `scene.onAfterRenderObservable`: read it in
 * {@link FabrikBehavior.onSolvedObservable}.
 *
 * Scale: any scale above the skeleton (the glTF mirror, an armature's ×100, a character scaled at runtime)
 * is fine; scale inside the skeleton must be uniform per joint.
 *
 * Steady-state frames allocate nothing.
 */
export class FabrikBehavior implements Behavior<TransformNode> {
  /** Fired after each frame's write-back, with the solver's report. */
  readonly onSolvedObservable = new Observable<FabrikSolvedEvent>();
  /** When false, nothing is read or written: the animated pose is left exactly as it is. */
  enabled = true;
  attachedNode: Nullable<TransformNode> = null;
  /** Fired when the set of effectors changes (a new joint or chain length, a removal): the plan was rebuilt. */
  readonly onTargetsChangedObservable = new Observable<FabrikBehavior>();
  /**
   * Fired each frame the behavior solves, after it has read the animated pose and before it reads the
   * targets: observers see this frame's animated pose (the joint nodes still hold it; nothing is written
   * before the solve) and whatever they do to targets and weights (move a target node, `setTarget`,
   * {@link setTargetWeight}, `removeTarget`) is used by this frame's solve. Not fired while the behavior is
   * disabled, at weight 0, without targets, or when the model root's matrix cannot be inverted. Changing
   * the joint nodes here comes too late for this frame: the pose was read.
   */
  readonly onBeforeSolveObservable = new Observable<FabrikBeforeSolveEvent>();
  /**
   * Fired at the end of {@link attach}, once the rig, roles and limits are ready: tools that follow the
   * behavior (such as `installFabrikInspector`) set themselves up here.
   */
  readonly onAttachObservable = new Observable<FabrikBehavior>();
  /** Fired at the start of {@link detach}, while the rig is still there: tools take themselves down here. */
  readonly onDetachObservable = new Observable<FabrikBehavior>();
  /**
   * Inspector rows, filled while attached once `installFabrikInspector(behavior)` was called: they let the
   * behavior be an Inspector `additionalNodes` entry.
   */
  inspectableCustomProperties: IInspectable[] = [];

  private readonly _stage: FabrikStage;
  private readonly _limitPreset: FabrikLimitPreset;
  private readonly _fitLimits: boolean;
  private readonly _skeleton: Skeleton | string | undefined;
  private _tolerance: number;
  private _maxIterations: number;
  private _weight = 1;

  private _rig: SkeletonRig | null = null;
  private _solverRig: Rig | null = null;
  private _reader: PoseReader | null = null;
  private _pose: Pose | null = null;
  private _limits: JointLimits | null = null;
  private _roles: HumanoidRoles = {};
  private _roleOf: (HumanoidRole | undefined)[] = [];
  private _depths: Int32Array = new Int32Array(0);
  private _effectors: readonly EndEffectorInfo[] = [];
  private _height = 1;
  private _compiled: Compiled | null = null;
  private readonly _point = new Float64Array(3);
  private _warned = false;
  private _beforeSolveEvent: FabrikBeforeSolveEvent | null = null;
  /** Set while {@link onBeforeSolveObservable} observers run, and while the frame they changed is solved. */
  private _inBeforeSolve = false;

  private _stageObserver: Nullable<Observer<Scene>> = null;
  private _restoreObserver: Nullable<Observer<Scene>> = null;
  private _stepObserver: Nullable<Observer<Scene>> = null;
  private readonly _onStage = (): void => this._update();
  private readonly _onAfterRender = (): void => this._restore();
  private readonly _onBeforeStep = (): void => this._restoreUntouched();

  constructor(options: FabrikBehaviorOptions = {}) {
    if (options === null || typeof options !== "object") {
      throw new FabrikError(`FabrikIK: options must be an object, got ${describeValue(options)}`);
    }
    for (const key of Object.keys(options)) {
      if (!OPTION_KEYS.includes(key)) {
        throw new FabrikError(
          `FabrikIK: unknown option "${key}" (options are ${OPTION_KEYS.join(", ")})`,
          undefined,
          key,
        );
      }
    }
    const stage = options.stage ?? "beforeRender";
    if (!STAGES.includes(stage)) {
      throw new FabrikError(
        `FabrikIK: stage must be "beforeRender" or "afterAnimations", got ${JSON.stringify(stage)}`,
        undefined,
        "stage",
      );
    }
    const limits = options.limits ?? "humanoid";
    if (!PRESETS.includes(limits)) {
      throw new FabrikError(
        `FabrikIK: limits must be "humanoid" or "none", got ${JSON.stringify(limits)}`,
        undefined,
        "limits",
      );
    }
    const fit = options.fitLimitsToAnimations ?? true;
    if (typeof fit !== "boolean") {
      throw new FabrikError(
        `FabrikIK: fitLimitsToAnimations must be true or false, got ${describeValue(fit)}`,
        undefined,
        "fitLimitsToAnimations",
      );
    }
    const skeleton = options.skeleton;
    if (skeleton !== undefined && typeof skeleton !== "string" && typeof skeleton?.bones !== "object") {
      throw new FabrikError(
        `FabrikIK: skeleton must be a Skeleton or a skeleton name, got ${describeValue(skeleton)}`,
        undefined,
        "skeleton",
      );
    }
    this._stage = stage;
    this._limitPreset = limits;
    this._fitLimits = fit;
    this._skeleton = skeleton;
    this._tolerance = checkTolerance(options.tolerance ?? 1e-3);
    this._maxIterations = checkMaxIterations(options.maxIterations ?? DEFAULT_BEHAVIOR_MAX_ITERATIONS);
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
    return this._weight;
  }
  set weight(value: number) {
    if (typeof value !== "number" || !(value >= 0 && value <= 1)) {
      throw new FabrikError(
        `FabrikIK: weight must be a number in [0, 1], got ${String(value)}`,
        undefined,
        "weight",
      );
    }
    this._weight = value;
  }

  /** An effector within this fraction of the character's {@link height} counts as reached. */
  get tolerance(): number {
    return this._tolerance;
  }
  set tolerance(value: number) {
    this._tolerance = checkTolerance(value);
    if (this._compiled !== null) this._compiled.settings.tolerance = this._tolerance * this._height;
  }

  get maxIterations(): number {
    return this._maxIterations;
  }
  set maxIterations(value: number) {
    this._maxIterations = checkMaxIterations(value);
    if (this._compiled !== null) this._compiled.settings.maxIterations = this._maxIterations;
  }

  get stage(): FabrikStage {
    return this._stage;
  }

  /** The rig being driven, or null before attach. */
  get rig(): SkeletonRig | null {
    return this._rig;
  }

  /** The solver's view of the rig (model space), or null before attach. */
  get solverRig(): Rig | null {
    return this._solverRig;
  }

  /** Candidate end effectors (joints with no child joint), in joint order. Empty before attach. */
  get effectors(): readonly EndEffectorInfo[] {
    return this._effectors;
  }

  /** Recognised humanoid roles: role → joint index. Empty for other rigs and before attach. */
  get roles(): Readonly<HumanoidRoles> {
    return this._roles;
  }

  /**
   * The joint limits the solver uses, shared by every plan: edit them with {@link setLimit}. Characters with
   * identical limits (copies of one model) share one set, which refuses edits made directly with
   * `setJointLimit`; `setLimit` gives this behavior a copy of its own first, so this getter may then return
   * another object.
   */
  get limits(): JointLimits | null {
    return this._limits;
  }

  /**
   * The character's height in model space, the unit of `tolerance`: how far its body joints reach along up
   * in the rest pose (joints that carry skin weights or meshes: IK-control and pole bones, arm span and tails
   * held out behind do not count). A body lying flat (a snake stretched out) takes a quarter of its longest
   * extent instead. 1 before attach.
   */
  get height(): number {
    return this._height;
  }

  /** @deprecated The same as {@link height}, which it now means (it was the rest pose's bounding diagonal). */
  get modelSize(): number {
    return this._height;
  }

  /** The compiled solve plan for the current targets (read-only, for tools), or null without targets. */
  get plan(): SolvePlan | null {
    return this._compiled?.plan ?? null;
  }

  /** The current targets, in effector order (a fresh array of snapshots each call). */
  get targets(): readonly FabrikTargetInfo[] {
    return (this._compiled?.entries ?? []).map((e) => ({
      joint: e.joint,
      label: e.label,
      source: e.binding.source,
      weight: e.weight,
      chainLength: e.chainLength,
      matchOrientation: e.matchOrientation,
      rotation: e.rotation,
      pole: e.pole?.source ?? null,
    }));
  }

  /** Model-space target points (x y z per effector) of the last solve, live; null without targets. */
  get targetPositions(): Float64Array | null {
    return this._compiled?.targets ?? null;
  }

  /** The current plan's solver settings (tolerance in model units, iteration cap), live; null without targets. */
  get solveSettings(): Readonly<SolveSettings> | null {
    return this._compiled?.settings ?? null;
  }

  /** The model root's world matrix (Babylon `Matrix.m` layout) of the last pose read, live; null before attach. */
  get modelToWorld(): Float64Array | null {
    return this._reader?.modelToWorld ?? null;
  }

  /** Joints whose local rotations the behavior writes for the current targets, parents first. */
  get writtenJoints(): Int32Array {
    return this._compiled?.writer.joints ?? new Int32Array(0);
  }

  attach(node: TransformNode): void {
    if (this.attachedNode === node) return;
    if (this.attachedNode !== null) {
      throw new FabrikError(
        `FabrikIK: already attached to "${this.attachedNode.name}"; detach it (node.removeBehavior) before ` +
          `attaching it to "${node?.name}"`,
        undefined,
        "node",
      );
    }
    if (node == null || typeof node.getScene !== "function") {
      throw new FabrikError(`FabrikIK: attach needs a TransformNode or mesh, got ${describeValue(node)}`);
    }
    let rig: SkeletonRig;
    try {
      rig = buildSkeletonRig(node, this._skeleton === undefined ? {} : { skeleton: this._skeleton });
    } catch (error) {
      if (error instanceof FabrikError) {
        throw new FabrikError(
          `FabrikIK: cannot attach to "${node.name}": ${error.message}`,
          error.joint,
          error.option,
        );
      }
      throw error;
    }
    // Copies of one model share one solver rig and, below, one limit set (see sharedRigData).
    const solverRig = shareRig(createRig(rig.toRigDescription()));
    const roles = findHumanoidRoles({
      names: rig.names,
      parents: rig.parents,
      restPositions: rig.restPositions,
    });
    const limits = createJointLimits(solverRig);
    const up = modelSpaceUp(rig);
    if (this._limitPreset === "humanoid") {
      for (const [joint, spec] of humanoidLimitPreset(solverRig, roles, { up })) {
        try {
          setJointLimit(limits, joint, spec);
        } catch (error) {
          // A preset that does not fit one joint should not cost the character its IK.
          Logger.Warn(
            `FabrikIK: humanoid limit of "${rig.names[joint]}" skipped: ${(error as Error).message}`,
          );
        }
      }
      if (this._fitLimits) fitLimitsToAnimations(rig, limits, node.getScene().animationGroups);
    }

    this._rig = rig;
    this._solverRig = solverRig;
    this._reader = new PoseReader(rig);
    this._beforeSolveEvent = {
      behavior: this,
      modelToWorld: this._reader.modelToWorld,
      worldToModel: this._reader.worldToModel,
    };
    // The solve works in place on the reader's model-space arrays: each frame's read refills the joints the
    // plan uses, the others keep their first read and are never touched, so no copy is needed.
    this._pose = { positions: this._reader.positions, orientations: this._reader.orientations };
    this._limits = shareLimits(limits);
    this._roles = roles;
    this._roleOf = new Array<HumanoidRole | undefined>(rig.jointCount).fill(undefined);
    for (const role of HUMANOID_ROLES) if (roles[role] !== undefined) this._roleOf[roles[role]!] = role;
    this._depths = jointDepths(rig.parents);
    this._effectors = discoverEndEffectors(rig);
    this._height = characterHeight(rig.restPositions, deformingJoints(rig), up);
    this._compiled = null;
    this._warned = false;

    const scene = node.getScene();
    const stage =
      this._stage === "afterAnimations" ? scene.onAfterAnimationsObservable : scene.onBeforeRenderObservable;
    this._stageObserver = stage.add(this._onStage);
    // Inserted first: behaviors restore in the reverse of the order they wrote, so where two write one joint
    // the last writer puts back what the first wrote and the first then puts back the animation. In writing
    // order the second would restore the first's output, which a joint with no channel would keep as its
    // pose. Helpers, whose writes come before the solve and whose restores are added later, come after.
    this._restoreObserver = scene.onAfterRenderObservable.add(this._onAfterRender, undefined, true);
    // Under a deterministic lockstep engine each step animates and then solves at this stage, with no render
    // between steps: the restore runs before each step, inserted first for the same reverse order.
    if (this._stage === "afterAnimations") {
      this._stepObserver = scene.onBeforeStepObservable.add(this._onBeforeStep, undefined, true);
    }
    this.attachedNode = node;
    this.onAttachObservable.notifyObservers(this);
  }

  /** Puts the animated pose back, removes every observer and forgets the rig and targets. Idempotent. */
  detach(): void {
    if (this.attachedNode === null) return;
    this.onDetachObservable.notifyObservers(this);
    this._restore();
    this._stageObserver?.remove();
    this._restoreObserver?.remove();
    this._stepObserver?.remove();
    this._stageObserver = null;
    this._restoreObserver = null;
    this._stepObserver = null;
    this._rig = null;
    this._solverRig = null;
    this._reader = null;
    this._beforeSolveEvent = null;
    this._pose = null;
    this._limits = null;
    this._roles = {};
    this._roleOf = [];
    this._depths = new Int32Array(0);
    this._effectors = [];
    this._compiled = null;
    this.attachedNode = null;
  }

  /**
   * The joint index of a bone name (or glTF node name), a humanoid role, a joint node or a Bone; -1 when the
   * rig has no such joint. An explicit bone name wins over a role of the same spelling. An index is returned
   * as it is when it is a joint of the rig (a whole number from 0 to `rig.jointCount - 1`), else -1.
   */
  jointIndex(joint: FabrikJoint): number {
    const rig = this._rig;
    if (rig === null || joint == null) return -1;
    if (typeof joint === "number") {
      return Number.isInteger(joint) && joint >= 0 && joint < rig.jointCount ? joint : -1;
    }
    const j = rig.indexOf(joint);
    if (j >= 0 || typeof joint !== "string") return j;
    return (this._roles as Record<string, number | undefined>)[joint] ?? -1;
  }

  /** Whether `joint` has a target. */
  hasTarget(joint: FabrikJoint): boolean {
    const j = this.jointIndex(joint);
    const entries = this._compiled?.entries;
    if (j < 0 || entries === undefined) return false;
    // A loop, not `some`: helpers ask every frame, and a closure per call is garbage.
    for (let e = 0; e < entries.length; e++) if (entries[e].joint === j) return true;
    return false;
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
    const j = this._resolve(joint, who);
    if (options === null || typeof options !== "object") {
      throw new FabrikError(`${who}: options must be an object, got ${describeValue(options)}`, j, "options");
    }
    for (const key of Object.keys(options)) {
      if (!TARGET_OPTION_KEYS.includes(key)) {
        throw new FabrikError(
          `${who}: unknown option "${key}" (options are ${TARGET_OPTION_KEYS.join(", ")})`,
          j,
          key,
        );
      }
    }
    const weight = options.weight ?? 1;
    if (typeof weight !== "number" || !(weight >= 0 && weight <= 1)) {
      throw new FabrikError(`${who}: weight must be a number in [0, 1], got ${String(weight)}`, j, "weight");
    }
    const { chainLength, rotation, matchOrientation } = options;
    if (chainLength !== undefined && (!Number.isInteger(chainLength) || chainLength < 1)) {
      throw new FabrikError(
        `${who}: chainLength must be a whole number >= 1, got ${String(chainLength)}`,
        j,
        "chainLength",
      );
    }
    if (matchOrientation !== undefined && typeof matchOrientation !== "boolean") {
      throw new FabrikError(`${who}: matchOrientation must be true or false`, j, "matchOrientation");
    }
    if (rotation !== undefined) {
      if (!isQuaternionLike(rotation)) {
        throw new FabrikError(
          `${who}: rotation must be a Quaternion, got ${describeValue(rotation)}`,
          j,
          "rotation",
        );
      }
      const len = Math.hypot(rotation.x, rotation.y, rotation.z, rotation.w);
      if (!Number.isFinite(len) || len < 1e-6) {
        throw new FabrikError(
          `${who}: rotation is not a usable quaternion (${rotation.x}, ${rotation.y}, ${rotation.z}, ${rotation.w})`,
          j,
          "rotation",
        );
      }
    }
    const current = this._compiled?.entries ?? [];
    const index = current.findIndex((e) => e.joint === j);
    const previous = index >= 0 ? current[index] : undefined;
    let chain = chainLength;
    let shinEnd: ShinEndTarget | null = null;
    if (chain === undefined) {
      // A joint without a limb chain of its own may be a foot at its shin's end.
      let refusal: unknown = null;
      try {
        chain = this._defaultChainLength(j, who);
      } catch (error) {
        refusal = error;
      }
      if (chain === undefined) shinEnd = this._shinEndTarget(j, previous);
      if (shinEnd === null && refusal !== null) throw refusal;
    }
    this._checkEffectorFree(j, shinEnd, who);
    if (shinEnd !== null && options.pole !== undefined) {
      throw new FabrikError(
        `${who}: "${this._rig!.names[j]}" sits at the end of the shin "${this._rig!.names[shinEnd.shin]}", ` +
          "whose knee bends as animated: a pole has no chain to bend there (give chainLength to target the " +
          "foot bone itself)",
        j,
        "pole",
      );
    }
    const binding = TargetBinding.create(target, who);
    const pole = options.pole === undefined ? null : TargetBinding.create(options.pole, `${who}: pole`);
    const match = matchOrientation ?? rotation !== undefined;
    if (match && rotation === undefined && !binding.isNode) {
      throw new FabrikError(
        `${who}: matchOrientation needs a TransformNode target, or the rotation option, to take a rotation from`,
        j,
        "matchOrientation",
      );
    }
    const entry: TargetEntry = {
      joint: j,
      label: labelOf(joint),
      binding,
      weight,
      // A foot at its shin's end: the shin is pulled, its chain the thigh.
      chainLength: shinEnd !== null ? 1 : chain,
      matchOrientation: match,
      rotation: match ? (rotation ?? null) : null,
      pole,
      shinEnd,
    };
    const entries = current.slice();
    if (index >= 0) entries[index] = entry;
    else entries.push(entry);
    if (
      previous !== undefined &&
      previous.chainLength === entry.chainLength &&
      previous.shinEnd === entry.shinEnd &&
      previous.matchOrientation === entry.matchOrientation &&
      (previous.pole === null) === (entry.pole === null)
    ) {
      // Same plan: only the sources and the weight change.
      (this._compiled!.entries as TargetEntry[])[index] = entry;
      return;
    }
    this._install(entries, who);
  }

  /**
   * Changes the weight of `joint`'s target (see {@link FabrikTargetOptions.weight}) and nothing else: the
   * plan, the target and its options stay, nothing is allocated, so it can run every frame (a weight easing
   * in and out). Used from the next solve on, or from this frame's solve when called in
   * {@link onBeforeSolveObservable}. Throws a {@link FabrikError}, changing nothing, for a weight that is not
   * a number in [0, 1], an unknown joint, or a joint without a target.
   */
  setTargetWeight(joint: FabrikJoint, weight: number): void {
    const c = this._compiled;
    const j = c === null ? -1 : this.jointIndex(joint);
    if (j >= 0 && typeof weight === "number" && weight >= 0 && weight <= 1) {
      const entries = c!.entries as TargetEntry[];
      for (let e = 0; e < entries.length; e++) {
        if (entries[e].joint === j) {
          entries[e].weight = weight;
          return;
        }
      }
    }
    this._refuseTargetWeight(joint, weight);
  }

  /** Throws the error {@link setTargetWeight} owes a bad call (kept apart: the call itself builds no text). */
  private _refuseTargetWeight(joint: FabrikJoint, weight: unknown): never {
    const who = `FabrikIK setTargetWeight(${labelOf(joint)})`;
    const j = this._resolve(joint, who);
    if (typeof weight !== "number" || !(weight >= 0 && weight <= 1)) {
      throw new FabrikError(
        `${who}: weight must be a number in [0, 1], got ${describeValue(weight)}`,
        j,
        "weight",
      );
    }
    throw new FabrikError(
      `${who}: "${this._rig!.names[j]}" has no target; give it one with setTarget first`,
      j,
      "joint",
    );
  }

  /** Stops pulling `joint`: its chain shows its animation again. Returns false when it had no target. */
  removeTarget(joint: FabrikJoint): boolean {
    const who = `FabrikIK removeTarget(${labelOf(joint)})`;
    const j = this._resolve(joint, who);
    const current = this._compiled?.entries ?? [];
    if (!current.some((e) => e.joint === j)) return false;
    this._install(
      current.filter((e) => e.joint !== j),
      who,
    );
    return true;
  }

  /** Removes every target. */
  clearTargets(): void {
    if (this._compiled === null) return;
    this._install([], "FabrikIK clearTargets()");
  }

  /**
   * Sets (or with `undefined` clears) the limits of a joint, effective from the next frame without any
   * recompilation. Angles are radians, relative to the joint's rest local rotation (see `JointLimitSpec`).
   */
  setLimit(joint: FabrikJoint, spec: JointLimitSpec | undefined): void {
    const who = `FabrikIK setLimit(${labelOf(joint)})`;
    const j = this._resolve(joint, who);
    // A limit set shared with identical characters is copied before the first edit: this one only changes.
    const limits = this._limits!;
    const own = isJointLimitsShared(limits) ? copyJointLimits(limits) : limits;
    try {
      setJointLimit(own, j, spec);
    } catch (error) {
      if (error instanceof FabrikError) throw new FabrikError(`${who}: ${error.message}`, j, error.option);
      throw error;
    }
    if (own !== limits) {
      this._limits = own;
      if (this._compiled !== null) setPlanLimits(this._compiled.plan, own);
    }
  }

  /** A copy of a joint's limits, or undefined when it is free. */
  getLimit(joint: FabrikJoint): JointLimitSpec | undefined {
    const j = this._resolve(joint, `FabrikIK getLimit(${labelOf(joint)})`);
    const spec = this._limits!.specs[j];
    return spec === undefined ? undefined : structuredClone(spec);
  }

  private _resolve(joint: FabrikJoint, who: string): number {
    const rig = this._rig;
    if (rig === null) {
      throw new FabrikError(
        `${who}: the behavior is not attached; add it to the character first (mesh.addBehavior(ik, true): ` +
          "without `true`, Babylon defers attaching while the scene is loading)",
      );
    }
    const j = this.jointIndex(joint);
    if (j >= 0) return j;
    if (typeof joint === "number") {
      throw new FabrikError(
        `${who}: joint index ${joint} is ${Number.isInteger(joint) ? "outside the rig" : "not a whole number"} ` +
          `(the rig's joints are 0..${rig.jointCount - 1})`,
        undefined,
        "joint",
      );
    }
    if (typeof joint !== "string") {
      throw new FabrikError(`${who}: ${describeValue(joint)} is not a joint of this rig`, undefined, "joint");
    }
    const roles = Object.keys(this._roles);
    const lower = joint.toLowerCase();
    const close = rig.names.filter((n) => {
      const l = n.toLowerCase();
      return l === lower || l.endsWith(`:${lower}`) || l.endsWith(`_${lower}`) || l.includes(lower);
    });
    const role = roles.find((r) => r.toLowerCase() === lower);
    const hints: string[] = [];
    if (role !== undefined) hints.push(`role "${role}"`);
    for (const name of close.slice(0, 3)) hints.push(`"${name}"`);
    const known = (HUMANOID_ROLES as readonly string[]).includes(joint);
    throw new FabrikError(
      `${who}: no bone${known ? "" : " or humanoid role"} named "${joint}"` +
        (known ? ` (the role "${joint}" was not recognised on this rig)` : "") +
        (hints.length > 0 ? `; did you mean ${hints.join(" or ")}?` : "") +
        ` The rig has ${rig.jointCount} joints (${rig.names.slice(0, 6).join(", ")}${rig.jointCount > 6 ? ", …" : ""})` +
        (roles.length > 0 ? ` and roles ${roles.join(", ")}` : " and no recognised humanoid roles"),
      undefined,
      "joint",
    );
  }

  /**
   * The shin `joint` sits at the end of when it does not hang below its leg, as a foot of a rig made for
   * Blender's IK does (under the root, where its shin ends), else -1: a `leftFoot`/`rightFoot` role at the
   * end of its side's `LowerLeg`, or a joint hanging above a leg at the end of one of its child-less bones
   * (checked on the rest pose and the current one). {@link setTarget} places such a joint through its leg.
   */
  shinOf(joint: FabrikJoint): number {
    const j = this.jointIndex(joint);
    if (j < 0) return -1;
    const rig = this._rig!;
    const role = this._roleOf[j];
    const foot = role === "leftFoot" || role === "rightFoot";
    const thigh = foot ? this._roles[role === "leftFoot" ? "leftUpperLeg" : "rightUpperLeg"] : undefined;
    // A foot below its own leg has its limb chain.
    if (thigh !== undefined && isAncestor(rig.parents, thigh, j)) return -1;
    const reader = new PoseReader(rig);
    reader.read();
    const w2m = reader.worldToModel;
    const pose = {
      positions: reader.positions,
      orientations: reader.orientations,
      up: [w2m[4], w2m[5], w2m[6]],
    };
    const shin = foot ? footShin(rig, this._roles, j, pose) : -1;
    return shin >= 0 ? shin : controlFootShin(rig, j, pose);
  }

  /** What places `j` through its leg when it sits at a shin's end (the one it already has, if any), or null. */
  private _shinEndTarget(j: number, previous: TargetEntry | undefined): ShinEndTarget | null {
    if (previous?.shinEnd != null) return previous.shinEnd;
    const shin = this.shinOf(j);
    return shin < 0 ? null : new ShinEndTarget(this._rig!, j, shin);
  }

  /** One target per solver effector: a shin pulled for its foot takes no target of its own, and back. */
  private _checkEffectorFree(j: number, shinEnd: ShinEndTarget | null, who: string): void {
    const names = this._rig!.names;
    for (const e of this._compiled?.entries ?? []) {
      if (e.joint === j) continue;
      if (e.shinEnd?.shin === j) {
        throw new FabrikError(
          `${who}: "${names[j]}" is the shin the target of "${names[e.joint]}" bends (that foot sits at its ` +
            "end); remove that target first",
          j,
          "joint",
        );
      }
      if (shinEnd !== null && e.joint === shinEnd.shin) {
        throw new FabrikError(
          `${who}: "${names[j]}" sits at the end of the shin "${names[e.joint]}", which has a target of its ` +
            "own; remove that target first",
          j,
          "joint",
        );
      }
    }
  }

  /** The chain length a joint gets when none is given: by its humanoid role, else to the root. */
  private _defaultChainLength(j: number, who: string): number | undefined {
    const role = this._roleOf[j];
    if (role === undefined) return undefined;
    const bases = CHAIN_BASES[role];
    if (bases === undefined) return undefined;
    const rig = this._rig!;
    for (const base of bases) {
      const b = this._roles[base];
      if (b !== undefined && isAncestor(rig.parents, b, j)) return this._depths[j] - this._depths[b];
    }
    // A partial humanoid (a creature whose legs name a knee and a foot but no thigh) has no limb root to
    // stop at: the joint is treated like any other bone.
    const found = bases.find((base) => this._roles[base] !== undefined);
    if (found === undefined) return undefined;
    const first = this._roles[found]!;
    const end =
      role.endsWith("Foot") || role.endsWith("Toes") ? role.replace(/Foot|Toes/, "LowerLeg") : undefined;
    const leg = end !== undefined ? this._roles[end as HumanoidRole] : undefined;
    // The limb root exists but is not above the joint: its chain to the root would be no limb at all
    // (turning the root carries the whole body), so say so rather than guess.
    throw new FabrikError(
      `${who}: "${rig.names[j]}" (role ${role}) does not hang below "${rig.names[first]}" (${found}), so it ` +
        "has no limb chain of its own" +
        (leg !== undefined
          ? ` (rigs made for Blender's IK keep the feet under the root); target the leg's end "${rig.names[leg]}" instead`
          : "") +
        ", or give chainLength explicitly",
      j,
      "chainLength",
    );
  }

  /** Compiles the plan and write-back for `entries` and swaps them in; a throw changes nothing. */
  private _install(entries: TargetEntry[], who: string): void {
    const rig = this._rig!;
    const solverRig = this._solverRig!;
    let compiled: Compiled | null = null;
    if (entries.length > 0) {
      let plan: SolvePlan;
      try {
        plan = compileSharedPlan(solverRig, {
          effectors: entries.map((e) => ({
            joint: e.shinEnd?.shin ?? e.joint,
            chainLength: e.chainLength,
            pole: e.pole !== null,
          })),
          limits: this._limits!,
          // Only rotations are written back: joints below the chains keep their local rotations anyway.
          passiveJoints: "carriers",
          workspace: sharedWorkspace(solverRig),
        });
      } catch (error) {
        if (error instanceof FabrikError) {
          throw new FabrikError(
            `${who}: ${error.message.replace(/^effector \d+ /, "")}`,
            error.joint,
            error.option,
          );
        }
        throw error;
      }
      const m = entries.length;
      // A foot at its shin's end gives the shin the orientation that ends it on the target.
      const match = Uint8Array.from(entries.map((e) => (e.matchOrientation || e.shinEnd !== null ? 1 : 0)));
      const poles = new Float64Array(3 * m);
      const event = { behavior: this, report: plan.report, written: 0 };
      compiled = {
        entries,
        plan,
        writer: new RotationWriter(rig, plan, match),
        targets: new Float64Array(3 * m),
        poles,
        orientations: new Float64Array(4 * m),
        orientationValid: new Uint8Array(m),
        match,
        blend: new Float64Array(m),
        settings: { tolerance: this._tolerance * this._height, maxIterations: this._maxIterations, poles },
        event,
      };
    }
    // The joints the old layout wrote may not be in the new one: hand them back to the animation now.
    this._restore();
    this._compiled = compiled;
    if (compiled !== null) this._reader!.readOnly(jointsToRead(compiled));
    this.onTargetsChangedObservable.notifyObservers(this);
  }

  /**
   * Notifies {@link onBeforeSolveObservable}. True when the observers changed the set of effectors (or
   * detached the behavior): the frame begun with the old plan is then dropped and solved here from the start
   * with the new one, without notifying twice.
   */
  private _beforeSolve(c: Compiled): boolean {
    if (this._inBeforeSolve || !this.onBeforeSolveObservable.hasObservers()) return false;
    this._inBeforeSolve = true;
    try {
      this.onBeforeSolveObservable.notifyObservers(this._beforeSolveEvent!);
      if (this._compiled === c) return false;
      this._update();
      return true;
    } finally {
      this._inBeforeSolve = false;
    }
  }

  private _restore(): void {
    const compiled = this._compiled;
    if (compiled === null) return;
    if (compiled.writer.snapshot.held) compiled.writer.snapshot.restore();
    restoreFeet(compiled.entries);
  }

  /** Like {@link _restore}, but a joint the animation has written since keeps its fresh value. */
  private _restoreUntouched(): void {
    const compiled = this._compiled;
    if (compiled === null) return;
    if (compiled.writer.snapshot.held) compiled.writer.snapshot.restoreUntouched();
    restoreFeet(compiled.entries);
  }

  /** One frame: read the animated pose, solve, write back. Allocates nothing. */
  private _update(): void {
    const c = this._compiled;
    if (c === null) return;
    const snapshot = c.writer.snapshot;
    // Normally restored after rendering, or before a lockstep step; a second solve with neither in between
    // (stages driven by hand) gets here first.
    if (snapshot.held) snapshot.restoreUntouched();
    restoreFeet(c.entries);
    if (!this.enabled || !(this._weight > 0)) return;
    const reader = this._reader!;
    reader.read();
    if (!reader.worldToModelValid) return;
    const pose = this._pose!;
    if (this._beforeSolve(c)) return;

    const plan = c.plan;
    const entries = c.entries;
    const targets = c.targets,
      poles = c.poles,
      blend = c.blend;
    const w2m = reader.worldToModel;
    const m2w = reader.modelToWorld;
    const mirrored =
      m2w[0] * (m2w[5] * m2w[10] - m2w[6] * m2w[9]) -
        m2w[1] * (m2w[4] * m2w[10] - m2w[6] * m2w[8]) +
        m2w[2] * (m2w[4] * m2w[9] - m2w[5] * m2w[8]) <
      0;
    const point = this._point;
    const positions = pose.positions;
    let active = 0;
    for (let e = 0; e < entries.length; e++) {
      const entry = entries[e];
      const e3 = 3 * e;
      let ok = entry.weight > 0 && entry.binding.readWorld(point, 0);
      if (ok) ok = toModel(w2m, point, targets, e3);
      if (!ok) {
        // Skipped this frame: the target sits on the effector, which then holds still with no pull.
        const j3 = 3 * plan.effectorJoints[e];
        targets[e3] = positions[j3];
        targets[e3 + 1] = positions[j3 + 1];
        targets[e3 + 2] = positions[j3 + 2];
      }
      const weight = ok ? entry.weight : 0;
      blend[e] = weight;
      if (weight > 0) active++;
      const pull = weight > SKIPPED_PULL ? weight : SKIPPED_PULL;
      if (plan.effectorWeights[e] !== pull) setEffectorWeight(plan, e, pull);
      const pole = entry.pole;
      if (pole !== null) {
        // A pole on the line to the target prefers no side: that is how a bad pole is ignored.
        if (!(pole.readWorld(point, 0) && toModel(w2m, point, poles, e3))) {
          poles[e3] = targets[e3];
          poles[e3 + 1] = targets[e3 + 1];
          poles[e3 + 2] = targets[e3 + 2];
        }
      }
      if (entry.matchOrientation) {
        const rotation = entry.rotation;
        const valid =
          rotation !== null
            ? quaternionRotationToModel(rotation, w2m, mirrored, c.orientations, 4 * e)
            : nodeRotationToModel(
                // readWorld above has just brought it up to date when the target is weighted.
                entry.weight > 0 ? entry.binding.lastWorldMatrix! : entry.binding.readWorldMatrix()!,
                w2m,
                mirrored,
                c.orientations,
                4 * e,
              );
        c.orientationValid[e] = valid ? 1 : 0;
      }
      const shinEnd = entry.shinEnd;
      if (shinEnd !== null && weight > 0) {
        const turnFoot = entry.matchOrientation && c.orientationValid[e] === 1;
        shinEnd.aim(pose, plan.limits, targets, e3, c.orientations, 4 * e, turnFoot);
        c.orientationValid[e] = 1;
      }
    }
    if (active === 0) return;

    snapshot.capture();
    let report: SolveReport;
    try {
      report = solvePlan(plan, pose, targets, c.settings);
    } catch (error) {
      snapshot.release();
      if (!this._warned) {
        this._warned = true;
        Logger.Warn(`FabrikIK: frame skipped: ${(error as Error).message}`);
      }
      return;
    }
    const writer = c.writer;
    writer.numbers[GLOBAL_WEIGHT_SLOT] = this._weight;
    c.event.written = writer.write(
      plan.rig.parents,
      pose.orientations,
      reader.localRotations,
      blend,
      c.orientations,
      c.orientationValid,
      plan.limits,
    );
    for (let e = 0; e < entries.length; e++) {
      const shinEnd = entries[e].shinEnd;
      if (shinEnd !== null && blend[e] > 0) shinEnd.place(blend, e, writer.numbers, GLOBAL_WEIGHT_SLOT);
    }
    c.event.report = report;
    this.onSolvedObservable.notifyObservers(c.event);
  }
}

/**
 * Every joint a frame reads the pose of: the solved, carried and written ones, and the feet placed at their
 * shins' ends (the reader adds ancestors).
 */
function jointsToRead({ plan, writer, entries }: Compiled): Int32Array {
  const joints = [
    ...plan.activeJoints,
    ...plan.bases,
    ...plan.passiveJoints,
    ...plan.effectorJoints,
    ...writer.joints,
    ...entries.filter((e) => e.shinEnd !== null).map((e) => e.joint),
  ];
  return Int32Array.from(joints);
}

/** Puts back the feet moved to their shins' ends (a loop, not `forEach`: it runs every frame). */
function restoreFeet(entries: readonly TargetEntry[]): void {
  for (let e = 0; e < entries.length; e++) entries[e].shinEnd?.restore();
}

/** out[o..o+2] = p · worldToModel; false when not finite. */
function toModel(m: Float64Array, p: Float64Array, out: Float64Array, o: number): boolean {
  const x = p[0],
    y = p[1],
    z = p[2];
  const mx = x * m[0] + y * m[4] + z * m[8] + m[12],
    my = x * m[1] + y * m[5] + z * m[9] + m[13],
    mz = x * m[2] + y * m[6] + z * m[10] + m[14];
  if (!(Number.isFinite(mx) && Number.isFinite(my) && Number.isFinite(mz))) return false;
  out[o] = mx;
  out[o + 1] = my;
  out[o + 2] = mz;
  return true;
}

function checkTolerance(value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new FabrikError(
      `FabrikIK: tolerance must be a finite number >= 0 (a fraction of the character's height), got ${String(value)}`,
      undefined,
      "tolerance",
    );
  }
  return value;
}

function checkMaxIterations(value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new FabrikError(
      `FabrikIK: maxIterations must be a whole number >= 1, got ${String(value)}`,
      undefined,
      "maxIterations",
    );
  }
  return value;
}

function labelOf(joint: unknown): string {
  if (typeof joint === "string") return JSON.stringify(joint);
  const name = (joint as { name?: unknown } | null)?.name;
  return typeof name === "string" ? JSON.stringify(name) : describeValue(joint);
}
