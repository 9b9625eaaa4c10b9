import { measureCarriedChains } from "./carriedChains.js";
import { needsOrientedPasses, solveComponent } from "./componentSolve.js";
import { measureSections } from "./continuumFit.js";
import { maskSectionLimits } from "./continuumSections.js";
import { measurePose } from "./inputPose.js";
import { LIMIT_FIXED } from "./limits.js";
import type { SolvePlan, SolveReport } from "./plan.js";
import type { Pose } from "./pose.js";
import { measureResiduals } from "./residuals.js";
import { carryPassives, followBase } from "./rigidCarry.js";
import { validateSolveInput } from "./solveInput.js";
import { DEFAULT_MAX_ITERATIONS, DEFAULT_TOLERANCE, type SolveSettings } from "./solveSettings.js";

export { DEFAULT_MAX_ITERATIONS, DEFAULT_TOLERANCE, type SolveSettings } from "./solveSettings.js";

const EMPTY_SETTINGS: SolveSettings = {};
const NO_POLES = new Float64Array(0);

/**
 * Multi-end-effector FABRIK (Aristidou & Lasenby 2011) with joint limits inside both passes. Moves the
 * plan's active joints in `pose` (model space) so each effector approaches its target (`x y z` per effector,
 * in effector order), and turns the joints that carry them; joints hanging below follow rigidly. Bone
 * lengths are those of the input pose; bases and pinned joints keep their positions. Allocates nothing;
 * returns `plan.report`, refilled by each solve.
 */
export function solvePlan(
  plan: SolvePlan,
  pose: Pose,
  targets: Float64Array,
  settings: SolveSettings = EMPTY_SETTINGS,
): SolveReport {
  validateSolveInput(plan, pose, targets, settings);
  // The limits may have been edited since the last solve; held joints are fixed whatever their limits say.
  const { flags, held } = plan.scratch;
  const limitFlags = plan.limits.flags;
  for (let j = 0; j < flags.length; j++)
    flags[j] = held[j] === 1 ? limitFlags[j] | LIMIT_FIXED : limitFlags[j];
  if (plan.continuum.count > 0) maskSectionLimits(plan, flags);
  const { positions, orientations } = pose;
  const maxIterations = settings.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  // Doubles passed as arguments to calls V8 does not inline get boxed, which allocates; the tolerance
  // therefore travels to the helpers through the plan's scratch instead.
  plan.scratch.tolerance[0] = settings.tolerance ?? DEFAULT_TOLERANCE;
  const poles = settings.poles ?? NO_POLES;
  const tracking = settings.tracking === true;
  plan.scratch.holdConfiguration[0] = tracking && settings.holdConfiguration !== false ? 1 : 0;
  plan.scratch.fellShort[0] = tracking && settings.fellShort === true ? 1 : 0;

  const oriented = plan.scratch.componentOriented;
  for (let c = 0; c < plan.componentCount; c++) oriented[c] = needsOrientedPasses(plan, c) ? 1 : 0;
  measurePose(plan, positions, orientations, tracking);
  if (plan.continuum.count > 0) measureSections(plan, positions, orientations);
  if (plan.scratch.carriedBases.length > 0) measureCarriedChains(plan);
  const report = plan.report;
  const moved = plan.scratch.componentMoved;
  report.escapes = 0;
  let iterations = 0;
  for (let c = 0; c < plan.componentCount; c++) {
    moved[c] = 0;
    const upstream = plan.componentParent[c];
    if (upstream >= 0 && moved[upstream]) {
      followBase(plan, c, positions, orientations);
      moved[c] = 1;
    }
    const used = solveComponent(plan, c, positions, orientations, targets, maxIterations, poles, tracking);
    if (used > iterations) iterations = used;
    if (used > 0) moved[c] = 1;
    if (moved[c]) carryPassives(plan, c, positions, orientations);
  }

  measureResiduals(plan, 0, plan.effectorCount, positions, targets);
  const maxResidual = plan.scratch.maxResidual[0];
  report.iterations = iterations;
  report.maxResidual = maxResidual;
  report.converged = maxResidual <= plan.scratch.tolerance[0];
  return report;
}
