import { restorePose } from "./componentPose.js";
import { largestTurnFromInput, pullTowardInput } from "./answerNearInput.js";
import { dampedSteps } from "./dampedSteps.js";
import { projectRotation } from "./jointLimitProjection.js";
import { keepsLimits } from "./limitCheck.js";
import { LIMIT_FIXED } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import {
  quatConjugateMultiply,
  quatMultiply,
  quatMultiplyConjugate,
  quatNormalize,
  quatRotate,
} from "./quaternion.js";
import { componentMeetsTargets, measureComponentResiduals } from "./residuals.js";

/*
 * Where one joint carries several chains (a chest under the neck and both arms), a pose can settle in a
 * least-squares minimum that no step leaves. With both elbows straight at the end of their hinges, each hand
 * reaches only as far as its shoulder lets it, and the chest is the one joint that moves both shoulders and
 * the neck's base; a chest and a neck bent one way can meet the head's target as well as the chest and neck
 * bent the other way, but only one of the two puts both shoulders within reach. The damped steps never cross
 * from one to the other: turning the chest takes the head off its target, and the steps turn it back.
 *
 * So the carrier alone is turned, a fixed set of turns about the model axes, each projected onto its limits,
 * every chain above it keeping its model-space orientation (the neck and the arms translate with their base,
 * still aimed as they were), and damped steps follow from each such start. The first start that meets every
 * target is the answer, pulled back toward the input (answerNearInput.ts: the turn that met may put a neck far
 * from last frame's pose); when none does, the best pose is put back.
 */

/** Temporaries: the turn (Q), a bone's direction (V), Δ (D), parent · rest (P), the projection's scratch (S). */
const temp = new Float64Array(24);
/** Per joint, 1 where turnCarrierOnly turned it with the carrier (grown to the largest rig seen). */
let turned = new Uint8Array(0);
const Q = 0;
const V = 4;
const D = 8;
const P = 12;
const S = 16;

/**
 * The turn tried, in radians: large enough to take a humanoid's chest and neck, settled on the wrong side,
 * out of that minimum (a smaller turn often led back to it), small enough to stay near the pose.
 */
const TURN = 0.3;
/** Damped steps after each turn (a start that leads to the answer reaches it in a few). */
const STEPS_PER_TURN = 10;
/** Turns tried: about +x, -x, +y, -y, +z and -z. */
const TURNS = 6;

/**
 * Tries the carrier turns from the best pose (saved with savePose), within `budget` iterations. Leaves the
 * first start that meets every target (pulled toward the input), or else the best pose put back, residuals
 * measured. Returns the
 * iterations used.
 */
export function turnCarrier(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  budget: number,
): number {
  const carrier = carrierOf(plan, c);
  if (carrier < 0) return 0;
  let used = 0;
  for (let s = 0; s < TURNS && used < budget; s++) {
    restorePose(plan, c, positions, orientations);
    turnOf(s);
    if (!aimCarrier(plan, carrier, orientations)) continue;
    turnCarrierOnly(plan, c, carrier, positions, orientations);
    // The chains above keep their aim, so their own limits may now be broken: such a start is left out.
    if (!keepsLimits(plan, c, orientations, true)) continue;
    used += dampedSteps(
      plan,
      c,
      positions,
      orientations,
      targets,
      Math.min(STEPS_PER_TURN, budget - used),
      false,
    );
    // Only an answer is taken: a start that ends nearer without meeting the targets is another minimum,
    // and taking it moved the body between minima from frame to frame.
    if (componentMeetsTargets(plan, c, positions, targets)) {
      if (plan.scratch.holdConfiguration[0] === 0) return used;
      largestTurnFromInput(plan, c, orientations);
      return used + pullTowardInput(plan, c, positions, orientations, targets, budget - used);
    }
  }
  restorePose(plan, c, positions, orientations);
  measureComponentResiduals(plan, c, positions, targets);
  return used;
}

/** temp[Q..] = turn number s: about +x, -x, +y, -y, +z, -z. */
function turnOf(s: number): void {
  const axis = s >> 1;
  const sn = (s & 1 ? -1 : 1) * Math.sin(0.5 * TURN);
  temp[Q] = axis === 0 ? sn : 0;
  temp[Q + 1] = axis === 1 ? sn : 0;
  temp[Q + 2] = axis === 2 ? sn : 0;
  temp[Q + 3] = Math.cos(0.5 * TURN);
}

/**
 * Projects the carrier's orientation turned by temp[Q] onto its limits, and leaves in temp[Q] the model-space
 * turn that takes it there. False when its limits leave less than a quarter of the turn: a start hardly
 * away from the pose the steps have already settled.
 */
function aimCarrier(plan: SolvePlan, r: number, orientations: Float64Array): boolean {
  const limits = plan.limits;
  const p = plan.rig.parents[r];
  // P = parent · rest; Δ = P⁻¹ · turn · orientation.
  if (p >= 0) quatMultiply(temp, P, orientations, 4 * p, limits.restLocal, 4 * r);
  else for (let i = 0; i < 4; i++) temp[P + i] = limits.restLocal[4 * r + i];
  quatMultiply(temp, D, temp, Q, orientations, 4 * r);
  quatConjugateMultiply(temp, D, temp, P, temp, D);
  projectRotation(limits, r, temp, D, temp, S);
  // turn = P · Δ · orientation⁻¹
  quatMultiply(temp, D, temp, P, temp, D);
  quatMultiplyConjugate(temp, Q, temp, D, orientations, 4 * r);
  quatNormalize(temp, Q);
  const w = Math.abs(temp[Q + 3]);
  return w < Math.cos(0.125 * TURN);
}

/** The rotating joint of component c nearest the effectors that is an ancestor of two effectors or more; -1 if none. */
function carrierOf(plan: SolvePlan, c: number): number {
  const parents = plan.rig.parents;
  let found = -1;
  let depth = -1;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const r = plan.rotatingJoints[ri];
    if (plan.scratch.flags[r] & LIMIT_FIXED || plan.scratch.held[r] === 1) continue;
    let below = 0;
    for (let k = plan.componentEffectorStart[c]; k < plan.componentEffectorStart[c + 1]; k++) {
      for (let j = plan.effectorJoints[plan.componentEffectors[k]]; j >= 0; j = parents[j])
        if (j === r) {
          below++;
          break;
        }
    }
    if (below < 2) continue;
    let d = 0;
    for (let j = r; j >= 0; j = parents[j]) d++;
    if (d > depth) {
      depth = d;
      found = r;
    }
  }
  return found;
}

/**
 * Turns joint r by temp[Q] (model space) about its position. Below it, a joint whose rotation the solve keeps
 * relative to its parent (a held or fixed joint, or one the component does not turn) turns with its parent
 * when that parent turned; every other joint keeps its model-space orientation. Positions follow.
 */
function turnCarrierOnly(
  plan: SolvePlan,
  c: number,
  r: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  const parents = plan.rig.parents;
  const { held, flags, rotatingIndex, localOffset, boneLength } = plan.scratch;
  if (turned.length < parents.length) turned = new Uint8Array(parents.length);
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) turned[plan.activeJoints[k]] = 0;
  turned[r] = 1;
  quatMultiply(orientations, 4 * r, temp, Q, orientations, 4 * r);
  quatNormalize(orientations, 4 * r);
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
    const j = plan.activeJoints[k];
    if (j === r) continue;
    let under = false;
    for (let q = parents[j]; q >= 0; q = parents[q])
      if (q === r) {
        under = true;
        break;
      }
    if (!under) continue;
    const j3 = 3 * j,
      q = parents[j];
    quatRotate(temp, V, orientations, 4 * q, localOffset, j3);
    for (let i = 0; i < 3; i++) positions[j3 + i] = positions[3 * q + i] + boneLength[j] * temp[V + i];
    const keepsLocal = held[j] === 1 || rotatingIndex[j] < 0 || (flags[j] & LIMIT_FIXED) !== 0;
    if (keepsLocal && turned[q] === 1) {
      turned[j] = 1;
      quatMultiply(orientations, 4 * j, temp, Q, orientations, 4 * j);
      quatNormalize(orientations, 4 * j);
    }
  }
}
