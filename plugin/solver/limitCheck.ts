import { keepsArcs } from "./continuumArc.js";
import { projectRotation } from "./jointLimitProjection.js";
import { LIMIT_FIXED, LIMIT_ROTATION, LIMIT_STRETCH } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import { quatConjugateMultiply } from "./quaternion.js";

/**
 * A pose counts as keeping its limits when projecting each joint onto them moves it by at most this angle
 * (radians): far below the 1e-6 rad the solver promises, far above the rounding of a pose that was solved
 * onto a limit boundary and read back (a hinge's off-axis noise, a cone's boundary crossed by 1e-16).
 */
const LIMIT_SLACK = 1e-9;

/** This file's temporaries. */
const temp = new Float64Array(24);
const DELTA = 0; // Δ, projected in place
const ID = 4; // identity quaternion, a root's parent
const COPY = 8; // Δ as it was
const MOVED = 12; // projected⁻¹ · Δ
const LIMIT = 16; // projectRotation's scratch (8)

/**
 * True when a joint the component moves has one of the `mask` limits, or its base one of the rotation
 * limits in it (the base turns; its own bone, above the component, never stretches).
 */
export function hasLimit(plan: SolvePlan, c: number, mask: number): boolean {
  const flags = plan.scratch.flags;
  if (flags[plan.componentBase[c]] & mask & LIMIT_ROTATION) return true;
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
    if (flags[plan.activeJoints[k]] & mask) return true;
  }
  return false;
}

/**
 * True when every joint the component turns keeps its limits, to within {@link LIMIT_SLACK}. `input` says
 * the pose is the solve's input: a fixed joint is at its input rotation there by definition (the plain
 * passes, in contrast, never hold a joint fixed), and stretchable bones are checked at their input lengths
 * (the plain passes never stretch, and components with stretch never take them).
 */
export function keepsLimits(plan: SolvePlan, c: number, orientations: Float64Array, input: boolean): boolean {
  const { limits, rotatingJoints } = plan;
  const parents = plan.rig.parents;
  // A continuum section's bend is its joints' limit.
  if (plan.continuum.inComponent[c] === 1 && !keepsArcs(plan, c, orientations)) return false;
  if (input) {
    const boneLength = plan.scratch.boneLength;
    for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
      const j = plan.activeJoints[k];
      if ((plan.scratch.flags[j] & LIMIT_STRETCH) === 0) continue;
      const len = boneLength[j];
      if (
        len < limits.stretch[2 * j] * (1 - LIMIT_SLACK) ||
        len > limits.stretch[2 * j + 1] * (1 + LIMIT_SLACK)
      )
        return false;
    }
  }
  temp[ID] = 0;
  temp[ID + 1] = 0;
  temp[ID + 2] = 0;
  temp[ID + 3] = 1;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const r = rotatingJoints[ri];
    const flags = plan.scratch.flags[r];
    if ((flags & LIMIT_ROTATION) === 0) continue;
    if (flags & LIMIT_FIXED) {
      if (input) continue;
      return false;
    }
    const p = parents[r];
    // Δ = rest⁻¹ · parent⁻¹ · orientation, and a copy to compare with.
    quatConjugateMultiply(
      temp,
      DELTA,
      p >= 0 ? orientations : temp,
      p >= 0 ? 4 * p : ID,
      orientations,
      4 * r,
    );
    quatConjugateMultiply(temp, DELTA, limits.restLocal, 4 * r, temp, DELTA);
    for (let i = 0; i < 4; i++) temp[COPY + i] = temp[DELTA + i];
    if (!projectRotation(limits, r, temp, DELTA, temp, LIMIT)) continue;
    // Moved: by the angle of projected⁻¹ · Δ, 2 asin of its vector part (accurate for small angles).
    quatConjugateMultiply(temp, MOVED, temp, DELTA, temp, COPY);
    const sin = Math.sqrt(
      temp[MOVED] * temp[MOVED] + temp[MOVED + 1] * temp[MOVED + 1] + temp[MOVED + 2] * temp[MOVED + 2],
    );
    if (sin > 0.5 * LIMIT_SLACK) return false;
  }
  return true;
}
