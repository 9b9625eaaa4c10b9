import type { LinesMesh } from "@babylonjs/core/Meshes/linesMesh.js";
import type { Color4 } from "@babylonjs/core/Maths/math.color.js";
import { Observable, type Observer } from "@babylonjs/core/Misc/observable.js";
import { UtilityLayerRenderer } from "@babylonjs/core/Rendering/utilityLayerRenderer.js";
import type { Scene } from "@babylonjs/core/scene.js";
import {
  PoseReader,
  type FabrikBehavior,
  type FabrikSolvedEvent,
  type SkeletonRig,
} from "../babylon/index.js";
import { FabrikError, type SolvePlan } from "../solver/index.js";
import { DebugLines } from "./debugLines.js";
import { getSelectedJoint, setSelectedJoint } from "./jointSelection.js";
import { LimitPainter } from "./limitPainter.js";
import { SkeletonPainter } from "./skeletonPainter.js";

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

const OVERLAY_INTERVAL_MS = 250;

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
  private _enabled = true;
  private _disposed = false;

  private _rig: SkeletonRig | null = null;
  private _plan: SolvePlan | null = null;
  private _reader: PoseReader | null = null;
  private _lines: DebugLines | null = null;
  private readonly _skeleton: SkeletonPainter;
  private readonly _limits: LimitPainter;
  /** The character's height (model units), in an array: a double read from a field per frame may be boxed. */
  private readonly _size = new Float64Array(1);
  /** The plan of the last solve: targets are drawn only once the current plan has been solved. */
  private _solvedPlan: SolvePlan | null = null;
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
    this._skeleton = new SkeletonPainter(this._size, markerSize, options.skeleton ?? true);
    this._limits = new LimitPainter(Math.max(8, 4 * Math.ceil(segments / 4)), options.limits ?? true);

    this._size[0] = behavior.height;
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
    return this._lines?.mesh ?? null;
  }

  /** Polylines in the line system. */
  get lineCount(): number {
    return this._lines?.lines.length ?? 0;
  }

  /** The colour the joint's cone is drawn with in the last frame, or null when the joint has no slot drawn. */
  limitColor(joint: number): Color4 | null {
    return this._lines?.limitColor(joint, getSelectedJoint(this.behavior)) ?? null;
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
    if (rig !== this._rig || plan !== this._plan || this._lines === null) this._layout(rig, plan);
    const reader = this._reader!;
    reader.read();
    if (!reader.worldToModelValid) {
      this._hide();
      return;
    }
    const lines = this._lines!;
    const solved = this._solvedFrame === this._scene.getFrameId();
    this.stats.solved = solved;
    this._skeleton.drawBones(lines, reader, rig.parents, plan, solved);
    this._skeleton.drawMarkers(lines, reader);
    this._skeleton.drawTargets(lines, reader, ik, plan, this._solvedPlan, solved);
    this._limits.draw(lines, reader, rig.parents, limits, plan, solved, getSelectedJoint(ik));
    lines.upload();
    const mesh = lines.mesh;
    if (!mesh.isEnabled(false)) mesh.setEnabled(true);
    if (this._overlay !== null) this._updateOverlay();
    this.onUpdatedObservable.notifyObservers(this);
  }

  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this._solvedObserver.remove();
    this._renderObserver.remove();
    this._lines?.dispose();
    this._lines = null;
    this._overlay?.remove();
    this._overlay = null;
    if (this._ownsLayer) this.utilityLayer.dispose();
    this.onUpdatedObservable.clear();
    if (views.get(this.behavior) === this) views.delete(this.behavior);
  }

  private _onSolved(event: FabrikSolvedEvent): void {
    this._solvedFrame = this._scene.getFrameId();
    this._solvedPlan = this.behavior.plan;
    const r = event.report;
    const s = this.stats;
    s.iterations = r.iterations;
    s.converged = r.converged;
    s.maxResidual = r.maxResidual;
    const size = this._size[0];
    s.relativeResidual = size > 0 ? r.maxResidual / size : r.maxResidual;
    let count = 0;
    const onLimit = r.onLimit;
    for (let j = 0; j < onLimit.length; j++) count += onLimit[j];
    s.jointsOnLimit = count;
  }

  /** A new line system when the rig or the set of targets changes. */
  private _layout(rig: SkeletonRig, plan: SolvePlan | null): void {
    if (rig !== this._rig) {
      this._size[0] = this.behavior.height;
      this._reader = new PoseReader(rig);
      this._limits.setRig(rig, this.behavior);
    }
    this._rig = rig;
    this._plan = plan;
    this._lines?.dispose();
    this._lines = new DebugLines(rig, plan, this._limits.coneSegments, this.utilityLayer.utilityLayerScene);
  }

  private _hide(): void {
    const mesh = this._lines?.mesh;
    if (mesh !== undefined && mesh.isEnabled(false)) mesh.setEnabled(false);
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
}
