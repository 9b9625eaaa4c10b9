/*
 * The humanoid roles a rig's joints can take (found by findHumanoidRoles.ts), and what finding them reads.
 */

/**
 * Humanoid roles, named as in the VRM humanoid specification. `upperChest`, the shoulders and the toes are
 * optional on most rigs.
 */
export const HUMANOID_ROLES = [
  "hips",
  "spine",
  "chest",
  "upperChest",
  "neck",
  "head",
  "leftShoulder",
  "leftUpperArm",
  "leftLowerArm",
  "leftHand",
  "rightShoulder",
  "rightUpperArm",
  "rightLowerArm",
  "rightHand",
  "leftUpperLeg",
  "leftLowerLeg",
  "leftFoot",
  "leftToes",
  "rightUpperLeg",
  "rightLowerLeg",
  "rightFoot",
  "rightToes",
] as const;

export type HumanoidRole = (typeof HUMANOID_ROLES)[number];

/** Joint index per recognised role. */
export type HumanoidRoles = Partial<Record<HumanoidRole, number>>;

export interface HumanoidRoleInput {
  /** Joint names, one per joint. */
  readonly names: readonly string[];
  /** Parent per joint, parents first, -1 for roots. */
  readonly parents: ArrayLike<number>;
  /**
   * Rest joint positions (3n), any one space. Optional; used to tell left from right when a limb's name has
   * no side, and to pick the hand among several wrist children (the one continuing the forearm).
   */
  readonly restPositions?: ArrayLike<number>;
  /** The character's left in the space of `restPositions`; default +X (glTF characters face +Z). */
  readonly leftAxis?: readonly [number, number, number];
}
