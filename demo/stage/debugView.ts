import { FabrikDebugView } from "../../plugin/index.js";
import type { Character } from "./character.js";

/**
 * The debug view: the plugin's FabrikDebugView on every character (solved chains, bases, targets and
 * whether they were reached, limit cones). Its text report is left off: the panel's status line says the same.
 */
export function showDebugViews(characters: readonly Character[]): () => void {
  const views = characters.map((c) => new FabrikDebugView(c.ik, { overlay: false }));
  return () => {
    for (const view of views) view.dispose();
  };
}
