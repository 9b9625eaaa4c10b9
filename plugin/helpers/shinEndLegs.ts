import {
  copy,
  quatScaleAngle,
  animatedKnee,
  KNEE_ANIMATED,
  KNEE_BEND,
  KNEE_END,
  KNEE_FOOT_LOCAL,
  KNEE_GOAL,
  KNEE_HINGE,
  KNEE_HIP,
  KNEE_MAX,
  KNEE_MIN,
  KNEE_OUT,
  KNEE_REACH,
  KNEE_SHIN,
  KNEE_SHIN_OUT,
  kneeReach,
  placeKnee,
  quatConjugateMultiply,
  quatMultiply,
  quatMultiplyConjugate,
  quatRotate,
} from "../rig/index.js";
import type { FabrikFrame } from "../babylon/index.js";
import type { JointLimits } from "../solver/index.js";
import {
  APPLIED,
  BEND_LOCAL,
  DELTA,
  FOOT_MODEL,
  KNEE_ROTATION,
  KNEE_TARGET,
  MODEL_ROTATION,
  MODEL_TARGET,
  SHIN_AXIS,
  SHIN_END,
  SHIN_HINGE,
  SHIN_MAX,
  SHIN_MIN,
  SHIN_ORIENTATION,
  SHIN_REACH,
  SHIN_STRETCH,
  TILT_AMOUNT,
  TILT_Q,
  TURN,
  VECTOR,
} from "./footSlots.js";
import type { BodyTilt } from "./bodyTilt.js";
import type { LegState } from "./legState.js";

/*
 * Legs whose foot does not hang below them but sits where the shin ends (rigs made for Blender's IK keep the
 * feet under the root): before the solve the knee's target is placed so the shin ends on the foot's target,
 * and after the solve the foot bone is moved to where the shin then ends. `k` is the knee's working array
 * (see shinEnd), `n` the frame's scalars, `leg.s` the leg's state (see footSlots).
 */

/**
 * Before the hips are settled: where the foot sits in the shin's frame, and the animated shin as the
 * behavior's limits keep it (see `animatedKnee`), with how far the leg reaches.
 */
export function limitShin(
  leg: LegState,
  k: Float64Array,
  frame: FabrikFrame,
  limits: JointLimits | null,
): void {
  const s = leg.s;
  animatedKnee(
    k,
    frame.positions,
    frame.orientations,
    leg.leg.base,
    leg.leg.shin,
    s,
    FOOT_MODEL,
    s,
    BEND_LOCAL,
    limits,
  );
  copy(s, SHIN_END, k, KNEE_FOOT_LOCAL, 3);
  kneeReach(k);
  copy(s, SHIN_ORIENTATION, k, KNEE_SHIN, 4);
  copy(s, SHIN_AXIS, k, KNEE_BEND, 3);
  s[SHIN_HINGE] = k[KNEE_HINGE];
  s[SHIN_MIN] = k[KNEE_MIN];
  s[SHIN_MAX] = k[KNEE_MAX];
  s[SHIN_REACH] = k[KNEE_REACH];
  const x = k[KNEE_END] - k[KNEE_HIP],
    y = k[KNEE_END + 1] - k[KNEE_HIP + 1],
    z = k[KNEE_END + 2] - k[KNEE_HIP + 2];
  s[SHIN_STRETCH] = Math.sqrt(x * x + y * y + z * z);
}

/**
 * Once the hips are settled: the knee's target (`KNEE_TARGET`, and the shin's orientation `KNEE_ROTATION`)
 * that ends the shin on the foot's target, from the hip as lowered by `n[APPLIED]` (the frame's positions
 * are the pose read, before the lowering).
 */
export function placeShinKnee(
  leg: LegState,
  k: Float64Array,
  n: Float64Array,
  frame: FabrikFrame,
  tilt: BodyTilt,
): void {
  const s = leg.s;
  const p = frame.positions;
  const shin = leg.leg.shin,
    thigh = leg.leg.base;
  for (let i = 0; i < 3; i++) {
    k[KNEE_ANIMATED + i] = p[3 * shin + i];
    k[KNEE_HIP + i] = p[3 * thigh + i];
    k[KNEE_GOAL + i] = s[MODEL_TARGET + i];
  }
  copy(k, KNEE_SHIN, s, SHIN_ORIENTATION, 4);
  copy(k, KNEE_BEND, s, SHIN_AXIS, 3);
  k[KNEE_HINGE] = s[SHIN_HINGE];
  k[KNEE_MIN] = s[SHIN_MIN];
  k[KNEE_MAX] = s[SHIN_MAX];
  // The body's turn (see BodyTilt) carries the leg about the hips.
  if (leg.lowered && n[TILT_AMOUNT] > 0) {
    tilt.carry(n, k, KNEE_HIP);
    tilt.carry(n, k, KNEE_ANIMATED);
    quatMultiply(k, KNEE_SHIN, n, TILT_Q, k, KNEE_SHIN);
    copy(n, VECTOR, k, KNEE_BEND, 3);
    quatRotate(k, KNEE_BEND, n, TILT_Q, n, VECTOR);
  }
  quatRotate(k, KNEE_END, k, KNEE_SHIN, s, SHIN_END);
  for (let i = 0; i < 3; i++) k[KNEE_END + i] += k[KNEE_ANIMATED + i];
  // The hips came down by `n[APPLIED]` world units, and the leg with them.
  if (leg.lowered && n[APPLIED] > 0) {
    const w2m = frame.worldToModel;
    const drop = n[APPLIED];
    for (let i = 0; i < 3; i++) {
      k[KNEE_HIP + i] -= drop * w2m[4 + i];
      k[KNEE_ANIMATED + i] -= drop * w2m[4 + i];
      k[KNEE_END + i] -= drop * w2m[4 + i];
    }
  }
  placeKnee(k);
  copy(s, KNEE_TARGET, k, KNEE_OUT, 3);
  copy(s, KNEE_ROTATION, k, KNEE_SHIN_OUT, 4);
}

/**
 * After the solve, on the pose as it will be written: the foot goes where its shin now ends (whatever the
 * solve made of the knee: limits, weights), turned as the foot's target decided, by the behavior's weight
 * in `n[TURN]` (the behavior blends what it writes by its weight; the foot is written here, so it is blended
 * here, from its animated orientation, which the solve left alone).
 */
export function moveShinFoot(leg: LegState, n: Float64Array, frame: FabrikFrame, parents: Int32Array): void {
  const s = leg.s;
  const p = frame.positions;
  const o = frame.orientations;
  const foot = leg.leg.foot;
  const parent = parents[foot];
  // The shin's end, relative to the foot's parent, in model space.
  quatRotate(n, VECTOR, o, 4 * leg.leg.shin, s, SHIN_END);
  for (let i = 0; i < 3; i++) {
    n[VECTOR + i] += p[3 * leg.leg.shin + i] - (parent >= 0 ? p[3 * parent + i] : 0);
  }
  if (!frame.toJointSpace(parent, n, VECTOR)) return;
  frame.setLocalPosition(foot, n, VECTOR);
  if (!leg.leg.align) return;
  copy(n, DELTA, s, MODEL_ROTATION, 4);
  if (n[TURN] < 1) {
    quatMultiplyConjugate(n, DELTA, n, DELTA, o, 4 * foot);
    quatScaleAngle(n, DELTA, n, TURN);
    quatMultiply(n, DELTA, n, DELTA, o, 4 * foot);
  }
  if (parent >= 0) quatConjugateMultiply(n, DELTA, o, 4 * parent, n, DELTA);
  frame.setLocalRotation(foot, n, DELTA);
}
