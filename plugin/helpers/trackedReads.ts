import { transformDirection, transformPoint } from "../rig/index.js";
import { unit3 } from "./trackedMath.js";
import type { TrackedBodySettings } from "./trackedBodyOptions.js";
import type { TrackedPoint } from "./trackedPoint.js";
import { APPLIED, DT, VALID } from "./trackedSlots.js";

/*
 * A tracked body's trackers as one frame reads them: each pose into model space, with the weight it shows
 * faded toward the weight it was given.
 */

/**
 * Reads each tracker of `points` into `v` (9 numbers each from 0: position, forward, up) in the model space
 * of `worldToModel`, and fades its applied weight `v[APPLIED + i]` toward its weight (0 when its pose is not
 * usable) by `v[DT]` over `settings.fadeTime` seconds; `v[VALID + i]` says whether it was usable. The
 * settings, not the number, are handed over: a double passed to a call V8 does not inline is boxed, an
 * allocation a frame.
 */
export function readTrackers(
  points: readonly TrackedPoint[],
  v: Float64Array,
  worldToModel: Float64Array,
  settings: TrackedBodySettings,
): void {
  const dt = v[DT];
  const fadeTime = settings.fadeTime;
  for (let i = 0; i < points.length; i++) {
    const point = points[i];
    const o = 9 * i;
    point._readNode();
    let ok = point._read(v, o);
    if (ok) {
      transformPoint(v, o, worldToModel, v, o);
      transformDirection(v, o + 3, worldToModel, v, o + 3);
      transformDirection(v, o + 6, worldToModel, v, o + 6);
      ok = unit3(v, o + 3) && unit3(v, o + 6) && Number.isFinite(v[o]);
    }
    v[VALID + i] = ok ? 1 : 0;
    const goal = ok ? point.weight : 0;
    const applied = v[APPLIED + i];
    const step = !(fadeTime > 0) ? 1 : dt / fadeTime;
    v[APPLIED + i] = goal > applied ? Math.min(goal, applied + step) : Math.max(goal, applied - step);
  }
}
