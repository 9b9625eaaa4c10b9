import { copyOnLimit, copyPose } from "./componentPose.js";
import { countColumns, fillColumns, fillJacobian } from "./dampedJacobian.js";
import { solveDamped } from "./dampedLeastSquares.js";
import { damped, DAMPING_AT, ERROR_AT, growDampedScratch, NEXT_AT } from "./dampedScratch.js";
import { readSlideLengths } from "./dampedSlides.js";
import { takeStep } from "./dampedTurns.js";
import { LIMIT_FIXED, LIMIT_HINGE, LIMIT_STRETCH } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import { measureResiduals } from "./residuals.js";

/*
 * Damped least-squares steps (Levenberg–Marquardt) on the turns of every joint of a component at once. FABRIK
 * moves one joint at a time; where several effectors pull on one chest or pelvis, or hinge axes are skewed (a
 * robot arm), each pass undoes part of the other's work and the error creeps down. A damped step moves all
 * joints toward all targets together, at the rate of Newton's method near a solution. A hinge turns about its
 * axis (one column), any other joint about the three model axes (dampedJacobian.ts). Each step is held to the
 * limits; a joint whose limit takes back a good part of its turn blocks the direction taken back, and the step
 * is solved again with that joint turning only across it (a second press holds it whole), so the steps slide
 * along limit boundaries (dampedTurns.ts). A step is kept only when it lowers the sum of squared distances,
 * the quantity least squares lowers (the sum of distances is not smooth where an effector sits on its target).
 */

/** Damping as a fraction of the component's reach: its usual start (in percent: an integer), and the end. */
export const DAMPING_PERCENT = 5;
const MAX_DAMPING = 10;
/** Re-solves of one step after joints were found pressing on their limits. */
const MAX_REFITS = 4;
/**
 * With `untilSlow`, the steps stop once a kept step removes less than this fraction of the squared error: a
 * minimum that is not the answer, where further steps only creep along a limit. A robot arm's escape stops
 * there and spends the rest of the budget on restarts: creeping on, an escape took up to its whole share of
 * steps for a fraction of a per cent.
 */
const SLOW_GAIN = 0.02;

/**
 * True for a component of hinges and fixed joints only, whose bones may stretch (a slider): a robot arm. The
 * stretching bones are columns of their own (dampedSlides.ts).
 */
export function takesDampedSteps(plan: SolvePlan, c: number): boolean {
  const flags = plan.scratch.flags;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++)
    if (!(flags[plan.rotatingJoints[ri]] & (LIMIT_HINGE | LIMIT_FIXED))) return false;
  return true;
}

/** True when a bone of component c may stretch (the rounds for branched bodies leave such components alone). */
export function stretches(plan: SolvePlan, c: number): boolean {
  const flags = plan.scratch.flags;
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
    if (flags[plan.activeJoints[k]] & LIMIT_STRETCH) return true;
  return false;
}

/**
 * Up to `maxSteps` damped steps on component c from the pose given (its orientations must be the oriented
 * passes': every active joint's and the base's), damped from `dampingPercent` of its reach, quartered
 * `quarterings` times (both integers, which V8 passes unboxed). Returns the steps
 * taken. The pose left is the best reached, within every limit, residuals measured; nothing changes when no
 * step helps. With `untilSlow`, the steps also stop where they gain little ({@link SLOW_GAIN}).
 */
export function dampedSteps(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  maxSteps: number,
  untilSlow: boolean,
  dampingPercent = DAMPING_PERCENT,
  quarterings = 0,
): number {
  const first = plan.componentEffectorStart[c],
    last = plan.componentEffectorStart[c + 1];
  const rows = 3 * (last - first);
  const cols = countColumns(plan, c);
  if (cols === 0 || rows === 0) return 0;
  growDampedScratch(plan, rows, cols);
  const { boneLength, maxResidual, tolerance } = plan.scratch;
  let reach = 0;
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
    reach += boneLength[plan.activeJoints[k]];
  if (!(reach > 0)) return 0;
  // Doubles live in `numbers`, not in locals handed across calls: a double passed to or returned from a call
  // V8 did not inline is boxed, an allocation per step.
  damped.numbers[DAMPING_AT] = 0.01 * dampingPercent * reach * Math.pow(0.25, quarterings);
  clearHeld(plan, c);
  measureResiduals(plan, first, last, positions, targets);
  squaredError(plan, first, last, ERROR_AT);
  let steps = 0,
    refits = 0;
  while (
    steps < maxSteps &&
    maxResidual[0] > tolerance[0] &&
    damped.numbers[DAMPING_AT] <= MAX_DAMPING * reach
  ) {
    steps++;
    fillColumns(plan, c, positions, orientations);
    fillJacobian(plan, c, positions, targets, rows, cols);
    if (!solveDamped(damped.jacobian, damped.normal, damped.rhs, rows, cols, damped.numbers, DAMPING_AT))
      break;
    keep(plan, c, positions, orientations, true);
    if (takeStep(plan, c, positions, orientations, rows, cols) && refits < MAX_REFITS) {
      // Some joint pressed on its limit: the same step again, that joint turning only along its limit.
      refits++;
      steps--;
      keep(plan, c, positions, orientations, false);
      continue;
    }
    measureResiduals(plan, first, last, positions, targets);
    squaredError(plan, first, last, NEXT_AT);
    if (damped.numbers[NEXT_AT] < damped.numbers[ERROR_AT]) {
      const slow = untilSlow && damped.numbers[NEXT_AT] > (1 - SLOW_GAIN) * damped.numbers[ERROR_AT];
      damped.numbers[ERROR_AT] = damped.numbers[NEXT_AT];
      if (slow) break;
      damped.numbers[DAMPING_AT] *= 0.5;
      // A new pose: the limits it presses on are found again.
      refits = 0;
      clearHeld(plan, c);
    } else {
      keep(plan, c, positions, orientations, false);
      measureResiduals(plan, first, last, positions, targets);
      damped.numbers[DAMPING_AT] *= 4;
    }
  }
  readSlideLengths(plan, c, positions);
  return steps;
}

/** Keeps (`save`) the pose a step starts from, or puts it back: the steps' own copy, not the solve's best. */
function keep(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  save: boolean,
): void {
  const onLimit = plan.report.onLimit;
  if (save) {
    copyPose(plan, c, positions, orientations, damped.savedPositions, damped.savedOrientations);
    copyOnLimit(plan, c, onLimit, damped.savedOnLimit);
  } else {
    copyPose(plan, c, damped.savedPositions, damped.savedOrientations, positions, orientations);
    copyOnLimit(plan, c, damped.savedOnLimit, onLimit);
  }
}

function clearHeld(plan: SolvePlan, c: number): void {
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++)
    damped.held[plan.rotatingJoints[ri]] = 0;
  // Stretching bones (dampedSlides.ts) are held too.
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
    damped.held[plan.activeJoints[k]] = 0;
}

/** The sum of the effectors' squared residuals, into numbers[at]. */
function squaredError(plan: SolvePlan, first: number, last: number, at: number): void {
  const residuals = plan.report.residuals;
  let sum = 0;
  for (let k = first; k < last; k++) {
    const r = residuals[plan.componentEffectors[k]];
    sum += r * r;
  }
  damped.numbers[at] = sum;
}
