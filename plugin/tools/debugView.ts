import { VertexBuffer } from "@babylonjs/core/Buffers/buffer.js";
import { Color4 } from "@babylonjs/core/Maths/math.color.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateLineSystem } from "@babylonjs/core/Meshes/Builders/linesBuilder.js";
import type { LinesMesh } from "@babylonjs/core/Meshes/linesMesh.js";
import { Observable, type Observer } from "@babylonjs/core/Misc/observable.js";
import { UtilityLayerRenderer } from "@babylonjs/core/Rendering/utilityLayerRenderer.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { FabrikError } from "../solver/errors.js";
import { LIMIT_FIXED, LIMIT_HINGE, LIMIT_SWING, LIMIT_TWIST, type JointLimits } from "../solver/limits.js";
import type { SolvePlan } from "../solver/plan.js";
import { quatConjugateMultiply, quatMultiply, quatRotate } from "../solver/quaternion.js";
import {
  PoseReader,
  type FabrikBehavior,
  type FabrikSolvedEvent,
  type SkeletonRig,
} from "../babylon/index.js";
import { getSelectedJoint, setSelectedJoint } from "./jointSelection.js";

export interface FabrikDebugViewOptions {
  /** Draw into this layer (not disposed with the view). Default: a layer of its own on the behavior's scene. */
  utilityLayer?: UtilityLayerRenderer;
  /** Also draw the bones the targets do not move, dimmed. Default true. */
  skeleton?: boolean;
  /** Draw each limited joint's swing cone and twist or hinge arc. Default true. */
  limits?: boolean;
  /** Points per cone outline, rounded up to a multiple of 4 so the four side angles are drawn exactly. Default 32. */
  coneSegments?: number;
  /** Size of the joint and target markers, as a fraction of the character's height. Default 0.015. */
  markerSize?: number;
  /**
   * In a browser, a text box over the canvas with the last solve report, refreshed at most four times a
   * second. Default true; without a DOM there is none.
   */
  overlay?: boolean;
}

/** The last solve, as the debug view saw it (one object, updated in place). */
export interface FabrikDebugStats {
  /** Whether the behavior solved in the frame last drawn (false when disabled, at weight 0, or without targets). */
  solved: boolean;
  iterations: number;
  converged: boolean;
  /** Largest effector-to-target distance, in model units and as a fraction of the character's height. */
  maxResidual: number;
  relativeResidual: number;
  /** Joints that ended the solve on one of their limits. */
  jointsOnLimit: number;
}

/** The colours the view draws with; change them in place (they are read every frame). */
export const FABRIK_DEBUG_COLORS = {
  skeleton: new Color4(0.55, 0.55, 0.6, 1),
  chain: new Color4(0.2, 0.8, 1, 1),
  base: new Color4(1, 0.9, 0.2, 1),
  subBase: new Color4(1, 0.3, 1, 1),
  effector: new Color4(1, 0.55, 0.1, 1),
  targetReached: new Color4(0.3, 1, 0.3, 1),
  targetMissed: new Color4(1, 0.3, 0.3, 1),
  residual: new Color4(1, 1, 1, 1),
  cone: new Color4(1, 0.75, 0.2, 1),
  arc: new Color4(0.3, 0.9, 0.75, 1),
  selected: new Color4(1, 1, 1, 1),
  onLimit: new Color4(1, 0.15, 0.1, 1),
};

const ARC_SEGMENTS = 16;
/** Polylines per limit slot: cone outline, spokes (or hinge axis), arc, current-angle indicator. */
const SLOT_LINES = 4;
const SPOKE_POINTS = 9;
const OVERLAY_INTERVAL_MS = 250;

const MARKER_BASE = 0;
const MARKER_SUB_BASE = 1;
const MARKER_EFFECTOR = 2;

// Scratch layout: quaternions and vectors the per-frame code passes by (array, offset), never as numbers,
// so nothing is boxed.
const QF = 0; // the joint's rest frame under its current parent: parent orientation × rest local
const QD = 4; // Δ = F⁻¹ × orientation
const QG = 8; // F × swing part of Δ
const QT = 12; // a hinge turn
const VD = 16; // a direction
const VP = 19; // a model-space point
const VC = 22; // an arc centre
const VA = 25; // an axis
const SX = 28; // swing-space point x, y
const SL = 30; // a length
const SIZE = 31; // the character's height (model units)
const SCRATCH = 32;

const views = new WeakMap<FabrikBehavior, FabrikDebugView>();

/**
 * Draws what a {@link FabrikBehavior} solves, over the scene, in a utility layer: the bones (the solved
 * chains highlighted), bases, sub-bases and effectors as crosses, targets as diamonds (green when reached,
 * red when not) joined to their effectors, and each limited joint's swing cone (its elliptical outline and
 * the four side angles) and twist or hinge arc in the joint's frame, turning red while the joint sits on its
 * limit. The joint chosen in the Inspector is drawn white even when no target moves it.
 *
 * ```ts
 * const view = new FabrikDebugView(ik);  // or tick "Debug view" in the Inspector
 * view.enabled = false;                  // hide; true shows it again
 * view.dispose();
 * ```
 *
 * It draws the pose the scene renders (the IK output blended by weight), read from the joint nodes just
 * before the layer renders. It belongs to the scene the behavior is attached to when it is made; while the
 * behavior is detached (or attached in another scene) it draws nothing. One updatable line system holds everything; it is rebuilt only when the rig or
 * the set of targets changes, and a frame updates it in place without allocating.
 */
export class FabrikDebugView {
  /** The latest view created for a behavior (the one the Inspector's checkbox toggles), or null. */
  static of(behavior: FabrikBehavior): FabrikDebugView | null {
    return views.get(behavior) ?? null;
  }

  /** Fired after each drawn frame. */
  readonly onUpdatedObservable = new Observable<FabrikDebugView>();
  readonly stats: FabrikDebugStats = {
    solved: false,
    iterations: 0,
    converged: false,
    maxResidual: 0,
    relativeResidual: 0,
    jointsOnLimit: 0,
  };
  readonly utilityLayer: UtilityLayerRenderer;

  private readonly _scene: Scene;
  private readonly _ownsLayer: boolean;
  private readonly _showSkeleton: boolean;
  private readonly _showLimits: boolean;
  private readonly _coneSegments: number;
  private readonly _markerSize: number;
  private _enabled = true;
  private _disposed = false;

  private _rig: SkeletonRig | null = null;
  private _plan: SolvePlan | null = null;
  private _reader: PoseReader | null = null;
  private _mesh: LinesMesh | null = null;
  private _lines: Vector3[][] = [];
  private _colors: Color4[][] = [];
  private _vertexPositions = new Float32Array(0);
  private _vertexColors = new Float32Array(0);
  private _positionBuffer: VertexBuffer | null = null;
  private _colorBuffer: VertexBuffer | null = null;
  private _coneLength: Float64Array = new Float64Array(0);
  private _boneJoints = new Int32Array(0);
  private _markerJoints = new Int32Array(0);
  private _markerKinds = new Uint8Array(0);
  private _slotJoints = new Int32Array(0);
  /** Slot index per joint, -1 for joints drawn only when selected (in the last slot). */
  private _slotOf = new Int32Array(0);
  private _markerStart = 0;
  private _targetStart = 0;
  private _slotStart = 0;
  /** The plan of the last solve: targets are drawn only once the current plan has been solved. */
  private _solvedPlan: SolvePlan | null = null;

  private readonly _cos: Float64Array;
  private readonly _sin: Float64Array;
  private readonly _s = new Float64Array(SCRATCH);
  private _solvedFrame = -1;
  private readonly _solvedObserver: Observer<FabrikSolvedEvent>;
  private readonly _renderObserver: Observer<Scene>;
  private _overlay: HTMLElement | null = null;
  private _overlayTime = -Infinity;

  constructor(
    readonly behavior: FabrikBehavior,
    options: FabrikDebugViewOptions = {},
  ) {
    const node = behavior?.attachedNode;
    if (node === null || node === undefined) {
      throw new FabrikError(
        "FabrikDebugView: the behavior is not attached; add it to the character first (mesh.addBehavior(ik, true))",
      );
    }
    const markerSize = options.markerSize ?? 0.015;
    if (typeof markerSize !== "number" || !(markerSize >= 0 && markerSize < Infinity)) {
      throw new FabrikError(
        `FabrikDebugView: markerSize must be a finite number >= 0, got ${String(markerSize)}`,
        undefined,
        "markerSize",
      );
    }
    const segments = options.coneSegments ?? 32;
    if (typeof segments !== "number" || !(segments >= 4 && segments <= 1024)) {
      throw new FabrikError(
        `FabrikDebugView: coneSegments must be a number in [4, 1024], got ${String(segments)}`,
        undefined,
        "coneSegments",
      );
    }
    this._scene = node.getScene();
    this._ownsLayer = options.utilityLayer === undefined;
    // No event handling: the view is never picked and must not take pointer events from gizmos.
    this.utilityLayer = options.utilityLayer ?? new UtilityLayerRenderer(this._scene, false);
    this._showSkeleton = options.skeleton ?? true;
    this._showLimits = options.limits ?? true;
    this._markerSize = markerSize;
    this._coneSegments = Math.max(8, 4 * Math.ceil(segments / 4));
    const k = this._coneSegments;
    this._cos = new Float64Array(k + 1);
    this._sin = new Float64Array(k + 1);
    for (let i = 0; i <= k; i++) {
      // Exact axis points, so the four side angles land on the outline exactly.
      const quarter = i % (k / 4) === 0;
      const phi = (2 * Math.PI * i) / k;
      this._cos[i] = quarter ? [1, 0, -1, 0][(i / (k / 4)) % 4] : Math.cos(phi);
      this._sin[i] = quarter ? [0, 1, 0, -1][(i / (k / 4)) % 4] : Math.sin(phi);
    }

    this._s[SIZE] = behavior.height;
    this._solvedObserver = behavior.onSolvedObservable.add((event) => this._onSolved(event));
    this._renderObserver = this.utilityLayer.utilityLayerScene.onBeforeRenderObservable.add(() =>
      this.update(),
    );
    if ((options.overlay ?? true) && typeof document !== "undefined") this._createOverlay();
    views.set(behavior, this);
  }

  /** Shown or hidden; a hidden view does no work. */
  get enabled(): boolean {
    return this._enabled;
  }
  set enabled(value: boolean) {
    this._enabled = value === true;
    if (!this._enabled) this._hide();
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  /** The joint drawn white (shared with the Inspector's "Joint" dropdown); -1 for none. */
  get selectedJoint(): number {
    return getSelectedJoint(this.behavior);
  }
  set selectedJoint(joint: number) {
    setSelectedJoint(this.behavior, joint);
  }

  /** The line system (null before the first frame and while detached). Its line count changes only with the layout. */
  get mesh(): LinesMesh | null {
    return this._mesh;
  }

  /** Polylines in the line system. */
  get lineCount(): number {
    return this._lines.length;
  }

  /** The colour the joint's cone is drawn with in the last frame, or null when the joint has no slot drawn. */
  limitColor(joint: number): Color4 | null {
    let slot = joint >= 0 && joint < this._slotOf.length ? this._slotOf[joint] : -1;
    if (slot < 0 && joint >= 0 && joint === getSelectedJoint(this.behavior))
      slot = this._slotJoints.length - 1;
    if (slot < 0 || this._mesh === null) return null;
    return this._colors[this._slotStart + SLOT_LINES * slot][0];
  }

  /** The last solve as one line of text, e.g. for a DOM overlay of your own. */
  get reportText(): string {
    const s = this.stats;
    if (!s.solved) return "FABRIK IK: not solving (no targets, disabled or weight 0)";
    return (
      `FABRIK IK: ${s.iterations} iteration${s.iterations === 1 ? "" : "s"}, ` +
      `max residual ${s.maxResidual.toPrecision(3)} (${(100 * s.relativeResidual).toFixed(3)} % of height), ` +
      `${s.converged ? "converged" : "not converged"}, ${s.jointsOnLimit} joint${s.jointsOnLimit === 1 ? "" : "s"} on limits`
    );
  }

  /** Redraws from the current pose. Runs by itself before the layer renders; call it to draw without rendering. */
  update(): void {
    if (this._disposed || !this._enabled) return;
    const ik = this.behavior;
    const rig = ik.rig;
    const limits = ik.limits;
    if (rig === null || limits === null || ik.attachedNode?.getScene() !== this._scene) {
      this._hide();
      return;
    }
    const plan = ik.plan;
    if (rig !== this._rig || plan !== this._plan || this._mesh === null) this._layout(rig, plan);
    const reader = this._reader!;
    reader.read();
    if (!reader.worldToModelValid) {
      this._hide();
      return;
    }
    const solved = this._solvedFrame === this._scene.getFrameId();
    this.stats.solved = solved;
    this._drawBones(plan, solved);
    this._drawMarkers();
    this._drawTargets(plan, solved);
    this._drawLimits(limits, plan, solved);
    this._upload();
    const mesh = this._mesh!;
    if (!mesh.isEnabled(false)) mesh.setEnabled(true);
    if (this._overlay !== null) this._updateOverlay();
    this.onUpdatedObservable.notifyObservers(this);
  }

  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this._solvedObserver.remove();
    this._renderObserver.remove();
    this._mesh?.dispose(false, true);
    this._mesh = null;
    this._overlay?.remove();
    this._overlay = null;
    if (this._ownsLayer) this.utilityLayer.dispose();
    this.onUpdatedObservable.clear();
    if (views.get(this.behavior) === this) views.delete(this.behavior);
  }

  // ---- per frame ----------------------------------------------------------------------------------------

  private _onSolved(event: FabrikSolvedEvent): void {
    this._solvedFrame = this._scene.getFrameId();
    this._solvedPlan = this.behavior.plan;
    const r = event.report;
    const s = this.stats;
    s.iterations = r.iterations;
    s.converged = r.converged;
    s.maxResidual = r.maxResidual;
    const size = this._s[SIZE];
    s.relativeResidual = size > 0 ? r.maxResidual / size : r.maxResidual;
    let count = 0;
    const onLimit = r.onLimit;
    for (let j = 0; j < onLimit.length; j++) count += onLimit[j];
    s.jointsOnLimit = count;
  }

  private _drawBones(plan: SolvePlan | null, solved: boolean): void {
    const reader = this._reader!;
    const m = reader.modelToWorld,
      pos = reader.positions;
    const parents = this._rig!.parents;
    const onLimit = plan?.report.onLimit;
    const colors = FABRIK_DEBUG_COLORS;
    const bones = this._boneJoints;
    for (let b = 0; b < bones.length; b++) {
      const j = bones[b];
      const p = parents[j];
      const line = this._lines[b];
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
      paint(this._colors[b], color);
    }
  }

  private _drawMarkers(): void {
    const reader = this._reader!;
    const m = reader.modelToWorld,
      pos = reader.positions;
    const s = this._s;
    s[SL] = this._markerSize * s[SIZE];
    const colors = FABRIK_DEBUG_COLORS;
    const joints = this._markerJoints;
    for (let k = 0; k < joints.length; k++) {
      const j = joints[k];
      const kind = this._markerKinds[k];
      const color =
        kind === MARKER_BASE ? colors.base : kind === MARKER_SUB_BASE ? colors.subBase : colors.effector;
      for (let axis = 0; axis < 3; axis++) {
        const index = this._markerStart + 3 * k + axis;
        const line = this._lines[index];
        crossArm(line[0], m, pos, 3 * j, axis, -1, s);
        crossArm(line[1], m, pos, 3 * j, axis, 1, s);
        paint(this._colors[index], color);
      }
    }
  }

  private _drawTargets(plan: SolvePlan | null, solved: boolean): void {
    if (plan === null) return;
    const reader = this._reader!;
    const m = reader.modelToWorld,
      pos = reader.positions;
    const targets = this.behavior.targetPositions;
    const s = this._s;
    s[SL] = 1.5 * this._markerSize * s[SIZE];
    // A field of the settings object, not a getter: a double returned from a call V8 did not inline is boxed.
    const settings = this.behavior.solveSettings;
    const tolerance = settings === null ? 0 : (settings.tolerance ?? 0);
    const colors = FABRIK_DEBUG_COLORS;
    const ready = this._solvedPlan === plan && targets !== null && targets.length === 3 * plan.effectorCount;
    for (let e = 0; e < plan.effectorCount; e++) {
      const start = this._targetStart + 4 * e;
      const effector = 3 * plan.effectorJoints[e];
      const reached = !solved || plan.report.residuals[e] <= tolerance;
      for (let loop = 0; loop < 3; loop++) {
        const line = this._lines[start + loop];
        for (let i = 0; i < 5; i++) {
          if (ready) diamondPoint(line[i], m, targets, 3 * e, loop, i, s);
          else toWorld(line[i], m, pos, effector);
        }
        paint(this._colors[start + loop], reached ? colors.targetReached : colors.targetMissed);
      }
      const residual = this._lines[start + 3];
      toWorld(residual[0], m, pos, effector);
      if (ready) toWorld(residual[1], m, targets, 3 * e);
      else toWorld(residual[1], m, pos, effector);
      paint(this._colors[start + 3], colors.residual);
    }
  }

  private _drawLimits(limits: JointLimits, plan: SolvePlan | null, solved: boolean): void {
    const slots = this._slotJoints;
    const selected = getSelectedJoint(this.behavior);
    const n = this._rig!.jointCount;
    const onLimit = plan?.report.onLimit;
    for (let slot = 0; slot < slots.length; slot++) {
      let j = slots[slot];
      const last = slot === slots.length - 1;
      // The last slot is the selected joint's, unless that joint already has a slot of its own.
      if (last) j = selected >= 0 && selected < n && this._slotOf[selected] < 0 ? selected : -1;
      const start = this._slotStart + SLOT_LINES * slot;
      const hit = solved && j >= 0 && onLimit !== undefined && onLimit[j] === 1;
      this._drawSlot(limits, j, start, hit, j === selected);
    }
  }

  /** One joint's cone, spokes, arc and indicator; everything collapses onto the joint when it has no such limit. */
  private _drawSlot(
    limits: JointLimits,
    j: number,
    start: number,
    onLimit: boolean,
    selected: boolean,
  ): void {
    const reader = this._reader!;
    const m = reader.modelToWorld,
      pos = reader.positions,
      orientations = reader.orientations;
    const lines = this._lines;
    const cone = lines[start],
      spokes = lines[start + 1],
      arc = lines[start + 2],
      indicator = lines[start + 3];
    const colors = FABRIK_DEBUG_COLORS;
    const coneColor = onLimit ? colors.onLimit : selected ? colors.selected : colors.cone;
    const arcColor = onLimit ? colors.onLimit : selected ? colors.selected : colors.arc;
    for (let k = 0; k < SLOT_LINES; k++) paint(this._colors[start + k], k < 2 ? coneColor : arcColor);
    const flags = j >= 0 && this._showLimits ? limits.flags[j] : 0;
    const rotationLimited = (flags & (LIMIT_HINGE | LIMIT_FIXED)) === 0;
    const hasSwing = rotationLimited && (flags & LIMIT_SWING) !== 0;
    const hasTwist = rotationLimited && (flags & LIMIT_TWIST) !== 0;
    const hasHinge = (flags & LIMIT_HINGE) !== 0;
    if (j < 0 || !(hasSwing || hasTwist || hasHinge)) {
      const at = j >= 0 ? 3 * j : 0;
      collapse(cone, m, pos, at);
      collapse(spokes, m, pos, at);
      collapse(arc, m, pos, at);
      collapse(indicator, m, pos, at);
      return;
    }
    const s = this._s;
    const j3 = 3 * j,
      j4 = 4 * j;
    const p = this._rig!.parents[j];
    if (p >= 0) quatMultiply(s, QF, orientations, 4 * p, limits.restLocal, j4);
    else for (let i = 0; i < 4; i++) s[QF + i] = limits.restLocal[j4 + i];
    const length = this._coneLength[j];
    s[SL] = length;

    if (hasSwing) {
      const sw = limits.swing;
      const k = this._coneSegments;
      for (let i = 0; i <= k; i++) {
        const c = this._cos[i],
          sn = this._sin[i];
        s[SX] = c * (c >= 0 ? sw[j4 + 1] : sw[j4 + 3]);
        s[SX + 1] = sn * (sn >= 0 ? sw[j4] : sw[j4 + 2]);
        swingPoint(cone[i], m, pos, limits, j, s);
      }
      // Joint → each side's extreme → joint: the four angles the Inspector edits.
      for (let i = 0; i < SPOKE_POINTS; i++) {
        if (i % 2 === 0) {
          toWorld(spokes[i], m, pos, j3);
          continue;
        }
        const side = (i - 1) / 2; // up, right, down, left
        s[SX] = side === 1 ? sw[j4 + 1] : side === 3 ? -sw[j4 + 3] : 0;
        s[SX + 1] = side === 0 ? sw[j4] : side === 2 ? -sw[j4 + 2] : 0;
        swingPoint(spokes[i], m, pos, limits, j, s);
      }
    } else if (hasHinge) {
      collapse(cone, m, pos, j3);
      // The hinge axis, through the joint.
      quatRotate(s, VA, s, QF, limits.hingeAxis, j3);
      for (let i = 0; i < SPOKE_POINTS; i++) {
        const sign = i === 0 ? -0.5 : 0.5;
        for (let a = 0; a < 3; a++) s[VP + a] = pos[j3 + a] + sign * length * s[VA + a];
        toWorld(spokes[i], m, s, VP);
      }
    } else {
      collapse(cone, m, pos, j3);
      collapse(spokes, m, pos, j3);
    }

    if (hasHinge) {
      const lo = limits.hinge[2 * j],
        hi = limits.hinge[2 * j + 1];
      for (let i = 0; i <= ARC_SEGMENTS; i++) {
        const half = 0.5 * (lo + ((hi - lo) * i) / ARC_SEGMENTS);
        const sh = Math.sin(half);
        for (let a = 0; a < 3; a++) s[QT + a] = limits.hingeAxis[j3 + a] * sh;
        s[QT + 3] = Math.cos(half);
        quatRotate(s, VD, s, QT, limits.boneAxis, j3);
        quatRotate(s, VD, s, QF, s, VD);
        for (let a = 0; a < 3; a++) s[VP + a] = pos[j3 + a] + length * s[VD + a];
        toWorld(arc[i], m, s, VP);
      }
      // The bone as it is now.
      quatRotate(s, VD, orientations, j4, limits.boneAxis, j3);
      for (let a = 0; a < 3; a++) s[VP + a] = pos[j3 + a] + length * s[VD + a];
      toWorld(indicator[0], m, pos, j3);
      toWorld(indicator[1], m, s, VP);
    } else if (hasTwist) {
      // Δ = F⁻¹ O splits into swing × twist about the bone axis; the arc is drawn in the swung frame
      // F × swing, so it stays around the bone and the indicator (the joint's own "up") sweeps along it.
      quatConjugateMultiply(s, QD, s, QF, orientations, j4);
      const ax = limits.boneAxis[j3],
        ay = limits.boneAxis[j3 + 1],
        az = limits.boneAxis[j3 + 2];
      const along = s[QD] * ax + s[QD + 1] * ay + s[QD + 2] * az;
      const tl = Math.sqrt(along * along + s[QD + 3] * s[QD + 3]);
      // Conjugate twist, to strip it off the orientation: G = O × twist⁻¹ = F × swing.
      s[QT] = tl > 1e-12 ? (-along * ax) / tl : 0;
      s[QT + 1] = tl > 1e-12 ? (-along * ay) / tl : 0;
      s[QT + 2] = tl > 1e-12 ? (-along * az) / tl : 0;
      s[QT + 3] = tl > 1e-12 ? s[QD + 3] / tl : 1;
      quatMultiply(s, QG, orientations, j4, s, QT);
      quatRotate(s, VD, orientations, j4, limits.boneAxis, j3);
      const radius = 0.35 * length;
      for (let a = 0; a < 3; a++) s[VC + a] = pos[j3 + a] + 0.6 * length * s[VD + a];
      const lo = limits.twist[2 * j],
        hi = limits.twist[2 * j + 1];
      for (let i = 0; i <= ARC_SEGMENTS; i++) {
        const t = lo + ((hi - lo) * i) / ARC_SEGMENTS;
        const c = Math.cos(t),
          sn = Math.sin(t);
        for (let a = 0; a < 3; a++) s[VD + a] = c * limits.upAxis[j3 + a] + sn * limits.rightAxis[j3 + a];
        quatRotate(s, VD, s, QG, s, VD);
        for (let a = 0; a < 3; a++) s[VP + a] = s[VC + a] + radius * s[VD + a];
        toWorld(arc[i], m, s, VP);
      }
      quatRotate(s, VD, orientations, j4, limits.upAxis, j3);
      for (let a = 0; a < 3; a++) s[VP + a] = s[VC + a] + radius * s[VD + a];
      toWorld(indicator[0], m, s, VC);
      toWorld(indicator[1], m, s, VP);
    } else {
      collapse(arc, m, pos, j3);
      collapse(indicator, m, pos, j3);
    }
  }

  /**
   * Copies the lines into the vertex buffers. Not `CreateLineSystem(name, { lines, instance })`: its update
   * goes through `updateVerticesData`, whose dirty-marking allocates a closure per call wherever Babylon's
   * mesh code has seen several mesh types (80 bytes a frame, measured); writing the buffers directly
   * allocates nothing, and a line mesh whose layout is unchanged needs no dirty-marking.
   */
  private _upload(): void {
    const lines = this._lines,
      colors = this._colors;
    const positions = this._vertexPositions,
      vertexColors = this._vertexColors;
    let i = 0,
      c = 0;
    for (let l = 0; l < lines.length; l++) {
      const line = lines[l],
        lineColors = colors[l];
      for (let k = 0; k < line.length; k++) {
        const p = line[k],
          q = lineColors[k];
        positions[i] = p.x;
        positions[i + 1] = p.y;
        positions[i + 2] = p.z;
        vertexColors[c] = q.r;
        vertexColors[c + 1] = q.g;
        vertexColors[c + 2] = q.b;
        vertexColors[c + 3] = q.a;
        i += 3;
        c += 4;
      }
    }
    this._positionBuffer!.updateDirectly(positions, 0);
    this._colorBuffer!.updateDirectly(vertexColors, 0);
  }

  private _hide(): void {
    if (this._mesh !== null && this._mesh.isEnabled(false)) this._mesh.setEnabled(false);
    if (this._overlay !== null && this._overlay.style.display !== "none")
      this._overlay.style.display = "none";
  }

  private _updateOverlay(): void {
    const overlay = this._overlay!;
    if (overlay.style.display === "none") overlay.style.display = "";
    const now = performance.now();
    if (now - this._overlayTime < OVERLAY_INTERVAL_MS) return;
    this._overlayTime = now;
    overlay.textContent = this.reportText;
  }

  private _createOverlay(): void {
    const canvas = this._scene.getEngine().getRenderingCanvas();
    const parent = canvas?.parentElement;
    if (canvas === null || canvas === undefined || parent === null || parent === undefined) return;
    const overlay = document.createElement("div");
    overlay.className = "fabrik-debug-report";
    overlay.style.cssText =
      "position:absolute;left:8px;bottom:8px;padding:4px 8px;font:12px/1.4 monospace;color:#fff;" +
      "background:rgba(0,0,0,0.6);border-radius:4px;pointer-events:none;z-index:10";
    if (getComputedStyle(parent).position === "static") parent.style.position = "relative";
    parent.appendChild(overlay);
    this._overlay = overlay;
  }

  // ---- layout (when the rig or the targets change) ------------------------------------------------------

  private _layout(rig: SkeletonRig, plan: SolvePlan | null): void {
    const n = rig.jointCount;
    if (rig !== this._rig) {
      this._s[SIZE] = this.behavior.height;
      this._reader = new PoseReader(rig);
      this._coneLength = coneLengths(rig, this.behavior);
    }
    this._rig = rig;
    this._plan = plan;

    const lines: Vector3[][] = [];
    const add = (points: number, count: number): number => {
      const first = lines.length;
      for (let i = 0; i < count; i++) lines.push(Array.from({ length: points }, () => new Vector3()));
      return first;
    };
    const bones: number[] = [];
    for (let j = 0; j < n; j++) if (rig.parents[j] >= 0) bones.push(j);
    this._boneJoints = Int32Array.from(bones);
    add(2, bones.length);

    const markerJoints: number[] = [];
    const markerKinds: number[] = [];
    if (plan !== null) {
      const groups: [Int32Array, number][] = [
        [plan.bases, MARKER_BASE],
        [plan.subBases, MARKER_SUB_BASE],
        [plan.effectorJoints, MARKER_EFFECTOR],
      ];
      for (const [joints, kind] of groups) {
        for (const j of joints) {
          markerJoints.push(j);
          markerKinds.push(kind);
        }
      }
    }
    this._markerJoints = Int32Array.from(markerJoints);
    this._markerKinds = Uint8Array.from(markerKinds);
    this._markerStart = add(2, 3 * markerJoints.length);

    const effectors = plan?.effectorCount ?? 0;
    this._targetStart = lines.length;
    for (let e = 0; e < effectors; e++) {
      add(5, 3);
      add(2, 1);
    }

    // A slot for every joint the solver turns (any of them may gain a limit while this layout lasts), plus
    // one for the selected joint.
    const slotJoints = plan === null ? [] : Array.from(plan.rotatingJoints);
    slotJoints.push(-1);
    this._slotJoints = Int32Array.from(slotJoints);
    this._slotOf = new Int32Array(n).fill(-1);
    slotJoints.forEach((j, slot) => {
      if (j >= 0) this._slotOf[j] = slot;
    });
    this._slotStart = lines.length;
    for (let slot = 0; slot < slotJoints.length; slot++) {
      add(this._coneSegments + 1, 1);
      add(SPOKE_POINTS, 1);
      add(ARC_SEGMENTS + 1, 1);
      add(2, 1);
    }

    const colors = lines.map((line) => line.map(() => new Color4(1, 1, 1, 1)));
    this._mesh?.dispose(false, true);
    const mesh = CreateLineSystem(
      "fabrikDebugView",
      { lines, colors, updatable: true, useVertexAlpha: false },
      this.utilityLayer.utilityLayerScene,
    );
    mesh.isPickable = false;
    // The points move every frame: skip culling and never recompute bounds (that would allocate).
    mesh.alwaysSelectAsActiveMesh = true;
    mesh.doNotSyncBoundingInfo = true;
    mesh.getBoundingInfo().isLocked = true;
    this._mesh = mesh;
    this._lines = lines;
    this._colors = colors;
    const vertices = mesh.getTotalVertices();
    this._vertexPositions = new Float32Array(3 * vertices);
    this._vertexColors = new Float32Array(4 * vertices);
    this._positionBuffer = mesh.getVertexBuffer(VertexBuffer.PositionKind);
    this._colorBuffer = mesh.getVertexBuffer(VertexBuffer.ColorKind);
  }
}

/** How far each joint's cone reaches: most of its bone, within sensible bounds of the character's height. */
function coneLengths(rig: SkeletonRig, behavior: FabrikBehavior): Float64Array {
  const n = rig.jointCount;
  const pos = rig.restPositions;
  const size = behavior.height;
  const out = new Float64Array(n);
  const bone = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const p = rig.parents[j];
    if (p < 0) continue;
    const d = Math.hypot(
      pos[3 * j] - pos[3 * p],
      pos[3 * j + 1] - pos[3 * p + 1],
      pos[3 * j + 2] - pos[3 * p + 2],
    );
    bone[j] = d;
    if (d > out[p]) out[p] = d;
  }
  for (let j = 0; j < n; j++) {
    // A leaf continues its parent's bone.
    const length = out[j] > 0 ? out[j] : bone[j];
    out[j] = Math.min(0.25 * size, Math.max(0.03 * size, 0.6 * length));
  }
  return out;
}

/** v = model point p[o..o+2] in world space (Babylon's row-vector matrix layout). */
function toWorld(v: Vector3, m: Float64Array, p: Float64Array, o: number): void {
  const x = p[o],
    y = p[o + 1],
    z = p[o + 2];
  v.x = x * m[0] + y * m[4] + z * m[8] + m[12];
  v.y = x * m[1] + y * m[5] + z * m[9] + m[13];
  v.z = x * m[2] + y * m[6] + z * m[10] + m[14];
}

function collapse(line: Vector3[], m: Float64Array, p: Float64Array, o: number): void {
  for (let i = 0; i < line.length; i++) toWorld(line[i], m, p, o);
}

function paint(colors: Color4[], color: Color4): void {
  for (let i = 0; i < colors.length; i++) colors[i].copyFrom(color);
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

/**
 * The direction of swing-space point (x, y) = s[SX..] (azimuthal-equidistant: its length is the swing angle
 * θ, its direction the side), as cos θ·axis + sin θ·(x·right + y·up)/θ in the joint's rest frame, turned by
 * the frame F = s[QF..] and placed s[SL] from joint j.
 */
function swingPoint(
  v: Vector3,
  m: Float64Array,
  pos: Float64Array,
  limits: JointLimits,
  j: number,
  s: Float64Array,
): void {
  const x = s[SX],
    y = s[SX + 1];
  const theta = Math.sqrt(x * x + y * y);
  const c = Math.cos(theta);
  const k = theta > 1e-9 ? Math.sin(theta) / theta : 1;
  const j3 = 3 * j;
  const a = limits.boneAxis,
    r = limits.rightAxis,
    u = limits.upAxis;
  for (let i = 0; i < 3; i++) s[VD + i] = c * a[j3 + i] + k * (x * r[j3 + i] + y * u[j3 + i]);
  quatRotate(s, VD, s, QF, s, VD);
  const length = s[SL];
  for (let i = 0; i < 3; i++) s[VP + i] = pos[j3 + i] + length * s[VD + i];
  toWorld(v, m, s, VP);
}
