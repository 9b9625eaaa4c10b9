import type { FabrikBehavior, FabrikJoint, FabrikTargetOptions, HumanoidRole } from "../../plugin/index.js";

/** An effector the user may put a target on: a humanoid role or a discovered end joint. */
export interface EffectorChoice {
  /** Role name or bone name; also the handle's key. */
  readonly key: string;
  /** What to hand setTarget: the role, or the joint's node (names may repeat on real rigs). */
  readonly joint: FabrikJoint;
  readonly group: "role" | "end";
  /** Bones up to the root: the longest chain it can have. */
  readonly depth: number;
  readonly options: FabrikTargetOptions;
}

const LIMB_ENDS: readonly HumanoidRole[] = ["head", "leftHand", "rightHand", "leftFoot", "rightFoot"];

/**
 * Limb ends by role first (their chains stop at the limb's root by default); then every end joint the
 * behavior discovered. On a humanoid those are fingertips and toes, which get short chains so a finger
 * does not swing the spine; on other rigs (tails, tentacles) the whole chain up to the root may move.
 */
export function effectorChoices(ik: FabrikBehavior): EffectorChoice[] {
  const rig = ik.rig;
  if (rig === null) return [];
  const depthOf = (j: number) => {
    let depth = 0;
    for (let k = rig.parents[j]; k >= 0; k = rig.parents[k]) depth++;
    return depth;
  };
  const roles = ik.roles;
  const humanoid = Object.keys(roles).length > 0;
  const taken = new Set<number>();
  const keys = new Set<string>(LIMB_ENDS);
  const choices: EffectorChoice[] = [];
  for (const role of LIMB_ENDS) {
    const j = roles[role];
    if (j === undefined || rig.parents[j] < 0) continue;
    taken.add(j);
    choices.push({ key: role, joint: role, group: "role", depth: depthOf(j), options: {} });
  }
  for (const effector of ik.effectors) {
    if (taken.has(effector.joint) || effector.depth < 1) continue;
    const options = humanoid ? { chainLength: Math.min(effector.depth, 3) } : {};
    const joint = rig.nodes[effector.joint] ?? rig.bones[effector.joint][0];
    const key = keys.has(effector.name) ? `${effector.name}#${effector.joint}` : effector.name;
    keys.add(key);
    choices.push({ key, joint, group: "end", depth: effector.depth, options });
  }
  return choices;
}
