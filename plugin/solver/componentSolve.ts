import { nearerAnswer } from "./answerNearInput.js";
import { orientChainFromPositions, straightenIfOutOfReach } from "./chainPasses.js";
import { iterateComponent } from "./componentIteration.js";
import { hasContinuumSections } from "./continuumSections.js";
import { LIMIT_HINGE, LIMIT_ROTATION, LIMIT_STRETCH } from "./limits.js";
import { hasLimit, keepsLimits } from "./limitCheck.js";
import { clearOnLimit, restorePose, restoreTwoBoneLimb, savePose, saveTwoBoneLimb } from "./componentPose.js";
import type { SolvePlan } from "./plan.js";
import { aimOneBone, turnsOneBone } from "./oneBoneAim.js";
import { measureResiduals } from "./residuals.js";
import { trackTargets } from "./trackingSteps.js";
import { keepTipTwists } from "./tipTwist.js";
import { hasTwoBoneShape, placeTwoBoneLimb } from "./twoBoneLimb.js";

/*
 * One component's solve: nothing when its effectors already meet their targets, else the passes it needs:
 * the positions-only fast path for a free unbranched chain, the oriented passes where limits or branches
 * are, or, for a limited plain chain, the cheap plain passes first and the oriented ones when their answer
 * breaks a limit. The iterating itself is componentIteration.ts's.
 */

/**
 * The oriented passes are needed where a joint is limited or where branches meet (their frames are rigid);
 * a plain unbranched chain without limits takes the positions-only fast path.
 */
export function needsOrientedPasses(plan: SolvePlan, c: number): boolean {
  // Continuum sections turn their joints as one arc, which only the oriented passes do.
  if (!plan.componentIsPath[c] || hasContinuumSections(plan, c)) return true;
  const flags = plan.scratch.flags;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    if (flags[plan.rotatingJoints[ri]] & LIMIT_ROTATION) return true;
  }
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
    if (flags[plan.activeJoints[k]] & LIMIT_STRETCH) return true;
  }
  return false;
}

/**
 * Returns the iterations used by one independent component. `tracking`: the input is last frame's answer
 * (see {@link trackTargets}).
 */
export function solveComponent(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  maxIterations: number,
  poles: Float64Array,
  tracking: boolean,
): number {
  const maxResidual = plan.scratch.maxResidual;
  const tolerance = plan.scratch.tolerance[0];
  const firstEffector = plan.componentEffectorStart[c],
    lastEffector = plan.componentEffectorStart[c + 1];
  // Cleared first, so a component that needs no solving does not report the last solve's clamps.
  clearOnLimit(plan, c);
  measureResiduals(plan, firstEffector, lastEffector, positions, targets);
  if (maxResidual[0] <= tolerance) return 0;

  const oriented = plan.scratch.componentOriented[c] === 1;
  // A two-bone limb is answered in closed form when its joints' limits allow it, from the bend it has.
  if (
    oriented &&
    plan.componentIsPath[c] === 1 &&
    hasTwoBoneShape(plan, plan.componentEffectors[firstEffector])
  ) {
    const e = plan.componentEffectors[firstEffector];
    // The component is the limb alone: its own pose set aside, for when the closed form falls short.
    saveTwoBoneLimb(plan, e, positions, orientations);
    if (placeTwoBoneLimb(plan, e, positions, orientations, targets, tracking)) {
      measureResiduals(plan, firstEffector, lastEffector, positions, targets);
      if (maxResidual[0] <= tolerance) return 1;
      // Out of the hinge's reach after all, by rounding: the passes start from the input, as every pass
      // measures its turns from it.
      restoreTwoBoneLimb(plan, e, positions, orientations);
      measureResiduals(plan, firstEffector, lastEffector, positions, targets);
    }
    // The passes below may fall back on the whole pose set aside, the input here.
    savePose(plan, c, positions, orientations);
  }
  // One limited bone whose plain aim is the answer: that aim alone, before anything else looks at it.
  if (
    oriented &&
    maxIterations >= 2 &&
    turnsOneBone(plan, c, true) &&
    plainGivesUp(plan, c, positions, targets) === 0 &&
    aimOneBone(plan, c, positions, orientations, targets, true)
  )
    return 1;
  // Last frame's answer, the targets moved a little: followed with the least turning, when that converges.
  if (tracking) {
    const tracked = trackTargets(plan, c, positions, orientations, targets, maxIterations);
    if (tracked > 0)
      return tracked + nearerAnswer(plan, c, positions, orientations, targets, maxIterations - tracked);
  }
  if (!oriented) {
    if (straightenIfOutOfReach(plan, c, positions, targets)) {
      orientChainFromPositions(plan, c, positions, orientations);
      return 1;
    }
    return iterateComponent(plan, c, positions, orientations, targets, maxIterations, poles, false, false);
  }
  // Hinges too go straight to the oriented passes: the plain passes never turn a bone about its own axis,
  // so their answer keeps a hinge only by chance (on the characters bench, never in 60,000 arm solves).
  if (
    !plan.componentIsPath[c] ||
    hasContinuumSections(plan, c) ||
    hasLimit(plan, c, LIMIT_STRETCH | LIMIT_HINGE) ||
    maxIterations < 2
  ) {
    let used = iterateComponent(
      plan,
      c,
      positions,
      orientations,
      targets,
      maxIterations,
      poles,
      true,
      tracking,
    );
    if (tracking) {
      // The passes' answer may lie in another configuration than last frame's: one nearer to it is looked
      // for (answerNearInput.ts).
      used += nearerAnswer(plan, c, positions, orientations, targets, maxIterations - used);
      keepTipTwists(plan, c, positions, orientations);
    }
    return used;
  }
  // A limited plain chain first tries the plain passes, which cost a fraction of the oriented ones, with
  // half the iteration budget: when their answer reaches the target and already keeps every limit, it is an
  // answer. Otherwise the chain starts again from its input with the limits inside both passes, for the
  // rest of the budget (so a solve never exceeds maxIterations).
  const plainBudget = Math.floor(maxIterations / 2);
  // One bone turning about a fixed base, its target nearer or further than the bone's length by more than
  // the tolerance: the plain passes cannot meet it (they aim the bone in their first iteration and find
  // nothing left to gain after it), and the oriented passes would start again from the input. They start
  // from it at once, charged and budgeted the iterations the plain passes would have spent, as before.
  const givingUp = plainGivesUp(plan, c, positions, targets);
  if (givingUp > 0) {
    const plain = Math.min(givingUp, plainBudget);
    // Aimed at the target strictly inside its limits, the bone is where the oriented passes put it in their
    // first iteration (their second finds nothing to gain, and stops): that answer, charged as they were. With
    // a tolerance of 0 the passes' stall test counts rounding as progress, so they are left to it.
    if (
      maxIterations - plain >= 2 &&
      tolerance > 0 &&
      turnsOneBone(plan, c, false) &&
      aimOneBone(plan, c, positions, orientations, targets, false)
    )
      return plain + 2;
    const used =
      plain +
      iterateComponent(
        plan,
        c,
        positions,
        orientations,
        targets,
        maxIterations - plain,
        poles,
        true,
        tracking,
      );
    if (tracking) keepTipTwists(plan, c, positions, orientations);
    return used;
  }
  savePose(plan, c, positions, orientations);
  const plain = iterateComponent(plan, c, positions, orientations, targets, plainBudget, poles, false, false);
  measureResiduals(plan, firstEffector, lastEffector, positions, targets);
  if (maxResidual[0] <= tolerance && keepsLimits(plan, c, orientations, false)) return plain;
  restorePose(plan, c, positions, orientations);
  const used =
    plain +
    iterateComponent(plan, c, positions, orientations, targets, maxIterations - plain, poles, true, tracking);
  if (tracking) keepTipTwists(plan, c, positions, orientations);
  return used;
}

/** The bone's length is taken this fraction longer or shorter, beyond any rounding of where passes put its end. */
const REACH_MARGIN = 1e-9;

/**
 * When component c turns one bone (one active joint below its base, its one effector there, no pole) whose
 * end cannot come within the tolerance of its target (further from the base than the bone's length plus
 * twice the tolerance, or nearer than its length less that), the iterations the plain passes spend before
 * they give up: two beyond the bone's reach (the second finds nothing to gain); four short of it (the
 * second stalls, a fold across the chain's line does nothing to one bone, and the next two find the same
 * again). Otherwise 0.
 */
function plainGivesUp(plan: SolvePlan, c: number, positions: Float64Array, targets: Float64Array): number {
  if (plan.componentStart[c + 1] - plan.componentStart[c] !== 1) return 0;
  const k = plan.componentEffectorStart[c];
  if (plan.componentEffectorStart[c + 1] - k !== 1) return 0;
  const e = plan.componentEffectors[k];
  const j = plan.activeJoints[plan.componentStart[c]];
  if (plan.effectorHasPole[e] || plan.effectorJoints[e] !== j) return 0;
  const b3 = 3 * plan.componentBase[c];
  const dx = targets[3 * e] - positions[b3],
    dy = targets[3 * e + 1] - positions[b3 + 1],
    dz = targets[3 * e + 2] - positions[b3 + 2];
  const d = dx * dx + dy * dy + dz * dz;
  const length = plan.scratch.boneLength[j],
    slack = 2 * plan.scratch.tolerance[0];
  const beyond = (1 + REACH_MARGIN) * length + slack;
  if (d > beyond * beyond) return 2;
  const short = (1 - REACH_MARGIN) * length - slack;
  return short > 0 && d < short * short ? 4 : 0;
}
