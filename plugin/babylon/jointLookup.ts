import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { FabrikError } from "../solver/errors.js";
import { HUMANOID_ROLES, type HumanoidRoles } from "../rig/index.js";
import type { SkeletonRig } from "./skeletonRig.js";
import { describeValue } from "./targetBinding.js";

/**
 * A joint, by bone name (or glTF node name), humanoid role, linked TransformNode, Bone, or joint index (its
 * place in `rig.names`, as tools and helpers hold it: names need not be unique, indices are).
 */
export type FabrikJoint = string | number | TransformNode | Bone;

/**
 * The joint index of a bone name (or glTF node name), a humanoid role, a joint node or a Bone; -1 when the
 * rig has no such joint. An explicit bone name wins over a role of the same spelling. An index is returned
 * as it is when it is a joint of the rig, else -1.
 */
export function findJointIndex(rig: SkeletonRig, roles: HumanoidRoles, joint: FabrikJoint): number {
  if (joint == null) return -1;
  if (typeof joint === "number") {
    return Number.isInteger(joint) && joint >= 0 && joint < rig.jointCount ? joint : -1;
  }
  const j = rig.indexOf(joint);
  if (j >= 0 || typeof joint !== "string") return j;
  return (roles as Record<string, number | undefined>)[joint] ?? -1;
}

/** The joint index of `joint` on the character's rig (see {@link findJointIndex}); throws when it has none. */
export function resolveJoint(
  character: { readonly rig: SkeletonRig; readonly roles: HumanoidRoles },
  joint: FabrikJoint,
  who: string,
): number {
  const j = findJointIndex(character.rig, character.roles, joint);
  if (j < 0) throw unknownJoint(character.rig, character.roles, joint, who);
  return j;
}

/**
 * The error for a joint the rig does not have, saying what was meant when it can guess: roles and bone names
 * that match by case or by suffix, and a sample of the rig's joints and roles.
 */
export function unknownJoint(
  rig: SkeletonRig,
  roles: HumanoidRoles,
  joint: FabrikJoint,
  who: string,
): FabrikError {
  if (typeof joint === "number") {
    return new FabrikError(
      `${who}: joint index ${joint} is ${Number.isInteger(joint) ? "outside the rig" : "not a whole number"} ` +
        `(the rig's joints are 0..${rig.jointCount - 1})`,
      undefined,
      "joint",
    );
  }
  if (typeof joint !== "string") {
    return new FabrikError(`${who}: ${describeValue(joint)} is not a joint of this rig`, undefined, "joint");
  }
  const known = Object.keys(roles);
  const lower = joint.toLowerCase();
  const close = rig.names.filter((n) => {
    const l = n.toLowerCase();
    return l === lower || l.endsWith(`:${lower}`) || l.endsWith(`_${lower}`) || l.includes(lower);
  });
  const role = known.find((r) => r.toLowerCase() === lower);
  const hints: string[] = [];
  if (role !== undefined) hints.push(`role "${role}"`);
  for (const name of close.slice(0, 3)) hints.push(`"${name}"`);
  const isRole = (HUMANOID_ROLES as readonly string[]).includes(joint);
  return new FabrikError(
    `${who}: no bone${isRole ? "" : " or humanoid role"} named "${joint}"` +
      (isRole ? ` (the role "${joint}" was not recognised on this rig)` : "") +
      (hints.length > 0 ? `; did you mean ${hints.join(" or ")}?` : "") +
      ` The rig has ${rig.jointCount} joints (${rig.names.slice(0, 6).join(", ")}${rig.jointCount > 6 ? ", …" : ""})` +
      (known.length > 0 ? ` and roles ${known.join(", ")}` : " and no recognised humanoid roles"),
    undefined,
    "joint",
  );
}

/** How a joint was named, for messages: a quoted name, or a description of what was given. */
export function labelOf(joint: unknown): string {
  if (typeof joint === "string") return JSON.stringify(joint);
  const name = (joint as { name?: unknown } | null)?.name;
  return typeof name === "string" ? JSON.stringify(name) : describeValue(joint);
}
