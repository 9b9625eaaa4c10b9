import type { FabrikBehavior, SkeletonRig } from "../babylon/index.js";
import { HUMANOID_RANGES } from "../rig/index.js";
import { hipLessFoot } from "./trackedHipJoint.js";
import { removeAlong, unit3 } from "./trackedMath.js";
import {
  A,
  B,
  C,
  DT,
  FLOOR,
  FLOOR_OFFSET,
  FOOT_TARGET,
  GROUND_LEVEL,
  HEAD,
  HEADING,
  HIPS_FREE,
  HIPS_POS,
  LEAN,
  LEAN_DIR,
  LEFT,
  Q2,
  Q3,
  SPINE_SPAN,
} from "./trackedSlots.js";

/*
 * A body going down to the floor. Over planted feet, the hips come down no lower than the deepest crouch the
 * knees fold to (the knee's flexion limit, from the rig); a head lower than a spine over that crouch carries
 * the body down further: the hips go down and back behind the feet (sitting, then lying back), never lower
 * than the pelvis resting on the ground, and the legs unfold as they go, from the crouch's fold to nearly
 * straight along the ground. The knees stay within their limits and bent the way they bend, and the feet
 * stay planted: no step starts while the body is down.
 */

/** The time constant (s) of the hips going to (and from) where the floor puts them. */
const SIT_TIME = 0.1;

/**
 * The most (radians) a body on its feet leans back, hips to head: the hip's extension and the lower spine's
 * (the humanoid limit preset's). A head further back is falling.
 */
const BACK_LEAN = ((HUMANOID_RANGES.upperLeg.back + HUMANOID_RANGES.spine.extend) * Math.PI) / 180;

/**
 * A spine leaning back further than a body on its feet can (the head behind and below: a fall) brings the
 * hips after the head instead, toward the floor: they move along the lean `v[LEAN_DIR]` until the spine
 * leans `BACK_LEAN` (`mostLean` straight ahead, in between to the side), into `v[LEAN]`. `v[A]`: the head's
 * distance along the ground from where it would stand over the hips; `v[SPINE_SPAN]`: the span the spine is
 * given (slots, not arguments: a double passed to a call V8 does not inline is boxed).
 */
export function leanBack(v: Float64Array, mostLean: number): void {
  const reach = v[A],
    spine = v[SPINE_SPAN];
  const back = -(
    v[LEAN_DIR] * v[HEADING] +
    v[LEAN_DIR + 1] * v[HEADING + 1] +
    v[LEAN_DIR + 2] * v[HEADING + 2]
  );
  const allowed = mostLean + (BACK_LEAN - mostLean) * (back > 0 ? back : 0);
  // Branch-free (nothing moves within `allowed`): see sitBack.
  const over = v[LEAN] > allowed ? 1 : 0;
  // How far into the fall: 0 as the lean passes what the body stands, 1 at the most the spine leans.
  v[FLOOR] = over * (mostLean > allowed ? Math.min(1, (v[LEAN] - allowed) / (mostLean - allowed)) : 0);
  const shift = over * Math.max(0, reach - spine * Math.sin(allowed));
  for (let k = 0; k < 3; k++) v[HIPS_POS + k] += shift * v[LEAN_DIR + k];
  v[LEAN] += (allowed - v[LEAN]) * over;
}

/** What the floor reads of the avatar (a TrackedBodyRig; structural, so the rig can measure the floor). */
export interface FloorBody {
  readonly sides: readonly { readonly upperLeg: number; readonly lowerLeg: number; readonly foot: number }[];
  readonly frame: Float64Array;
  readonly hipFromHips: Float64Array;
  readonly footHeight: Float64Array;
  /** Per side: the foot minus the hips at rest (forward, up, left). */
  readonly footFromHips: Float64Array;
  readonly legLength: number;
  readonly standHips: number;
}

/** What the floor needs of the avatar, measured once from its rest pose and limits (model units). */
export interface FloorMeasures {
  /** The least distance from a hip joint to its ankle the knee's fold allows (the mean of the legs). */
  readonly crouchSpan: number;
  /** The hips' height above the ground when the pelvis rests on it. */
  readonly sitHips: number;
  /**
   * The hips' height above the ground where the floor begins: the deepest crouch (hip joints straight above
   * the ankles, the knees folded to their limit), or `FLOOR_BAND` of the way from sitting up to standing if
   * that is higher.
   */
  readonly crouchHips: number;
}

/**
 * The floor begins at least this share of the way from sitting up to standing: the depth needs a band to
 * change over (a body whose pelvis meets the ground before its knees fold fully has none, and over a tenth
 * of its hips' height the robot's depth flickered between 0 and 1 frame to frame, a leg turning over).
 */
const FLOOR_BAND = 0.3;

/**
 * Measures the floor's numbers: the knee's fold from its hinge limit (the humanoid preset's 150° without one),
 * the thigh's and shin's rest lengths; the pelvis rests on the ground with its hip joints half the hips'
 * width above it (a person's sit bones lie about as far below the hip joints as these are from the
 * midline).
 */
export function floorMeasures(ik: FabrikBehavior, rig: SkeletonRig, body: FloorBody): FloorMeasures {
  const p = rig.restPositions;
  const dist = (a: number, b: number): number =>
    Math.hypot(p[3 * a] - p[3 * b], p[3 * a + 1] - p[3 * b + 1], p[3 * a + 2] - p[3 * b + 2]);
  let span = 0,
    width = 0,
    hipUp = 0,
    ankle = 0;
  for (let i = 0; i < 2; i++) {
    const s = body.sides[i];
    const hinge = ik.limits?.specs[s.lowerLeg]?.hinge;
    const fold = Math.min(
      Math.PI,
      hinge !== undefined ? hinge.max - hinge.min : (HUMANOID_RANGES.lowerLeg.flex * Math.PI) / 180,
    );
    const a = dist(s.upperLeg, s.lowerLeg),
      b = dist(s.lowerLeg, s.foot);
    span += Math.sqrt(Math.max(0, a * a + b * b + 2 * a * b * Math.cos(fold))) / 2;
    width += Math.abs(body.hipFromHips[3 * i + 2]) / 2;
    hipUp += body.hipFromHips[3 * i + 1] / 2;
    ankle += body.footHeight[i] / 2;
  }
  const sitHips = Math.max(width - hipUp, ankle - hipUp, 0);
  const band = sitHips + FLOOR_BAND * (body.standHips - sitHips);
  return { crouchSpan: span, sitHips, crouchHips: Math.max(band, ankle + span - hipUp) };
}

/**
 * How far the body is down, into `v[FLOOR]` (0 standing or crouching, 1 lying), from the hips' height
 * `v[HIPS_POS]` (along `up`, the body frame's 3..5) above the ground the feet stand on, as the head asks for
 * it: 0 down to the deepest crouch, 1 with the pelvis on the ground; or as far into a fall as `leanBack`
 * said, if that is further.
 */
export function floorDepth(v: Float64Array, floor: FloorMeasures, up: Float64Array): void {
  const height = v[HIPS_POS] * up[3] + v[HIPS_POS + 1] * up[4] + v[HIPS_POS + 2] * up[5] - v[GROUND_LEVEL];
  const t = (floor.crouchHips - height) / (floor.crouchHips - floor.sitHips);
  if (t > v[FLOOR]) v[FLOOR] = t < 1 ? t : 1;
}

/**
 * Down on the floor (`v[FLOOR]` above 0), the hips `v[HIPS_POS]` sit down: back along the heading behind
 * each planted foot `v[feet + 7i]` (a foot in the air, `airborne(i)`, does not count) as far as the knee's
 * fold needs (hips lower than the crouch over the feet sit down behind them), at the height where the spine
 * spans to the head, never lower than the pelvis resting on the ground (lying back, they go along it away
 * from the head instead); by a hips tracker's share less. They get there over `SIT_TIME`, never lower than
 * the knees fold to.
 */
export function sitBack(
  v: Float64Array,
  body: FloorBody,
  floor: FloorMeasures,
  feet: number,
  airborne: (i: number) => boolean,
): void {
  // Run every frame, moving nothing on the feet (`down` 0): a path run only on the floor would stay in V8's
  // interpreter, which boxes its doubles (an allocation a frame).
  const t = v[FLOOR],
    down = t > 0 ? v[HIPS_FREE] : 0;
  const up = body.frame;
  for (let k = 0; k < 3; k++) v[Q3 + k] = v[HIPS_POS + k];
  // pushBack's numbers in slots (a double passed to a call V8 does not inline is boxed).
  v[C] = floor.crouchSpan;
  v[C + 1] = down;
  pushBack(v, body, feet, airborne);
  // Then where the spine spans `v[SPINE_SPAN]` to the head: at that height under it (a spine cannot curl to
  // a head much nearer), or, where that is below the pelvis resting on the ground, on the ground and as far
  // from the head along it as the spine spans (lying back, the hips go toward the feet).
  let rise = 0,
    all = 0;
  for (let k = 0; k < 3; k++) {
    const d = v[HEAD + k] - v[HIPS_POS + k];
    rise += d * up[3 + k];
    all += d * d;
    v[A + k] = -d;
  }
  const span = v[SPINE_SPAN],
    across = Math.sqrt(Math.max(0, all - rise * rise));
  const height = v[HIPS_POS] * up[3] + v[HIPS_POS + 1] * up[4] + v[HIPS_POS + 2] * up[5] - v[GROUND_LEVEL];
  let lift = across < span ? rise - Math.sqrt(span * span - across * across) : 0;
  if (height + lift < floor.sitHips) lift = floor.sitHips - height;
  const high = rise - lift;
  const away = (high < span ? Math.sqrt(span * span - high * high) : 0) - across;
  // Along the ground from the head to the hips (behind the heading when they are one above the other).
  for (let k = 0; k < 3; k++) v[B + k] = up[3 + k];
  removeAlong(v, A, B);
  if (!unit3(v, A)) for (let k = 0; k < 3; k++) v[A + k] = -v[HEADING + k];
  const move = away > 0 ? away * down : 0;
  for (let k = 0; k < 3; k++) v[HIPS_POS + k] += lift * down * up[3 + k] + move * v[A + k];
  pushBack(v, body, feet, airborne);
  // The hips go there over `SIT_TIME`: near the crouch's fold a little lower asks for much further back (the
  // hip joint straight over the ankle), a jump in a frame. Meanwhile they stand no lower than the knees fold.
  const a = v[DT] > 0 ? 1 - Math.exp(-v[DT] / SIT_TIME) : 1;
  for (let k = 0; k < 3; k++) {
    v[FLOOR_OFFSET + k] += (v[HIPS_POS + k] - v[Q3 + k] - v[FLOOR_OFFSET + k]) * a;
    v[HIPS_POS + k] = v[Q3 + k] + v[FLOOR_OFFSET + k];
  }
  holdAboveFold(v, body, floor, feet, airborne);
}

/** The hips go to where the floor puts them from where a body on its feet would stand (TrackedBody.reset). */
export function forgetFloor(v: Float64Array): void {
  for (let k = 0; k < 3; k++) v[FLOOR_OFFSET + k] = 0;
}

/** The hip joint less the foot (scratch of holdAboveFold and pushBack). */
const hipFoot = new Float64Array(3);

/**
 * Raises `v[HIPS_POS]` until each planted foot is at least the crouch's span from its hip joint (by
 * `v[HIPS_FREE]`).
 */
function holdAboveFold(
  v: Float64Array,
  body: FloorBody,
  floor: FloorMeasures,
  feet: number,
  airborne: (i: number) => boolean,
): void {
  const up = body.frame,
    span = floor.crouchSpan;
  let raise = 0;
  for (let i = 0; i < 2; i++) {
    if (airborne(i)) continue;
    let rise = 0,
      all = 0;
    hipLessFoot(v, body, i, feet + 7 * i, hipFoot, 0);
    for (let k = 0; k < 3; k++) {
      const d = hipFoot[k];
      rise += d * up[3 + k];
      all += d * d;
    }
    const across2 = all - rise * rise;
    const lift = Math.sqrt(Math.max(0, span * span - across2)) - rise;
    if (lift > raise) raise = lift;
  }
  for (let k = 0; k < 3; k++) v[HIPS_POS + k] += raise * v[HIPS_FREE] * up[3 + k];
}

/**
 * Moves `v[HIPS_POS]` back along the heading until each planted foot is `v[C]` from its hip joint, by
 * `v[C + 1]` of the way.
 */
function pushBack(v: Float64Array, body: FloorBody, feet: number, airborne: (i: number) => boolean): void {
  const need = v[C],
    share = v[C + 1];
  const up = body.frame;
  let push = 0;
  for (let i = 0; i < 2; i++) {
    if (airborne(i)) continue;
    // The hip joint (the hips carried by the heading) less the ankle: its height, how far behind, across.
    let rise = 0,
      behind = 0,
      all = 0;
    hipLessFoot(v, body, i, feet + 7 * i, hipFoot, 0);
    for (let k = 0; k < 3; k++) {
      const d = hipFoot[k];
      rise += d * up[3 + k];
      behind -= d * v[HEADING + k];
      all += d * d;
    }
    const across2 = Math.max(0, all - rise * rise - behind * behind);
    const want = Math.sqrt(Math.max(0, need * need - rise * rise - across2));
    if (want - behind > push) push = want - behind;
  }
  for (let k = 0; k < 3; k++) v[HIPS_POS + k] -= push * share * v[HEADING + k];
}

/**
 * The most (radians) a thigh rises above the ground with the pelvis upright: the hip's flexion (the humanoid
 * limit preset's) less the quarter turn from hanging to level.
 */
const THIGH_RISE = (HUMANOID_RANGES.upperLeg.forward * Math.PI) / 180 - Math.PI / 2;

/**
 * The hips' tilt, the angle into `v[Q2 + 3]` and the axis into `v[C]` (unit): on the feet, toward the lean
 * `v[LEAN_DIR]` by the angle `v[Q2 + 3]` holds (`hipsBend` of the spine's lean), about `v[C]` as it comes (up
 * × the lean, made unit). Down on the floor (by `v[FLOOR]`): toward all of the lean from the hips as placed to the
 * head (a pelvis sitting or lying turns with the back, which the spine's own bend could not take), and back
 * at least as far as the planted thighs `v[FOOT_TARGET]` rise beyond what the hip flexes (sitting, the knees
 * up, the pelvis rolls back). Scratch: `v[A]`.
 */
export function floorPitch(v: Float64Array, body: FloorBody): void {
  const t = v[FLOOR];
  const up = body.frame,
    hp = body.hipFromHips,
    leg = body.legLength;
  // The lean from the hips as placed to the head: its angle from up, toward where the head is.
  let along = 0,
    all = 0;
  for (let k = 0; k < 3; k++) {
    v[A + k] = v[HEAD + k] - v[HIPS_POS + k];
    along += v[A + k] * up[3 + k];
    all += v[A + k] * v[A + k];
  }
  const across = Math.sqrt(Math.max(0, all - along * along));
  const lean = Math.min(Math.PI / 2, Math.atan2(across, along));
  const toward = across > 1e-9 ? (lean * t) / across : 0;
  for (let k = 0; k < 3; k++) {
    v[A + k] = (v[A + k] - along * up[3 + k]) * toward + (1 - t) * v[Q2 + 3] * v[LEAN_DIR + k];
  }
  // How far back the pelvis must roll for each planted thigh (a leg of two equal halves, the knee up).
  let need = -Infinity;
  for (let i = 0; i < 2; i++) {
    let ahead = 0,
      rise = 0;
    for (let k = 0; k < 3; k++) {
      const d =
        v[FOOT_TARGET + 7 * i + k] -
        v[HIPS_POS + k] -
        hp[3 * i] * v[HEADING + k] -
        hp[3 * i + 1] * up[3 + k] -
        hp[3 * i + 2] * v[LEFT + k];
      ahead += d * v[HEADING + k];
      rise += d * up[3 + k];
    }
    const span = Math.sqrt(ahead * ahead + rise * rise);
    const fold = Math.acos(Math.min(1, span / leg));
    const thigh = fold + Math.atan2(rise, ahead);
    if (thigh - THIGH_RISE > need) need = thigh - THIGH_RISE;
  }
  const back = -(v[A] * v[HEADING] + v[A + 1] * v[HEADING + 1] + v[A + 2] * v[HEADING + 2]);
  if (need > back) for (let k = 0; k < 3; k++) v[A + k] -= (need - back) * v[HEADING + k];
  // Written only down on the floor (`on`), computed every frame: see sitBack.
  const on = t > 0 ? 1 : 0;
  const tilt = Math.sqrt(v[A] * v[A] + v[A + 1] * v[A + 1] + v[A + 2] * v[A + 2]);
  v[Q2 + 3] += (tilt - v[Q2 + 3]) * on;
  const x = up[4] * v[A + 2] - up[5] * v[A + 1],
    y = up[5] * v[A] - up[3] * v[A + 2],
    z = up[3] * v[A + 1] - up[4] * v[A];
  const length = tilt > 1e-12 ? tilt : 1;
  v[C] += (x / length - v[C]) * on;
  v[C + 1] += (y / length - v[C + 1]) * on;
  v[C + 2] += (z / length - v[C + 2]) * on;
}

/**
 * A step's landing `s[to..to+2]` for foot `i` while the body goes down (by `v[FLOOR]`): moved toward beside
 * the other, planted, foot `s[other..]` (as far across as they stand at rest), instead of under hips that are
 * sitting down behind the feet: it would land where the leg cannot fold to.
 */
export function landBeside(
  s: Float64Array,
  to: number,
  other: number,
  v: Float64Array,
  body: FloorBody,
  i: number,
): void {
  // Run every frame (at depth 0 it moves nothing): see sitBack.
  const t = v[FLOOR];
  const across = body.footFromHips[3 * i + 2] - body.footFromHips[3 * (1 - i) + 2];
  for (let k = 0; k < 3; k++) s[to + k] += (s[other + k] + across * v[LEFT + k] - s[to + k]) * t;
}
