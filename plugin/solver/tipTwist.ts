import { projectRotation } from "./jointLimitProjection.js";
import { LIMIT_FIXED, LIMIT_HINGE } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import { quatConjugateMultiply, quatMultiply, quatNormalize, quatRotate } from "./quaternion.js";

/*
 * The last joint of a chain to a position-only effector turns its bone onto the effector; its twist about that
 * bone moves no effector, so the target does not decide it. The passes leave it wherever their turns add up
 * to: each turn of the bone is the least that aims it, but many of them in a row twist it (a thigh, its knee
 * on a target, pressed against its swing limit, rolled in one frame, the shin and foot swinging with it).
 * Solved from last frame's answer, such a joint keeps the twist it came in with: only the swing of its turn
 * is kept, which aims the bone exactly where the passes did.
 */

const temp = new Float64Array(28);
const LOCAL = 0; // the joint's local rotation now, then the one kept
const DELTA = 4; // its turn from the input, then the swing alone
const TWIST = 8; // the twist of that turn about the bone
const TIP = 12; // the effector joint's local rotation
const AXIS = 16; // a vector
const LIMIT = 20; // projectRotation's scratch (8)

/** Gives each tip bone of component c the twist it came in with, where its limits allow. */
export function keepTipTwists(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  for (let k = plan.componentEffectorStart[c]; k < plan.componentEffectorStart[c + 1]; k++) {
    keepTwist(plan, plan.componentEffectors[k], positions, orientations);
  }
}

function keepTwist(plan: SolvePlan, e: number, positions: Float64Array, orientations: Float64Array): void {
  if (plan.effectorHasPole[e]) return;
  const parents = plan.rig.parents;
  const { rotatingIndex, flags, held, inputLocal, localOffset, boneLength } = plan.scratch;
  const t = plan.effectorJoints[e];
  const j = parents[t];
  // The effector must end the chain (nothing solved below it), its parent turn it alone, freely about it.
  if (j < 0 || rotatingIndex[t] >= 0 || held[j] === 1) return;
  const rj = rotatingIndex[j];
  if (rj < 0 || plan.activeChildStart[rj + 1] - plan.activeChildStart[rj] !== 1) return;
  if (flags[j] & (LIMIT_HINGE | LIMIT_FIXED) || plan.continuum.bendsIn[j] >= 0) return;
  const p = parents[j];
  const j4 = 4 * j,
    t4 = 4 * t,
    t3 = 3 * t;
  // L = parent⁻¹ · O, and the effector joint's own local rotation, before anything moves.
  if (p >= 0) quatConjugateMultiply(temp, LOCAL, orientations, 4 * p, orientations, j4);
  else for (let i = 0; i < 4; i++) temp[LOCAL + i] = orientations[j4 + i];
  quatConjugateMultiply(temp, TIP, orientations, j4, orientations, t4);
  // Δ = input⁻¹ · L = swing · twist, the twist about the bone a (j's frame): Δ · twist⁻¹ aims a as Δ does.
  quatConjugateMultiply(temp, DELTA, inputLocal, j4, temp, LOCAL);
  const ax = localOffset[t3],
    ay = localOffset[t3 + 1],
    az = localOffset[t3 + 2];
  const along = temp[DELTA] * ax + temp[DELTA + 1] * ay + temp[DELTA + 2] * az;
  const w = temp[DELTA + 3];
  const n = Math.sqrt(along * along + w * w);
  if (!(n > 1e-12) || !(Math.abs(along) > 1e-12 * n)) return;
  temp[TWIST] = (-along * ax) / n;
  temp[TWIST + 1] = (-along * ay) / n;
  temp[TWIST + 2] = (-along * az) / n;
  temp[TWIST + 3] = w / n;
  quatMultiply(temp, DELTA, temp, DELTA, temp, TWIST);
  quatMultiply(temp, LOCAL, inputLocal, j4, temp, DELTA);
  quatNormalize(temp, LOCAL);
  // Kept only within the joint's limits (the input keeps them; its swing alone need not).
  const limits = plan.limits;
  quatConjugateMultiply(temp, DELTA, limits.restLocal, j4, temp, LOCAL);
  if (projectRotation(limits, j, temp, DELTA, temp, LIMIT)) return;
  if (p >= 0) quatMultiply(orientations, j4, orientations, 4 * p, temp, LOCAL);
  else for (let i = 0; i < 4; i++) orientations[j4 + i] = temp[LOCAL + i];
  quatNormalize(orientations, j4);
  quatMultiply(orientations, t4, orientations, j4, temp, TIP);
  quatNormalize(orientations, t4);
  quatRotate(temp, AXIS, orientations, j4, localOffset, t3);
  const len = boneLength[t];
  for (let i = 0; i < 3; i++) positions[t3 + i] = positions[3 * j + i] + len * temp[AXIS + i];
}
