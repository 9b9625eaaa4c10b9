// Opt-in tools for looking at and tuning a behavior (the Inspector rows, the debug view): re-exports only.
// They import the behavior; the behavior never imports them.
export { FabrikDebugView, type FabrikDebugStats, type FabrikDebugViewOptions } from "./debugView.js";
export { FABRIK_DEBUG_COLORS } from "./debugColors.js";
export { inspectorPrefix, installFabrikInspector } from "./fabrikInspector.js";
export { getSelectedJoint, setSelectedJoint } from "./jointSelection.js";
