import { Color4 } from "@babylonjs/core/Maths/math.color.js";

/** The colours the debug view draws with; change them in place (they are read every frame). */
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
