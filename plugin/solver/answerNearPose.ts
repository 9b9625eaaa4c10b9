import { PULL_AFTER, largestTurnFromInput, pullTowardInput, turnFromInput } from "./answerNearInput.js";
import { hasContinuumSections } from "./continuumSections.js";
import { stretches } from "./dampedSteps.js";
import type { SolvePlan } from "./plan.js";
import { quatConjugateMultiply } from "./quaternion.js";
import { carryPassives } from "./rigidCarry.js";
import { componentMeetsTargets, measureResiduals } from "./residuals.js";

/*
 * A solve from last frame's answer that spends its budget and misses is tried again from another start (the
 * behavior's retry from the animated pose). That solve knows nothing of last frame: when it meets, it may meet
 * in the other configuration of a redundant body, tens of degrees from the pose just shown, though last frame's
 * answer missed by only a few tolerances. So the answer is pulled toward that pose the way a tracked answer is
 * pulled toward its input (answerNearInput.ts): its local rotations are what the blends aim at.
 */

/**
 * Right after `solvePlan` on `positions`/`orientations` (its measured bones are used), each component whose
 * answer meets its targets but turned a joint more than answerNearInput's threshold from `near` (another pose
 * of the rig, its orientations from `near[nearOffset]`, 4 per joint) is pulled toward it, within `budget`
 * iterations for each. Only components the solve measured in full (a free unbranched chain's fast path does
 * not turn frames), and that no other component hangs below (a pulled carrier would move their bases).
 * Leaves the plan's report measured again (residuals, largest, converged); returns the most iterations any component used.
 */
export function pullTowardPose(
  plan: SolvePlan,
  positions: Float64Array,
  orientations: Float64Array,
  near: Float64Array,
  nearOffset: number,
  targets: Float64Array,
  budget: number,
): number {
  let most = 0;
  for (let c = 0; c < plan.componentCount && budget >= 1; c++) {
    if (
      !measuredInFull(plan, c) ||
      carriesComponent(plan, c) ||
      stretches(plan, c) ||
      hasContinuumSections(plan, c)
    )
      continue;
    if (!componentMeetsTargets(plan, c, positions, targets)) continue;
    aimAt(plan, c, near, nearOffset);
    largestTurnFromInput(plan, c, orientations);
    if (!(turnFromInput[0] > PULL_AFTER)) continue;
    const used = pullTowardInput(plan, c, positions, orientations, targets, budget);
    carryPassives(plan, c, positions, orientations);
    if (used > most) most = used;
  }
  measureResiduals(plan, 0, plan.effectorCount, positions, targets);
  const report = plan.report;
  report.maxResidual = plan.scratch.maxResidual[0];
  report.converged = report.maxResidual <= plan.scratch.tolerance[0];
  return most;
}

/** Whether the solve measured component c's local rotations and offsets (inputPose.ts): not on the fast path. */
function measuredInFull(plan: SolvePlan, c: number): boolean {
  return plan.scratch.componentOriented[c] === 1 || plan.componentParent[c] >= 0;
}

function carriesComponent(plan: SolvePlan, c: number): boolean {
  for (let d = c + 1; d < plan.componentCount; d++) if (plan.componentParent[d] === c) return true;
  return false;
}

/**
 * The blends' aim: each rotating joint of component c gets `near`'s local rotation as its input one. The
 * solve is over, so nothing else reads them before the next solve measures its own input.
 */
function aimAt(plan: SolvePlan, c: number, near: Float64Array, o: number): void {
  const parents = plan.rig.parents;
  const inputLocal = plan.scratch.inputLocal;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const r = plan.rotatingJoints[ri];
    const p = parents[r];
    if (p >= 0) quatConjugateMultiply(inputLocal, 4 * r, near, o + 4 * p, near, o + 4 * r);
    else for (let i = 0; i < 4; i++) inputLocal[4 * r + i] = near[o + 4 * r + i];
  }
}
