import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { DT, GROUND_LEVEL, HEAD, HEADING, LEFT } from "./trackedSlots.js";

/*
 * TrackedSteps' state (one Float64Array): each foot's slots, then the slots both feet share, and the measure
 * taken on it. Its own file so that the flight (trackedFlight.ts) works on the same state.
 */

/**
 * A foot further than this many leg lengths from its place, or hips this far above their standing height over
 * the feet's ground, were moved there (a teleport, a lost frame): the feet are put on the ground at once.
 */
export const TELEPORT = 3;

/* Slots of one foot's state (FOOT_SIZE numbers per foot). */
export const POS = 0; // where the foot is now
export const DIR = 3; // which way it points (unit, square to up)
export const FROM = 6;
export const FROM_DIR = 9;
export const TO = 12;
export const TO_DIR = 15;
export const PHASE = 18; // 0..1 through a step
export const DURATION = 19;
export const LIFT = 20;
export const STEPPING = 21; // 1 while in the air
export const WANT = 22; // where it would stand under the hips
export const GROUND = 25; // the ground the step lands on: a point, then its normal (see TrackedGround)
export const CAST_AT = 31; // where that ground was cast
export const LEVEL = 34; // the ground's height under the foot (along up, without the lift)
export const FROM_LEVEL = 35;
export const TO_LEVEL = 36;
export const NORMAL = 37; // the ground's normal the sole is turned to
export const FROM_NORMAL = 40;
export const SHIFT = 43; // how far the landing was moved off an edge
export const BARE = 46; // 1 when the mesh the planted foot stood on is gone
export const FOOT_SIZE = 47;
/* Slots shared by both feet, after them. */
/** A third foot's slots for the dry casts (see `_cast`): written, never read. */
export const DRY = 2 * FOOT_SIZE;
export const VELOCITY = 3 * FOOT_SIZE;
export const LAST_HIPS = VELOCITY + 3;
export const UP = LAST_HIPS + 3;
export const TMP = UP + 3;
/** The hips' ground speed, and a result slot (doubles returned from calls are boxed; slots are not). */
export const SPEED = TMP + 3;
export const RESULT = SPEED + 1;
/** Where a landing foot's toes reach, and the ground there. */
export const TOE = RESULT + 1;
export const TOE_GROUND = TOE + 3;
/** A cast's range: the ground's height it starts from, how far above and below it the ray reaches. */
export const RANGE = TOE_GROUND + 6;
/** How far a planted foot's ground mesh carried it this frame. */
export const CARRY = RANGE + 3;
/**
 * The flight (trackedFlight.ts): 1 while the body is off the ground, 1 on the frame it lands, where the hips
 * stood at their standing height when it took off, their height and upward speed, 1 once they fell, and
 * for how long (s) they have moved up or down slowly.
 */
export const AIRBORNE = CARRY + 3;
export const LANDS = AIRBORNE + 1;
export const TAKE_OFF_HIPS = LANDS + 1;
export const HIPS_HEIGHT = TAKE_OFF_HIPS + 3;
export const CLIMB = HIPS_HEIGHT + 1;
export const FELL = CLIMB + 1;
export const STILL = FELL + 1;
/** Seconds the hips have rested upright, and what it does to a planted foot's call to step (see `rest`). */
export const RESTING = STILL + 1;
export const SETTLE = RESTING + 1;
export const STATE_SIZE = SETTLE + 1;

/*
 * Distances go into s[RESULT] rather than being returned: a double returned from a call V8 does not inline is
 * boxed, an allocation a frame.
 */

/** Distance from `s[a..]` to `s[b..]` along the ground, into `s[RESULT]`. */
export function horizontal(s: Float64Array, a: number, b: number): void {
  const x = s[a] - s[b],
    y = s[a + 1] - s[b + 1],
    z = s[a + 2] - s[b + 2];
  const u = x * s[UP] + y * s[UP + 1] + z * s[UP + 2];
  s[RESULT] = Math.sqrt(Math.max(0, x * x + y * y + z * z - u * u));
}

/** Hips slower than this (leg lengths a second), within `UPRIGHT` leg lengths of standing height, rest. */
const REST_SPEED = 0.1;
const UPRIGHT = 0.1;
/** Seconds of rest after which a planted foot this share of `stepDistance` from its place steps back to it. */
const SETTLE_TIME = 0.5;
const SETTLE_SHARE = 0.4;

/**
 * A body that stops walking with its feet apart (a stride's length, fore and aft) stands lower than it stood:
 * each leg reaches out to its foot. Once the hips (`s[SPEED]`, `s[HIPS_HEIGHT]` as placed this frame) have
 * rested upright `SETTLE_TIME`, `s[SETTLE]`, the factor a planted foot's distance from its place (a share of
 * `stepDistance`) is scaled by in the call to step, goes from 1 to 1 / `SETTLE_SHARE`: a foot `SETTLE_SHARE`
 * of the way steps back under the hips, as a person brings the trailing foot up. Down in a crouch or a bow it
 * stays 1: the feet stay planted.
 */
export function rest(s: Float64Array, v: Float64Array, body: TrackedBodyRig): void {
  const leg = body.legLength;
  const upright = s[HIPS_HEIGHT] - v[GROUND_LEVEL] - body.standHips > -UPRIGHT * leg;
  s[RESTING] = s[SPEED] < REST_SPEED * leg && upright ? s[RESTING] + v[DT] : 0;
  s[SETTLE] = s[RESTING] > SETTLE_TIME ? 1 / SETTLE_SHARE : 1;
}

/**
 * The midpoint of the feet (steps' state `s`) into `out[o..o+2]`; before the first step (`started` false), where
 * they would stand at rest under the head `v[HEAD]`; the ground's height under them into `v[GROUND_LEVEL]`.
 */
export function feetMidpoint(
  s: Float64Array,
  started: boolean,
  body: TrackedBodyRig,
  out: Float64Array,
  o: number,
  v: Float64Array,
): void {
  const hf = body.headFromHips,
    ff = body.footFromHips;
  const f = hf[0] - (ff[0] + ff[3]) / 2,
    l = hf[2] - (ff[2] + ff[5]) / 2;
  for (let k = 0; k < 3; k++) {
    out[o + k] = started
      ? (s[POS + k] + s[FOOT_SIZE + POS + k]) / 2
      : v[HEAD + k] - f * v[HEADING + k] - l * v[LEFT + k];
  }
  // The mean of the feet's: the higher foot's would lift the hips out of the lower leg's reach (a planted
  // foot lifted off a slope).
  v[GROUND_LEVEL] = started ? (s[LEVEL] + s[FOOT_SIZE + LEVEL]) / 2 : 0;
}
