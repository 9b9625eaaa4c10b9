import { HUMANOID_RANGES } from "../rig/index.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { turnAboutUp } from "./trackedMath.js";
import { APPLIED, GROUND_LEVEL, HEAD, HEADING, HIPS_POS, LEFT } from "./trackedSlots.js";

/**
 * A foot points at most this far (radians) from the body's heading: a leg twists about 40° at the hip and the
 * foot turns about 15° more at the ankle; past that, a planted foot pivots on its ankle instead.
 */
const MOST_TWIST = 0.9;
/** The whole of the turn beyond `MOST_TWIST` (read from an array: see turnAboutUp). */
const WHOLE = new Float64Array([1]);
/** A foot in the air is kept within this much of its leg's length from its hip joint. */
const SWING_REACH = 0.995;
/** ... and no further across the body's midline than this times its hip joint's height above it. */
const MOST_ACROSS = Math.tan((HUMANOID_RANGES.upperLeg.in * Math.PI) / 180);

/*
 * A foot within what its leg reaches: turned no further from the heading than the leg twists, and, in the
 * air, placed no further across the midline or away from its hip joint than the leg swings; and how far a
 * planted leg would stretch to hips standing under the head (it steps when too far).
 */

/**
 * Foot `i`'s target `v[feet + 7i]`, while the foot is in the air, brought toward where its leg reaches from
 * its hip joint (the hips as placed, `v[HIPS_POS]`, turned to the heading): no further across the body's
 * midline than the hip swings, and along the ground no further than the leg reaches; by sin(π · the step's
 * phase `s[phase]`; a slot: a double passed to a call V8 does not inline is boxed), so the foot still lifts
 * off and lands where its step says, and less a foot tracker's applied weight. A step's path runs straight
 * along the ground from lift-off to landing, and a body spinning faster than the step (a pirouette) carries
 * the hips round while that path cuts under the other leg: the leg was stretched across the body, out of its
 * reach, its knee turned to the side.
 */
export function swingWithinReach(
  v: Float64Array,
  body: TrackedBodyRig,
  feet: number,
  i: number,
  s: Float64Array,
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
  const w = Math.sin(Math.PI * s[phase]) * (1 - v[APPLIED + 4 + i]);
  const df = w * (f * k0 - f),
    dl = w * (nl * k0 - l);
  for (let k = 0; k < 3; k++) v[o + k] += df * v[HEADING + k] + dl * out * v[LEFT + k];
}

/**
 * A foot's way `s[dir..dir+2]` (unit, square to the unit up `s[up..]`) turned about up, on its ankle, until it
 * points within `MOST_TWIST` of the heading `v[HEADING]`: a body spinning on one foot while the other steps
 * round (a pirouette) would otherwise twist the planted leg past its limits, its knee bending against its
 * foot; and a foot in the air, turning from where it lifted off to the heading at the step's pace, falls
 * behind a fast spin the same way.
 */
export function pivotFoot(s: Float64Array, dir: number, up: number, v: Float64Array): void {
  turnAboutUp(s, dir, v, HEADING, s, up, WHOLE, 0, MOST_TWIST);
}

/**
 * `s[out]`: how far beyond its standing span (a fraction of it) leg `i` would stretch from its planted foot
 * `s[pos..]` to a hip joint standing as at rest under the head `v[HEAD]` (the hips on the ground in
 * `s[hips..]`, up `s[up..]`); negative within it, and -1 while the head is not above its standing height over
 * the feet's ground `v[GROUND_LEVEL]` (in a slot: a double returned from a call V8 does not inline is boxed).
 */
export function legStretch(
  s: Float64Array,
  pos: number,
  hips: number,
  up: number,
  out: number,
  v: Float64Array,
  body: TrackedBodyRig,
  i: number,
): void {
  const h = body.hipFromHips;
  const head = v[HEAD] * s[up] + v[HEAD + 1] * s[up + 1] + v[HEAD + 2] * s[up + 2];
  const hipUp = head - body.standHead + body.standHips + h[3 * i + 1];
  // Only a head higher than standing over the feet's ground asks it (up a slope or a step): a head lower
  // than that lowers the hips instead (a crouch, a bow, a fall), and the other triggers step for it.
  if (!(hipUp > body.standHips + h[3 * i + 1] + v[GROUND_LEVEL])) {
    s[out] = -1;
    return;
  }
  let d2 = 0;
  for (let k = 0; k < 3; k++) {
    const d =
      s[hips + k] + h[3 * i] * v[HEADING + k] + h[3 * i + 2] * v[LEFT + k] + hipUp * s[up + k] - s[pos + k];
    d2 += d * d;
  }
  s[out] = Math.sqrt(d2) / (body.standHips + h[3 * i + 1] - body.footHeight[i]) - 1;
}
