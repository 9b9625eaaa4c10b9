import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { FabrikBehavior, PoseReader } from "../babylon/index.js";
import type { SolvePlan } from "../solver/index.js";
import { FABRIK_DEBUG_COLORS } from "./debugColors.js";
import { MARKER_BASE, MARKER_SUB_BASE, type DebugLines } from "./debugLines.js";
import { paint, toWorld } from "./linePoints.js";

// Scratch layout: a point and a length passed by (array, offset), never as numbers, so nothing is boxed.
const VP = 0; // a model-space point
const SL = 3; // a length: the half-size of a marker or diamond
const SCRATCH = 4;

/**
 * Draws the bones (the solved chains highlighted, joints on their limits in red), the crosses of bases,
 * sub-bases and effectors, and each target's diamond (green when reached, red when not) joined to its
 * effector, into the debug view's lines.
 */
export class SkeletonPainter {
  private readonly _s = new Float64Array(SCRATCH);

  /**
   * @param size the character's height in model units, in `size[0]`: kept by the view, read each frame.
   * @param _markerSize marker size as a fraction of that height.
   * @param _showSkeleton whether bones the targets do not move are drawn too (dimmed).
   */
  constructor(
    private readonly _size: Float64Array,
    private readonly _markerSize: number,
    private readonly _showSkeleton: boolean,
  ) {}

  drawBones(
    lines: DebugLines,
    reader: PoseReader,
    parents: Int32Array,
    plan: SolvePlan | null,
    solved: boolean,
  ): void {
    const m = reader.modelToWorld,
      pos = reader.positions;
    const onLimit = plan?.report.onLimit;
    const colors = FABRIK_DEBUG_COLORS;
    const bones = lines.boneJoints;
    for (let b = 0; b < bones.length; b++) {
      const j = bones[b];
      const p = parents[j];
      const line = lines.lines[b];
      const active = plan !== null && plan.activeIndex[j] >= 0;
      toWorld(line[1], m, pos, 3 * j);
      if (active || this._showSkeleton) toWorld(line[0], m, pos, 3 * p);
      else toWorld(line[0], m, pos, 3 * j);
      const color =
        solved && onLimit !== undefined && onLimit[p] === 1
          ? colors.onLimit
          : active
            ? colors.chain
            : colors.skeleton;
      paint(lines.colors[b], color);
    }
  }

  drawMarkers(lines: DebugLines, reader: PoseReader): void {
    const m = reader.modelToWorld,
      pos = reader.positions;
    const s = this._s;
    s[SL] = this._markerSize * this._size[0];
    const colors = FABRIK_DEBUG_COLORS;
    const joints = lines.markerJoints;
    for (let k = 0; k < joints.length; k++) {
      const j = joints[k];
      const kind = lines.markerKinds[k];
      const color =
        kind === MARKER_BASE ? colors.base : kind === MARKER_SUB_BASE ? colors.subBase : colors.effector;
      for (let axis = 0; axis < 3; axis++) {
        const index = lines.markerStart + 3 * k + axis;
        const line = lines.lines[index];
        crossArm(line[0], m, pos, 3 * j, axis, -1, s);
        crossArm(line[1], m, pos, 3 * j, axis, 1, s);
        paint(lines.colors[index], color);
      }
    }
  }

  /**
   * The targets of the behavior's current plan. Until that plan has been solved (`solvedPlan`: the plan of
   * the last solve) the target points may belong to another plan, so each diamond sits on its effector.
   */
  drawTargets(
    lines: DebugLines,
    reader: PoseReader,
    behavior: FabrikBehavior,
    plan: SolvePlan | null,
    solvedPlan: SolvePlan | null,
    solved: boolean,
  ): void {
    if (plan === null) return;
    const m = reader.modelToWorld,
      pos = reader.positions;
    const targets = behavior.targetPositions;
    const s = this._s;
    s[SL] = 1.5 * this._markerSize * this._size[0];
    // A field of the settings object, not a getter: a double returned from a call V8 did not inline is boxed.
    const settings = behavior.solveSettings;
    const tolerance = settings === null ? 0 : (settings.tolerance ?? 0);
    const colors = FABRIK_DEBUG_COLORS;
    const ready = solvedPlan === plan && targets !== null && targets.length === 3 * plan.effectorCount;
    for (let e = 0; e < plan.effectorCount; e++) {
      const start = lines.targetStart + 4 * e;
      const effector = 3 * plan.effectorJoints[e];
      const reached = !solved || plan.report.residuals[e] <= tolerance;
      for (let loop = 0; loop < 3; loop++) {
        const line = lines.lines[start + loop];
        for (let i = 0; i < 5; i++) {
          if (ready) diamondPoint(line[i], m, targets, 3 * e, loop, i, s);
          else toWorld(line[i], m, pos, effector);
        }
        paint(lines.colors[start + loop], reached ? colors.targetReached : colors.targetMissed);
      }
      const residual = lines.lines[start + 3];
      toWorld(residual[0], m, pos, effector);
      if (ready) toWorld(residual[1], m, targets, 3 * e);
      else toWorld(residual[1], m, pos, effector);
      paint(lines.colors[start + 3], colors.residual);
    }
  }
}

/** One arm of a marker cross: the joint ± s[SL] along a model axis. */
function crossArm(
  v: Vector3,
  m: Float64Array,
  pos: Float64Array,
  o: number,
  axis: number,
  sign: number,
  s: Float64Array,
): void {
  for (let a = 0; a < 3; a++) s[VP + a] = pos[o + a] + (a === axis ? sign * s[SL] : 0);
  toWorld(v, m, s, VP);
}

/** Point i (0..4, closed) of a diamond of radius s[SL] around target o in the plane of two model axes. */
function diamondPoint(
  v: Vector3,
  m: Float64Array,
  targets: Float64Array,
  o: number,
  loop: number,
  i: number,
  s: Float64Array,
): void {
  const k = i % 4;
  const axis = k % 2 === 0 ? loop : (loop + 1) % 3;
  const sign = k < 2 ? 1 : -1;
  for (let a = 0; a < 3; a++) s[VP + a] = targets[o + a] + (a === axis ? sign * s[SL] : 0);
  toWorld(v, m, s, VP);
}
