import { HUMANOID_RANGES } from "../rig/index.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { APPLIED, HEADING, HIPS_POS, LEFT } from "./trackedSlots.js";

/** A foot in the air is kept within this much of its leg's length from its hip joint. */
const SWING_REACH = 0.995;
/** ... and no further across the body's midline than this times its hip joint's height above it. */
const MOST_ACROSS = Math.tan((HUMANOID_RANGES.upperLeg.in * Math.PI) / 180);

/**
 * Foot `i`'s target `v[feet + 7i]`, while the foot is in the air, brought toward where its leg reaches from
 * its hip joint (the hips as placed, `v[HIPS_POS]`, turned to the heading): no further across the body's
 * midline than the hip swings, and along the ground no further than the leg reaches; by sin(π · `phase`), so
 * the foot still lifts off and lands where its step says, and less a foot tracker's applied weight. A step's
 * path runs straight along the ground from lift-off to landing, and a body spinning faster than the step (a
 * pirouette) carries the hips round while that path cuts under the other leg: the leg was stretched across
 * the body, out of its reach, its knee turned to the side.
 */
export function swingWithinReach(
  v: Float64Array,
  body: TrackedBodyRig,
  feet: number,
  i: number,
  phase: number,
): void {
  const hp = body.hipFromHips,
    up = body.frame,
    out = body.sides[i].out,
    o = feet + 7 * i;
  let h = 0,
    f = 0,
    l = 0;
  for (let k = 0; k < 3; k++) {
    const hip =
      v[HIPS_POS + k] + hp[3 * i] * v[HEADING + k] + hp[3 * i + 1] * up[3 + k] + hp[3 * i + 2] * v[LEFT + k];
    const d = v[o + k] - hip;
    h -= d * up[3 + k];
    f += d * v[HEADING + k];
    l += d * v[LEFT + k] * out;
  }
  const reach = SWING_REACH * body.legLength;
  if (!(h > 0 && h < reach)) return;
  const nl = Math.max(l, -h * MOST_ACROSS);
  const most = Math.sqrt(reach * reach - h * h),
    across = Math.sqrt(f * f + nl * nl);
  // Shortened to the reach (branch-free: run every frame, see TrackedSteps.swing).
  const k0 = most / Math.max(most, across);
  const w = Math.sin(Math.PI * phase) * (1 - v[APPLIED + 4 + i]);
  const df = w * (f * k0 - f),
    dl = w * (nl * k0 - l);
  for (let k = 0; k < 3; k++) v[o + k] += df * v[HEADING + k] + dl * out * v[LEFT + k];
}
