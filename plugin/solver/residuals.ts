import type { SolvePlan } from "./plan.js";

/**
 * Residuals of the effectors `componentEffectors[from .. to)` into `report.residuals`, their maximum and sum
 * into the plan's `maxResidual` and `residualSum`.
 */
export function measureResiduals(
  plan: SolvePlan,
  from: number,
  to: number,
  positions: Float64Array,
  targets: Float64Array,
): void {
  const { componentEffectors, effectorJoints } = plan;
  const residuals = plan.report.residuals;
  let max = 0,
    sum = 0;
  for (let k = from; k < to; k++) {
    const e = componentEffectors[k];
    const j3 = 3 * effectorJoints[e],
      e3 = 3 * e;
    const dx = positions[j3] - targets[e3],
      dy = positions[j3 + 1] - targets[e3 + 1],
      dz = positions[j3 + 2] - targets[e3 + 2];
    const r = Math.sqrt(dx * dx + dy * dy + dz * dz);
    residuals[e] = r;
    sum += r;
    if (r > max) max = r;
  }
  plan.scratch.maxResidual[0] = max;
  plan.scratch.residualSum[0] = sum;
}

/** Residuals of component c's effectors ({@link measureResiduals}). */
export function measureComponentResiduals(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
): void {
  measureResiduals(
    plan,
    plan.componentEffectorStart[c],
    plan.componentEffectorStart[c + 1],
    positions,
    targets,
  );
}

/** Measures component c's residuals and tells whether every one is within the tolerance. */
export function componentMeetsTargets(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
): boolean {
  measureComponentResiduals(plan, c, positions, targets);
  return plan.scratch.maxResidual[0] <= plan.scratch.tolerance[0];
}
