import type { FabrikBehavior, FabrikFrame, SkeletonRig } from "../babylon/index.js";
import {
  quatAxisAngle,
  quatConjugateMultiply,
  quatMultiply,
  quatMultiplyConjugate,
  quatRotate,
} from "../rig/index.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { APPLIED, DT } from "./trackedSlots.js";
import type { TrackedWarmStart } from "./trackedWarmStart.js";

/** Scratch slots. */
const S = 0; // the shoulder (upper arm joint)
const AXIS = 3; // unit, shoulder to wrist
const E = 6; // the elbow's offset from that axis
const P = 9; // the preferred elbow's offset from that axis
const D = 12; // the forearm the hand's rotation implies
const Q = 15; // quaternions
const Q2 = 19;
const ANGLE = 23;
const OUT = 24; // an upper arm's turned local rotation
const SHARE = 28; // the share of the swivel made this frame
const MOST = 29; // the most it turns this frame (radians)
const HINTED = 30; // the swivel a hint gave this frame's solve (radians), taken back
const SCRATCH = 31;

/**
 * The elbow the hand implies counts fully once it lies this far (a fraction of the forearm's length) off the
 * shoulder–wrist line, less nearer it: there the side it gives is unsure (a hand held along the arm).
 */
const SURE_OFFSET = 0.5;
/**
 * Time constant (seconds) of an elbow's swivel following the preferred one: half the way in a frame at 60 fps.
 * Turned all the way each frame, the elbow follows every wobble of the hand's rotation, and the arm jerks.
 */
const ELBOW_TIME = 1 / 60 / Math.LN2;

/**
 * The fastest an elbow swivels (radians a second): a hand's rotation that swings the preferred side round
 * quickly (a dance, a run's arm swing, a hand passing along the arm) made successive solves start far apart,
 * costing iterations and jerking.
 */
const SWIVEL_SPEED = 6;

/** How far a joint's limits let it twist (radians): unbounded without limits, none with limits but no twist. */
function twistRange(behavior: FabrikBehavior, joint: number): number {
  // The limits as they are now: a later setLimit is not seen.
  const spec = behavior.getLimit(joint);
  return spec === undefined ? Infinity : spec.twist === undefined ? 0 : spec.twist.max - spec.twist.min;
}

/**
 * Where each elbow starts the next solve: turned about the shoulder–wrist line (the swivel, the one freedom a
 * two-bone arm has once its hand is placed) to where the wrist bends least, the hand's rotation (the
 * controller's) taken as the forearm's with the wrist as at rest. A raised hand, palm forward, then has its
 * elbow down and out; a hand turned palm up by the face, its elbow down in front. The solver places a two-bone
 * arm in closed form, keeping the swivel of the pose it starts from (docs/solver.md, shortcuts), so the
 * elbow is set there, on the solution the next frame starts from (`TrackedWarmStart`): a pole made the
 * coupled spine and arms converge slowly.
 *
 * The hand's roll about the forearm is taken up by the elbow's and the wrist's twist, as far as their limits
 * allow (half their ranges added): within that, the swivel only lines the forearm up with the hand. A rig
 * whose elbow is a plain hinge and whose wrist twists little cannot roll the hand that far: the rest of the
 * roll is then the swivel's (the upper arm turns the forearm), or the solve could not give the hand its
 * rotation.
 */
export class TrackedElbows {
  private readonly _v = new Float64Array(SCRATCH);
  /** Per side: upper arm, lower arm, hand, the upper arm's parent. */
  private readonly _joints: Int32Array;
  /** Per side: the rest forearm (lower arm to hand), model space. */
  private readonly _forearm = new Float64Array(6);
  /** Per side: the lower arm's rest orientation, model space. */
  private readonly _restForearm = new Float64Array(8);
  /** Per side: how far (radians, either way) the elbow and wrist twist between them. */
  private readonly _roll = new Float64Array(2);
  /** Per side: the forearm's length. */
  private readonly _length = new Float64Array(2);

  constructor(
    behavior: FabrikBehavior,
    rig: SkeletonRig,
    private readonly _body: TrackedBodyRig,
  ) {
    const p = rig.restPositions;
    const joints: number[] = [];
    _body.sides.forEach((s, i) => {
      joints.push(s.upperArm, s.lowerArm, s.hand, rig.parents[s.upperArm]);
      let len = 0;
      for (let k = 0; k < 3; k++) {
        const d = p[3 * s.hand + k] - p[3 * s.lowerArm + k];
        this._forearm[3 * i + k] = d;
        len += d * d;
      }
      this._length[i] = Math.sqrt(len);
      for (let k = 0; k < 4; k++) this._restForearm[4 * i + k] = rig.restOrientations[4 * s.lowerArm + k];
      this._roll[i] = (twistRange(behavior, s.lowerArm) + twistRange(behavior, s.hand)) / 2;
    });
    this._joints = Int32Array.from(joints);
  }

  /**
   * After the solve: each arm whose hand is tracked (its applied weight `body[APPLIED + 1 + i]` above 0) has
   * its upper arm turned toward the preferred swivel, in the solution `warm` keeps for the next frame, by the
   * share of the way a frame `body[DT]` seconds long goes (see ELBOW_TIME), at most SWIVEL_SPEED. The swivel
   * an elbow hint gave the solve, `turned[i]` (see TrackedHints), is taken back: the kept solution goes on
   * as without the hint, which is given again before each solve.
   */
  store(frame: FabrikFrame, warm: TrackedWarmStart, body: Float64Array, turned: Float64Array): void {
    const dt = body[DT];
    this._v[SHARE] = dt > 0 ? 1 - Math.exp(-dt / ELBOW_TIME) : 0;
    this._v[MOST] = dt > 0 ? SWIVEL_SPEED * dt : 0;
    for (let i = 0; i < 2; i++) {
      this._v[HINTED] = turned[i];
      if (body[APPLIED + 1 + i] > 0 && this._turn(frame, i)) {
        warm.replace(this._body.sides[i].upperArm, this._v, OUT);
      }
    }
  }

  /** Arm `i`'s upper arm, turned to the preferred swivel, as a local rotation into `v[OUT]`; false for none. */
  private _turn(frame: FabrikFrame, i: number): boolean {
    const v = this._v;
    const pos = frame.positions,
      rot = frame.orientations;
    const upper = this._joints[4 * i],
      lower = this._joints[4 * i + 1],
      hand = this._joints[4 * i + 2],
      parent = this._joints[4 * i + 3];
    let len = 0;
    for (let k = 0; k < 3; k++) {
      v[S + k] = pos[3 * upper + k];
      v[AXIS + k] = pos[3 * hand + k] - v[S + k];
      len += v[AXIS + k] * v[AXIS + k];
    }
    len = Math.sqrt(len);
    if (!(len > 1e-9 * this._length[i])) return false;
    for (let k = 0; k < 3; k++) v[AXIS + k] /= len;
    // The forearm if the wrist were as at rest: the rest forearm turned as the hand turned from rest.
    quatMultiplyConjugate(v, Q, rot, 4 * hand, this._body.rest, 8 + 4 * i);
    quatRotate(v, D, v, Q, this._forearm, 3 * i);
    let de = 0,
      dp = 0;
    for (let k = 0; k < 3; k++) {
      v[E + k] = pos[3 * lower + k] - v[S + k];
      // The elbow that forearm gives: the wrist less the forearm.
      v[P + k] = pos[3 * hand + k] - v[D + k] - v[S + k];
      de += v[E + k] * v[AXIS + k];
      dp += v[P + k] * v[AXIS + k];
    }
    let e2 = 0,
      p2 = 0;
    for (let k = 0; k < 3; k++) {
      v[E + k] -= de * v[AXIS + k];
      v[P + k] -= dp * v[AXIS + k];
      e2 += v[E + k] * v[E + k];
      p2 += v[P + k] * v[P + k];
    }
    const offset = Math.sqrt(p2) / this._length[i];
    const hinted = v[HINTED];
    if (!(e2 > 0) || !(offset > 0)) {
      if (hinted === 0) return false;
      // No side of its own to turn to: only the hint's swivel is taken back.
      v[ANGLE] = -hinted;
      return this._turnBy(frame, upper, parent);
    }
    // The swivel from the elbow's side to the preferred one, about the axis.
    const cx = v[E + 1] * v[P + 2] - v[E + 2] * v[P + 1],
      cy = v[E + 2] * v[P] - v[E] * v[P + 2],
      cz = v[E] * v[P + 1] - v[E + 1] * v[P];
    let angle = Math.atan2(
      cx * v[AXIS] + cy * v[AXIS + 1] + cz * v[AXIS + 2],
      v[E] * v[P] + v[E + 1] * v[P + 1] + v[E + 2] * v[P + 2],
    );
    const free = this._roll[i];
    if (free < Math.PI) {
      // The whole turn from the solved forearm to the one a rest wrist gives (Q·rest forearm, Q the hand's
      // turn from rest); its part about the axis, `roll`, is the swivel that would leave the wrist no roll.
      // The swivel stays within what the elbow and wrist can roll of it.
      quatMultiply(v, Q, v, Q, this._restForearm, 4 * i);
      quatMultiplyConjugate(v, Q, v, Q, rot, 4 * lower);
      const along = v[Q] * v[AXIS] + v[Q + 1] * v[AXIS + 1] + v[Q + 2] * v[AXIS + 2];
      const w = v[Q + 3];
      const roll = 2 * Math.atan2(w < 0 ? -along : along, w < 0 ? -w : w);
      let left = roll - angle;
      left = left > Math.PI ? left - 2 * Math.PI : left < -Math.PI ? left + 2 * Math.PI : left;
      if (left > free) angle = roll - free;
      else if (left < -free) angle = roll + free;
    }
    if (hinted !== 0) {
      // Measured from where the elbow would be without the hint's swivel, the short way round.
      angle += hinted;
      angle = angle > Math.PI ? angle - 2 * Math.PI : angle < -Math.PI ? angle + 2 * Math.PI : angle;
    }
    v[ANGLE] = angle * (offset >= SURE_OFFSET ? 1 : offset / SURE_OFFSET) * v[SHARE];
    if (v[ANGLE] > v[MOST]) v[ANGLE] = v[MOST];
    else if (v[ANGLE] < -v[MOST]) v[ANGLE] = -v[MOST];
    v[ANGLE] -= hinted;
    return this._turnBy(frame, upper, parent);
  }

  /** The upper arm turned by `_v[ANGLE]` about `_v[AXIS]`, as a local rotation into `v[OUT]`; false if NaN. */
  private _turnBy(frame: FabrikFrame, upper: number, parent: number): boolean {
    const v = this._v;
    const rot = frame.orientations;
    if (!Number.isFinite(v[ANGLE])) return false;
    // Model space: the upper arm turned about the axis; then in its parent's frame.
    quatAxisAngle(v, Q, v, AXIS, v, ANGLE);
    quatMultiply(v, Q2, v, Q, rot, 4 * upper);
    if (parent >= 0) quatConjugateMultiply(v, OUT, rot, 4 * parent, v, Q2);
    else for (let k = 0; k < 4; k++) v[OUT + k] = v[Q2 + k];
    return true;
  }
}
