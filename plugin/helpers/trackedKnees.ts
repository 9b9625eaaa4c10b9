import type { FabrikFrame } from "../babylon/index.js";
import {
  isAncestor,
  quatAxisAngle,
  quatConjugateMultiply,
  quatMultiply,
  quatMultiplyConjugate,
  quatRotate,
} from "../rig/index.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { slerp4 } from "./trackedMath.js";
import { hipsJointPlace } from "./trackedHipJoint.js";
import { BODY_WEIGHT, C, HIPS_ROT, Q1, Q2 } from "./trackedSlots.js";

/** Radians each knee is bent forward before the solve, at full weight. */
const KNEE_START_BEND = 0.15;

/* Slots of the knees' own numbers. */
const BEND = 0; // the knees' bend, a model-space turn (4)
const OLD_HIPS = 4; // the hips' animated place (3) and orientation (4)
const NEW_HIPS = 11; // ... and as written (3 + 4)
const TURN = 18; // the hips' turn from the one to the other (4)
const FOOT_IN_SHIN = 22; // per side: the foot's place (3) and orientation (4) in its animated shin's frame
const SHIN = 36; // scratch: a shin's orientation (4), then a place (3)
const SIZE = 43;

/**
 * The legs' pose before the solve: each knee bent a little forward, so a leg that starts straight and must
 * shorten (the hips coming down) has a side to fold to (FABRIK moves joints only along the lines between
 * them); and, on rigs whose feet hang from the root instead of their shins (made for Blender's IK), the
 * foot carried with its shin when the hips move. The behavior works out such a leg's knee from the shin's
 * animated end, which is where the foot bone sits: a foot left where the animation had it while the hips
 * came down or went ahead reads as a shin of another length bent the other way, and the knee folded
 * backwards (the robot's held-out clips: up to 32 frames of 240 with a knee behind its leg).
 */
export class TrackedKnees {
  private readonly _n = new Float64Array(SIZE);
  /** Per side: 1 when the foot does not hang below its shin. */
  private readonly _shinEnd = new Uint8Array(2);

  constructor(
    private readonly _body: TrackedBodyRig,
    private readonly _parents: Int32Array,
  ) {
    for (let i = 0; i < 2; i++) {
      const side = _body.sides[i];
      this._shinEnd[i] = isAncestor(_parents, side.lowerLeg, side.foot) ? 0 : 1;
    }
  }

  /**
   * Before the hips are written, on the animated pose: bends each knee forward by `v[BODY_WEIGHT]` and keeps
   * what {@link carry} needs.
   */
  bend(frame: FabrikFrame, v: Float64Array): void {
    const n = this._n,
      body = this._body,
      parents = this._parents;
    const p = frame.positions,
      o = frame.orientations;
    for (let k = 0; k < 3; k++) v[C + k] = body.frame[6 + k];
    v[C + 3] = KNEE_START_BEND * v[BODY_WEIGHT];
    quatAxisAngle(n, BEND, v, C, v, C + 3);
    const hips = body.hips;
    for (let k = 0; k < 3; k++) n[OLD_HIPS + k] = p[3 * hips + k];
    for (let k = 0; k < 4; k++) n[OLD_HIPS + 3 + k] = o[4 * hips + k];
    for (let i = 0; i < 2; i++) {
      const side = body.sides[i];
      const knee = side.lowerLeg,
        parent = parents[knee];
      if (this._shinEnd[i] === 1) {
        // The foot in the shin's frame, as animated: it stays there as the knee bends and the hips move.
        const foot = side.foot,
          f = FOOT_IN_SHIN + 7 * i;
        for (let k = 0; k < 3; k++) n[SHIN + 4 + k] = p[3 * foot + k] - p[3 * knee + k];
        for (let k = 0; k < 3; k++) n[SHIN + k] = -o[4 * knee + k];
        n[SHIN + 3] = o[4 * knee + 3];
        quatRotate(n, f, n, SHIN, n, SHIN + 4);
        quatConjugateMultiply(n, f + 3, o, 4 * knee, o, 4 * foot);
      }
      // The turn about the body's left, in the knee's parent's frame: conj(P) · R · P · local.
      frame.getLocalRotation(knee, v, Q1);
      quatMultiply(v, Q1, o, 4 * parent, v, Q1);
      quatMultiply(v, Q1, n, BEND, v, Q1);
      quatConjugateMultiply(v, Q1, o, 4 * parent, v, Q1);
      frame.setLocalRotation(knee, v, Q1);
    }
  }

  /**
   * After the hips are written (their place `v[HIPS_POS]` and orientation `v[HIPS_ROT]` blended from the
   * animated ones by `v[BODY_WEIGHT]`): moves each foot that hangs from the root to where its shin, carried
   * by the hips and bent by {@link bend}, now ends, turned with it.
   */
  carry(frame: FabrikFrame, v: Float64Array): void {
    if (this._shinEnd[0] === 0 && this._shinEnd[1] === 0) return;
    const n = this._n,
      body = this._body,
      parents = this._parents;
    const p = frame.positions,
      o = frame.orientations;
    for (let k = 0; k < 4; k++) n[TURN + k] = v[HIPS_ROT + k];
    slerp4(n, NEW_HIPS + 3, n, OLD_HIPS + 3, TURN, v, BODY_WEIGHT);
    hipsJointPlace(v, body, n, OLD_HIPS, n, OLD_HIPS + 3, n, NEW_HIPS + 3, n, NEW_HIPS);
    quatMultiplyConjugate(n, TURN, n, NEW_HIPS + 3, n, OLD_HIPS + 3);
    for (let i = 0; i < 2; i++) {
      if (this._shinEnd[i] === 0) continue;
      const side = body.sides[i];
      const knee = side.lowerLeg,
        foot = side.foot,
        f = FOOT_IN_SHIN + 7 * i;
      // The knee's new place: carried rigidly by the hips' move (the joints between are as animated).
      for (let k = 0; k < 3; k++) n[SHIN + 4 + k] = p[3 * knee + k] - n[OLD_HIPS + k];
      quatRotate(n, SHIN + 4, n, TURN, n, SHIN + 4);
      // The shin's new orientation: the hips' turn on the bent animated one.
      quatMultiply(n, SHIN, n, BEND, o, 4 * knee);
      quatMultiply(n, SHIN, n, TURN, n, SHIN);
      // The foot, where the shin now carries it, less its parent's place, in its parent's space.
      const parent = parents[foot];
      quatRotate(v, C, n, SHIN, n, f);
      for (let k = 0; k < 3; k++) {
        v[C + k] += n[NEW_HIPS + k] + n[SHIN + 4 + k] - (parent >= 0 ? p[3 * parent + k] : 0);
      }
      if (!frame.toJointSpace(parent, v, C)) continue;
      frame.setLocalPosition(foot, v, C);
      quatMultiply(v, Q2, n, SHIN, n, f + 3);
      if (parent >= 0) quatConjugateMultiply(v, Q2, o, 4 * parent, v, Q2);
      frame.setLocalRotation(foot, v, Q2);
    }
  }
}
