import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { DT, GROUND_LEVEL, HIPS_POS } from "./trackedSlots.js";
import {
  AIRBORNE,
  CLIMB,
  FELL,
  FOOT_SIZE,
  FROM,
  HIPS_HEIGHT,
  LANDS,
  PHASE,
  POS,
  STEPPING,
  STILL,
  TAKE_OFF_HIPS,
  TELEPORT,
  UP,
  WANT,
} from "./trackedStepState.js";

/**
 * A jump takes off when the hips rise this fraction of the leg's length above their standing height over the
 * ground (a head bobbing on a walk, or on tiptoe, lifts them by less) ...
 */
const TAKE_OFF = 0.02;
/**
 * ... going up at least this many leg lengths a second (a hop of a tenth of the leg leaves the ground at
 * about 1.5): walking up a slope or a stair lifts the head about as high, several times slower, and the feet
 * step up instead.
 */
const TAKE_OFF_SPEED = 1;
/** The feet land once the hips are back within this fraction of the leg's length of their standing height. */
const LAND = 0.01;
/**
 * ... or once the hips, having fallen faster than this fraction of `TAKE_OFF_SPEED`, stop falling (the feet
 * met higher ground), or have moved up or down slower than that for `HANG` seconds (lifted, not jumping).
 */
const FALL = 0.25;
const HANG = 0.2;

/** Seconds over which the feet in the air swing from where they took off to under the hips. */
const TUCK_TIME = 0.1;

/**
 * The hips' height and upward speed (`v[HIPS_POS]` as placed this frame), into the feet's state `s`; true when
 * they stand `TELEPORT` leg lengths or more above their standing height over the feet's ground (a teleport up:
 * the feet are put on the ground under the head at once, as after one along the ground).
 */
export function climb(s: Float64Array, v: Float64Array, body: TrackedBodyRig): boolean {
  const height = v[HIPS_POS] * s[UP] + v[HIPS_POS + 1] * s[UP + 1] + v[HIPS_POS + 2] * s[UP + 2];
  s[CLIMB] = v[DT] > 0 ? (height - s[HIPS_HEIGHT]) / v[DT] : 0;
  s[HIPS_HEIGHT] = height;
  return height - v[GROUND_LEVEL] - body.standHips > TELEPORT * body.legLength;
}

/**
 * A jump, on the feet's state `s` (trackedStepState.ts): a head rising above its standing height lifts the
 * hips with it (placeHips), and once they rise fast above their standing height over the ground, both feet
 * leave it (rising slowly, the hips are held at that height): carried with the hips, they swing in from where
 * they took off to where they stand at rest under the hips (over `TUCK_TIME`). `s[LANDS]` is 1 on the frame
 * the feet land: the hips back at their standing height over the ground they left, done falling (a jump onto
 * a box), or hanging still (carried up); the steps then plant them on the ground under where they are
 * (TrackedSteps).
 */
export function fly(s: Float64Array, v: Float64Array, body: TrackedBodyRig): void {
  const leg = body.legLength;
  const rise = s[HIPS_HEIGHT] - v[GROUND_LEVEL] - body.standHips;
  s[LANDS] = 0;
  if (s[AIRBORNE] !== 1) {
    if (!(rise > TAKE_OFF * leg && s[CLIMB] > TAKE_OFF_SPEED * leg)) {
      // On the ground the hips stand no higher than standing: the planted legs would be pulled off their feet.
      if (rise > 0) for (let k = 0; k < 3; k++) v[HIPS_POS + k] -= rise * s[UP + k];
      return;
    }
    s[AIRBORNE] = 1;
    s[FELL] = 0;
    s[STILL] = 0;
    for (let k = 0; k < 3; k++) s[TAKE_OFF_HIPS + k] = v[HIPS_POS + k] - rise * s[UP + k];
    for (let i = 0; i < 2; i++) {
      const b = i * FOOT_SIZE;
      for (let k = 0; k < 3; k++) s[b + FROM + k] = s[b + POS + k];
      s[b + STEPPING] = 1;
      s[b + PHASE] = 0;
    }
  }
  const slow = FALL * TAKE_OFF_SPEED * leg;
  if (s[CLIMB] < -slow) s[FELL] = 1;
  s[STILL] = Math.abs(s[CLIMB]) < slow ? s[STILL] + v[DT] : 0;
  if (!(rise > LAND * leg) || (s[FELL] === 1 && s[CLIMB] >= 0) || s[STILL] > HANG) s[LANDS] = 1;
  // The feet swing in under the hips to land where they stand at rest below them.
  const tuck = 1 - Math.exp(-v[DT] / TUCK_TIME);
  for (let i = 0; i < 2; i++) {
    const b = i * FOOT_SIZE;
    for (let k = 0; k < 3; k++) {
      const carry = v[HIPS_POS + k] - s[TAKE_OFF_HIPS + k];
      s[b + FROM + k] += (s[b + WANT + k] + rise * s[UP + k] - carry - s[b + FROM + k]) * tuck;
      s[b + POS + k] = s[b + FROM + k] + carry;
    }
  }
}
