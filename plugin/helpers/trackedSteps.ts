import type { FabrikFrame } from "../babylon/index.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import type { TrackedBodySettings } from "./trackedBodyOptions.js";
import { removeAlong, unit3 } from "./trackedMath.js";
import type { TrackedGround } from "./trackedGround.js";
import { TrackedSupport } from "./trackedSupport.js";
import { landBeside } from "./trackedFloor.js";
import { climb, fly } from "./trackedFlight.js";
import { legStretch, swingWithinReach } from "./trackedSwing.js";
import { pivotFeet } from "./trackedHeels.js";
import {
  AIRBORNE,
  LANDS,
  BARE,
  CARRY,
  CAST_AT,
  DIR,
  DRY,
  DURATION,
  FOOT_SIZE,
  FROM,
  FROM_DIR,
  FROM_LEVEL,
  FROM_NORMAL,
  GROUND,
  LAST_HIPS,
  LEVEL,
  LIFT,
  NORMAL,
  PHASE,
  POS,
  RANGE,
  RESULT,
  rest,
  horizontal,
  SETTLE,
  SHIFT,
  SPEED,
  STATE_SIZE,
  STEPPING,
  TELEPORT,
  TMP,
  TO,
  TOE,
  TOE_GROUND,
  TO_DIR,
  TO_LEVEL,
  UP,
  VELOCITY,
  WANT,
  feetMidpoint,
} from "./trackedStepState.js";
import { DT, FLOOR, HEAD, HEADING, HIPS_POS, LEFT } from "./trackedSlots.js";

/** The hips' ground speed is smoothed over this many seconds before it times and aims the steps. */
const SPEED_SMOOTHING = 0.1;
/** A step lands ahead of its place by the body's velocity over this fraction of the step's duration. */
const LEAD = 1;
/** ... but never more than this many leg lengths ahead. */
const MOST_LEAD = 0.4;
/**
 * A planted foot steps when its leg would have to stretch this much beyond its standing span (a fraction of
 * it) to reach the hips standing under the head as at rest: walking up a slope the head rises ahead of the
 * feet, and a foot left below holds the hips, and the head with them, down.
 */
const STEP_STRETCH = 0.05;
/** A step's target that moves this many leg lengths from where its ground was cast casts again. */
const RECAST = 0.1;
/** Ground this many leg lengths higher under the toes than under the ankle is a step's edge: land on the step. */
const EDGE = 0.01;

/**
 * The feet of a tracked body: planted where they stand until the hips move or turn too far from them, then
 * one steps (never both at once), along an arc to where it would stand under the hips, led by the body's
 * velocity. Positions are model space. A step lands on the ground a ray finds under its target (TrackedGround:
 * cast when the step starts, again if the target moves far), at the foot's rest height above it, the sole
 * turned to its slope; with no ground hit, on the plane through the model origin (the animation's ground).
 */
export class TrackedSteps {
  private readonly _s = new Float64Array(STATE_SIZE);
  private readonly _support = new TrackedSupport();
  private _started = false;
  /** Steps taken since the start (a count for tests and tools). */
  steps = 0;
  /** Per foot, how much its turns pivot about the ball (TrackedHeels.readPivots, last frame's). */
  readonly pivot = new Float64Array(2);

  constructor(
    private readonly _body: TrackedBodyRig,
    private readonly _ground: TrackedGround,
  ) {
    for (let k = 0; k < 3; k++) this._s[UP + k] = _body.frame[3 + k];
  }

  /** Per foot, 1 when in the air into `out[stepping + i]`, and how far through its step into `out[phase + i]`. */
  readPhases(out: Float64Array, stepping: number, phase: number): void {
    for (let i = 0; i < 2; i++) {
      out[stepping + i] = this._s[i * FOOT_SIZE + STEPPING];
      out[phase + i] = this._s[i * FOOT_SIZE + PHASE];
    }
  }

  /** Whether foot `i` (0 left, 1 right) is in the air. */
  stepping(i: number): boolean {
    return this._s[i * FOOT_SIZE + STEPPING] === 1;
  }

  /**
   * Brings each foot in the air toward its leg's reach from the hips as placed (see swingWithinReach); a
   * planted foot is run through it too, at no weight: code run only while stepping would stay in V8's
   * interpreter, which boxes its doubles (see `_dryCast`).
   */
  swing(v: Float64Array, feet: number): void {
    for (let i = 0; i < 2; i++) {
      this._s[RESULT] = this._s[i * FOOT_SIZE + STEPPING] * this._s[i * FOOT_SIZE + PHASE];
      swingWithinReach(v, this._body, feet, i, this._s, RESULT);
    }
  }

  /** Forgets where the feet stand (neither is in the air): the next update plants them under the hips. */
  reset(): void {
    this._started = false;
    this._s[STEPPING] = this._s[FOOT_SIZE + STEPPING] = this._s[AIRBORNE] = 0;
  }

  /** Tilts foot `i`'s rotation `v[q..q+3]` (model space) from up to the ground its sole stands on. */
  tilt(i: number, v: Float64Array, q: number): void {
    this._ground.tilt(v, q, this._s, i * FOOT_SIZE + NORMAL);
  }

  /** Foot `i`'s position and pointing direction into `out` (6 numbers from `o`). */
  read(i: number, out: Float64Array, o: number): void {
    const b = i * FOOT_SIZE;
    for (let k = 0; k < 3; k++) {
      out[o + k] = this._s[b + POS + k];
      out[o + 3 + k] = this._s[b + DIR + k];
    }
  }

  /**
   * The midpoint of the feet into `out[o..o+2]`; before the first step, where they would stand at rest under
   * the head `v[HEAD]`; the ground's height under them into `v[GROUND_LEVEL]`.
   */
  support(out: Float64Array, o: number, v: Float64Array): void {
    feetMidpoint(this._s, this._started, this._body, out, o, v);
  }

  /** One frame of `v[DT]` seconds, with the hips at `v[HIPS_POS]` heading `v[HEADING]`. */
  update(v: Float64Array, settings: TrackedBodySettings, frame: FabrikFrame): void {
    const s = this._s,
      body = this._body;
    this._ground.begin(frame);
    let far = climb(s, v, body);
    const dt = v[DT];
    const leg = body.legLength;
    // The hips on the ground, and their smoothed velocity.
    for (let k = 0; k < 3; k++) s[TMP + k] = v[HIPS_POS + k];
    removeAlong(s, TMP, UP);
    if (this._started && dt > 0) {
      const a = 1 - Math.exp(-dt / SPEED_SMOOTHING);
      for (let k = 0; k < 3; k++) {
        const velocity = (s[TMP + k] - s[LAST_HIPS + k]) / dt;
        s[VELOCITY + k] += (velocity - s[VELOCITY + k]) * a;
      }
    }
    for (let k = 0; k < 3; k++) s[LAST_HIPS + k] = s[TMP + k];
    for (let i = 0; i < 2; i++) {
      const b = i * FOOT_SIZE;
      const ff = body.footFromHips,
        height = body.footHeight[i];
      for (let k = 0; k < 3; k++) {
        s[b + WANT + k] =
          s[TMP + k] + ff[3 * i] * v[HEADING + k] + ff[3 * i + 2] * v[LEFT + k] + height * s[UP + k];
      }
      if (this._started) {
        horizontal(s, b + POS, b + WANT);
        if (s[RESULT] > TELEPORT * leg) far = true;
      }
    }
    if (!this._started || far || !(Math.abs(s[VELOCITY]) + Math.abs(s[VELOCITY + 1]) < 1e300)) {
      this._plantAll(v, settings, frame);
      return;
    }
    fly(s, v, body);
    if (s[AIRBORNE] === 1) {
      // In the air the feet go with the hips (trackedFlight.ts); they land where they are.
      if (s[LANDS] !== 1) return;
      for (let i = 0; i < 2; i++) this._plant(i, s[i * FOOT_SIZE + LEVEL], settings, frame);
    }
    s[SPEED] = Math.sqrt(
      s[VELOCITY] * s[VELOCITY] + s[VELOCITY + 1] * s[VELOCITY + 1] + s[VELOCITY + 2] * s[VELOCITY + 2],
    );
    s[RESULT] = dt;
    for (let i = 0; i < 2; i++) {
      if (s[i * FOOT_SIZE + STEPPING] === 1) this._advance(i, v, settings, frame);
      else this._carry(i, frame);
    }
    pivotFeet(s, v, this._body, this.pivot);
    rest(s, v, body);
    if (s[STEPPING] === 1 || s[FOOT_SIZE + STEPPING] === 1) return;
    // Both planted: the foot furthest from its place (or turned furthest from the heading) steps, if either must.
    let best = -1,
      worst = 1;
    for (let i = 0; i < 2; i++) {
      const b = i * FOOT_SIZE;
      horizontal(s, b + POS, b + WANT);
      // How far it is from its place, in steps (further after a rest: `rest` in trackedStepState.ts).
      const off = (s[RESULT] / (settings.stepDistance * leg)) * s[SETTLE];
      const along =
        s[b + DIR] * v[HEADING] + s[b + DIR + 1] * v[HEADING + 1] + s[b + DIR + 2] * v[HEADING + 2];
      const turn = Math.acos(Math.min(1, Math.max(-1, along)));
      legStretch(s, b + POS, TMP, UP, RESULT, v, this._body, i);
      // A foot whose ground mesh is gone steps (down to what is below).
      const score = Math.max(off, turn / settings.stepTurn, s[RESULT] / STEP_STRETCH, 2 * s[b + BARE]);
      if (score > worst) {
        worst = score;
        best = i;
      }
    }
    // Prepared every frame both feet stand (the foot that would step next), started only when one must: a
    // path run on every frame is compiled, a rare one runs in the interpreter, which boxes its doubles.
    this._prepare(best >= 0 ? best : 0, v, settings);
    this._dryCast(settings);
    // No step starts while the body is down on the floor (trackedFloor.ts): the feet stay where they stand.
    if (best >= 0 && !(v[FLOOR] > 0)) {
      this._cast(best * FOOT_SIZE, best, settings, true);
      s[best * FOOT_SIZE + STEPPING] = 1;
      s[best * FOOT_SIZE + BARE] = 0;
      this.steps++;
    }
  }

  private _plantAll(v: Float64Array, settings: TrackedBodySettings, frame: FabrikFrame): void {
    const s = this._s;
    // From the head down (at the start, after a teleport: the ground may be anywhere under it): the ground a
    // standing head would be over, up to the head itself and maxStepDown below.
    const head = v[HEAD] * s[UP] + v[HEAD + 1] * s[UP + 1] + v[HEAD + 2] * s[UP + 2];
    for (let i = 0; i < 2; i++) {
      const b = i * FOOT_SIZE;
      for (let k = 0; k < 3; k++) {
        s[b + POS + k] = s[b + WANT + k];
        s[b + DIR + k] = v[HEADING + k];
      }
      this._plant(i, head - this._body.standHead, settings, frame);
    }
    for (let k = 0; k < 3; k++) s[VELOCITY + k] = 0;
    this._started = true;
  }

  /**
   * Foot `i` planted on the ground a ray finds under where it is, cast from the height `level` up to a
   * standing head above it and `maxStepDown` below.
   */
  private _plant(i: number, level: number, settings: TrackedBodySettings, frame: FabrikFrame): void {
    const s = this._s,
      b = i * FOOT_SIZE;
    s[RANGE] = level;
    s[RANGE + 1] = this._body.standHead;
    s[RANGE + 2] = settings.maxStepDown * this._body.legLength;
    this._ground.cast(s, b + POS, RANGE, settings, b + GROUND, true);
    this._support.aim(i, this._ground.lastMesh);
    for (let k = 0; k < 3; k++) {
      s[b + CAST_AT + k] = s[b + POS + k];
      s[b + NORMAL + k] = s[b + GROUND + 3 + k];
    }
    this._ground.land(s, b + POS, b + GROUND, i, b + LEVEL);
    this._support.plant(i, s, b + POS, frame);
    s[b + BARE] = 0;
    s[b + TO_LEVEL] = s[b + LEVEL];
    s[b + STEPPING] = 0;
    s[AIRBORNE] = 0;
  }

  /** Planted foot `i` carried by the mesh it stands on (a moving platform); marked bare when the mesh is gone. */
  private _carry(i: number, frame: FabrikFrame): void {
    const s = this._s,
      b = i * FOOT_SIZE;
    if (!this._support.follow(i, s, b + POS, CARRY, frame)) s[b + BARE] = 1;
    for (let k = 0; k < 3; k++) {
      s[b + POS + k] += s[CARRY + k];
      s[b + GROUND + k] += s[CARRY + k];
      s[b + CAST_AT + k] += s[CARRY + k];
    }
    s[b + LEVEL] += s[CARRY] * s[UP] + s[CARRY + 1] * s[UP + 1] + s[CARRY + 2] * s[UP + 2];
  }

  /** Foot `i`'s next step: from where it stands, its duration, aim and lift. */
  private _prepare(i: number, v: Float64Array, settings: TrackedBodySettings): void {
    const s = this._s,
      b = i * FOOT_SIZE,
      leg = this._body.legLength;
    const speed = s[SPEED];
    const duration = Math.max(0.25, 1 / (1 + speed / leg)) * settings.stepTime;
    for (let k = 0; k < 3; k++) {
      s[b + FROM + k] = s[b + POS + k];
      s[b + FROM_DIR + k] = s[b + DIR + k];
      s[b + FROM_NORMAL + k] = s[b + NORMAL + k];
      s[b + SHIFT + k] = 0;
    }
    s[b + FROM_LEVEL] = s[b + LEVEL];
    s[b + DURATION] = duration;
    s[b + PHASE] = 0;
    this._aim(i, v);
    horizontal(s, b + FROM, b + TO);
    s[b + LIFT] = settings.stepHeight * leg * Math.min(1, s[RESULT] / (settings.stepDistance * leg));
    if (s[b + LIFT] < 0.3 * settings.stepHeight * leg) s[b + LIFT] = 0.3 * settings.stepHeight * leg;
  }

  /** Where a step lands: the foot's place under the hips, led by the velocity, and the heading. */
  private _aim(i: number, v: Float64Array): void {
    const s = this._s,
      b = i * FOOT_SIZE;
    const lead = LEAD * s[b + DURATION] * (1 - s[b + PHASE]);
    // Branch-free (a fast body's first capped lead would leave compiled code); at rest the cap is Infinity.
    const k0 = Math.min(lead, (MOST_LEAD * this._body.legLength) / s[SPEED]);
    for (let k = 0; k < 3; k++) {
      s[b + TO + k] = s[b + WANT + k] + k0 * s[VELOCITY + k] + s[b + SHIFT + k];
      s[b + TO_DIR + k] = v[HEADING + k];
    }
    landBeside(s, b + TO, (1 - i) * FOOT_SIZE + POS, v, this._body, i);
  }

  /**
   * The ground under foot `i`'s landing `s[TO]`, cast from the height it lifts off at; `s[TO]` put on it. Run
   * when a step starts, and again when its target moved far from where it was cast.
   */
  private _cast(b: number, i: number, settings: TrackedBodySettings, pick: boolean): void {
    const s = this._s,
      body = this._body,
      leg = body.legLength;
    const ground = this._ground;
    s[RANGE] = s[b + FROM_LEVEL];
    s[RANGE + 1] = settings.maxStepUp * leg;
    s[RANGE + 2] = settings.maxStepDown * leg;
    ground.cast(s, b + TO, RANGE, settings, b + GROUND, pick);
    const mesh = ground.lastMesh;
    // The toes' ground higher than the ankle's: an edge under the sole (the toes would stand in the step).
    for (let k = 0; k < 3; k++) s[TOE + k] = s[b + TO + k] + body.toeReach * s[b + TO_DIR + k];
    ground.cast(s, TOE, RANGE, settings, TOE_GROUND, pick);
    ground.above(s, b + GROUND, TOE_GROUND, RESULT);
    // The foot lands a foot's reach further on, on the step, cast there (branch-free: a dry run takes the
    // same path).
    const edge = s[RESULT] > EDGE * leg ? 1 : 0;
    for (let k = 0; k < 3; k++) {
      s[b + SHIFT + k] += edge * body.toeReach * s[b + TO_DIR + k];
      s[b + TO + k] += edge * body.toeReach * s[b + TO_DIR + k];
    }
    ground.cast(s, b + TO, RANGE, settings, TOE_GROUND, pick && edge === 1);
    if (pick) this._support.aim(i, edge === 1 ? ground.lastMesh : mesh);
    for (let k = 0; k < 6; k++) s[b + GROUND + k] += edge * (s[TOE_GROUND + k] - s[b + GROUND + k]);
    for (let k = 0; k < 3; k++) s[b + CAST_AT + k] = s[b + TO + k];
    ground.land(s, b + TO, b + GROUND, i, b + TO_LEVEL);
  }

  /** A cast with everything but the picking, into the dry slots, every frame both feet stand (see `cast`). */
  private _dryCast(settings: TrackedBodySettings): void {
    const s = this._s;
    s.copyWithin(DRY, 0, FOOT_SIZE);
    this._cast(DRY, 0, settings, false);
  }

  /** Foot `i` moves `s[RESULT]` seconds further along its step. */
  private _advance(i: number, v: Float64Array, settings: TrackedBodySettings, frame: FabrikFrame): void {
    const s = this._s,
      b = i * FOOT_SIZE;
    const dt = s[RESULT];
    s[b + PHASE] = Math.min(1, s[b + PHASE] + (s[b + DURATION] > 0 ? dt / s[b + DURATION] : 1));
    this._aim(i, v);
    horizontal(s, b + TO, b + CAST_AT);
    if (s[RESULT] > RECAST * this._body.legLength) this._cast(b, i, settings, true);
    else this._ground.land(s, b + TO, b + GROUND, i, b + TO_LEVEL);
    const t = s[b + PHASE];
    const e = t * t * (3 - 2 * t);
    // Up or down a step, the foot rises before it moves over the higher ground and leaves the higher ground
    // before it comes down: its height takes the rise in the first half of the step going up, the second
    // half going down.
    const rise =
      (s[b + TO] - s[b + FROM]) * s[UP] +
      (s[b + TO + 1] - s[b + FROM + 1]) * s[UP + 1] +
      (s[b + TO + 2] - s[b + FROM + 2]) * s[UP + 2];
    const h = rise > 0 ? Math.min(1, 2 * t) : Math.max(0, 2 * t - 1);
    const height = rise * h * h * (3 - 2 * h) + s[b + LIFT] * Math.sin(Math.PI * t);
    for (let k = 0; k < 3; k++) {
      s[b + POS + k] =
        s[b + FROM + k] + (s[b + TO + k] - s[b + FROM + k] - rise * s[UP + k]) * e + height * s[UP + k];
      s[b + DIR + k] = s[b + FROM_DIR + k] + (s[b + TO_DIR + k] - s[b + FROM_DIR + k]) * e;
      s[b + NORMAL + k] = s[b + FROM_NORMAL + k] + (s[b + GROUND + 3 + k] - s[b + FROM_NORMAL + k]) * e;
    }
    s[b + LEVEL] = s[b + FROM_LEVEL] + (s[b + TO_LEVEL] - s[b + FROM_LEVEL]) * e;
    removeAlong(s, b + DIR, UP);
    if (!unit3(s, b + DIR)) for (let k = 0; k < 3; k++) s[b + DIR + k] = s[b + TO_DIR + k];
    if (!unit3(s, b + NORMAL)) for (let k = 0; k < 3; k++) s[b + NORMAL + k] = s[b + GROUND + 3 + k];
    if (t >= 1) {
      s[b + STEPPING] = 0;
      this._support.plant(i, s, b + POS, frame);
    }
  }
}
