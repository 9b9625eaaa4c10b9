import type { FabrikBehavior } from "../babylon/index.js";

// Kept outside both the Inspector rows and the debug view, so that neither module has to import the other:
// the joint chosen in the Inspector's dropdown is the one the debug view highlights, whichever exists.
const selection = new WeakMap<FabrikBehavior, number>();

/** The joint chosen for limit editing (Inspector "Joint" dropdown, debug view highlight); -1 when none. */
export function getSelectedJoint(behavior: FabrikBehavior): number {
  const j = selection.get(behavior);
  return j === undefined ? -1 : j;
}

/** Chooses the joint whose limits the Inspector edits and the debug view highlights (-1: none). */
export function setSelectedJoint(behavior: FabrikBehavior, joint: number): void {
  selection.set(behavior, joint);
}
