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
 * Limb ends by role first (their chains stop at the limb's root by default, and a foot under the root is
 * placed through its leg); then every end joint the behavior discovered, its chain stopping below the
 * nearest joint that carries another branch (turning that would swing the body: fingers bend alone, a tail
 * up to the hips); on a humanoid at most 3 bones. A control bone hanging from the body itself (a pole
 * target) has no such chain and is left out, unless it is a foot at its shin's end (whose shin is then
 * not offered: the foot's target bends it).
 */
export function effectorChoices(ik: FabrikBehavior): EffectorChoice[] {
  const rig = ik.rig;
  if (rig === null) return [];
  const parents = rig.parents;
  const children = new Int32Array(parents.length);
  for (const p of parents) if (p >= 0) children[p]++;
  const depthOf = (j: number) => {
    let depth = 0;
    for (let k = parents[j]; k >= 0; k = parents[k]) depth++;
    return depth;
  };
  /** Bones above `j` that may turn: up to the highest joint that carries nothing but this branch. */
  const ownChain = (j: number) => {
    let length = 0;
    for (let k = parents[j]; k >= 0 && children[k] === 1; k = parents[k]) length++;
    return length;
  };
  const roles = ik.roles;
  const humanoid = Object.keys(roles).length > 0;
  const taken = new Set<number>();
  const keys = new Set<string>(LIMB_ENDS);
  const choices: EffectorChoice[] = [];
  for (const role of LIMB_ENDS) {
    const j = roles[role];
    if (j === undefined || parents[j] < 0) continue;
    taken.add(j);
    choices.push({ key: role, joint: role, group: "role", depth: depthOf(j), options: {} });
  }
  // The shins that feet at their ends bend: pulled for those feet, not offered themselves.
  const shins = new Set<number>();
  for (const j of [...choices.map((c) => ik.jointIndex(c.joint)), ...ik.effectors.map((e) => e.joint)]) {
    const shin = ik.shinOf(j);
    if (shin >= 0) shins.add(shin);
  }
  for (const effector of ik.effectors) {
    if (taken.has(effector.joint) || shins.has(effector.joint) || effector.depth < 1) continue;
    let options: FabrikTargetOptions;
    if (ik.shinOf(effector.joint) >= 0) options = {};
    else {
      const own = Math.min(ownChain(effector.joint), humanoid ? 3 : Infinity);
      if (own < 1) continue;
      options = { chainLength: own };
    }
    const joint = rig.nodes[effector.joint] ?? rig.bones[effector.joint][0];
    const key = keys.has(effector.name) ? `${effector.name}#${effector.joint}` : effector.name;
    keys.add(key);
    choices.push({ key, joint, group: "end", depth: effector.depth, options });
  }
  return choices;
}
