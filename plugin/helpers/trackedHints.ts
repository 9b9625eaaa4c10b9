import type { FabrikFrame, FabrikPass, SkeletonRig } from "../babylon/index.js";
import { quatAxisAngle, quatConjugateMultiply, quatMultiply, transformPoint } from "../rig/index.js";
import type { TrackedBodySettings } from "./trackedBodyOptions.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { TrackedHint, type TrackedHintName } from "./trackedHint.js";
import { DT, FOOT_TARGET, HAND_TARGET, VALID } from "./trackedSlots.js";

/** The hints, in the order of their slots: elbows, then knees. */
export const HINT_NAMES: readonly TrackedHintName[] = ["leftElbow", "rightElbow", "leftKnee", "rightKnee"];

/**
 * A hint counts fully once it lies this far (a fraction of the limb's upper bone) off the line the limb
 * swivels about, less nearer it, and not at all on it: there the side it gives is unsure, and a hint
 * wobbling across the line would swing the limb round.
 */
const SURE_HINT = 0.1;

/**
 * How much of the turn a solve left missing is added to the drift made up (see `_drift`), and the most it
 * makes up (radians): where a limit keeps the limb from the hinted plane, making up more would only push the
 * solve's input further past the limit.
 */
const DRIFT_SHARE = 0.5;
const MOST_DRIFT = 0.35;

/** Slots of `_v`: each hint's model-space place (3) and applied weight, 4 a hint; then scratch. */
const APPLIED = 3;
const S = 16; // the limb's root (shoulder, hip)
const AXIS = 19; // unit, root to the hand's (foot's) target
const E = 22; // the elbow's (knee's) offset from that axis
const H = 25; // the hint's offset from that axis
const Q = 28;
const Q2 = 32;
const ANGLE = 36;
const D = 37; // 4 × 3: the unit direction each limb's middle joint was turned to before the solve
const TURN = 49; // an angle measured (see _angle)
const SIZE = 50;

/**
 * The elbow and knee hints of a tracked body, read and faded each frame, and the swivel they give: before
 * the solve, in the pose it starts from, each hinted limb's upper bone is turned about the line from its root
 * to its end's target by the hint's weight times the angle from where its elbow (knee) points to where the
 * hint is. The solver places a two-bone limb keeping the swivel it starts from, within the root's limits
 * (docs/solver.md, shortcuts), so the hand (foot) still reaches its target, the limits hold, and the elbow
 * (knee) lies between the body's own choice and the hint's plane by the hint's weight.
 *
 * A pass of its own, after the tracked body's (whose pass places the hips and warm-starts the arms: the
 * frame's model-space pose is brought up to date between passes). An elbow's turn is kept in
 * {@link turned}: `TrackedElbows` takes it back from the solution the next frame starts from, so that the
 * body's own choice evolves as without the hint.
 */
export class TrackedHints {
  readonly hints: readonly TrackedHint[] = HINT_NAMES.map((n) => new TrackedHint(n));
  /** Per elbow (left, right): the swivel (radians) given before this frame's solve; 0 for none. */
  readonly turned = new Float64Array(2);
  /** Every joint the pass turns or reads. */
  readonly joints: readonly number[];
  /** Set by the body when it ran its frame: hints act only then (its targets and weights are this frame's). */
  due = false;
  private readonly _v = new Float64Array(SIZE);
  /** Per limb (left arm, right arm, left leg, right leg): root, middle joint, end, the root's parent. */
  private readonly _limbs: Int32Array;
  /** Per limb: its upper bone's length at rest. */
  private readonly _bone = new Float64Array(4);
  /**
   * Per limb: how far (radians) the solve is expected to turn it away from the swivel it starts from, learned
   * from the last solves and made up for before the next. The solve keeps a two-bone limb's swivel about the
   * line from its root to its target only where its end starts on that target and its root stays put; the
   * warm-started arm starts a few cm off and its shoulder moves with the spine, which turned it 6–12° on the
   * mannequin.
   */
  private readonly _drift = new Float64Array(4);
  /** Per limb: the share of the drift made up this frame (0: the limb was not turned). */
  private readonly _made = new Float64Array(4);

  constructor(rig: SkeletonRig, body: TrackedBodyRig) {
    const limbs: number[] = [];
    const [left, right] = body.sides;
    const pairs = [
      [left.upperArm, left.lowerArm, left.hand],
      [right.upperArm, right.lowerArm, right.hand],
      [left.upperLeg, left.lowerLeg, left.foot],
      [right.upperLeg, right.lowerLeg, right.foot],
    ];
    const p = rig.restPositions;
    pairs.forEach(([root, mid, end], l) => {
      limbs.push(root, mid, end, rig.parents[root]);
      let d2 = 0;
      for (let k = 0; k < 3; k++) d2 += (p[3 * mid + k] - p[3 * root + k]) ** 2;
      this._bone[l] = Math.sqrt(d2);
    });
    this._limbs = Int32Array.from(limbs);
    this.joints = pairs.flat();
  }

  /**
   * The hints' pass, reading the body's numbers `body` (its slots), its effectors' weights `weights` and its
   * `settings` each frame (see {@link run} and {@link learn}).
   */
  pass(body: Float64Array, weights: Float64Array, settings: TrackedBodySettings): FabrikPass {
    return {
      joints: this.joints,
      beforeSolve: (frame) => this.run(frame, body, weights, settings),
      afterSolve: (frame) => this.learn(frame),
    };
  }

  /** The weight hint `h` shows this frame (its weight, faded). */
  applied(h: number): number {
    return this._v[4 * h + APPLIED];
  }

  /**
   * Before the solve, on the pose the tracked body's pass left: reads the hints into model space, fades each
   * applied weight toward its weight (0 for a non-finite place) over `fadeTime` of a frame `body[DT]`
   * long, and turns each hinted limb. An arm's hint counts by its hand's effector weight `weights[1 + i]`, a
   * leg's by its foot's `weights[3 + i]`: an untracked limb keeps its animation.
   */
  run(frame: FabrikFrame, body: Float64Array, weights: Float64Array, settings: TrackedBodySettings): void {
    this.turned[0] = this.turned[1] = 0;
    for (let l = 0; l < 4; l++) this._made[l] = 0;
    if (!this.due) return;
    this.due = false;
    const v = this._v;
    const dt = body[DT];
    const fade = settings.fadeTime;
    const step = !(fade > 0) ? 1 : dt / fade;
    for (let h = 0; h < 4; h++) {
      const hint = this.hints[h];
      hint._readNode();
      const p = hint.position;
      v[4 * h] = p.x;
      v[4 * h + 1] = p.y;
      v[4 * h + 2] = p.z;
      const ok = Number.isFinite(p.x) && Number.isFinite(p.y) && Number.isFinite(p.z);
      if (ok) transformPoint(v, 4 * h, frame.worldToModel, v, 4 * h);
      const goal = ok && Number.isFinite(v[4 * h]) ? hint.weight : 0;
      const applied = v[4 * h + APPLIED];
      v[4 * h + APPLIED] = goal > applied ? Math.min(goal, applied + step) : Math.max(goal, applied - step);
    }
    for (let i = 0; i < 2; i++) {
      const w = v[4 * i + APPLIED] * weights[1 + i];
      if (w > 0 && body[VALID + 1 + i] === 1 && this._swivel(frame, i, body, HAND_TARGET + 7 * i, w)) {
        this.turned[i] = v[ANGLE];
      }
      const wLeg = v[4 * (2 + i) + APPLIED] * weights[3 + i];
      if (wLeg > 0) this._swivel(frame, 2 + i, body, FOOT_TARGET + 7 * i, wLeg);
    }
  }

  /**
   * After the solve: learns how far the solve turned each limb turned before it, from the direction its
   * middle joint was turned to; a limb not turned this frame forgets.
   */
  learn(frame: FabrikFrame): void {
    const v = this._v;
    const pos = frame.positions;
    for (let l = 0; l < 4; l++) {
      if (this._made[l] === 0) {
        this._drift[l] = 0;
        continue;
      }
      const root = this._limbs[4 * l],
        mid = this._limbs[4 * l + 1],
        end = this._limbs[4 * l + 2];
      for (let k = 0; k < 3; k++) {
        v[S + k] = pos[3 * root + k];
        v[AXIS + k] = pos[3 * end + k] - v[S + k];
        v[E + k] = pos[3 * mid + k] - v[S + k];
        v[H + k] = v[D + 3 * l + k];
      }
      if (!this._offsets()) continue;
      // What is made up grows by a share of the turn still missing, from where the solve left the limb to
      // the direction given (a drift the solve repeats is then made up in full).
      this._angle();
      let drift = this._drift[l] + DRIFT_SHARE * v[TURN];
      drift = drift > MOST_DRIFT ? MOST_DRIFT : drift < -MOST_DRIFT ? -MOST_DRIFT : drift;
      if (Number.isFinite(drift)) this._drift[l] = drift;
    }
  }

  /**
   * In `_v`: the unit AXIS from `AXIS`, and E, H less their parts along it; false when the axis or E is too
   * short. Returns nothing of H's length: the caller reads it.
   */
  private _offsets(): boolean {
    const v = this._v;
    let len = 0;
    for (let k = 0; k < 3; k++) len += v[AXIS + k] * v[AXIS + k];
    len = Math.sqrt(len);
    if (!(len > 1e-9) || !Number.isFinite(len)) return false;
    let de = 0,
      dh = 0;
    for (let k = 0; k < 3; k++) {
      v[AXIS + k] /= len;
      de += v[E + k] * v[AXIS + k];
      dh += v[H + k] * v[AXIS + k];
    }
    let e2 = 0;
    for (let k = 0; k < 3; k++) {
      v[E + k] -= de * v[AXIS + k];
      v[H + k] -= dh * v[AXIS + k];
      e2 += v[E + k] * v[E + k];
    }
    return e2 > 0;
  }

  /**
   * `_v[TURN]`: the angle about `_v[AXIS]` from `_v[E]` to `_v[H]` (both square to it). A slot, not a return:
   * a double returned from a call V8 does not inline is boxed.
   */
  private _angle(): void {
    const v = this._v;
    const cx = v[E + 1] * v[H + 2] - v[E + 2] * v[H + 1],
      cy = v[E + 2] * v[H] - v[E] * v[H + 2],
      cz = v[E] * v[H + 1] - v[E + 1] * v[H];
    v[TURN] = Math.atan2(
      cx * v[AXIS] + cy * v[AXIS + 1] + cz * v[AXIS + 2],
      v[E] * v[H] + v[E + 1] * v[H + 1] + v[E + 2] * v[H + 2],
    );
  }

  /**
   * Turns limb `l`'s root about the line from it to the target `body[t..t+2]` by `w` of the angle from its
   * middle joint to hint `l`, scaled down near the line (see SURE_HINT); the angle into `_v[ANGLE]`. False
   * (nothing turned) when the line, the limb's bend or the hint's offset from the line cannot be told.
   */
  private _swivel(frame: FabrikFrame, l: number, body: Float64Array, t: number, w: number): boolean {
    const v = this._v;
    const pos = frame.positions,
      rot = frame.orientations;
    const root = this._limbs[4 * l],
      mid = this._limbs[4 * l + 1],
      parent = this._limbs[4 * l + 3];
    for (let k = 0; k < 3; k++) {
      v[S + k] = pos[3 * root + k];
      v[AXIS + k] = body[t + k] - v[S + k];
      v[E + k] = pos[3 * mid + k] - v[S + k];
      v[H + k] = v[4 * l + k] - v[S + k];
    }
    if (!this._offsets()) return false;
    const sure =
      Math.sqrt(v[H] * v[H] + v[H + 1] * v[H + 1] + v[H + 2] * v[H + 2]) / (SURE_HINT * this._bone[l]);
    if (!(sure > 0)) return false;
    const share = w * (sure < 1 ? sure : 1);
    this._angle();
    const angle = v[TURN];
    v[ANGLE] = share * (angle + this._drift[l]);
    if (!Number.isFinite(v[ANGLE])) return false;
    // Where the middle joint is turned to, without the drift made up: what the solve should leave.
    const c = Math.cos(share * angle),
      s = Math.sin(share * angle);
    let d2 = 0;
    for (let k = 0; k < 3; k++) {
      const k1 = (k + 1) % 3,
        k2 = (k + 2) % 3;
      const cross = v[AXIS + k1] * v[E + k2] - v[AXIS + k2] * v[E + k1];
      v[D + 3 * l + k] = v[E + k] * c + cross * s;
      d2 += v[D + 3 * l + k] * v[D + 3 * l + k];
    }
    for (let k = 0; k < 3; k++) v[D + 3 * l + k] /= Math.sqrt(d2);
    this._made[l] = 1;
    // Model space: the root turned about the axis; then in its parent's frame.
    quatAxisAngle(v, Q, v, AXIS, v, ANGLE);
    quatMultiply(v, Q2, v, Q, rot, 4 * root);
    if (parent >= 0) quatConjugateMultiply(v, Q, rot, 4 * parent, v, Q2);
    else for (let k = 0; k < 4; k++) v[Q + k] = v[Q2 + k];
    frame.setLocalRotation(root, v, Q);
    return true;
  }
}
