import { quatMultiply, quatMultiplyConjugate, quatRotate } from "../rig/index.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { HEAD_SPAN } from "./trackedHips.js";
import { cross3, frameQuaternion, slerp4 } from "./trackedMath.js";
import {
  A,
  APPLIED,
  B,
  C,
  FOOT_TARGET,
  FRAME_SCRATCH,
  HAND_TARGET,
  HEAD,
  HEAD_TARGET,
  HIPS_POS,
  HIPS_ROT,
  LEFT_FOOT_TRACKER,
  LEFT_HAND,
  Q1,
  Q2,
  Q3,
} from "./trackedSlots.js";

/*
 * The effectors' goals in model space, from the trackers read into `v`: the head and the hands take their
 * trackers' places and rotations, mapped onto the avatar's own rest frames; the feet stand where the steps
 * put them.
 */

/**
 * `v[HEAD_TARGET]`: the head tracker's place and the head's orientation: the rest head turned as the tracker
 * turned from facing the avatar's forward, level. False when the tracker's frame is degenerate.
 */
export function headTarget(v: Float64Array, body: TrackedBodyRig): boolean {
  if (!frameQuaternion(v, Q2, v, HEAD + 3, HEAD + 6, FRAME_SCRATCH)) return false;
  quatMultiplyConjugate(v, Q3, v, Q2, body.restFrames, 0);
  for (let k = 0; k < 3; k++) v[HEAD_TARGET + k] = v[HEAD + k];
  quatMultiply(v, HEAD_TARGET + 3, v, Q3, body.rest, 4);
  return true;
}

/**
 * Brings `v[HEAD_TARGET]` within `HEAD_SPAN` of the head chain's length from the chain's base, as the hips
 * `v[HIPS_POS]`, `v[HIPS_ROT]` carry it: along the line from the base, so the head still leans the
 * tracker's way and the solve converges instead of stalling out of reach (what `raiseForHead` could not
 * bring in by raising the hips).
 */
export function headWithinReach(v: Float64Array, body: TrackedBodyRig): void {
  quatRotate(v, A, v, HIPS_ROT, body.spineBase, 0);
  let d2 = 0;
  for (let k = 0; k < 3; k++) {
    v[A + k] = v[HEAD_TARGET + k] - v[HIPS_POS + k] - v[A + k];
    d2 += v[A + k] * v[A + k];
  }
  const most = HEAD_SPAN * body.spineReach;
  if (!(d2 > most * most)) return;
  const pull = 1 - most / Math.sqrt(d2);
  for (let k = 0; k < 3; k++) v[HEAD_TARGET + k] -= pull * v[A + k];
}

/**
 * `v[HAND_TARGET + 7i]`: hand `i`'s tracker place and the hand's orientation. A controller held ahead points
 * forward with the palm facing in: the hand's rest pointing axis goes to the controller's forward and the
 * back of the hand (up in the rest pose) to the controller's outer side. False when degenerate.
 */
export function handTarget(v: Float64Array, body: TrackedBodyRig, i: number): boolean {
  const t = LEFT_HAND + 9 * i;
  if (body.handFramed[i] !== 1) return false;
  // The controller's outer side: its left (up × forward) on the left hand, its right on the right.
  cross3(v, C, t + 6, t + 3);
  const out = body.sides[i].out;
  for (let k = 0; k < 3; k++) v[C + k] *= out;
  if (!frameQuaternion(v, Q2, v, t + 3, C, FRAME_SCRATCH)) return false;
  quatMultiplyConjugate(v, Q3, v, Q2, body.restFrames, 4 + 4 * i);
  const o = HAND_TARGET + 7 * i;
  for (let k = 0; k < 3; k++) v[o + k] = v[t + k];
  quatMultiply(v, o + 3, v, Q3, body.rest, 8 + 4 * i);
  return true;
}

/**
 * `v[FOOT_TARGET + 7i]` from the steps' `v[C..C+5]` (place, then direction): the rest foot turned about up
 * from the body's forward to the foot's direction.
 */
export function footTarget(v: Float64Array, body: TrackedBodyRig, i: number): void {
  const o = FOOT_TARGET + 7 * i;
  for (let k = 0; k < 3; k++) {
    v[o + k] = v[C + k];
    v[A + k] = v[C + 3 + k];
    v[B + k] = body.frame[3 + k];
  }
  if (frameQuaternion(v, Q2, v, A, B, FRAME_SCRATCH)) {
    quatMultiplyConjugate(v, Q3, v, Q2, body.restFrames, 0);
    quatMultiply(v, o + 3, v, Q3, body.rest, 16 + 4 * i);
  } else {
    for (let k = 0; k < 4; k++) v[o + 3 + k] = body.rest[16 + 4 * i + k];
  }
}

/**
 * With a foot tracker of applied weight `w = v[APPLIED + 4 + i]`: `v[FOOT_TARGET + 7i]` moves that far toward
 * the tracker's place, and its rotation toward the rest foot turned as the tracker turned from the body's
 * forward, level.
 */
export function trackedFoot(v: Float64Array, body: TrackedBodyRig, i: number): void {
  const t = LEFT_FOOT_TRACKER + 9 * i,
    o = FOOT_TARGET + 7 * i,
    w = v[APPLIED + 4 + i];
  if (!frameQuaternion(v, Q2, v, t + 3, t + 6, FRAME_SCRATCH)) return;
  quatMultiplyConjugate(v, Q3, v, Q2, body.restFrames, 0);
  quatMultiply(v, Q1, v, Q3, body.rest, 16 + 4 * i);
  slerp4(v, o + 3, v, o + 3, Q1, v, APPLIED + 4 + i);
  for (let k = 0; k < 3; k++) v[o + k] += (v[t + k] - v[o + k]) * w;
}
