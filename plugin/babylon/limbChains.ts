import { FabrikError } from "../solver/errors.js";
import type { AttachedCharacter } from "./attachedCharacter.js";
import { controlFootShin, footShin, type HumanoidRole, isAncestor } from "../rig/index.js";
import { PoseReader } from "./poseReader.js";

/*
 * Which bones a humanoid's target moves when none are named: a hand moves its arm, a foot its leg, a head its
 * neck, never the spine. The first of a role's bases found above the joint is where its chain stops.
 */
const CHAIN_BASES: Partial<Record<HumanoidRole, readonly HumanoidRole[]>> = {
  spine: ["hips"],
  chest: ["spine", "hips"],
  upperChest: ["spine", "hips"],
  neck: ["upperChest", "chest", "spine"],
  head: ["upperChest", "chest", "spine"],
  leftShoulder: ["upperChest", "chest", "spine"],
  rightShoulder: ["upperChest", "chest", "spine"],
  leftUpperArm: ["leftShoulder", "upperChest", "chest", "spine"],
  rightUpperArm: ["rightShoulder", "upperChest", "chest", "spine"],
  leftLowerArm: ["leftUpperArm"],
  rightLowerArm: ["rightUpperArm"],
  leftHand: ["leftUpperArm"],
  rightHand: ["rightUpperArm"],
  leftUpperLeg: ["hips"],
  rightUpperLeg: ["hips"],
  leftLowerLeg: ["leftUpperLeg"],
  rightLowerLeg: ["rightUpperLeg"],
  leftFoot: ["leftUpperLeg"],
  rightFoot: ["rightUpperLeg"],
  leftToes: ["leftUpperLeg"],
  rightToes: ["rightUpperLeg"],
};

/**
 * The chain length joint `j` gets when none is given: by its humanoid role, else undefined (up to the root).
 * Throws when the role's limb root exists but does not lie above the joint: its chain to the root would be
 * no limb at all (turning the root carries the whole body), so the caller is told rather than guessed for.
 */
export function defaultChainLength(character: AttachedCharacter, j: number, who: string): number | undefined {
  const role = character.roleOf[j];
  if (role === undefined) return undefined;
  const bases = CHAIN_BASES[role];
  if (bases === undefined) return undefined;
  const { rig, roles, depths } = character;
  for (const base of bases) {
    const b = roles[base];
    if (b !== undefined && isAncestor(rig.parents, b, j)) return depths[j] - depths[b];
  }
  // A partial humanoid (a creature whose legs name a knee and a foot but no thigh) has no limb root to
  // stop at: the joint is treated like any other bone.
  const found = bases.find((base) => roles[base] !== undefined);
  if (found === undefined) return undefined;
  const first = roles[found]!;
  const end =
    role.endsWith("Foot") || role.endsWith("Toes") ? role.replace(/Foot|Toes/, "LowerLeg") : undefined;
  const leg = end !== undefined ? roles[end as HumanoidRole] : undefined;
  throw new FabrikError(
    `${who}: "${rig.names[j]}" (role ${role}) does not hang below "${rig.names[first]}" (${found}), so it ` +
      "has no limb chain of its own" +
      (leg !== undefined
        ? ` (rigs made for Blender's IK keep the feet under the root); target the leg's end "${rig.names[leg]}" instead`
        : "") +
      ", or give chainLength explicitly",
    j,
    "chainLength",
  );
}

/**
 * The shin joint `j` sits at the end of when it does not hang below its leg, as a foot of a rig made for
 * Blender's IK does (under the root, where its shin ends), else -1: a `leftFoot`/`rightFoot` role at the end
 * of its side's `LowerLeg`, or a joint hanging above a leg at the end of one of its child-less bones
 * (checked on the rest pose and the current one, read here).
 */
export function shinOf(character: AttachedCharacter, j: number): number {
  const { rig, roles } = character;
  const role = character.roleOf[j];
  const foot = role === "leftFoot" || role === "rightFoot";
  const thigh = foot ? roles[role === "leftFoot" ? "leftUpperLeg" : "rightUpperLeg"] : undefined;
  // A foot below its own leg has its limb chain.
  if (thigh !== undefined && isAncestor(rig.parents, thigh, j)) return -1;
  const reader = new PoseReader(rig);
  reader.read();
  const w2m = reader.worldToModel;
  const pose = {
    positions: reader.positions,
    orientations: reader.orientations,
    up: [w2m[4], w2m[5], w2m[6]],
  };
  const shin = foot ? footShin(rig, roles, j, pose) : -1;
  return shin >= 0 ? shin : controlFootShin(rig, j, pose);
}
