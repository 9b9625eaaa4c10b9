import type { FabrikBehavior, JointLimitSpec } from "../../plugin/index.js";

/**
 * Turns a behavior's joint limits off and on again at runtime through setLimit, keeping the specs it
 * started with (the humanoid preset, on a recognised humanoid), so "on" always means the original set.
 */
export function limitsSwitch(ik: FabrikBehavior): (on: boolean) => void {
  const rig = ik.rig!;
  // Nodes or bones, not names: real rigs repeat or omit joint names.
  const joints = rig.nodes.map((node, j) => node ?? rig.bones[j][0]);
  const saved = new Map<number, JointLimitSpec>();
  joints.forEach((joint, j) => {
    const spec = ik.getLimit(joint);
    if (spec !== undefined) saved.set(j, spec);
  });
  return (on) => {
    if (ik.attachedNode === null) return;
    for (const [j, spec] of saved) ik.setLimit(joints[j], on ? spec : undefined);
  };
}
