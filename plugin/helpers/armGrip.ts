import type { FabrikFrame } from "../babylon/index.js";
import {
  normalize3,
  quatAxisAngle,
  quatConjugateMultiply,
  quatFromUnitVectors,
  quatMultiply,
  quatRotate,
} from "../rig/index.js";
import type { JointLimits } from "../solver/index.js";
import {
  t,
  S,
  E,
  W,
  T,
  QT,
  QP,
  QU,
  QF,
  PARENT,
  SEG_LOWER,
  SEG_UPPER,
  AXIS,
  ROT,
  U,
  V,
  N,
  LOCAL,
  ANGLE,
  QU2,
  QF2,
  HAND,
  COST,
  TRY,
  LEN_A,
  LEN_B,
  RESIDUAL,
  MISS,
  D,
  A_,
  B_,
  C_,
  OFFSET,
  CONJ,
  SHOULDER,
  keepArm,
  turnArm,
  addBreach,
  keepInLimits,
  sub,
  conjugate,
  setDot,
  cross,
  setDistance,
} from "./armScratch.js";

/*
 * One arm closing its grip after the behavior's solve. The solve stops within the behavior's tolerance
 * (1e-3 of the height by default); a grip that must sit on its handle to a fraction of that is finished here,
 * in closed form, on the pose the frame will write:
 *
 * - the elbow bends about its hinge axis until the wrist is as far from the shoulder as the handle, then the
 *   arm turns about the shoulder onto it (for a miss up to a quarter of the arm; a larger one is a handle out
 *   of reach, where the solve's answer stands);
 * - the arm swivels about the shoulder–wrist line (the wrist stays) to the nearest swivel where the wrist can
 *   take the handle's orientation within its limits, and the shoulder stays within its own: a straight arm's
 *   twist, or an elbow the solve kept where the animation had it, can otherwise leave the hand's rotation
 *   outside the wrist's range, which the behavior then clamps; when no swivel does, the elbow's other bend is
 *   tried, then the solve's arm stands;
 * - the hand takes the handle's orientation, projected onto the wrist's limits.
 */

/** Misses the closure finishes, as a fraction of the arm's length; larger ones are out of reach. */
const CLOSE_FRACTION = 0.25;
/** Bend-and-turn rounds of the closure, and the miss (fraction of the arm) that ends them. */
const CLOSE_ROUNDS = 6;
const EXACT = 1e-9;
/** Limit breaches (radians) that count as none. */
const KEPT = 1e-6;
const SWIVEL_STEP = Math.PI / 18;
const SWIVEL_STEPS = 18;
const BISECTIONS = 12;
const REFINEMENTS = 32;
const GOLDEN = (Math.sqrt(5) - 1) / 2;

/** The arm joints of one hand, as indices in the behavior's rig. */
export class ArmGrip {
  /** Whether the closure takes the elbow's far bend (the one turning it more) rather than the near one. */
  private _far = false;

  /**
   * `lowerParent` and `handParent`: the forearm's and the hand's parents, the upper arm and the forearm
   * unless rigid segments lie between (Rigify's `DEF-upper_arm.L.001`), which turn with the bone above them.
   */
  constructor(
    readonly parent: number,
    readonly upper: number,
    readonly lower: number,
    readonly hand: number,
    readonly lowerParent = upper,
    readonly handParent = lower,
  ) {}

  /**
   * Closes the hand onto the handle `goal[g..g+6]` (model space: place, orientation) on the pose `frame`
   * will write, and writes where the hand got into `out[o..o+6]`.
   */
  close(
    frame: FabrikFrame,
    limits: JointLimits | null,
    goal: Float64Array,
    g: number,
    out: Float64Array,
    o: number,
  ): void {
    const p = frame.positions;
    const q = frame.orientations;
    for (let i = 0; i < 3; i++) {
      t[S + i] = p[3 * this.upper + i];
      t[E + i] = p[3 * this.lower + i];
      t[W + i] = p[3 * this.hand + i];
      t[T + i] = goal[g + i];
    }
    for (let i = 0; i < 4; i++) {
      t[QT + i] = goal[g + 3 + i];
      t[QP + i] = this.parent >= 0 ? q[4 * this.parent + i] : i === 3 ? 1 : 0;
      t[QU + i] = q[4 * this.upper + i];
      t[QF + i] = q[4 * this.lower + i];
    }
    // A segment's turn under the bone above it, which the closure keeps as it turns that bone (none when
    // the forearm hangs from the upper arm, the hand from the forearm: exactly the identity).
    segment(SEG_UPPER, QU, q, this.lowerParent, this.lowerParent === this.upper);
    segment(SEG_LOWER, QF, q, this.handParent, this.handParent === this.lower);
    setDistance(LEN_A, E, S);
    setDistance(LEN_B, W, E);
    setDistance(MISS, W, T);
    keepArm(true);
    // The elbow's two bends that give the handle's distance (the near one first): the first whose swivel
    // keeps the shoulder and wrist within their limits closes the grip, else the solve's arm stands.
    let done = false;
    if (t[MISS] <= CLOSE_FRACTION * (t[LEN_A] + t[LEN_B])) {
      for (let branch = 0; branch < 2 && !done; branch++) {
        if (branch > 0) keepArm(false);
        setDistance(MISS, W, T);
        this._far = branch > 0;
        this._close(limits);
        this._swivel(limits);
        done = t[RESIDUAL] <= KEPT;
      }
      if (!done) {
        keepArm(false);
        setDistance(MISS, W, T);
      }
    }
    if (!done) this._swivel(limits);
    // The hand: the handle's orientation under the forearm, within the wrist's limits.
    parentOf(QF, SEG_LOWER);
    quatConjugateMultiply(t, LOCAL, t, PARENT, t, QT);
    if (limits !== null) keepInLimits(limits, this.hand);
    quatMultiply(t, HAND, t, PARENT, t, LOCAL);
    frame.setLocalRotation(this.hand, t, LOCAL);
    quatConjugateMultiply(t, LOCAL, t, QP, t, QU);
    frame.setLocalRotation(this.upper, t, LOCAL);
    parentOf(QU, SEG_UPPER);
    quatConjugateMultiply(t, LOCAL, t, PARENT, t, QF);
    frame.setLocalRotation(this.lower, t, LOCAL);
    for (let i = 0; i < 3; i++) out[o + i] = t[W + i];
    for (let i = 0; i < 4; i++) out[o + 3 + i] = t[HAND + i];
  }

  /** Bends and turns the arm until the wrist is on the handle (or as near as the elbow's limits allow). */
  private _close(limits: JointLimits | null): void {
    // An elbow whose limits are not a plain hinge may not take the whole bend: it is kept within them, and
    // the rest is bent again from there.
    for (let round = 0; round < CLOSE_ROUNDS && t[MISS] > EXACT * (t[LEN_A] + t[LEN_B]); round++) {
      this._bend(limits);
      this._swing();
      setDistance(MISS, W, T);
    }
  }

  /**
   * The elbow bends about its hinge axis (or, for an elbow that is not a hinge, the axis of the bend it has)
   * until the wrist is as far from the shoulder as the handle, then is kept within its limits.
   */
  private _bend(limits: JointLimits | null): void {
    const a = t[LEN_A],
      b = t[LEN_B];
    sub(U, E, S);
    sub(V, W, E);
    const hinge = limits !== null && limits.specs[this.lower]?.hinge !== undefined;
    if (hinge) {
      // Δ = rest⁻¹·local turns about the hinge axis in the rest frame: in model space, that axis under
      // the upper arm and the rest rotation.
      parentOf(QU, SEG_UPPER);
      quatMultiply(t, ROT, t, PARENT, limits.restLocal, 4 * this.lower);
      quatRotate(t, N, t, ROT, limits.hingeAxis, 3 * this.lower);
    } else {
      cross(N, U, V);
    }
    if (!normalize3(t, N, t, N)) return; // straight and free: no bend axis to turn about
    // The wrist in the forearm's frame, to place it again after the elbow is kept within its limits.
    conjugate(CONJ, QF);
    quatRotate(t, OFFSET, t, CONJ, t, V);
    // |u + R(β)v|² = a² + b² + 2 u·R(β)v, and u·R(β)v = A cos β + B sin β + C about the unit axis n.
    setDot(C_, V, N);
    setDot(A_, U, N);
    t[C_] *= t[A_];
    setDot(A_, U, V);
    t[A_] -= t[C_];
    cross(AXIS, N, V);
    setDot(B_, U, AXIS);
    setDistance(D, T, S);
    const A = t[A_],
      B = t[B_],
      d = t[D];
    const r = Math.sqrt(A * A + B * B);
    if (!(r > 0)) return;
    const want = (d * d - a * a - b * b) / 2 - t[C_];
    const base = Math.atan2(B, A);
    const spread = Math.acos(Math.max(-1, Math.min(1, want / r)));
    // The two bends that give the distance, each taken the short way round.
    let b1 = base + spread,
      b2 = base - spread;
    if (b1 > Math.PI) b1 -= 2 * Math.PI;
    if (b2 < -Math.PI) b2 += 2 * Math.PI;
    t[ANGLE] = Math.abs(b1) < Math.abs(b2) !== this._far ? b1 : b2;
    quatAxisAngle(t, ROT, t, N, t, ANGLE);
    quatMultiply(t, QF, t, ROT, t, QF);
    quatRotate(t, V, t, ROT, t, V);
    for (let i = 0; i < 3; i++) t[W + i] = t[E + i] + t[V + i];
    if (limits === null) return;
    parentOf(QU, SEG_UPPER);
    quatConjugateMultiply(t, LOCAL, t, PARENT, t, QF);
    keepInLimits(limits, this.lower);
    quatMultiply(t, QF, t, PARENT, t, LOCAL);
    quatRotate(t, V, t, QF, t, OFFSET);
    for (let i = 0; i < 3; i++) t[W + i] = t[E + i] + t[V + i];
  }

  /** The whole arm turns about the shoulder, putting the wrist on the line to the handle. */
  private _swing(): void {
    sub(U, W, S);
    sub(V, T, S);
    if (!normalize3(t, U, t, U) || !normalize3(t, V, t, V)) return;
    quatFromUnitVectors(t, ROT, t, U, t, V);
    turnArm(ROT);
  }

  /**
   * The nearest swivel about the shoulder–wrist line at which the shoulder and the wrist keep their limits;
   * returns how far (radians) they still break them.
   */
  private _swivel(limits: JointLimits | null): void {
    t[RESIDUAL] = 0;
    if (limits === null) return;
    sub(AXIS, W, S);
    if (!normalize3(t, AXIS, t, AXIS)) return;
    // Swivels are tried through TRY and their breach read from COST: no double crosses a call.
    t[TRY] = 0;
    this._cost(limits);
    let best = 0;
    let bestCost = t[COST];
    t[RESIDUAL] = bestCost;
    if (bestCost <= KEPT) return;
    let found = false;
    for (let k = 1; k <= SWIVEL_STEPS && !found; k++) {
      for (let side = -1; side <= 1 && !found; side += 2) {
        const angle = side * k * SWIVEL_STEP;
        t[TRY] = angle;
        this._cost(limits);
        if (t[COST] <= KEPT) {
          // Bisect back toward the last refused swivel on this side: the allowed one nearest the solve's.
          let good = angle,
            bad = side * (k - 1) * SWIVEL_STEP;
          for (let i = 0; i < BISECTIONS; i++) {
            t[TRY] = (good + bad) / 2;
            this._cost(limits);
            if (t[COST] <= KEPT) good = t[TRY];
            else bad = t[TRY];
          }
          best = good;
          found = true;
        } else if (t[COST] < bestCost) {
          best = angle;
          bestCost = t[COST];
        }
      }
    }
    if (!found) {
      // The allowed swivels (if any) lie between two samples: a golden-section search for the least breach
      // around the best one (one new breach per step).
      let lo = best - SWIVEL_STEP,
        hi = best + SWIVEL_STEP;
      let m1 = hi - GOLDEN * (hi - lo),
        m2 = lo + GOLDEN * (hi - lo);
      t[TRY] = m1;
      this._cost(limits);
      let c1 = t[COST];
      t[TRY] = m2;
      this._cost(limits);
      let c2 = t[COST];
      for (let i = 0; i < REFINEMENTS && (c1 < c2 ? c1 : c2) > KEPT; i++) {
        if (c1 < c2) {
          hi = m2;
          m2 = m1;
          c2 = c1;
          m1 = hi - GOLDEN * (hi - lo);
          t[TRY] = m1;
          this._cost(limits);
          c1 = t[COST];
        } else {
          lo = m1;
          m1 = m2;
          c1 = c2;
          m2 = lo + GOLDEN * (hi - lo);
          t[TRY] = m2;
          this._cost(limits);
          c2 = t[COST];
        }
      }
      if (c1 < bestCost || c2 < bestCost) {
        bestCost = c1 < c2 ? c1 : c2;
        best = c1 < c2 ? m1 : m2;
      }
      found = bestCost <= KEPT;
    }
    if (!found && best !== 0) {
      // No swivel keeps both: the shoulder's limits are kept whatever it costs the wrist, whose rotation is
      // then projected onto its own. The shoulder is written as it is, so the least breach's swivel stands
      // only where it keeps them; else the swivel nearest it, toward the solve's (which keeps them), that does.
      t[TRY] = best;
      this._cost(limits);
      if (t[SHOULDER] > KEPT) {
        let good = 0,
          bad = best;
        for (let i = 0; i < BISECTIONS; i++) {
          t[TRY] = (good + bad) / 2;
          this._cost(limits);
          if (t[SHOULDER] <= KEPT) good = t[TRY];
          else bad = t[TRY];
        }
        best = good;
        t[TRY] = best;
        this._cost(limits);
        bestCost = t[COST];
      }
    }
    t[ANGLE] = best;
    quatAxisAngle(t, ROT, t, AXIS, t, ANGLE);
    turnArm(ROT);
    t[RESIDUAL] = found ? 0 : bestCost;
  }

  /** Into COST: how far (radians, summed) the shoulder and the wrist leave their limits with the arm swivelled by TRY. */
  private _cost(limits: JointLimits): void {
    quatAxisAngle(t, ROT, t, AXIS, t, TRY);
    quatMultiply(t, QU2, t, ROT, t, QU);
    quatMultiply(t, QF2, t, ROT, t, QF);
    quatConjugateMultiply(t, LOCAL, t, QP, t, QU2);
    t[COST] = 0;
    addBreach(limits, this.upper);
    t[SHOULDER] = t[COST];
    parentOf(QF2, SEG_LOWER);
    quatConjugateMultiply(t, LOCAL, t, PARENT, t, QT);
    addBreach(limits, this.hand);
  }
}

/** Into `at`: the orientation of joint `j` (in `q`) under the bone at `bone`; the identity when `same`. */
function segment(at: number, bone: number, q: Float64Array, j: number, same: boolean): void {
  if (same) {
    t[at] = t[at + 1] = t[at + 2] = 0;
    t[at + 3] = 1;
  } else quatConjugateMultiply(t, at, t, bone, q, 4 * j);
}

/** Into PARENT: the orientation of the joint below the bone at `bone`, through its rigid segment at `segment`. */
function parentOf(bone: number, segment: number): void {
  quatMultiply(t, PARENT, t, bone, t, segment);
}
