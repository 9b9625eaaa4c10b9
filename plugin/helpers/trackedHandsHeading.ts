import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { removeAlong, turnAbout, unit3 } from "./trackedMath.js";
import {
  APPLIED,
  B,
  C,
  HANDS_HEADING,
  HEAD,
  HEAD_HEADING,
  LEFT_HAND,
  RIGHT_HAND,
  VALID,
} from "./trackedSlots.js";

/**
 * Hands whose midpoint is less than this far ahead of the head (a fraction of the head's standing height) say
 * nothing of the chest's way (arms hanging, hands at the sides or behind); from twice as far they count fully.
 */
const HANDS_AHEAD = 0.1;
/**
 * The hands' way counts fully within this angle (radians) of the head's, and not at all beyond `HANDS_OFF`:
 * a neck turns the head about this far from the chest, and hands far to one side are reaching, not facing.
 */
const HANDS_AGREE = Math.PI / 4;
const HANDS_OFF = (5 * Math.PI) / 12;
const COS_AGREE = Math.cos(HANDS_AGREE);
const COS_OFF = Math.cos(HANDS_OFF);

/**
 * Turns the head's heading `v[HEAD_HEADING]` toward the way the hands say the chest faces, by the share in
 * `v[C]` (settings.handsTurn): the
 * direction on the ground from the head to the hands' midpoint, `v[HANDS_HEADING]`. A player looking around
 * with the hands held before them turns the head, not the chest. The hands count by their applied
 * weights, by how far ahead of the head they are and by how near their way is to the head's: hands at the
 * sides or behind, far to one side or lost leave the head's heading as it is.
 */
export function blendHandsHeading(v: Float64Array, body: TrackedBodyRig): void {
  // The share comes in v[C] (read from the settings where that read is optimized: a double field read in
  // code V8 has not optimized is boxed, an allocation a frame).
  if (!(v[C] > 0) || v[VALID + 1] !== 1 || v[VALID + 2] !== 1) return;
  const share = v[C];
  const hands = Math.min(v[APPLIED + 1], v[APPLIED + 2]);
  if (!(hands > 0)) return;
  const up = body.frame;
  for (let k = 0; k < 3; k++) {
    v[HANDS_HEADING + k] = (v[LEFT_HAND + k] + v[RIGHT_HAND + k]) / 2 - v[HEAD + k];
    v[B + k] = up[3 + k];
  }
  removeAlong(v, HANDS_HEADING, B);
  // Dot products written out: a double returned from a call V8 does not inline is boxed.
  const h = HANDS_HEADING,
    d = HEAD_HEADING;
  const ahead = (v[h] * v[d] + v[h + 1] * v[d + 1] + v[h + 2] * v[d + 2]) / body.standHead;
  const byAhead = ahead <= HANDS_AHEAD ? 0 : ahead >= 2 * HANDS_AHEAD ? 1 : ahead / HANDS_AHEAD - 1;
  if (!(byAhead > 0) || !unit3(v, HANDS_HEADING)) return;
  const agree = v[h] * v[d] + v[h + 1] * v[d + 1] + v[h + 2] * v[d + 2];
  const byAgree = agree >= COS_AGREE ? 1 : agree <= COS_OFF ? 0 : (agree - COS_OFF) / (COS_AGREE - COS_OFF);
  v[C] = share * hands * byAhead * byAgree;
  if (!(v[C] > 0)) return;
  turnAbout(v, HEAD_HEADING, HANDS_HEADING, up, 3, C);
}
