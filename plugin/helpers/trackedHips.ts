import type { FabrikFrame } from "../babylon/index.js";
import {
  HUMANOID_RANGES,
  quatAxisAngle,
  quatConjugateMultiply,
  quatMultiply,
  quatMultiplyConjugate,
  quatRotate,
} from "../rig/index.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import type { TrackedBodySettings } from "./trackedBodyOptions.js";
import { hipLessFoot, hipsJointPlace } from "./trackedHipJoint.js";
import { floorDepth, floorPitch, leanBack, sitBack } from "./trackedFloor.js";
import { cross3, frameQuaternion, removeAlong, slerp4, turnAbout, unit3 } from "./trackedMath.js";
import {
  A,
  APPLIED,
  B,
  BODY_WEIGHT,
  C,
  FLOOR,
  FRAME_SCRATCH,
  GROUND_LEVEL,
  HEAD,
  HEAD_HEADING,
  HEADING,
  HIPS_FREE,
  HIPS_POS,
  HIPS_ROT,
  HIPS_TRACKER,
  LEAN,
  LEAN_DIR,
  LEFT,
  Q1,
  Q2,
  SPINE_SPAN as SPINE_SPAN_SLOT,
  SUPPORT,
  VALID,
  YAW,
} from "./trackedSlots.js";

/**
 * The fraction of its length an upright spine is given to span: a chain stretched straight to its target is
 * FABRIK's slowest case, and a little slack costs a few millimetres of crouch.
 */
const SPINE_SPAN = 0.98;
/**
 * A head less than this fraction of the spine's length below its standing height counts as upright: the hips
 * walk under it; at twice that drop the hips take only `hipsFollow` of its offset.
 */
const UPRIGHT_DROP = 0.1;
/** How much shorter than its length a spine leaning fully forward spans. */
const CURL = 0.12;
/** The spine leans at most this far from up (radians): beyond, the head is out of reach and the hips stay. */
const MOST_LEAN = 1.45;

/**
 * The way the head faces, flattened onto the ground, into `v[HEAD_HEADING]`: its forward, or when it looks
 * straight down (or up) its up (or down), which then points the way the face does. False when it cannot
 * tell (the head lies on its side looking straight up or down): the heading is kept.
 */
export function headHeading(v: Float64Array, body: TrackedBodyRig): boolean {
  const up = body.frame;
  const lookUp = v[HEAD + 3] * up[3] + v[HEAD + 4] * up[4] + v[HEAD + 5] * up[5];
  for (let k = 0; k < 3; k++) v[HEAD_HEADING + k] = v[HEAD + 3 + k] - lookUp * v[HEAD + 6 + k];
  const d = v[HEAD_HEADING] * up[3] + v[HEAD_HEADING + 1] * up[4] + v[HEAD_HEADING + 2] * up[5];
  for (let k = 0; k < 3; k++) v[HEAD_HEADING + k] -= d * up[3 + k];
  return unit3(v, HEAD_HEADING);
}

/**
 * The most the body's heading lags behind the way the head (and hands) face, radians: a neck turns about 70°
 * and a spine twists a little more, so a head spinning faster than the heading's smoothing follows (a dance's
 * pirouette) carries the body round with it instead of leaving the hips, knees and feet facing away.
 */
const MOST_LAG = 1.2;

/** Turns the smoothed heading `v[HEADING]` toward `v[HEAD_HEADING]` until it lags at most `MOST_LAG`. */
function keepUpWithHead(v: Float64Array, body: TrackedBodyRig): void {
  const up = body.frame;
  const px = up[4] * v[HEADING + 2] - up[5] * v[HEADING + 1],
    py = up[5] * v[HEADING] - up[3] * v[HEADING + 2],
    pz = up[3] * v[HEADING + 1] - up[4] * v[HEADING];
  const angle = Math.abs(
    Math.atan2(
      px * v[HEAD_HEADING] + py * v[HEAD_HEADING + 1] + pz * v[HEAD_HEADING + 2],
      v[HEADING] * v[HEAD_HEADING] +
        v[HEADING + 1] * v[HEAD_HEADING + 1] +
        v[HEADING + 2] * v[HEAD_HEADING + 2],
    ),
  );
  if (!(angle > MOST_LAG)) return;
  v[A] = 1 - MOST_LAG / angle;
  turnAbout(v, HEADING, HEAD_HEADING, up, 3, A);
}

/**
 * `v[YAW]`: the turn about up from the rest body frame to the heading `v[HEADING]` (first brought within
 * `MOST_LAG` of `v[HEAD_HEADING]`); `v[LEFT]` the heading's left.
 */
export function headingTurn(v: Float64Array, body: TrackedBodyRig): void {
  keepUpWithHead(v, body);
  const f = body.frame;
  for (let k = 0; k < 3; k++) v[B + k] = f[3 + k];
  frameQuaternion(v, Q2, v, HEADING, B, FRAME_SCRATCH);
  quatMultiplyConjugate(v, YAW, v, Q2, body.restFrames, 0);
  cross3(v, LEFT, B, HEADING);
}

/**
 * The hips' place `v[HIPS_POS]` from the head `v[HEAD]` and the feet's midpoint `v[SUPPORT]`: horizontally,
 * over the feet as they stand at rest, moved by `hipsFollow` of the head's own offset from there (the spine
 * leans over the rest); vertically, a spine's length below the head along the lean, never above standing
 * height but by as much as the head rises above its own (a jump: trackedFlight.ts holds the hips at standing
 * height when it is not one) nor below the pelvis resting on the ground under the feet (`v[GROUND_LEVEL]`); a spine leaning back
 * past what a body on its feet leans brings them after the head (`leanBack`), and `v[FLOOR]` says how far
 * the body is down (trackedFloor.ts). `v[LEAN]` and `v[LEAN_DIR]` say how far and which way the spine leans.
 * `headingTurn` ran first.
 */
export function placeHips(v: Float64Array, body: TrackedBodyRig, settings: TrackedBodySettings): void {
  const up = body.frame;
  const hf = body.headFromHips,
    ff = body.footFromHips;
  // The hips over the feet: the rest hips minus the rest feet's midpoint, in the heading frame.
  const hipsF = -(ff[0] + ff[3]) / 2,
    hipsL = -(ff[2] + ff[5]) / 2;
  // The head's offset from where it stands at rest over those feet, horizontally.
  for (let k = 0; k < 3; k++) {
    v[A + k] =
      v[HEAD + k] - v[SUPPORT + k] - (hipsF + hf[0]) * v[HEADING + k] - (hipsL + hf[2]) * v[LEFT + k];
  }
  for (let k = 0; k < 3; k++) v[B + k] = up[3 + k];
  removeAlong(v, A, B);
  // A head near its standing height cannot lean without coming down: the body walks under it instead, so
  // the hips follow it fully; the lower the head, the more the spine leans over the hips instead.
  const headHeight = v[HEAD] * up[3] + v[HEAD + 1] * up[4] + v[HEAD + 2] * up[5];
  const drop = (body.standHead - headHeight) / body.spineLength;
  const upright = drop < UPRIGHT_DROP ? 1 : drop > 2 * UPRIGHT_DROP ? 0 : 2 - drop / UPRIGHT_DROP;
  const follow = settings.hipsFollow + (1 - settings.hipsFollow) * upright;
  for (let k = 0; k < 3; k++) {
    v[HIPS_POS + k] = v[SUPPORT + k] + hipsF * v[HEADING + k] + hipsL * v[LEFT + k] + follow * v[A + k];
  }
  removeAlong(v, HIPS_POS, B);
  // The head's horizontal distance from where it would stand over those hips: the spine's lean.
  for (let k = 0; k < 3; k++) {
    v[LEAN_DIR + k] = v[HEAD + k] - v[HIPS_POS + k] - hf[0] * v[HEADING + k] - hf[2] * v[LEFT + k];
  }
  removeAlong(v, LEAN_DIR, B);
  const reach = Math.sqrt(
    v[LEAN_DIR] * v[LEAN_DIR] + v[LEAN_DIR + 1] * v[LEAN_DIR + 1] + v[LEAN_DIR + 2] * v[LEAN_DIR + 2],
  );
  // A leaning spine curls: it spans a little less than its length, more so the further it leans.
  const spine = body.spineLength * (SPINE_SPAN - CURL * Math.min(1, reach / body.spineLength));
  v[SPINE_SPAN_SLOT] = spine;
  const lean = Math.asin(Math.min(reach / spine, Math.sin(MOST_LEAN)));
  if (!unit3(v, LEAN_DIR)) v[LEAN_DIR] = v[LEAN_DIR + 1] = v[LEAN_DIR + 2] = 0;
  v[LEAN] = lean;
  v[A] = reach;
  leanBack(v, MOST_LEAN);
  let height = headHeight - (hf[1] / body.spineLength) * spine * Math.cos(v[LEAN]);
  // Standing height and the pelvis on the ground the feet stand on.
  const rise = headHeight - v[GROUND_LEVEL] - body.standHead;
  const highest = body.standHips + v[GROUND_LEVEL] + (rise > 0 ? rise : 0),
    lowest = body.floor.sitHips + v[GROUND_LEVEL];
  height = height > highest ? highest : height < lowest ? lowest : height;
  if (!Number.isFinite(height)) height = highest;
  for (let k = 0; k < 3; k++) v[HIPS_POS + k] += height * up[3 + k];
  floorDepth(v, body.floor, up);
}

/**
 * The hips' orientation `v[HIPS_ROT]`: the animated one `q[qo..qo+3]` turned to the heading, then pitched
 * toward the head by `hipsBend` of the spine's lean. `placeHips` ran first.
 */
export function turnHips(
  v: Float64Array,
  body: TrackedBodyRig,
  settings: TrackedBodySettings,
  q: Float64Array,
  qo: number,
): void {
  quatMultiply(v, Q1, v, YAW, q, qo);
  const up = body.frame;
  for (let k = 0; k < 3; k++) v[B + k] = up[3 + k];
  cross3(v, C, B, LEAN_DIR);
  if (unit3(v, C) || v[FLOOR] > 0) {
    v[Q2 + 3] = v[LEAN] * settings.hipsBend;
    floorPitch(v, body);
    quatAxisAngle(v, Q2, v, C, v, Q2 + 3);
    quatMultiply(v, HIPS_ROT, v, Q2, v, Q1);
  } else {
    for (let k = 0; k < 4; k++) v[HIPS_ROT + k] = v[Q1 + k];
  }
}

/** A planted leg is kept this much short of straight: a straight leg cannot take up any more of the hips' motion. */
export const LEG_REACH = 0.995;

/** legSpan's result: the hip joint's height above the foot along up, and the squared distance across. */
const span = new Float64Array(5);
const HEIGHT = 0;
const ACROSS2 = 1;
/** The hip joint less the foot (scratch). */
const D = 2;

/**
 * How leg i's hip joint (carried from `v[HIPS_POS]` by the heading) stands over the foot at `v[foot..]`, into
 * `span` (in an array: a double returned from a call V8 does not inline is boxed).
 */
function legSpan(v: Float64Array, body: TrackedBodyRig, i: number, foot: number): void {
  const up = body.frame;
  hipLessFoot(v, body, i, foot, span, D);
  let r2 = 0,
    height = 0;
  for (let k = 0; k < 3; k++) {
    const d = span[D + k];
    r2 += d * d;
    height += d * up[3 + k];
  }
  span[HEIGHT] = height;
  span[ACROSS2] = Math.max(0, r2 - height * height);
}

/** The hips come down at most this fraction of the leg's length for the legs: a foot further off steps instead. */
const MOST_LEG_DROP = 0.2;

/**
 * Lowers `v[HIPS_POS]` so that each planted foot `v[FOOT_TARGET + 7i]` is within reach of its hip joint
 * (carried from the hips by the heading): a trailing leg in a stride, a foot on a lower spot. A foot in the
 * air (`airborne(i)`) is on its way and does not count. Down on the floor the hips first sit down behind the
 * feet (`sitBack`).
 */
export function lowerForLegs(
  v: Float64Array,
  body: TrackedBodyRig,
  feet: number,
  airborne: (i: number) => boolean,
): void {
  sitBack(v, body, body.floor, feet, airborne);
  const up = body.frame,
    reach = LEG_REACH * body.legLength;
  let drop = 0;
  for (let i = 0; i < 2; i++) {
    if (airborne(i)) continue;
    legSpan(v, body, i, feet + 7 * i);
    const height = span[HEIGHT],
      across2 = span[ACROSS2];
    // A foot further out than the leg reaches anyway is left short: lowering the hips would not help.
    if (across2 >= reach * reach) continue;
    const need = height - Math.sqrt(reach * reach - across2);
    if (need > drop) drop = need;
  }
  if (drop > MOST_LEG_DROP * body.legLength) drop = MOST_LEG_DROP * body.legLength;
  const height = v[HIPS_POS] * up[3] + v[HIPS_POS + 1] * up[4] + v[HIPS_POS + 2] * up[5];
  const most = height - body.floor.sitHips - v[GROUND_LEVEL];
  if (drop > most) drop = most > 0 ? most : 0;
  for (let k = 0; k < 3; k++) v[HIPS_POS + k] -= drop * up[3 + k];
  // A planted foot still out of reach holds the hips back (by `v[HIPS_FREE]`): it would otherwise be dragged
  // along the ground after them (a spin on one foot while the other steps round).
  for (let i = 0; i < 2; i++) {
    if (airborne(i)) continue;
    legSpan(v, body, i, feet + 7 * i);
    const h = span[HEIGHT];
    if (!(h < reach)) continue;
    const across = Math.sqrt(span[ACROSS2]),
      allowed = Math.sqrt(reach * reach - h * h);
    if (!(across > allowed)) continue;
    // Along the ground from the hip joint toward the foot (legSpan's hip: the hips carried by the heading).
    const hp = body.hipFromHips;
    for (let k = 0; k < 3; k++) {
      v[A + k] =
        v[feet + 7 * i + k] -
        v[HIPS_POS + k] -
        hp[3 * i] * v[HEADING + k] -
        hp[3 * i + 1] * up[3 + k] -
        hp[3 * i + 2] * v[LEFT + k];
      v[B + k] = up[3 + k];
    }
    removeAlong(v, A, B);
    if (!unit3(v, A)) continue;
    const shift = (across - allowed) * v[HIPS_FREE];
    for (let k = 0; k < 3; k++) v[HIPS_POS + k] += shift * v[A + k];
  }
  holdAcross(v, body, feet, airborne);
}

/** How far (radians) a leg swings across the body's midline at the hip: the humanoid preset's adduction. */
const MOST_ACROSS = (HUMANOID_RANGES.upperLeg.in * Math.PI) / 180;

/**
 * A planted foot further across the body's midline than its hip swings (the hips turned or carried over to
 * the other side of a foot the body spins on) holds the hips toward that foot's side, by `v[HIPS_FREE]`: at
 * its limit the leg could not keep the foot where it stands, and the solver would drag it along the ground.
 */
function holdAcross(
  v: Float64Array,
  body: TrackedBodyRig,
  feet: number,
  airborne: (i: number) => boolean,
): void {
  const most = Math.tan(MOST_ACROSS);
  for (let i = 0; i < 2; i++) {
    if (airborne(i)) continue;
    legSpan(v, body, i, feet + 7 * i);
    const h = span[HEIGHT];
    if (!(h > 0)) continue;
    // The foot's offset outward (its own side) from the hip joint, along the heading's left.
    const hp = body.hipFromHips,
      out = body.sides[i].out;
    let outward = 0;
    for (let k = 0; k < 3; k++) {
      const hip = v[HIPS_POS + k] + hp[3 * i] * v[HEADING + k] + hp[3 * i + 2] * v[LEFT + k];
      outward += (v[feet + 7 * i + k] - hip) * v[LEFT + k] * out;
    }
    // Branch-free (a shift of 0 within the limit): a path run only in a spin would stay in the interpreter.
    const shift = Math.max(0, -outward - h * most) * out * v[HIPS_FREE];
    for (let k = 0; k < 3; k++) v[HIPS_POS + k] -= shift * v[LEFT + k];
  }
}

/**
 * The most of its length the head chain is asked to span. A target beyond the chain's reach (the hips placed
 * by the body model lower or further than the player's were) is not met by any solve, and the solver spends
 * its whole budget finding the nearest pose; near full stretch FABRIK only creeps.
 */
export const HEAD_SPAN = 0.999;

/**
 * Raises `v[HIPS_POS]` so the head tracker `v[HEAD]` comes within `HEAD_SPAN` of the head chain's length from
 * its base, as far as each planted foot stays within reach of its hip joint: a player standing taller than
 * the avatar's rest pose (its spine or legs straighter). By `v[HIPS_FREE]` of that: a hips tracker keeps the
 * rest. `turnHips` and `lowerForLegs` ran first.
 */
export function raiseForHead(
  v: Float64Array,
  body: TrackedBodyRig,
  feet: number,
  airborne: (i: number) => boolean,
): void {
  const up = body.frame;
  quatRotate(v, A, v, HIPS_ROT, body.spineBase, 0);
  let d2 = 0,
    along = 0;
  for (let k = 0; k < 3; k++) {
    v[A + k] = v[HEAD + k] - v[HIPS_POS + k] - v[A + k];
    d2 += v[A + k] * v[A + k];
    along += v[A + k] * up[3 + k];
  }
  const most = HEAD_SPAN * body.spineReach;
  const across2 = d2 - along * along;
  if (!(d2 > most * most) || !(across2 < most * most)) return;
  let rise = along - Math.sqrt(most * most - across2);
  const reach = LEG_REACH * body.legLength;
  for (let i = 0; i < 2 && rise > 0; i++) {
    if (airborne(i)) continue;
    legSpan(v, body, i, feet + 7 * i);
    const height = span[HEIGHT],
      side2 = span[ACROSS2];
    const room = side2 < reach * reach ? Math.sqrt(reach * reach - side2) - height : 0;
    if (room < rise) rise = room;
  }
  rise *= v[HIPS_FREE];
  if (rise > 0) for (let k = 0; k < 3; k++) v[HIPS_POS + k] += rise * up[3 + k];
}

/** The hips' place and orientation into the frame's pose, blended from the animation's by `v[BODY_WEIGHT]`. */
export function writeHips(
  frame: FabrikFrame,
  v: Float64Array,
  body: TrackedBodyRig,
  parents: Int32Array,
): void {
  const hips = body.hips;
  const parent = parents[hips];
  const p = frame.positions,
    o = frame.orientations;
  for (let k = 0; k < 4; k++) v[Q1 + k] = o[4 * hips + k];
  slerp4(v, Q1, v, Q1, HIPS_ROT, v, BODY_WEIGHT);
  hipsJointPlace(v, body, p, 3 * hips, o, 4 * hips, v, Q1, v, A);
  for (let k = 0; k < 3; k++) v[A + k] -= parent >= 0 ? p[3 * parent + k] : 0;
  if (!frame.toJointSpace(parent, v, A)) return;
  frame.setLocalPosition(hips, v, A);
  if (parent >= 0) quatConjugateMultiply(v, Q1, o, 4 * parent, v, Q1);
  frame.setLocalRotation(hips, v, Q1);
}

/** With a hips tracker: its place `v[HIPS_TRACKER]`, by its applied weight, instead of the one from the head. */
export function hipsTracker(v: Float64Array): void {
  const w = v[VALID + 3] === 1 ? v[APPLIED + 3] : 0;
  v[HIPS_FREE] = w > 0 ? 1 - w : 1;
  if (!(w > 0)) return;
  for (let k = 0; k < 3; k++) v[HIPS_POS + k] += (v[HIPS_TRACKER + k] - v[HIPS_POS + k]) * w;
}
