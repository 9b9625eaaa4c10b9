import type { FabrikFrame } from "../babylon/index.js";
import { quatAxisAngle, quatConjugateMultiply, quatMultiply } from "../rig/index.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { BODY_WEIGHT, C, Q1, Q2 } from "./trackedSlots.js";

/** Radians each knee is bent forward before the solve, at full weight. */
const KNEE_START_BEND = 0.15;

/**
 * Bends each knee a little forward in the frame's pose, by `v[BODY_WEIGHT]`: the solve starts from it, and a
 * leg that starts straight and must shorten (the hips coming down) has no side to fold to; FABRIK moves joints
 * only along the lines between them.
 */
export function bendKnees(
  frame: FabrikFrame,
  v: Float64Array,
  body: TrackedBodyRig,
  parents: Int32Array,
): void {
  const o = frame.orientations;
  for (let k = 0; k < 3; k++) v[C + k] = body.frame[6 + k];
  v[C + 3] = KNEE_START_BEND * v[BODY_WEIGHT];
  quatAxisAngle(v, Q2, v, C, v, C + 3);
  for (const side of body.sides) {
    const knee = side.lowerLeg,
      parent = parents[knee];
    // The turn about the body's left, in the knee's parent's frame: conj(P) · R · P · local.
    frame.getLocalRotation(knee, v, Q1);
    quatMultiply(v, Q1, o, 4 * parent, v, Q1);
    quatMultiply(v, Q1, v, Q2, v, Q1);
    quatConjugateMultiply(v, Q1, o, 4 * parent, v, Q1);
    frame.setLocalRotation(knee, v, Q1);
  }
}
