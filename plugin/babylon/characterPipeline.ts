import { Logger } from "@babylonjs/core/Misc/logger.js";
import { solvePlan } from "../solver/fabrik.js";
import type { SolveReport } from "../solver/plan.js";
import type { CompiledTargets } from "./compiledTargets.js";
import { DrawnWatch } from "./drawnWatch.js";
import type { FabrikFrameOf, FabrikPassOf, FabrikSolvedEventOf } from "./fabrikFrame.js";
import { FramePose } from "./framePose.js";
import { GLOBAL_WEIGHT_SLOT } from "./rotationBlend.js";
import type { SkeletonRig } from "./skeletonRig.js";
import { WATCHED_PRESOLVE, WATCHED_SOLVED } from "./watchedObservable.js";

/** What the pipeline needs of its behavior. */
export interface PipelineOwner {
  readonly enabled: boolean;
  /** Frames after one in which Babylon drew none of the character's meshes are skipped (see DrawnWatch). */
  readonly skipWhenHidden: boolean;
  /** Which of the two observables below ever had an observer (WATCHED_* bits): the others are skipped. */
  readonly _watched: number;
  readonly continuity: boolean;
  readonly holdConfiguration: boolean;
  readonly settleOutOfReach: boolean;
  readonly weight: number;
  readonly onBeforeSolveObservable: {
    hasObservers(): boolean;
    notifyObservers(frame: FabrikFrameOf<object>): unknown;
  };
  readonly onSolvedObservable: { notifyObservers(event: FabrikSolvedEventOf<object>): unknown };
}

/** A pass as the pipeline holds it (`FabrikPass` with the behavior's type left open). */
type Pass = FabrikPassOf<object>;

interface PassEntry {
  readonly pass: Pass;
  readonly order: number;
  readonly joints: readonly number[];
}

/**
 * One character's frame, from the animated pose to the written one:
 *
 * read the pose once → pre-solve passes (helpers and user code: targets, weights, pose changes) →
 * `onBeforeSolveObservable` → one solve → the solve's rotations, blended by weight → post-solve passes (feet
 * at their shins' ends first) → write once → `onSolvedObservable`; after rendering, restore once.
 *
 * Each stage works on the frame's {@link FramePose}, one block of memory sized to the joints the targets and
 * the passes need. The scene's FabrikSystem runs the pipelines of all characters.
 */
export class CharacterPipeline {
  readonly pose: FramePose;
  private _passes: PassEntry[] = [];
  private _targets: CompiledTargets | null = null;
  private _inFrame = false;
  private _warned = false;
  private _disposed = false;
  /** The last solve fell short of its targets (FELL_SHORT; SolveSettings.fellShort with settleOutOfReach). */
  private _short = false;
  /** While the owner skips hidden frames: whether the character was drawn since the last frame. */
  private _drawn: DrawnWatch | null = null;
  private readonly _event: { behavior: object; report: SolveReport; written: number };

  constructor(
    private readonly _owner: PipelineOwner,
    private readonly _rig: SkeletonRig,
  ) {
    this.pose = new FramePose(_owner, _rig);
    this._event = { behavior: _owner, report: null as unknown as SolveReport, written: 0 };
  }

  get targets(): CompiledTargets | null {
    return this._targets;
  }

  get passes(): readonly Pass[] {
    return this._passes.map((p) => p.pass);
  }

  /**
   * Takes new targets (or none). Joints the frame no longer reads get their animated values back; joints it
   * newly reads are read before this frame's solve when it changes in the middle of a frame.
   */
  setTargets(targets: CompiledTargets | null): void {
    // What the old targets wrote may not be written by the new ones: the animation gets it back now.
    if (!this._inFrame) this.pose.restore();
    this._targets = targets;
    this._layout();
  }

  /** Adds a pass (see FabrikPass); `joints` are its joints as indices. */
  addPass(pass: Pass, order: number, joints: readonly number[]): void {
    let at = this._passes.length;
    while (at > 0 && this._passes[at - 1].order > order) at--;
    const passes = this._passes.slice();
    passes.splice(at, 0, { pass, order, joints });
    this._passes = passes;
    this._layout();
  }

  /** Removes a pass; false when it was not there. */
  removePass(pass: Pass): boolean {
    const passes = this._passes.filter((p) => p.pass !== pass);
    if (passes.length === this._passes.length) return false;
    this._passes = passes;
    this._layout();
    return true;
  }

  /** Puts the animated pose back and stops for good. */
  dispose(): void {
    this.pose.restore();
    this._drawn?.dispose();
    this._drawn = null;
    this._disposed = true;
  }

  /** After rendering: the animation's values go back into every joint the frame wrote. */
  restore(): void {
    this.pose.restore();
  }

  /** The next frame starts from its animation (FabrikBehavior.resetContinuity). */
  resetContinuity(): void {
    this._targets?.blend.continuity.reset();
  }

  /** Before a lockstep step: like {@link restore}, where the animation has not written the joint since. */
  restoreUntouched(): void {
    this.pose.restoreUntouched();
  }

  /**
   * One frame (`clock[0]`: seconds the animation clock advanced). Allocates nothing in steady state; the
   * set of targets or passes changing on the way costs what setting it up costs.
   */
  run(clock: Float64Array): void {
    const pose = this.pose;
    // Normally restored after rendering, or before a lockstep step; a second frame with neither in between
    // (stages driven by hand) gets here first.
    if (pose.held) pose.restoreUntouched();
    const owner = this._owner;
    if (this._inFrame) return;
    const passes = this._passes;
    if (owner.skipWhenHidden !== (this._drawn !== null)) this._watchDrawing(owner.skipWhenHidden);
    const hidden = this._drawn !== null && !this._drawn.takeDrawn();
    if (
      !owner.enabled ||
      hidden ||
      (passes.length === 0 && (this._targets === null || !(owner.weight > 0)))
    ) {
      // Nothing written this frame: the next starts from its animation.
      this._targets?.blend.continuity.reset();
      return;
    }
    pose.deltaTime = clock[0];
    this._touchAhead();
    pose.read();
    if (!pose.worldToModelValid) return;
    this._inFrame = true;
    try {
      this._frame(passes);
    } finally {
      this._inFrame = false;
    }
  }

  /** Starts or stops watching whether the character is drawn (the watch's observers live on its meshes). */
  private _watchDrawing(on: boolean): void {
    this._drawn?.dispose();
    this._drawn = on && !this._disposed ? new DrawnWatch(this._rig) : null;
  }

  /**
   * Loads the character's own objects the frame will meet (targets, plan, blend, continuity, the pose's
   * arrays) in one go, before the read: a crowd's frame meets them cold, and met one after another through
   * the frame each waits on memory alone, where loaded together the waits overlap (with the read's too).
   */
  private _touchAhead(): void {
    const block = this.pose.block;
    touchSink[0] = this.pose.worldToModel[0] + block.positions.length + block.orientations.length;
    if (this._targets !== null) this._targets.touch(block.joints, block.size, touchSink);
  }

  private _frame(passes: readonly PassEntry[]): void {
    const pose = this.pose;
    const owner = this._owner;
    for (let i = 0; i < passes.length; i++) {
      const before = passes[i].pass.beforeSolve;
      if (before === undefined) continue;
      before.call(passes[i].pass, pose);
      if (this._disposed) return;
      if (pose.changed) pose.refresh();
    }
    // At weight 0 the passes keep their state going, and nothing is written.
    if (!(owner.weight > 0) || this._targets === null) {
      if (owner.weight > 0) this._commit();
      return;
    }
    if (owner._watched & WATCHED_PRESOLVE && owner.onBeforeSolveObservable.hasObservers()) {
      owner.onBeforeSolveObservable.notifyObservers(pose);
      if (this._disposed) return;
      if (pose.changed) pose.refresh();
      if (this._targets === null) {
        this._commit();
        return;
      }
    }
    const c = this._targets;
    const plan = c.plan;
    // Valid again only once this frame writes (RotationBlend.compose).
    const continuity = c.blend.continuity;
    // The solve starts from last frame's answer (its turns laid on this frame's animation, or the animation
    // itself where it turned nothing), so small target moves are tracked (solveSettings.ts).
    const warm = continuity.valid && owner.continuity;
    const carried = warm && continuity.carries;
    continuity.valid = false;
    if (c.read(pose) === 0) {
      this._commit();
      return;
    }
    if (carried) continuity.apply(pose.block, plan.rig.parents, plan.limits);
    c.settings.tracking = warm;
    c.settings.holdConfiguration = owner.holdConfiguration;
    c.settings.fellShort = warm && owner.settleOutOfReach && this._short;
    let report: SolveReport;
    try {
      report = solvePlan(plan, pose.solverPose, c.targets, c.settings);
      // Only a solve that spent its whole budget is stuck; one that stopped early has settled (out of reach).
      if (carried && !report.converged && report.iterations >= c.settings.maxIterations!)
        report = this._solveFromAnimation(c, report);
      this._short = report.maxResidual > FELL_SHORT * c.plan.scratch.tolerance[0];
    } catch (error) {
      if (!this._warned) {
        this._warned = true;
        Logger.Warn(`FabrikIK: frame skipped: ${(error as Error).message}`);
      }
      this._commit();
      return;
    }
    const blend = c.blend;
    blend.numbers[GLOBAL_WEIGHT_SLOT] = owner.weight;
    blend.compose(
      pose.block,
      plan.rig.parents,
      pose.orientations,
      c.numbers,
      c.blendAt,
      c.orientationsAt,
      c.validAt,
      plan.limits,
    );
    this._afterSolve(c, passes);
    if (this._disposed) return;
    const event = this._event;
    event.report = report;
    event.written = this._commit();
    if (owner._watched & WATCHED_SOLVED) owner.onSolvedObservable.notifyObservers(event);
  }

  /**
   * A solve carried from the last frame that spends its budget and falls short is tried again from the
   * animated pose: the carried pose may sit in a configuration the targets have moved out of. The other answer
   * is taken when it meets the targets, or comes nearer than the carried one by more than the tolerance (out of
   * reach both fall short, about equally, and taking the nearer by rounding would switch between them from
   * frame to frame); otherwise the carried answer is kept. Solved from the animation, an answer knows nothing
   * of last frame's pose, so a taken one is pulled toward the carried answer (answerNearPose.ts).
   */
  private _solveFromAnimation(c: CompiledTargets, carried: SolveReport): SolveReport {
    const pose = this.pose;
    const continuity = c.blend.continuity;
    continuity.keep(pose.block, carried);
    const residual = carried.maxResidual,
      iterations = carried.iterations;
    pose.refresh();
    c.settings.tracking = false;
    const report = solvePlan(c.plan, pose.solverPose, c.targets, c.settings);
    if (!report.converged && !(report.maxResidual < residual - c.plan.scratch.tolerance[0])) {
      continuity.takeBack(pose.block, report);
      return report;
    }
    const budget = c.settings.maxIterations! - report.iterations;
    const pulled =
      c.settings.holdConfiguration === false
        ? 0
        : continuity.pullTowardKept(c.plan, pose.block, c.targets, budget);
    report.iterations += iterations + pulled;
    return report;
  }

  /** Feet at their shins' ends, then the post-solve passes, on the pose as it will be written. */
  private _afterSolve(c: CompiledTargets, passes: readonly PassEntry[]): void {
    let after = c.hasShinEnds;
    for (let i = 0; i < passes.length && !after; i++) after = passes[i].pass.afterSolve !== undefined;
    if (!after) return;
    const pose = this.pose;
    pose.refresh();
    if (c.hasShinEnds) {
      const entries = c.entries;
      for (let e = 0; e < entries.length; e++) {
        const shinEnd = entries[e].shinEnd;
        if (shinEnd !== null && c.numbers[c.blendAt + e] > 0)
          shinEnd.place(pose, c.numbers, c.blendAt + e, c.blend.numbers, GLOBAL_WEIGHT_SLOT);
      }
      if (pose.changed) pose.refresh();
    }
    for (let i = 0; i < passes.length; i++) {
      const after = passes[i].pass.afterSolve;
      if (after === undefined) continue;
      after.call(passes[i].pass, pose);
      if (this._disposed) return;
      if (pose.changed) pose.refresh();
    }
  }

  /** Writes what the frame changed; returns how many joints. */
  private _commit(): number {
    return this.pose.commit();
  }

  /** The joints the frame reads: the targets' and the passes'. Joints added mid-frame are read at once. */
  private _layout(): void {
    const joints: number[] = this._targets?.joints() ?? [];
    for (const entry of this._passes) joints.push(...entry.joints);
    const added = this.pose.setJoints(joints);
    if (added && this._inFrame) this.pose.readUnread();
  }
}

/**
 * A solve that ended further than this many tolerances from a target fell short of it (out of the limits'
 * reach, for settleOutOfReach); one nearer was still creeping toward it, and the next solve is a full one
 * (settled early from there, a run held each frame a few tolerances short, at several times the cost).
 */
const FELL_SHORT = 4;

/** Where the touch ahead leaves its number, so that its loads are not optimised away. */
const touchSink = new Float64Array(1);
