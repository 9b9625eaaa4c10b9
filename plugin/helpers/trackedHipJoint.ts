import { quatRotate } from "../rig/index.js";
import { BODY_WEIGHT, HEADING, HIPS_POS, LEFT } from "./trackedSlots.js";

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

/** What `hipsJointPlace` needs of the avatar: where its pelvis lies from its hips joint (TrackedBodyRig). */
interface Pelvis {
  readonly pelvis: Float64Array;
  readonly pelvisApart: boolean;
}

const offsets = new Float64Array(6);

/**
 * The hips joint's place into `out[o..o+2]` once the pelvis has moved `v[BODY_WEIGHT]` of the way from where
 * the joint at `pos[po..]`, turned `rot[ro..]`, carries it to `v[HIPS_POS]`, the joint turned to
 * `turned[to..]` (model space): the pelvis placed, the joint follows, even a root on the ground below it.
 */
export function hipsJointPlace(
  v: Float64Array,
  body: Pelvis,
  pos: Float64Array,
  po: number,
  rot: Float64Array,
  ro: number,
  turned: Float64Array,
  to: number,
  out: Float64Array,
  o: number,
): void {
  const w = v[BODY_WEIGHT];
  if (!body.pelvisApart) {
    for (let k = 0; k < 3; k++) out[o + k] = pos[po + k] + (v[HIPS_POS + k] - pos[po + k]) * w;
    return;
  }
  quatRotate(offsets, 0, rot, ro, body.pelvis, 0);
  quatRotate(offsets, 3, turned, to, body.pelvis, 0);
  for (let k = 0; k < 3; k++) {
    const now = pos[po + k] + offsets[k];
    out[o + k] = now + (v[HIPS_POS + k] - now) * w - offsets[3 + k];
  }
}
