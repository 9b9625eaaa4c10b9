import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { IDisposable } from "@babylonjs/core/scene.js";
import type { FabrikBehavior } from "../babylon/index.js";
import { InspectorRows } from "./inspectorRows.js";

/** One behavior's opt-in: the rows while it is attached, and the observers that follow its attach and detach. */
class FabrikInspector implements IDisposable {
  rows: InspectorRows | null = null;
  private readonly _attach: Observer<FabrikBehavior>;
  private readonly _detach: Observer<FabrikBehavior>;

  constructor(private readonly _ik: FabrikBehavior) {
    if (_ik.attachedNode !== null) this.rows = new InspectorRows(_ik);
    this._attach = _ik.onAttachObservable.add(() => {
      this.rows?.dispose();
      this.rows = new InspectorRows(_ik);
    });
    this._detach = _ik.onDetachObservable.add(() => {
      this.rows?.dispose();
      this.rows = null;
    });
  }

  dispose(): void {
    if (installed.get(this._ik) !== this) return;
    installed.delete(this._ik);
    this._attach.remove();
    this._detach.remove();
    this.rows?.dispose();
    this.rows = null;
  }
}

const installed = new WeakMap<FabrikBehavior, FabrikInspector>();

/**
 * Shows a behavior's settings in the Babylon Inspector (v2, 9.x): opt-in, nothing is added until this is
 * called. The rows (enabled, skip when hidden, weight, iterations, tolerance, the last solve, the debug
 * view, each target's position, weight and chain length, and the selected joint's limits in degrees) appear
 * in the "Custom" section of the node the behavior is attached to, of each skinned mesh of its rig, and of
 * the behavior itself when it is listed as an Inspector `additionalNodes` entry.
 *
 * ```ts
 * const ik = new FabrikBehavior();
 * mesh.addBehavior(ik, true);
 * const inspector = installFabrikInspector(ik); // before or after attaching
 * inspector.dispose();                          // removes the rows again
 * ```
 *
 * The rows follow the behavior: they are made on every attach and removed on every detach, until the
 * returned handle is disposed. A second call for the same behavior returns the same handle. Nothing here
 * imports the Inspector itself: open it as usual (`ShowInspector(scene)` from `@babylonjs/inspector`).
 */
export function installFabrikInspector(behavior: FabrikBehavior): IDisposable {
  let inspector = installed.get(behavior);
  if (inspector === undefined) {
    inspector = new FabrikInspector(behavior);
    installed.set(behavior, inspector);
  }
  return inspector;
}

/**
 * The prefix of a behavior's Inspector proxy properties (`fabrikWeight`, `fabrikSwingUp`, …): "fabrik", or
 * "fabrik2", "fabrik3"… when another behavior already uses the same node. Null while detached or not
 * installed (see {@link installFabrikInspector}).
 */
export function inspectorPrefix(behavior: FabrikBehavior): string | null {
  return installed.get(behavior)?.rows?.prefix ?? null;
}
