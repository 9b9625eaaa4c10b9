import type { SolvePlan } from "./plan.js";
import { quatConjugateMultiply, quatRotate, quatRotateInverse } from "./quaternion.js";

/**
 * What every pass preserves, read from the input pose: each joint's bone length, its offset direction in
 * its parent's frame, and its local rotation.
 */
export function measurePose(
  plan: SolvePlan,
  positions: Float64Array,
  orientations: Float64Array,
  tracking: boolean,
): void {
  const parents = plan.rig.parents;
  const { inputLocal, componentOriented } = plan.scratch;
  for (let c = 0; c < plan.componentCount; c++) {
    const b = plan.componentBase[c];
    const p = parents[b];
    if (p >= 0) quatConjugateMultiply(inputLocal, 4 * b, orientations, 4 * p, orientations, 4 * b);
    else for (let i = 0; i < 4; i++) inputLocal[4 * b + i] = orientations[4 * b + i];
    // The fast path needs only lengths and directions for the joints it solves (see orientChainFromPositions),
    // unless it is tracked: tracking steps (trackingSteps.ts) turn its joints as rigid frames.
    const full = tracking || componentOriented[c] === 1 || plan.componentParent[c] >= 0;
    for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
      measureJoint(plan, plan.activeJoints[k], positions, orientations, full);
    }
    for (let k = plan.passiveStart[c]; k < plan.passiveStart[c + 1]; k++) {
      measureJoint(plan, plan.passiveJoints[k], positions, orientations, true);
    }
  }
}

function measureJoint(
  plan: SolvePlan,
  j: number,
  positions: Float64Array,
  orientations: Float64Array,
  full: boolean,
): void {
  const p = plan.rig.parents[j];
  const { restPositions, restOrientations } = plan.rig;
  const { boneLength, inputDirection, localOffset, inputLocal } = plan.scratch;
  const j3 = 3 * j,
    p3 = 3 * p;
  const dx = positions[j3] - positions[p3],
    dy = positions[j3 + 1] - positions[p3 + 1],
    dz = positions[j3 + 2] - positions[p3 + 2];
  const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
  boneLength[j] = len;
  if (len > 0) {
    inputDirection[j3] = dx / len;
    inputDirection[j3 + 1] = dy / len;
    inputDirection[j3 + 2] = dz / len;
    if (full) quatRotateInverse(localOffset, j3, orientations, 4 * p, inputDirection, j3);
  } else {
    // A zero-length bone has no direction of its own: borrow the rest pose's, or the parent's +Y.
    const rx = restPositions[j3] - restPositions[p3],
      ry = restPositions[j3 + 1] - restPositions[p3 + 1],
      rz = restPositions[j3 + 2] - restPositions[p3 + 2];
    const rl = Math.sqrt(rx * rx + ry * ry + rz * rz);
    if (rl > 0) {
      inputDirection[j3] = rx / rl;
      inputDirection[j3 + 1] = ry / rl;
      inputDirection[j3 + 2] = rz / rl;
      quatRotateInverse(localOffset, j3, restOrientations, 4 * p, inputDirection, j3);
    } else {
      localOffset[j3] = 0;
      localOffset[j3 + 1] = 1;
      localOffset[j3 + 2] = 0;
    }
    quatRotate(inputDirection, j3, orientations, 4 * p, localOffset, j3);
  }
  if (full) quatConjugateMultiply(inputLocal, 4 * j, orientations, 4 * p, orientations, 4 * j);
}
