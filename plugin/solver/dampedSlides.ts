import { damped, SCALE_AT } from "./dampedScratch.js";
import { LIMIT_STRETCH } from "./limits.js";
import type { SolvePlan } from "./plan.js";

/*
 * Bones that stretch within limits (a robot arm's prismatic joint, a slider on its rail) in damped steps: one
 * column each, the bone's direction, since lengthening bone j moves j and everything below it along that
 * direction. The step changes the bone's length, held to its stretch limits; a limit that takes back a good
 * part of the change holds the bone, and the step is solved again without it, as a joint pressing on its
 * limit is (dampedTurns.ts). A bone's length is read from the pose at every step, so a step put back leaves
 * no length behind.
 */

/** A limit that takes back more than this fraction of a bone's change holds it (as PRESS_FRACTION for turns). */
const PRESS_FRACTION = 0.25;

/** The stretching bones of component c: one column each. */
export function countSlides(plan: SolvePlan, c: number): number {
  const flags = plan.scratch.flags;
  let count = 0;
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
    if (flags[plan.activeJoints[k]] & LIMIT_STRETCH) count++;
  return count;
}

/**
 * The slides' columns, from `col` on: each stretching bone's joint and unit direction (zero for a held
 * bone), its length read from the pose.
 */
export function fillSlideColumns(plan: SolvePlan, c: number, positions: Float64Array, col: number): void {
  const { columnAxis, columnJoint, held } = damped;
  const flags = plan.scratch.flags;
  const boneLength = plan.scratch.boneLength;
  const parents = plan.rig.parents;
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
    const j = plan.activeJoints[k];
    if (!(flags[j] & LIMIT_STRETCH)) continue;
    const q = parents[j];
    const dx = positions[3 * j] - positions[3 * q],
      dy = positions[3 * j + 1] - positions[3 * q + 1],
      dz = positions[3 * j + 2] - positions[3 * q + 2];
    const length = Math.sqrt(dx * dx + dy * dy + dz * dz);
    boneLength[j] = length;
    columnJoint[col] = j;
    const inv = held[j] === 1 || !(length > 0) ? 0 : 1 / length;
    columnAxis[3 * col] = dx * inv;
    columnAxis[3 * col + 1] = dy * inv;
    columnAxis[3 * col + 2] = dz * inv;
    col++;
  }
}

/** Each stretching bone's length as the pose has it (after a step put back, the steps' last length may not be). */
export function readSlideLengths(plan: SolvePlan, c: number, positions: Float64Array): void {
  const flags = plan.scratch.flags;
  const boneLength = plan.scratch.boneLength;
  const parents = plan.rig.parents;
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
    const j = plan.activeJoints[k];
    if (!(flags[j] & LIMIT_STRETCH)) continue;
    const q = parents[j];
    const dx = positions[3 * j] - positions[3 * q],
      dy = positions[3 * j + 1] - positions[3 * q + 1],
      dz = positions[3 * j + 2] - positions[3 * q + 2];
    boneLength[j] = Math.sqrt(dx * dx + dy * dy + dz * dz);
  }
}

/**
 * Changes each stretching bone's length by its part of Jᵀ y times the step's scale, held to its limits.
 * Returns true when a limit took back a good part of a bone's change: that bone is then held.
 */
export function slideBones(plan: SolvePlan, rows: number, cols: number): boolean {
  const { columnJoint, held, jacobian, numbers, rhs, turnColumns } = damped;
  const boneLength = plan.scratch.boneLength;
  const stretch = plan.limits.stretch;
  let pressed = false;
  for (let col = turnColumns; col < cols; col++) {
    const j = columnJoint[col];
    let d = 0;
    for (let i = 0; i < rows; i++) d += jacobian[i * cols + col] * rhs[i];
    d *= numbers[SCALE_AT];
    const wanted = boneLength[j] + d;
    const min = stretch[2 * j],
      max = stretch[2 * j + 1];
    const length = wanted < min ? min : wanted > max ? max : wanted;
    boneLength[j] = length;
    if (held[j] === 0 && Math.abs(wanted - length) > PRESS_FRACTION * Math.abs(d)) {
      held[j] = 1;
      pressed = true;
    }
  }
  return pressed;
}
