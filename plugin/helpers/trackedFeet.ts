import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { FEET_DT, FEET_PHASE, FEET_STEPPING, FEET_TRACKED, type TrackedHeels } from "./trackedHeels.js";
import { APPLIED, C, DT, FOOT_TARGET, VALID } from "./trackedSlots.js";
import type { TrackedSteps } from "./trackedSteps.js";
import { footTarget, trackedFoot } from "./trackedTargets.js";

/**
 * The feet's targets `v[FOOT_TARGET + 7i]` for this frame: where the steps have each foot, turned to the
 * heading and tilted to the ground under it, moved toward its tracker by the tracker's weight, its heel
 * lifted as far as its leg needs (TrackedHeels); the heels' lifts then say how the steps pivot planted feet.
 */
export function placeFeet(
  v: Float64Array,
  body: TrackedBodyRig,
  steps: TrackedSteps,
  heels: TrackedHeels,
): void {
  const feet = heels.feet;
  steps.readPhases(feet, FEET_STEPPING, FEET_PHASE);
  feet[FEET_DT] = v[DT];
  for (let i = 0; i < 2; i++) {
    steps.read(i, v, C);
    footTarget(v, body, i);
    steps.tilt(i, v, FOOT_TARGET + 7 * i + 3);
    feet[FEET_TRACKED + i] = v[VALID + 4 + i] === 1 ? v[APPLIED + 4 + i] : 0;
    if (feet[FEET_TRACKED + i] > 0) trackedFoot(v, body, i);
  }
  heels.lift(v, FOOT_TARGET, feet);
  heels.readPivots(steps.pivot, 0);
}
