import type { SolveSettings } from "../solver/fabrik.js";
import type { JointLimits } from "../solver/limits.js";
import { setEffectorWeight, type SolvePlan } from "../solver/plan.js";
import type { FramePose } from "./framePose.js";
import type { FabrikModel } from "./modelCache.js";
import { RotationBlend } from "./rotationBlend.js";
import type { ShinEndTarget } from "./shinEndTarget.js";
import type { QuaternionLike, TargetBinding } from "./targetBinding.js";
import { nodeRotationToModel, quaternionRotationToModel } from "./targetOrientation.js";

/** A target as the behavior holds it. */
export interface TargetEntry {
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

/** An effector skipped for a frame still needs a pull > 0 in the solver; this one is negligible. */
const SKIPPED_PULL = 1e-6;

/**
 * Everything sized by the current set of targets, built when it changes and never per frame: the plan, the
 * layout of the rotations it writes, and each frame's targets, poles, orientations and weights in model space.
 */
export class CompiledTargets {
  readonly plan: SolvePlan;
  readonly blend: RotationBlend;
  /** Per effector, model space: target point (3), pole (3), orientation to take (4). */
  readonly targets: Float64Array;
  readonly poles: Float64Array;
  readonly orientations: Float64Array;
  /** Per effector: this frame's blend weight (0: skipped), whether its orientation is usable. */
  readonly effectorBlend: Float64Array;
  readonly orientationValid: Uint8Array;
  readonly settings: SolveSettings;
  /** Whether some target is a foot at its shin's end. */
  readonly hasShinEnds: boolean;
  private readonly _point: Float64Array;

  /**
   * Compiles `entries` (at least one) into a plan of `model` with `limits`; a bad set throws the solver's
   * error and builds nothing.
   */
  constructor(
    readonly entries: readonly TargetEntry[],
    readonly model: FabrikModel,
    limits: JointLimits,
    tolerance: number,
    maxIterations: number,
  ) {
    this.plan = model.compilePlan({
      effectors: entries.map((e) => ({
        joint: e.shinEnd?.shin ?? e.joint,
        chainLength: e.chainLength,
        pole: e.pole !== null,
      })),
      limits,
      // Only rotations are written back: joints below the chains keep their local rotations anyway.
      passiveJoints: "carriers",
    });
    const m = entries.length;
    // A foot at its shin's end gives the shin the orientation that ends it on the target.
    const match = Uint8Array.from(entries, (e) => (e.matchOrientation || e.shinEnd !== null ? 1 : 0));
    this.blend = new RotationBlend(this.plan, match);
    const numbers = new Float64Array(3 + 11 * m);
    this._point = numbers.subarray(0, 3);
    this.targets = numbers.subarray(3, 3 + 3 * m);
    this.poles = numbers.subarray(3 + 3 * m, 3 + 6 * m);
    this.orientations = numbers.subarray(3 + 6 * m, 3 + 10 * m);
    this.effectorBlend = numbers.subarray(3 + 10 * m, 3 + 11 * m);
    this.orientationValid = new Uint8Array(m);
    this.settings = { tolerance, maxIterations, poles: this.poles };
    this.hasShinEnds = entries.some((e) => e.shinEnd !== null);
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
    const entries = this.entries;
    const targets = this.targets,
      poles = this.poles,
      blend = this.effectorBlend;
    const w2m = pose.worldToModel;
    const m2w = pose.modelToWorld;
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
      // A pole on the line to the target prefers no side: that is how a bad pole is ignored.
      if (pole !== null && !(pole.readWorld(point, 0) && toModel(w2m, point, poles, e3))) {
        poles[e3] = targets[e3];
        poles[e3 + 1] = targets[e3 + 1];
        poles[e3 + 2] = targets[e3 + 2];
      }
      if (entry.matchOrientation) this._readOrientation(entry, e, w2m, mirrored);
      const shinEnd = entry.shinEnd;
      if (shinEnd !== null && weight > 0) {
        const turnFoot = entry.matchOrientation && this.orientationValid[e] === 1;
        shinEnd.aim(pose.solverPose, plan.limits, targets, e3, this.orientations, 4 * e, turnFoot);
        this.orientationValid[e] = 1;
      }
    }
    return active;
  }

  private _readOrientation(entry: TargetEntry, e: number, w2m: Float64Array, mirrored: boolean): void {
    const rotation = entry.rotation;
    const valid =
      rotation !== null
        ? quaternionRotationToModel(rotation, w2m, mirrored, this.orientations, 4 * e)
        : nodeRotationToModel(
            // readWorld has just brought it up to date when the target is weighted.
            entry.weight > 0 ? entry.binding.lastWorldMatrix! : entry.binding.readWorldMatrix()!,
            w2m,
            mirrored,
            this.orientations,
            4 * e,
          );
    this.orientationValid[e] = valid ? 1 : 0;
  }
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
