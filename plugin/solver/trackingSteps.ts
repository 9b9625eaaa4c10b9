import { hasContinuumSections } from "./continuumSections.js";
import { dampedSteps, stretches } from "./dampedSteps.js";
import { restorePose, savePose } from "./componentPose.js";
import { keepsLimits } from "./limitCheck.js";
import { targetsWithinLength } from "./lockEscape.js";
import type { SolvePlan } from "./plan.js";
import { measureResiduals } from "./residuals.js";

/*
 * Tracking: a target that moved a little from an effector (last frame's answer carried into this one) is
 * followed first by damped least-squares steps, which turn every joint of the component by the least total
 * rotation that moves the effectors onto their targets. FABRIK's passes answer the same small move by
 * swinging the bones nearest the effector most (the backward pass puts the effector on its target and aims
 * the last bone from there), so a short tip bone turned by tens of degrees in a frame where the target
 * moved by a fraction of its chain's length; the damped steps spread the same move over the whole chain.
 * Only asked for (`SolveSettings.tracking`) by a caller whose input is last frame's answer: from any other
 * pose, the least turning is no better a choice than the passes'.
 */

/** Damped steps tried before the passes. */
const TRACKING_STEPS = 3;
/**
 * The first step's damping, in percent of the component's reach: lighter than a damped round's, since a small
 * move keeps to where the linear model holds, and heavier damping held back the turns of a whole body's spine
 * so much that the passes had to finish what the steps started. Each later step is damped a quarter as much
 * (as Levenberg–Marquardt lightens its damping while steps pay): the reach is the whole component's, so on a
 * body of many limbs (a spider's eight legs) a fixed damping held back the one joint that moves them all,
 * and the steps crawled, each removing barely half of what was left.
 */
const TRACKING_DAMPING_PERCENT = 1;
/** A step must leave at most this fraction of the largest residual it started from, or tracking stops. */
const CONTRACTION = 0.5;
/** A target nearer than this fraction of its chain's length to its effector is tracked. */
const TRACKING_FRACTION = 0.1;

/**
 * Tracks component c's targets with up to {@link TRACKING_STEPS} damped steps when every target lies near its
 * effector and the input keeps the limits. Returns the steps taken when they reach the tolerance; otherwise
 * puts the input back and returns 0, so the passes start from the pose as given: steps that stop converging
 * fast (a limb near straight, a joint pressing its limit) would only have bent it somewhere the passes
 * then had to leave, and a probe that changes nothing is not counted as an iteration.
 */
export function trackTargets(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  maxIterations: number,
): number {
  if (maxIterations < 2 || stretches(plan, c) || hasContinuumSections(plan, c)) return 0;
  // One joint: the passes aim it exactly. Out of reach: the steps cannot converge, and would only cost.
  if (plan.rotatingStart[c + 1] - plan.rotatingStart[c] < 2) return 0;
  if (!targetsWithinLength(plan, c, positions, targets, 1)) return 0;
  // A pole decides the bend, which the steps know nothing of.
  for (let k = plan.componentEffectorStart[c]; k < plan.componentEffectorStart[c + 1]; k++)
    if (plan.effectorHasPole[plan.componentEffectors[k]]) return 0;
  if (!targetsNearEffectors(plan, c, positions, targets, TRACKING_FRACTION)) return 0;
  if (!keepsLimits(plan, c, orientations, true)) return 0;
  const first = plan.componentEffectorStart[c],
    last = plan.componentEffectorStart[c + 1];
  const { maxResidual, tolerance } = plan.scratch;
  savePose(plan, c, positions, orientations);
  measureResiduals(plan, first, last, positions, targets);
  const steps = Math.min(TRACKING_STEPS, maxIterations - 1);
  for (let s = 1; s <= steps; s++) {
    const before = maxResidual[0];
    dampedSteps(plan, c, positions, orientations, targets, 1, false, TRACKING_DAMPING_PERCENT, s - 1);
    if (maxResidual[0] <= tolerance[0]) return s;
    if (!(maxResidual[0] < CONTRACTION * before)) break;
  }
  restorePose(plan, c, positions, orientations);
  measureResiduals(plan, first, last, positions, targets);
  return 0;
}

/**
 * True when every effector of component c has its target within `fraction` of its chain's length from where
 * the pose has it now.
 */
export function targetsNearEffectors(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
  fraction: number,
): boolean {
  const { effectorPath, effectorPathStart, componentEffectors, effectorJoints } = plan;
  const boneLength = plan.scratch.boneLength;
  for (let k = plan.componentEffectorStart[c]; k < plan.componentEffectorStart[c + 1]; k++) {
    const e = componentEffectors[k];
    let length = 0;
    for (let i = effectorPathStart[e]; i < effectorPathStart[e + 1]; i++)
      length += boneLength[effectorPath[i]];
    const j3 = 3 * effectorJoints[e];
    const dx = targets[3 * e] - positions[j3],
      dy = targets[3 * e + 1] - positions[j3 + 1],
      dz = targets[3 * e + 2] - positions[j3 + 2];
    const near = fraction * length;
    if (dx * dx + dy * dy + dz * dz > near * near) return false;
  }
  return true;
}
