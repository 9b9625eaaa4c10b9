import { HEADING, HIPS_POS, LEFT } from "./trackedSlots.js";

/** What `hipLessFoot` needs of the avatar: its rest frame (forward, up, left) and hip joints. */
interface HipJoints {
  readonly frame: Float64Array;
  /** Per side: the hip joint minus the hips at rest (forward, up, left). */
  readonly hipFromHips: Float64Array;
}

/**
 * Leg `i`'s hip joint, carried from the hips `v[HIPS_POS]` by the heading (`v[HEADING]`, `v[LEFT]`, up),
 * less the foot at `v[foot..foot+2]`, into `out[o..o+2]`: how a leg stands over its foot (the hips placed,
 * held within the legs' reach, sat down behind the feet).
 */
export function hipLessFoot(
  v: Float64Array,
  body: HipJoints,
  i: number,
  foot: number,
  out: Float64Array,
  o: number,
): void {
  const up = body.frame,
    h = body.hipFromHips;
  for (let k = 0; k < 3; k++) {
    out[o + k] =
      v[HIPS_POS + k] +
      h[3 * i] * v[HEADING + k] +
      h[3 * i + 1] * up[3 + k] +
      h[3 * i + 2] * v[LEFT + k] -
      v[foot + k];
  }
}
