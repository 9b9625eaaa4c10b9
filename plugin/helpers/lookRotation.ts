import { normalize3, quatAxisAngle, quatFromUnitVectors, quatMultiply, quatRotate } from "../rig/index.js";

/* Scratch layout from `so`: [0..2] flat from, [3..5] flat to, [6] yaw, [7..10] yaw, [11..13] yawed gaze. */

/**
 * out[o..o+3] = the rotation turning the unit gaze `from[fo..]` onto the unit direction `to[t..]`, split as
 * a turn about the unit `up[uo..]` (yaw) followed by a tilt about a horizontal axis (pitch). A shortest-arc
 * rotation would roll the head when looking up and sideways at once; yaw then pitch keeps the horizon
 * level, as people do. With either direction straight up or down, yaw is undefined: the shortest arc is
 * used. `scratch` needs 14 slots from `so`.
 */
export function lookRotation(
  out: Float64Array,
  o: number,
  from: Float64Array,
  fo: number,
  to: Float64Array,
  t: number,
  up: Float64Array,
  uo: number,
  scratch: Float64Array,
  so: number,
): void {
  const ux = up[uo],
    uy = up[uo + 1],
    uz = up[uo + 2];
  const fu = from[fo] * ux + from[fo + 1] * uy + from[fo + 2] * uz;
  const tu = to[t] * ux + to[t + 1] * uy + to[t + 2] * uz;
  const s = scratch;
  s[so] = from[fo] - fu * ux;
  s[so + 1] = from[fo + 1] - fu * uy;
  s[so + 2] = from[fo + 2] - fu * uz;
  s[so + 3] = to[t] - tu * ux;
  s[so + 4] = to[t + 1] - tu * uy;
  s[so + 5] = to[t + 2] - tu * uz;
  const flat = s[so] * s[so] + s[so + 1] * s[so + 1] + s[so + 2] * s[so + 2];
  const flatTo = s[so + 3] * s[so + 3] + s[so + 4] * s[so + 4] + s[so + 5] * s[so + 5];
  if (!(flat > 1e-12 && flatTo > 1e-12)) {
    quatFromUnitVectors(out, o, from, fo, to, t);
    return;
  }
  // Yaw: the signed angle between the two horizontal parts, about up.
  const cx = s[so + 1] * s[so + 5] - s[so + 2] * s[so + 4],
    cy = s[so + 2] * s[so + 3] - s[so] * s[so + 5],
    cz = s[so] * s[so + 4] - s[so + 1] * s[so + 3];
  const dot = s[so] * s[so + 3] + s[so + 1] * s[so + 4] + s[so + 2] * s[so + 5];
  s[so + 6] = Math.atan2(cx * ux + cy * uy + cz * uz, dot);
  quatAxisAngle(s, so + 7, up, uo, s, so + 6);
  quatRotate(s, so + 11, s, so + 7, from, fo);
  normalize3(s, so + 11, s, so + 11);
  // Pitch: from the yawed gaze to the target, about a horizontal axis (both lie in one vertical plane).
  quatFromUnitVectors(out, o, s, so + 11, to, t);
  quatMultiply(out, o, out, o, s, so + 7);
}
