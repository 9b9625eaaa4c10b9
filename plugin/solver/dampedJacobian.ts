import { damped } from "./dampedScratch.js";
import { countSlides, fillSlideColumns } from "./dampedSlides.js";
import { LIMIT_FIXED, LIMIT_HINGE } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import { quatRotate } from "./quaternion.js";

/*
 * The Jacobian of a damped step (dampedSteps.ts): its columns (a hinge's axis, or a joint's three model
 * axes, less the direction a joint pressing on its limit is blocked in; then a stretching bone's direction,
 * dampedSlides.ts) and how each effector moves per radian about each (per unit of length along it), with the
 * weighted residuals beside it.
 */

/** A hinge axis in model space. */
const temp = new Float64Array(3);
const V = 0;

/** The columns of component c: one a hinge, three any other rotating joint, none a fixed one; one a stretching bone. */
export function countColumns(plan: SolvePlan, c: number): number {
  const flags = plan.scratch.flags;
  let cols = 0;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const f = flags[plan.rotatingJoints[ri]];
    if (!(f & LIMIT_FIXED)) cols += f & LIMIT_HINGE ? 1 : 3;
  }
  return cols + countSlides(plan, c);
}

/** Each column's joint and model-space axis: a hinge's own axis, else X, Y and Z; zero for a held joint. */
export function fillColumns(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  const { blocked, columnAxis, columnJoint, held } = damped;
  const flags = plan.scratch.flags;
  const limits = plan.limits;
  let col = 0;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const r = plan.rotatingJoints[ri];
    const f = flags[r];
    if (f & LIMIT_FIXED) continue;
    const count = f & LIMIT_HINGE ? 1 : 3;
    // The hinge axis turns with the joint (a turn about it leaves it where it is).
    if (count === 1) quatRotate(temp, V, orientations, 4 * r, limits.hingeAxis, 3 * r);
    for (let a = 0; a < count; a++, col++) {
      columnJoint[col] = r;
      if (count === 1) {
        for (let i = 0; i < 3; i++) columnAxis[3 * col + i] = held[r] === 1 ? 0 : temp[V + i];
        continue;
      }
      // A joint pressing on its limit turns only across the direction the limit blocks.
      const n = held[r] === 1 ? blocked[3 * r + a] : 0;
      for (let i = 0; i < 3; i++) columnAxis[3 * col + i] = (i === a ? 1 : 0) - n * blocked[3 * r + i];
    }
  }
  damped.turnColumns = col;
  fillSlideColumns(plan, c, positions, col);
}

/** J (rows × cols, row-major): how each effector moves per radian about each column's axis; r = w (target − effector). */
export function fillJacobian(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
  rows: number,
  cols: number,
): void {
  const { columnAxis, columnJoint, jacobian, rhs, turnColumns } = damped;
  const { componentEffectors, effectorJoints, effectorWeights } = plan;
  const first = plan.componentEffectorStart[c];
  jacobian.fill(0, 0, rows * cols);
  for (let k = first; k < plan.componentEffectorStart[c + 1]; k++) {
    const e = componentEffectors[k];
    const w = effectorWeights[e];
    const ej = effectorJoints[e];
    const row = 3 * (k - first);
    for (let i = 0; i < 3; i++) rhs[row + i] = w * (targets[3 * e + i] - positions[3 * ej + i]);
    if (w === 0) continue;
    for (let col = 0; col < cols; col++) {
      const r = columnJoint[col];
      if (col >= turnColumns) {
        // A stretching bone moves its own joint too.
        if (r !== ej && !moves(plan, r, ej)) continue;
        for (let i = 0; i < 3; i++) jacobian[(row + i) * cols + col] = w * columnAxis[3 * col + i];
        continue;
      }
      if (!moves(plan, r, ej)) continue;
      const dx = positions[3 * ej] - positions[3 * r],
        dy = positions[3 * ej + 1] - positions[3 * r + 1],
        dz = positions[3 * ej + 2] - positions[3 * r + 2];
      const ax = columnAxis[3 * col],
        ay = columnAxis[3 * col + 1],
        az = columnAxis[3 * col + 2];
      jacobian[row * cols + col] = w * (ay * dz - az * dy);
      jacobian[(row + 1) * cols + col] = w * (az * dx - ax * dz);
      jacobian[(row + 2) * cols + col] = w * (ax * dy - ay * dx);
    }
  }
}

/** True when turning joint r moves joint j (j lies in r's subtree; every active joint lies in the base's). */
function moves(plan: SolvePlan, r: number, j: number): boolean {
  const index = plan.activeIndex[r];
  if (index < 0) return true;
  const k = plan.activeIndex[j];
  return k > index && k < plan.subtreeEnd[index];
}
