import type { SolvePlan } from "./plan.js";

// Local copies: a constant imported from another module is read through a getter under test transforms.
const MAX_RESIDUAL_SLOT = 1;
const RESIDUAL_SUM_SLOT = 2;

/**
 * Residuals of the effectors `componentEffectors[from .. to)` into `report.residuals`, their maximum and sum
 * into the scratch numbers.
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
  const numbers = plan.scratch.numbers;
  numbers[MAX_RESIDUAL_SLOT] = max;
  numbers[RESIDUAL_SUM_SLOT] = sum;
}
