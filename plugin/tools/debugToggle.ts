import type { FabrikBehavior } from "../babylon/index.js";
import { FabrikDebugView } from "./debugView.js";

/**
 * The Inspector's "Debug view" checkbox: it shows the character's own debug view when one is open (and
 * only hides it again, never disposes it), else one of its own, which it disposes when unticked.
 */
export class DebugToggle {
  private _wanted = false;
  private _view: FabrikDebugView | null = null;
  private _ownsView = false;

  constructor(private readonly _ik: FabrikBehavior) {}

  /** Whether the view is shown (or, while no view exists, was asked for). */
  get on(): boolean {
    return this._view !== null && !this._view.isDisposed ? this._view.enabled : this._wanted;
  }

  /** Shows or hides the view; true when a view was found or made (the rows then re-read). */
  set(on: boolean): boolean {
    this._wanted = on;
    const view = this._view;
    if (view !== null && !view.isDisposed) {
      if (on) view.enabled = true;
      else if (this._ownsView) {
        view.dispose();
        this._view = null;
      } else view.enabled = false;
      return false;
    }
    this._view = null;
    if (!on) return false;
    const existing = FabrikDebugView.of(this._ik);
    if (existing !== null) {
      existing.enabled = true;
      this._view = existing;
      this._ownsView = false;
    } else {
      this._view = new FabrikDebugView(this._ik);
      this._ownsView = true;
    }
    return true;
  }

  /** Disposes the view if this toggle made it. */
  dispose(): void {
    if (this._view !== null && this._ownsView) this._view.dispose();
    this._view = null;
  }
}
