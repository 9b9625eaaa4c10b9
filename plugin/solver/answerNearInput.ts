import { copyOnLimit, copyPose } from "./componentPose.js";
import { hasContinuumSections } from "./continuumSections.js";
import { dampedSteps, stretches } from "./dampedSteps.js";
import { keepsLimits } from "./limitCheck.js";
import type { SolvePlan } from "./plan.js";
import { quatConjugateMultiply, quatMultiply, quatNormalize, quatRotate } from "./quaternion.js";
import { componentMeetsTargets, measureComponentResiduals } from "./residuals.js";

/*
 * Solved from last frame's answer, an answer far from it is a joint step between frames: a carrier turned
 * into the other configuration of a chest and neck that share the head's target, passes that swung a
 * shoulder, a damped step that crossed a near-singular pose. The pose that came in often misses by a hair,
 * so answers may lie between the two: the answer is blended part of the way back toward the input's local
 * rotations, and damped steps from there look for one nearer to it. The nearest answer found is kept; each
 * blend goes half of what is left after an answer, half as far after a miss.
 */

/** Blends tried. */
const BLENDS = 3;
/** Damped steps after each blend. */
const STEPS_PER_BLEND = 10;

/**
 * An answer that turned a joint further than this (radians) from the input is pulled back toward it: well
 * above what one frame's move of the targets asks of a joint, so a frame that follows its targets pays nothing.
 */
export const PULL_AFTER = 0.1;

/** The answer nearest the input so far, and temporaries (grown to the largest rig seen). */
let answerPositions = new Float64Array(0);
let answerOrientations = new Float64Array(0);
let answerLocal = new Float64Array(0);
let answerOnLimit = new Uint8Array(0);
const temp = new Float64Array(8);
/**
 * Doubles between the calls here, in slots: [0] the largest turn from the input ({@link largestTurnFromInput}),
 * [1] the blend's fraction. A double returned from, or passed to, a call V8 does not inline is boxed: an
 * allocation each, every frame this path runs.
 */
export const turnFromInput = new Float64Array(2);
const TURN = 0,
  FRACTION = 1;

/**
 * The largest angle (radians) by which any rotating joint of component c has turned from its input local
 * rotation, into `turnFromInput[0]`.
 */
export function largestTurnFromInput(plan: SolvePlan, c: number, orientations: Float64Array): void {
  const parents = plan.rig.parents;
  const inputLocal = plan.scratch.inputLocal;
  let smallestW = 1;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const r = plan.rotatingJoints[ri];
    const p = parents[r];
    if (p >= 0) quatConjugateMultiply(temp, 0, orientations, 4 * p, orientations, 4 * r);
    else for (let i = 0; i < 4; i++) temp[i] = orientations[4 * r + i];
    let w = 0;
    for (let i = 0; i < 4; i++) w += temp[i] * inputLocal[4 * r + i];
    smallestW = Math.min(smallestW, Math.abs(w));
  }
  turnFromInput[TURN] = 2 * Math.acos(Math.min(1, smallestW));
}

/**
 * When the solve holds its configuration (`SolveSettings.holdConfiguration`) and component c's pose meets its
 * targets but turned some joint more than {@link PULL_AFTER} from its input, {@link pullTowardInput} within
 * `budget` iterations. Returns the iterations used.
 */
export function nearerAnswer(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  budget: number,
): number {
  // The damped steps turn joints one by one and keep bone lengths: not for arcs or stretching bones.
  if (
    plan.scratch.holdConfiguration[0] === 0 ||
    budget < 1 ||
    stretches(plan, c) ||
    hasContinuumSections(plan, c)
  )
    return 0;
  if (!componentMeetsTargets(plan, c, positions, targets)) return 0;
  largestTurnFromInput(plan, c, orientations);
  if (!(turnFromInput[TURN] > PULL_AFTER)) return 0;
  return pullTowardInput(plan, c, positions, orientations, targets, budget);
}

/**
 * Component c's pose meets its targets, `turnFromInput[0]` (largestTurnFromInput, just measured) from its
 * input: tries answers nearer the input within `budget` iterations, leaves the nearest found (residuals
 * measured). Returns the iterations used.
 */
export function pullTowardInput(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  budget: number,
): number {
  grow(plan, positions, orientations);
  keep(plan, c, positions, orientations);
  let nearest = turnFromInput[TURN];
  // The fraction of the way from the nearest answer back to the input: half of what is left after an
  // answer, half as far after a miss.
  turnFromInput[FRACTION] = 0.5;
  let used = 0;
  for (let b = 0; b < BLENDS && used < budget; b++) {
    blend(plan, c, positions, orientations);
    let found = false;
    if (keepsLimits(plan, c, orientations, true)) {
      used += dampedSteps(
        plan,
        c,
        positions,
        orientations,
        targets,
        Math.min(STEPS_PER_BLEND, budget - used),
        false,
      );
      if (componentMeetsTargets(plan, c, positions, targets)) {
        largestTurnFromInput(plan, c, orientations);
        if (turnFromInput[TURN] < nearest) {
          nearest = turnFromInput[TURN];
          keep(plan, c, positions, orientations);
          found = true;
        }
      }
    }
    if (!found) turnFromInput[FRACTION] *= 0.5;
    copyPose(plan, c, answerPositions, answerOrientations, positions, orientations);
  }
  copyOnLimit(plan, c, answerOnLimit, plan.report.onLimit);
  measureComponentResiduals(plan, c, positions, targets);
  return used;
}

function grow(plan: SolvePlan, positions: Float64Array, orientations: Float64Array): void {
  if (answerOnLimit.length >= plan.rig.parents.length) return;
  answerPositions = new Float64Array(positions.length);
  answerOrientations = new Float64Array(orientations.length);
  answerLocal = new Float64Array(orientations.length);
  answerOnLimit = new Uint8Array(plan.rig.parents.length);
}

/** Sets the pose aside as the nearest answer, with its rotating joints' local rotations. */
function keep(plan: SolvePlan, c: number, positions: Float64Array, orientations: Float64Array): void {
  copyPose(plan, c, positions, orientations, answerPositions, answerOrientations);
  copyOnLimit(plan, c, plan.report.onLimit, answerOnLimit);
  const parents = plan.rig.parents;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const r = plan.rotatingJoints[ri];
    const p = parents[r];
    if (p >= 0) quatConjugateMultiply(answerLocal, 4 * r, orientations, 4 * p, orientations, 4 * r);
    else for (let i = 0; i < 4; i++) answerLocal[4 * r + i] = orientations[4 * r + i];
  }
}

/**
 * Poses component c with each rotating joint's local rotation the nearest answer's blended by
 * `turnFromInput[1]` toward the input's (normalized linear blend, on the same hemisphere); every other joint
 * keeps its local rotation. The component's base keeps its position; positions follow from parent to child.
 */
function blend(plan: SolvePlan, c: number, positions: Float64Array, orientations: Float64Array): void {
  const parents = plan.rig.parents;
  const { rotatingIndex, localOffset, boneLength } = plan.scratch;
  const b = plan.componentBase[c];
  if (rotatingIndex[b] >= 0) setJoint(plan, b, orientations);
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
    const j = plan.activeJoints[k],
      q = parents[j];
    if (rotatingIndex[j] >= 0) setJoint(plan, j, orientations);
    else {
      // A joint the component does not turn keeps the local rotation the answer gave it.
      quatConjugateMultiply(temp, 0, answerOrientations, 4 * q, answerOrientations, 4 * j);
      quatMultiply(orientations, 4 * j, orientations, 4 * q, temp, 0);
    }
    quatRotate(temp, 4, orientations, 4 * q, localOffset, 3 * j);
    for (let i = 0; i < 3; i++) positions[3 * j + i] = positions[3 * q + i] + boneLength[j] * temp[4 + i];
  }
}

function setJoint(plan: SolvePlan, j: number, orientations: Float64Array): void {
  const inputLocal = plan.scratch.inputLocal;
  const t = turnFromInput[FRACTION];
  let dot = 0;
  for (let i = 0; i < 4; i++) dot += answerLocal[4 * j + i] * inputLocal[4 * j + i];
  const s = dot < 0 ? -t : t;
  for (let i = 0; i < 4; i++) temp[i] = (1 - t) * answerLocal[4 * j + i] + s * inputLocal[4 * j + i];
  quatNormalize(temp, 0);
  const p = plan.rig.parents[j];
  if (p >= 0) quatMultiply(orientations, 4 * j, orientations, 4 * p, temp, 0);
  else for (let i = 0; i < 4; i++) orientations[4 * j + i] = temp[i];
}
