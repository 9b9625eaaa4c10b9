import { backwardPassChain, forwardPassChain, orientChainFromPositions } from "./chainPasses.js";
import { hasContinuumSections } from "./continuumSections.js";
import { projectRotation } from "./jointLimitProjection.js";
import { keepsLimits } from "./limitCheck.js";
import { LIMIT_FIXED, LIMIT_HINGE, LIMIT_ROTATION, LIMIT_STRETCH } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import { quatConjugateMultiply } from "./quaternion.js";
import { measureResiduals } from "./residuals.js";

/*
 * A limited component that turns one bone (a lower leg's target pulling its thigh, chainLength 1): its plain
 * passes' first iteration aims the bone at the target, and when that meets the target within the tolerance
 * and keeps the joint's limits, it is the solve's answer. Most such solves end there (three in four leg
 * solves of the crowd bench), so that one iteration is taken here without the iteration loop's set-up (its
 * folds, seeds, lock and stall bookkeeping), which a single bone never needs: the same calls in the same
 * order, so the answer is the one the loop gives, to the bit.
 *
 * A target nearer or farther than the bone's length cannot be met; the oriented passes then aim the bone as
 * near as its limits allow. When the plain aim lies strictly inside the limits, it is that answer (the
 * passes' first iteration aims the bone the same way, their projection changing nothing), up to rounding and
 * to the bone's twist about itself, which their two turns in a row may shift by a hair where the one
 * shortest arc adds none.
 */

/**
 * What the aim changes, set aside in case it is not the answer: the bone's end position (3), the turning
 * joint's orientation (4) and the end joint's (4).
 */
const saved = new Float64Array(11);
/** The turning joint's rotation from rest (4), projected in place, and projectRotation's scratch (8). */
const temp = new Float64Array(12);
const DELTA = 0;
const LIMIT = 4;

/**
 * True when component c turns one bone whose end is its only effector, with no pole, no stretch and no
 * continuum section: what {@link aimOneBone} answers. A hinge at the bone's end (a knee below a thigh) is
 * carried by the aim unchanged, so it is no obstacle to an aim that must meet the target (`mustMeet`, then
 * checked against the limits); an aim that only comes near stands for the oriented passes' answer, which a
 * hinge sends elsewhere.
 */
export function turnsOneBone(plan: SolvePlan, c: number, mustMeet: boolean): boolean {
  const start = plan.componentStart[c];
  if (plan.componentStart[c + 1] - start !== 1 || !plan.componentIsPath[c]) return false;
  if (plan.rotatingStart[c + 1] - plan.rotatingStart[c] !== 1) return false;
  const k = plan.componentEffectorStart[c];
  if (plan.componentEffectorStart[c + 1] - k !== 1) return false;
  const e = plan.componentEffectors[k];
  const j = plan.activeJoints[start];
  if (plan.effectorHasPole[e] || plan.effectorJoints[e] !== j) return false;
  const flags = plan.scratch.flags;
  if (flags[j] & (mustMeet ? LIMIT_STRETCH : LIMIT_STRETCH | LIMIT_HINGE)) return false;
  if (flags[plan.componentBase[c]] & LIMIT_HINGE & LIMIT_ROTATION) return false;
  return !hasContinuumSections(plan, c);
}

/**
 * For a component {@link turnsOneBone} says yes to: the plain passes' first iteration and the orientations
 * derived from it, kept and true when it meets the target (`mustMeet`) and keeps the limits, or, not
 * `mustMeet`, when it lies strictly inside them; otherwise the input is put back (residuals measured on it)
 * and false.
 */
export function aimOneBone(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  mustMeet: boolean,
): boolean {
  const j = plan.activeJoints[plan.componentStart[c]];
  const r = plan.rotatingJoints[plan.rotatingStart[c]];
  const j3 = 3 * j,
    j4 = 4 * j,
    r4 = 4 * r;
  saved[0] = positions[j3];
  saved[1] = positions[j3 + 1];
  saved[2] = positions[j3 + 2];
  const first = plan.componentEffectorStart[c],
    last = plan.componentEffectorStart[c + 1];
  forwardPassChain(plan, c, positions, targets);
  backwardPassChain(plan, c, positions);
  measureResiduals(plan, first, last, positions, targets);
  if (!mustMeet || plan.scratch.maxResidual[0] <= plan.scratch.tolerance[0]) {
    for (let i = 0; i < 4; i++) {
      saved[3 + i] = orientations[r4 + i];
      saved[7 + i] = orientations[j4 + i];
    }
    orientChainFromPositions(plan, c, positions, orientations);
    if (mustMeet ? keepsLimits(plan, c, orientations, false) : insideLimits(plan, r, orientations))
      return true;
    for (let i = 0; i < 4; i++) {
      orientations[r4 + i] = saved[3 + i];
      orientations[j4 + i] = saved[7 + i];
    }
  }
  positions[j3] = saved[0];
  positions[j3 + 1] = saved[1];
  positions[j3 + 2] = saved[2];
  measureResiduals(plan, first, last, positions, targets);
  return false;
}

/**
 * True when joint r's rotation lies inside its limits, not merely within the slack of keepsLimits: the
 * oriented passes would leave it exactly as it is (their projection changes nothing), not clamp it onto
 * the boundary.
 */
function insideLimits(plan: SolvePlan, r: number, orientations: Float64Array): boolean {
  const flags = plan.scratch.flags[r];
  if ((flags & LIMIT_ROTATION) === 0) return true;
  if (flags & LIMIT_FIXED) return false;
  const p = plan.rig.parents[r];
  const r4 = 4 * r;
  if (p >= 0) quatConjugateMultiply(temp, DELTA, orientations, 4 * p, orientations, r4);
  else for (let i = 0; i < 4; i++) temp[DELTA + i] = orientations[r4 + i];
  quatConjugateMultiply(temp, DELTA, plan.limits.restLocal, r4, temp, DELTA);
  return !projectRotation(plan.limits, r, temp, DELTA, temp, LIMIT);
}
