// Random limit-respecting arm poses for the two-hand grip tests (not a test file).
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { projectRotation } from "../../plugin/solver/jointLimitProjection.js";

/**
 * Puts random limit-respecting rotations on `joints` (the arms: upper arm, forearm, hand); returns what to
 * undo. Each is a random rotation projected onto the joint's limits, then brought `inside` of the way back
 * toward rest (1: on the limits' boundary, where projection puts most of them).
 */
export function randomArms(
  ik: FabrikBehavior,
  joints: readonly number[],
  rnd: () => number,
  inside: number,
): () => void {
  const limits = ik.limits!;
  const nodes = ik.rig!.nodes;
  const saved = joints.map((j) => nodes[j]!.rotationQuaternion!.clone());
  const scratch = new Float64Array(16);
  for (const j of joints) {
    const axis = new Vector3(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
    const q = Quaternion.RotationAxis(axis, rnd() * 2.5);
    const delta = Float64Array.of(q.x, q.y, q.z, q.w);
    projectRotation(limits, j, delta, 0, scratch, 0);
    const half = Math.acos(Math.min(1, Math.abs(delta[3])));
    if (half > 0) {
      const f = (Math.sin(half * inside) / Math.sin(half)) * Math.sign(delta[3] || 1);
      for (let i = 0; i < 3; i++) delta[i] *= f;
      delta[3] = Math.cos(half * inside);
      // Back toward rest can leave a range that does not hold rest (an elbow that never straightens).
      projectRotation(limits, j, delta, 0, scratch, 0);
    }
    const rl = limits.restLocal;
    const rest = new Quaternion(rl[4 * j], rl[4 * j + 1], rl[4 * j + 2], rl[4 * j + 3]);
    nodes[j]!.rotationQuaternion = rest.multiply(new Quaternion(delta[0], delta[1], delta[2], delta[3]));
  }
  return () => joints.forEach((j, k) => nodes[j]!.rotationQuaternion!.copyFrom(saved[k]));
}
