import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { FabrikError } from "../solver/errors.js";
import {
  checkContinuumOption,
  type CheckedContinuumSection,
  type FabrikContinuumSection,
} from "./continuumOptions.js";
import type { FabrikStage } from "./fabrikSystem.js";
import { describeValue } from "./targetBinding.js";

export type { FabrikStage } from "./fabrikSystem.js";

/** Which joint limits a behavior starts with; see {@link FabrikBehaviorOptions.limits}. */
export type FabrikLimitPreset = "humanoid" | "none";

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
   * An effector within this fraction of the character's height (see `FabrikBehavior.height`) counts as
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
   * free. Either way, `FabrikBehavior.setLimit` edits them at any time.
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
  /**
   * Runs of bones that bend as one constant-curvature arc each (a tail, a tentacle in three segments), by
   * bone name: `[{ bones: { from: "Tail1", to: "Tail7" }, maxBend: Math.PI / 2 }]`. Their bones are found
   * when the behavior attaches; a section bends as an arc while some target's chain moves it whole (see
   * docs/continuum.md and `FabrikBehavior.continuumSections`). Its bones' own limits are not used.
   */
  continuumSections?: readonly FabrikContinuumSection[];
}

/** The options as the behavior keeps them: checked, defaults filled in. */
export interface CheckedBehaviorOptions {
  readonly stage: FabrikStage;
  readonly limits: FabrikLimitPreset;
  readonly fitLimitsToAnimations: boolean;
  readonly skeleton: Skeleton | string | undefined;
  readonly tolerance: number;
  readonly maxIterations: number;
  /**
   * Bones not found yet; replaced by `FabrikBehavior.setContinuumSections`, their `maxBend` changed by
   * `setContinuumMaxBend`.
   */
  continuumSections: CheckedContinuumSection[];
}

/**
 * The behavior's iteration cap per frame unless told otherwise. What a frame needs depends more on how many
 * effectors meet at turning bases than on chain length (see docs/convergence.md), and a solve stops as soon
 * as its effectors are within tolerance, so the cap is a constant, large enough for long tails, tentacles
 * and many-legged bodies.
 */
const DEFAULT_BEHAVIOR_MAX_ITERATIONS = 100;

const STAGES: readonly FabrikStage[] = ["beforeRender", "afterAnimations"];
const PRESETS: readonly FabrikLimitPreset[] = ["humanoid", "none"];
const OPTION_KEYS = [
  "stage",
  "tolerance",
  "maxIterations",
  "limits",
  "fitLimitsToAnimations",
  "skeleton",
  "continuumSections",
];

/** Checks the constructor's options; throws a {@link FabrikError} naming the first bad one. */
export function checkBehaviorOptions(options: FabrikBehaviorOptions): CheckedBehaviorOptions {
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
  return {
    stage,
    limits,
    fitLimitsToAnimations: fit,
    skeleton,
    tolerance: checkTolerance(options.tolerance ?? 1e-3),
    maxIterations: checkMaxIterations(options.maxIterations ?? DEFAULT_BEHAVIOR_MAX_ITERATIONS),
    continuumSections: checkContinuumOption(options.continuumSections),
  };
}

export function checkTolerance(value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new FabrikError(
      `FabrikIK: tolerance must be a finite number >= 0 (a fraction of the character's height), got ${String(value)}`,
      undefined,
      "tolerance",
    );
  }
  return value;
}

export function checkMaxIterations(value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new FabrikError(
      `FabrikIK: maxIterations must be a whole number >= 1, got ${String(value)}`,
      undefined,
      "maxIterations",
    );
  }
  return value;
}

/** Checks a global weight: a number in [0, 1]. */
export function checkWeight(value: unknown): number {
  if (typeof value !== "number" || !(value >= 0 && value <= 1)) {
    throw new FabrikError(
      `FabrikIK: weight must be a number in [0, 1], got ${String(value)}`,
      undefined,
      "weight",
    );
  }
  return value;
}
