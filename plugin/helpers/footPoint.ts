import { quatRotate } from "../rig/index.js";
import type { ResolvedLeg } from "./footLegs.js";

/**
 * Into `out[o..o+2]`: where the leg's foot is, in model space, on a pose (model-space `positions` and unit
 * `orientations` per joint): the foot joint, or for a leg placed by where its last bone ends (a hoof at the
 * glTF `_end` site of the lower leg), that point, carried by the bone's orientation.
 */
export function footPoint(
  leg: ResolvedLeg,
  positions: Float64Array,
  orientations: Float64Array,
  out: Float64Array,
  o: number,
): void {
  const f = 3 * leg.foot;
  const site = leg.site;
  if (site === null) {
    out[o] = positions[f];
    out[o + 1] = positions[f + 1];
    out[o + 2] = positions[f + 2];
    return;
  }
  quatRotate(out, o, orientations, 4 * leg.foot, site, 0);
  out[o] += positions[f];
  out[o + 1] += positions[f + 1];
  out[o + 2] += positions[f + 2];
}
