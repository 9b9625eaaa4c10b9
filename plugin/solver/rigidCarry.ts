import type { SolvePlan } from "./plan.js";
import { quatMultiply, quatNormalize, quatRotate } from "./quaternion.js";

/** The direction placeRigidly gave the joint's bone, for followBase to keep. */
const direction = new Float64Array(3);

/**
 * Re-places a component whose base an earlier component carried away: rigidly, from its input locals. The
 * carried pose is this component's input from here on, so its bone directions are measured again.
 */
export function followBase(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  const b = plan.componentBase[c];
  const p = plan.rig.parents[b];
  const inputDirection = plan.scratch.inputDirection;
  quatMultiply(orientations, 4 * b, orientations, 4 * p, plan.scratch.inputLocal, 4 * b);
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
    const j = plan.activeJoints[k];
    placeRigidly(plan, j, positions, orientations);
    inputDirection[3 * j] = direction[0];
    inputDirection[3 * j + 1] = direction[1];
    inputDirection[3 * j + 2] = direction[2];
  }
}

/** The passive joints of a component that moved follow their parents rigidly. */
export function carryPassives(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  for (let k = plan.passiveStart[c]; k < plan.passiveStart[c + 1]; k++)
    placeRigidly(plan, plan.passiveJoints[k], positions, orientations);
}

function placeRigidly(plan: SolvePlan, j: number, positions: Float64Array, orientations: Float64Array): void {
  const p = plan.rig.parents[j];
  const { boneLength, localOffset, inputLocal } = plan.scratch;
  const j3 = 3 * j,
    p3 = 3 * p;
  quatRotate(direction, 0, orientations, 4 * p, localOffset, j3);
  const len = boneLength[j];
  positions[j3] = positions[p3] + len * direction[0];
  positions[j3 + 1] = positions[p3 + 1] + len * direction[1];
  positions[j3 + 2] = positions[p3 + 2] + len * direction[2];
  quatMultiply(orientations, 4 * j, orientations, 4 * p, inputLocal, 4 * j);
  // inputLocal carries the norm errors of both input orientations, so without this a long passive tail
  // solved frame after frame from its own output squares them down the chain until it is rejected.
  quatNormalize(orientations, 4 * j);
}
