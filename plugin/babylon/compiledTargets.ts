import type { SolveSettings } from "../solver/fabrik.js";
import type { JointLimits } from "../solver/limits.js";
import { setEffectorWeight, type SolvePlan } from "../solver/plan.js";
import { sectionsForPlan, type ResolvedContinuumSection } from "./continuumOptions.js";
import type { FramePose } from "./framePose.js";
import type { PoseBlock } from "./poseBlock.js";
import type { FabrikModel } from "./modelCache.js";
import type { Vector3Like } from "./poseReader.js";
import { RotationBlend } from "./rotationBlend.js";
import { slotIsReflection } from "./slotKinematics.js";
import type { ShinEndTarget } from "./shinEndTarget.js";
import type { QuaternionLike, TargetBinding, TargetSource } from "./targetBinding.js";
import { isModelTarget, nodeRotationToModel, quaternionRotationToModel } from "./targetOrientation.js";

/** A target as the behavior holds it. */
export interface TargetEntry {
  readonly joint: number;
  /** How the user named the joint, for messages. */
  readonly label: string;
  readonly binding: TargetBinding;
  /** Changed in place by `setTargetWeight` (with the compiled targets' copy, see CompiledTargets.setWeight). */
  weight: number;
  readonly chainLength: number | undefined;
  readonly matchOrientation: boolean;
  readonly rotation: QuaternionLike | null;
  readonly pole: TargetBinding | null;
  /** For a foot at its shin's end: what turns its goal into the shin's and moves the foot; else null. */
  readonly shinEnd: ShinEndTarget | null;
}

/** An effector skipped for a frame still needs a pull > 0 in the solver; this one is negligible. */
const SKIPPED_PULL = 1e-6;

/* Per effector flags, in `numbers` at `_flagsAt`. */
const MATCH = 1;
const POLE = 2;
const SHIN_END = 4;
/** How the target is read: a point's fields, a function's result, or a node's world matrix. */
const VECTOR = 8;
const FUNCTION = 16;

/**
 * Everything sized by the current set of targets, built when it changes and never per frame: the plan, the
 * layout of the rotations it writes, and each frame's targets, poles, orientations and weights in model
 * space, all numbers in one array at the offsets below (a crowd's frame meets each character's arrays cold,
 * and each array object is one more fetch from memory).
 */
export class CompiledTargets {
  readonly plan: SolvePlan;
  readonly blend: RotationBlend;
  /**
   * Per effector, model space: target point (3) at {@link targetsAt}, pole (3), orientation to take (4) at
   * {@link orientationsAt}, this frame's blend weight (0: skipped) at {@link blendAt}, whether its
   * orientation is usable (1 or 0) at {@link validAt}; then the weight as set, the pull last given to the
   * solver, and flags.
   */
  readonly numbers: Float64Array;
  readonly targetsAt = 3;
  readonly orientationsAt: number;
  readonly blendAt: number;
  readonly validAt: number;
  /** Views of `numbers` the solver takes: the targets, and the poles (in `settings`). */
  readonly targets: Float64Array;
  readonly settings: SolveSettings;
  /** Whether some target is a foot at its shin's end. */
  readonly hasShinEnds: boolean;
  /** Per continuum section of the behavior: its index among the plan's sections, or -1 when not in use. */
  readonly sectionInPlan: Int32Array;
  private readonly _polesAt: number;
  private readonly _weightAt: number;
  private readonly _pullAt: number;
  private readonly _flagsAt: number;
  /** Per effector: what its target is read from (the source itself for points and functions). */
  private readonly _sources: (TargetSource | TargetBinding)[];

  /**
   * Compiles `entries` (at least one) into a plan of `model` with `limits` and those of `sections` the
   * targets' chains move whole; a bad set throws the solver's error and builds nothing.
   */
  constructor(
    readonly entries: readonly TargetEntry[],
    readonly model: FabrikModel,
    limits: JointLimits,
    sections: readonly ResolvedContinuumSection[],
    tolerance: number,
    maxIterations: number,
  ) {
    const effectors = entries.map((e) => ({
      joint: e.shinEnd?.shin ?? e.joint,
      chainLength: e.chainLength,
      pole: e.pole !== null,
    }));
    // Only rotations are written back: joints below the chains keep their local rotations anyway.
    const options = { effectors, limits, passiveJoints: "carriers" } as const;
    let compiled = model.compilePlan(options);
    // Which sections the chains move whole is known once they are laid out (chains carried by others join).
    const continuum = sectionsForPlan(compiled, sections);
    if (continuum.specs.length > 0) {
      model.releasePlan(compiled);
      compiled = model.compilePlan({ ...options, continuumSections: continuum.specs });
    }
    this.plan = compiled;
    this.sectionInPlan = continuum.inPlan;
    const m = entries.length;
    // A foot at its shin's end gives the shin the orientation that ends it on the target.
    const match = Uint8Array.from(entries, (e) => (e.matchOrientation || e.shinEnd !== null ? 1 : 0));
    // A pole decides a bend every frame, and an orientation target (a foot on the ground, a shin's end) is
    // aimed from the pose the targets are read in: neither starts from the last frame. A lone two-bone limb
    // does: placed in closed form from the animation, a straight limb (a T-pose's legs) has no bend of its
    // own to keep, and its knee swung by 10-20° between frames.
    const fresh = Uint8Array.from(entries, (e, i) => (e.pole !== null || match[i] === 1 ? 1 : 0));
    this.blend = new RotationBlend(this.plan, match, fresh);
    this.numbers = new Float64Array(3 + 16 * m);
    this._polesAt = 3 + 3 * m;
    this.orientationsAt = 3 + 6 * m;
    this.blendAt = 3 + 10 * m;
    this.validAt = 3 + 11 * m;
    this._weightAt = 3 + 12 * m;
    this._pullAt = 3 + 13 * m;
    this._flagsAt = 3 + 14 * m;
    this.targets = this.numbers.subarray(3, 3 + 3 * m);
    this.settings = {
      tolerance,
      maxIterations,
      poles: this.numbers.subarray(this._polesAt, this._polesAt + 3 * m),
      tracking: false,
    };
    this.hasShinEnds = entries.some((e) => e.shinEnd !== null);
    this._sources = entries.map((e) => e.binding);
    entries.forEach((e, i) => this.setEntry(i, e));
  }

  /** Effector `e`'s target is now `entry` (same plan: only its source, weight or rotation changed). */
  setEntry(e: number, entry: TargetEntry): void {
    const source = entry.binding.source;
    const kind = entry.binding.isNode ? 0 : typeof source === "function" ? FUNCTION : VECTOR;
    this._sources[e] = kind === 0 ? entry.binding : source;
    this.numbers[this._flagsAt + e] =
      kind |
      (entry.matchOrientation ? MATCH : 0) |
      (entry.pole !== null ? POLE : 0) |
      (entry.shinEnd !== null ? SHIN_END : 0);
    this.numbers[this._weightAt + e] = entry.weight;
  }

  /** Effector `e`'s weight, from the next read. */
  setWeight(e: number, weight: number): void {
    this.numbers[this._weightAt + e] = weight;
  }

  /**
   * Every joint a frame reads for these targets: the solved, carried and written ones, and the feet placed
   * at their shins' ends (the frame adds ancestors).
   */
  joints(): number[] {
    const plan = this.plan;
    return [
      ...plan.activeJoints,
      ...plan.bases,
      ...plan.passiveJoints,
      ...plan.effectorJoints,
      ...this.blend.joints,
      ...this.entries.filter((e) => e.shinEnd !== null).map((e) => e.joint),
    ];
  }

  /**
   * Loads what a frame of these targets will meet (numbers, settings, the plan's own arrays, the blend and
   * continuity, target points given as vectors) for the read joints of `joints` (the block's joint per
   * slot), adding a number made of it to `sink[0]`: see CharacterPipeline's touch ahead.
   * @internal
   */
  touch(joints: Int32Array, count: number, sink: Float64Array): void {
    const n = this.numbers;
    const plan = this.plan;
    const settings = this.settings;
    let sum = n[0] + this.targets.length + (settings.poles?.length ?? 0) + (settings.tolerance ?? 0);
    sum += plan.effectorWeights[0] + plan.report.residuals[0] + plan.scratch.branchWeight[0];
    const sources = this._sources;
    for (let e = 0; e < sources.length; e++) {
      if (n[this._flagsAt + e] & VECTOR) sum += (sources[e] as Vector3Like).x;
    }
    sink[0] += sum;
    this.blend.touch(joints, count, sink);
  }

  /** The plan goes back to the model's cache; the targets are no longer used. */
  release(): void {
    this.model.releasePlan(this.plan);
  }

  /**
   * This frame's targets from their sources, in the model space of `pose`: points, poles, orientations,
   * weights (an effector whose target is not a finite point, or weighs 0, is skipped: its target sits on the
   * effector, which then holds still with no pull). Returns how many effectors pull.
   */
  read(pose: FramePose): number {
    const plan = this.plan;
    const n = this.numbers;
    const m = this.entries.length;
    const w2m = pose.worldToModel;
    const positions = pose.positions;
    let active = 0;
    for (let e = 0; e < m; e++) {
      const t = 3 + 3 * e;
      const flags = n[this._flagsAt + e];
      const set = n[this._weightAt + e];
      let ok = set > 0 && this._readSource(this._sources[e], flags);
      if (ok) ok = toModel(w2m, n, 0, n, t);
      if (!ok) {
        const j3 = 3 * plan.effectorJoints[e];
        n[t] = positions[j3];
        n[t + 1] = positions[j3 + 1];
        n[t + 2] = positions[j3 + 2];
      }
      const weight = ok ? set : 0;
      n[this.blendAt + e] = weight;
      if (weight > 0) active++;
      const pull = weight > SKIPPED_PULL ? weight : SKIPPED_PULL;
      if (n[this._pullAt + e] !== pull) {
        setEffectorWeight(plan, e, pull);
        n[this._pullAt + e] = pull;
      }
      if (flags & (MATCH | POLE | SHIN_END)) this._readExtras(pose, e, flags);
    }
    return active;
  }

  /** The target's world position into `numbers[0..2]`; false when it is not a finite point. */
  private _readSource(source: TargetSource | TargetBinding, flags: number): boolean {
    const n = this.numbers;
    if (flags & VECTOR) {
      const v = source as Vector3Like;
      n[0] = v.x;
      n[1] = v.y;
      n[2] = v.z;
    } else if (flags & FUNCTION) {
      const v = (source as () => Vector3Like | null | undefined)();
      if (v == null) return false;
      n[0] = v.x;
      n[1] = v.y;
      n[2] = v.z;
    } else {
      return (source as TargetBinding).readWorld(n, 0);
    }
    return Number.isFinite(n[0]) && Number.isFinite(n[1]) && Number.isFinite(n[2]);
  }

  /**
   * The pole, the orientation to take and a foot at its shin's end, for effector `e` this frame. Its weight
   * is read from the numbers, not passed: V8 boxes a double passed to a call it does not inline.
   */
  private _readExtras(pose: FramePose, e: number, flags: number): void {
    const n = this.numbers;
    const entry = this.entries[e];
    const t = 3 + 3 * e;
    const w2m = pose.worldToModel;
    if (flags & POLE) {
      const p = this._polesAt + 3 * e;
      // A pole on the line to the target prefers no side: that is how a bad pole is ignored.
      if (!(entry.pole!.readWorld(n, 0) && toModel(w2m, n, 0, n, p))) {
        n[p] = n[t];
        n[p + 1] = n[t + 1];
        n[p + 2] = n[t + 2];
      }
    }
    if (flags & MATCH) this._readOrientation(pose, entry, e);
    if (flags & SHIN_END && n[this.blendAt + e] > 0) {
      const turnFoot = (flags & MATCH) !== 0 && n[this.validAt + e] === 1;
      const o = this.orientationsAt + 4 * e;
      entry.shinEnd!.aim(pose.solverPose, this.plan.limits, n, t, n, o, turnFoot);
      n[this.validAt + e] = 1;
    }
  }

  private _readOrientation(pose: FramePose, entry: TargetEntry, e: number): void {
    const m2w = pose.modelToWorld;
    const mirrored =
      m2w[0] * (m2w[5] * m2w[10] - m2w[6] * m2w[9]) -
        m2w[1] * (m2w[4] * m2w[10] - m2w[6] * m2w[8]) +
        m2w[2] * (m2w[4] * m2w[9] - m2w[5] * m2w[8]) <
      0;
    const w2m = pose.worldToModel;
    const n = this.numbers;
    const o = this.orientationsAt + 4 * e;
    const rotation = entry.rotation;
    // A helper's model-space target is taken as it is (targetOrientation.ts).
    const flipped = basisFlipped(pose.block, entry.joint) && !isModelTarget(entry.binding.source);
    const valid =
      rotation !== null
        ? quaternionRotationToModel(rotation, w2m, mirrored, n, o, flipped)
        : nodeRotationToModel(
            // The read has just brought it up to date when the target is weighted.
            entry.weight > 0 ? entry.binding.lastWorldMatrix! : entry.binding.readWorldMatrix()!,
            w2m,
            mirrored,
            n,
            o,
            flipped,
          );
    n[this.validAt + e] = valid ? 1 : 0;
  }
}

/** Whether joint j's model-space basis (its slot's, scale included) is a reflection: mirrors folded above it. */
function basisFlipped(block: PoseBlock, j: number): boolean {
  const k = block.slotOf[j];
  return k >= 0 && slotIsReflection(block, k);
}

/** out[o..o+2] = p[po..po+2] · worldToModel; false when not finite. */
function toModel(m: Float64Array, p: Float64Array, po: number, out: Float64Array, o: number): boolean {
  const x = p[po],
    y = p[po + 1],
    z = p[po + 2];
  const mx = x * m[0] + y * m[4] + z * m[8] + m[12],
    my = x * m[1] + y * m[5] + z * m[9] + m[13],
    mz = x * m[2] + y * m[6] + z * m[10] + m[14];
  if (!(Number.isFinite(mx) && Number.isFinite(my) && Number.isFinite(mz))) return false;
  out[o] = mx;
  out[o + 1] = my;
  out[o + 2] = mz;
  return true;
}
