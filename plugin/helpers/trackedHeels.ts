import type { FabrikBehavior, FabrikFrame } from "../babylon/index.js";
import {
  HUMANOID_RANGES,
  quatAxisAngle,
  quatConjugateMultiply,
  quatMultiply,
  quatRotate,
} from "../rig/index.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { hipLessFoot } from "./trackedHipJoint.js";
import { LEG_REACH } from "./trackedHips.js";
import { cross3, unit3 } from "./trackedMath.js";
import { DIR, DRY, FOOT_SIZE, POS, UP as STEP_UP } from "./trackedStepState.js";
import { HEADING } from "./trackedSlots.js";
import { pivotFoot } from "./trackedSwing.js";

/*
 * A planted foot the hips have moved away from rolls onto its ball: the heel lifts (the ankle turning about
 * the toe joint, or about the sole's front where the foot has no toes) as far as the leg needs to reach the
 * hips, so the hips, and the head with them, need not come down for a trailing leg in a walk. The toes stay
 * flat on the ground (their joint bends back by as much as the foot turns), and the ball does not move: it is
 * where the foot stays planted, and what the foot turns about from then on, as the body turns over it. When
 * the foot then steps, its heel comes down over the first part of the step.
 */

/** The most a heel lifts (radians): as far as the toes bend up at the ball (the humanoid preset's). */
const MOST_LIFT = (HUMANOID_RANGES.toes.up * Math.PI) / 180;
/**
 * The hips come down this far (a fraction of the leg's length) for a stretched leg before its heel lifts: a
 * leg a little short (a crouch starting, a body swaying) bends the knees, not the ankles.
 */
const HIPS_FIRST = 0.02;
/**
 * A planted foot that turned this far (radians) under the body before its heel lifted keeps its heel down
 * until it steps: it pivots about its ankle, and rolling onto the ball as well would walk it across the floor.
 */
const TWISTED = 0.05;
/**
 * A body turning faster than this (radians a second: a spin, not a walk's turn) keeps its heels down: its feet
 * turn under it faster than a leg's twist lets the solved foot follow its ball.
 */
const SPIN_SPEED = 4;
/** The fastest a heel lifts or comes down (radians a second): the hips come down for the rest at once. */
const LIFT_SPEED = 4;
/** A heel lifted when its foot steps comes down over this share of the step. */
const SET_DOWN = 0.35;

/**
 * What {@link TrackedHeels.lift} reads of the feet, per foot: 1 when in the air, how far through its step,
 * its tracker's applied weight; then the legs' reach (model units) and the frame's length (seconds).
 */
export const FEET_STEPPING = 0;
export const FEET_PHASE = 2;
export const FEET_TRACKED = 4;
export const FEET_REACH = 6;
export const FEET_DT = 7;
export const FEET_SIZE = 8;

/* Slots of the state (one Float64Array; doubles handed between calls in arrays are not boxed). */
const ANGLE = 0; // per foot: the lift this frame (radians)
const LIFT_OFF = 2; // per foot: the lift the foot stepped off with
const BALL = 4; // per foot: the ball from the ankle, in the foot's rest orientation (3 each)
const AXIS = 10; // per foot: the axis the heel turns about this frame (model space, unit; 3 each)
const FLAT = 16; // per foot: the foot's rotation before the lift (4 each)
const P = 24; // scratch: the ball
const D = 27; // the ankle from the ball
const H = 30; // the hip joint from the ball
const T = 33; // axis × D
const U = 36; // up
const Q = 39; // a turn (4)
const Q2 = 43;
const PIVOT = 47; // per foot: how much its turns pivot about the ball
const TWIST = 49; // per foot: how far it has turned since it was planted (radians)
const LAST = 51; // per foot: last frame's flat rotation (4 each)
const LAST_HEADING = 59; // the heading last frame (3)
const SIZE = 62;

/** Heels that lift off planted feet (see the top of the file). Positions are model space. */
export class TrackedHeels {
  /** The toe joints it bends: the frame must read them. */
  readonly joints: number[];
  /** What {@link lift} reads of the feet, filled each frame (the `FEET_*` slots). */
  readonly feet = new Float64Array(FEET_SIZE);
  private readonly _s = new Float64Array(SIZE);
  private readonly _toes: Int32Array;

  constructor(
    ik: FabrikBehavior,
    private readonly _body: TrackedBodyRig,
  ) {
    const roles = ik.roles;
    this._toes = Int32Array.of(roles.leftToes ?? -1, roles.rightToes ?? -1);
    this.joints = Array.from(this._toes).filter((j) => j >= 0);
    const s = this._s;
    for (let k = 0; k < 3; k++) s[U + k] = _body.frame[3 + k];
    s.set(_body.ball, BALL);
    this.feet[FEET_REACH] = LEG_REACH * _body.legLength;
  }

  /**
   * Lifts each planted foot's heel (`v[feet + 7i]`: its place, then its rotation) as far as its leg, from the
   * hip joint carried by the hips `v[HIPS_POS]`, needs to reach it; a foot in the air sets its heel down. What
   * it needs of the feet is in `feet` at the `FEET_*` slots.
   */
  lift(v: Float64Array, feet: number, state: Float64Array): void {
    const s = this._s,
      body = this._body;
    const r = state[FEET_REACH];
    let turned = 0;
    for (let k = 0; k < 3; k++) {
      turned += v[HEADING + k] * s[LAST_HEADING + k];
      s[LAST_HEADING + k] = v[HEADING + k];
    }
    const spin = Math.acos(Math.max(-1, Math.min(1, turned))) / Math.max(1e-6, state[FEET_DT]);
    const calm = spin > SPIN_SPEED ? 0 : 1;
    for (let i = 0; i < 2; i++) {
      const o = feet + 7 * i;
      for (let k = 0; k < 4; k++) s[FLAT + 4 * i + k] = v[o + 3 + k];
      // How far the foot turned since last frame (planted, it pivots with the body).
      let dot = 0,
        known = 0;
      for (let k = 0; k < 4; k++) {
        dot += s[FLAT + 4 * i + k] * s[LAST + 4 * i + k];
        known += s[LAST + 4 * i + k] * s[LAST + 4 * i + k];
      }
      // Not before a first frame (nor after a reset) has given one.
      s[TWIST + i] += known > 0.5 ? 2 * Math.acos(Math.min(1, Math.abs(dot))) : 0;
      for (let k = 0; k < 4; k++) s[LAST + 4 * i + k] = s[FLAT + 4 * i + k];
      // The ball, and the ankle from it.
      quatRotate(s, D, v, o + 3, s, BALL + 3 * i);
      for (let k = 0; k < 3; k++) {
        s[P + k] = v[o + k] + s[D + k];
        s[D + k] = -s[D + k];
      }
      // The heel turns about the foot's side axis, the way that raises the ankle.
      cross3(s, AXIS + 3 * i, D, U);
      if (!unit3(s, AXIS + 3 * i)) {
        s[ANGLE + i] = 0;
        continue;
      }
      cross3(s, T, AXIS + 3 * i, D);
      if (s[T] * s[U] + s[T + 1] * s[U + 1] + s[T + 2] * s[U + 2] < 0) {
        for (let k = 0; k < 3; k++) {
          s[AXIS + 3 * i + k] = -s[AXIS + 3 * i + k];
          s[T + k] = -s[T + k];
        }
      }
      // |hip − ankle(θ)|² = |h|² + |d|² − 2 (a cos θ + b sin θ): the least θ that brings it within reach of
      // the hip joint as the hips may come down first.
      hipLessFoot(v, body, i, o, s, H);
      const first = HIPS_FIRST * body.legLength;
      let h2 = 0,
        d2 = 0,
        a = 0,
        b = 0;
      for (let k = 0; k < 3; k++) {
        const h = s[H + k] + v[o + k] - s[P + k] - first * s[U + k];
        h2 += h * h;
        d2 += s[D + k] * s[D + k];
        a += h * s[D + k];
        b += h * s[T + k];
      }
      const need = (h2 + d2 - r * r) / 2;
      // Only a leg stretched back from its foot (the hip ahead of it, as behind a walking body) rolls onto the
      // ball: stretched sideways (a spin about the other foot) it would twist the ankle past its limits.
      let along = 0,
        hipFlat = 0;
      for (let k = 0; k < 3; k++) {
        const hp = s[H + k];
        along -= s[D + k] * hp;
        hipFlat += hp * hp;
      }
      const upF = -(s[D] * s[U] + s[D + 1] * s[U + 1] + s[D + 2] * s[U + 2]),
        upH = s[H] * s[U] + s[H + 1] * s[U + 1] + s[H + 2] * s[U + 2];
      const across =
        (along - upF * upH) / Math.sqrt(Math.max(1e-30, (d2 - upF * upF) * (hipFlat - upH * upH)));
      const ahead = Math.min(1, Math.max(0, 2 * across - 1));
      // A foot already pointing down (on a slope falling ahead of it) has less of the ankle's range left.
      const down0 = -upF / Math.sqrt(Math.max(1e-30, d2));
      const most = MOST_LIFT - Math.max(0, Math.asin(Math.max(-1, Math.min(1, down0))) - body.ballDrop[i]);
      const m = Math.sqrt(a * a + b * b);
      const toward = Math.atan2(b, a);
      // Within reach flat: no lift; beyond what any lift reaches: as near as the lift comes.
      const planted =
        a >= need ? 0 : need >= m ? toward : toward - Math.acos(Math.max(-1, Math.min(1, need / m)));
      // In the air: the lift it stepped off with, set down over the first part of the step.
      const x = Math.min(1, state[FEET_PHASE + i] / SET_DOWN);
      const down = s[LIFT_OFF + i] * (1 - x * x * (3 - 2 * x));
      const air = state[FEET_STEPPING + i] === 1;
      // A tracked foot (its tracker's weight in `state[FEET_TRACKED + i]`) is placed by its tracker.
      const free = s[PIVOT + i] > 0 || s[TWIST + i] < TWISTED ? 1 : 0;
      const wanted = Math.min(most, Math.max(0, planted)) * ahead * free * calm;
      const step = LIFT_SPEED * state[FEET_DT];
      const eased = Math.min(s[ANGLE + i] + step, Math.max(s[ANGLE + i] - step, wanted));
      const angle = (air ? down : eased) * (1 - state[FEET_TRACKED + i]);
      s[ANGLE + i] = Number.isFinite(angle) ? angle : 0;
      if (!air) s[LIFT_OFF + i] = s[ANGLE + i];
      // Once its heel has lifted, a planted foot turns about its ball until it steps (turning about its ball,
      // then its ankle, it would walk across the floor); never lifted, about its ankle.
      s[PIVOT + i] = air ? 0 : s[ANGLE + i] > 0 ? 1 : s[PIVOT + i];
      if (air) s[TWIST + i] = 0;
      // The ankle turned about the ball, and the foot's rotation with it.
      quatAxisAngle(s, Q, s, AXIS + 3 * i, s, ANGLE + i);
      quatRotate(v, o, s, Q, s, D);
      for (let k = 0; k < 3; k++) v[o + k] += s[P + k];
      quatMultiply(v, o + 3, s, Q, s, FLAT + 4 * i);
    }
  }

  /**
   * Bends each lifted foot's toes back by its lift, on the frame's pose before the solve, so they stay as
   * flat as the foot was (the solve turns the foot to its lifted target and carries the toes with it); by
   * `weight[w]`, the feet targets' weight.
   */
  bendToes(frame: FabrikFrame, weight: Float64Array, w: number): void {
    const s = this._s;
    for (let i = 0; i < 2; i++) {
      const toe = this._toes[i];
      if (toe < 0 || !(s[ANGLE + i] > 0)) continue;
      // The turn back about the side axis, in the flat foot's own frame: flat⁻¹ · turn(−θ) · flat.
      s[Q2] = -s[ANGLE + i] * weight[w];
      quatAxisAngle(s, Q, s, AXIS + 3 * i, s, Q2);
      quatConjugateMultiply(s, Q2, s, FLAT + 4 * i, s, Q);
      quatMultiply(s, Q, s, Q2, s, FLAT + 4 * i);
      frame.getLocalRotation(toe, s, Q2);
      quatMultiply(s, Q2, s, Q, s, Q2);
      frame.setLocalRotation(toe, s, Q2);
    }
  }

  /**
   * Per foot, how much a turn of the planted foot pivots about its ball (0: about the ankle) into `out[o + i]`:
   * all of it once its heel has lifted in this plant.
   */
  readPivots(out: Float64Array, o: number): void {
    for (let i = 0; i < 2; i++) out[o + i] = this._s[PIVOT + i];
  }

  /** Forgets the lifts (a reset: the feet are planted afresh, flat). */
  reset(): void {
    this._s.fill(0, ANGLE, BALL);
    this._s.fill(0, PIVOT, LAST);
  }
}

/**
 * Planted foot `i` (steps' state `s`), whose pointing direction `s[DIR]` just turned from `s[before..]`, moves
 * so that it turned about its ball rather than its ankle, by `pivot[i]` (a lifted heel: see readPivots).
 */
export function pivotOnBall(
  s: Float64Array,
  i: number,
  before: number,
  body: TrackedBodyRig,
  pivot: Float64Array,
): void {
  const b = i * FOOT_SIZE,
    f = body.ballAhead[2 * i] * pivot[i],
    l = body.ballAhead[2 * i + 1] * pivot[i];
  const ux = s[STEP_UP],
    uy = s[STEP_UP + 1],
    uz = s[STEP_UP + 2];
  // The ball's offset from the ankle, before the turn less after it (left = up × the direction).
  const x0 = s[before],
    y0 = s[before + 1],
    z0 = s[before + 2],
    x1 = s[b + DIR],
    y1 = s[b + DIR + 1],
    z1 = s[b + DIR + 2];
  s[b + POS] += f * (x0 - x1) + l * (uy * z0 - uz * y0 - (uy * z1 - uz * y1));
  s[b + POS + 1] += f * (y0 - y1) + l * (uz * x0 - ux * z0 - (uz * x1 - ux * z1));
  s[b + POS + 2] += f * (z0 - z1) + l * (ux * y0 - uy * x0 - (ux * y1 - uy * x1));
}

/**
 * Each planted foot (steps' state `s`) turned toward the heading as far as it twists (`pivotFoot`), about its
 * ball by `pivot[i]`, about its ankle for the rest.
 */
export function pivotFeet(s: Float64Array, v: Float64Array, body: TrackedBodyRig, pivot: Float64Array): void {
  for (let i = 0; i < 2; i++) {
    for (let k = 0; k < 3; k++) s[DRY + DIR + k] = s[i * FOOT_SIZE + DIR + k];
    pivotFoot(s, i * FOOT_SIZE + DIR, STEP_UP, v);
    pivotOnBall(s, i, DRY + DIR, body, pivot);
  }
}
