import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FabrikBehavior, QuaternionLike, Vector3Like } from "../babylon/index.js";
import { FabrikError } from "../solver/index.js";
import { fraction } from "./optionChecks.js";

/** Where a hand holds the object: the hand's pose in the object's own frame (its local space, scaled with it). */
export interface GripHandle {
  /** The hand joint's place (the wrist) in the object's frame. */
  position: Vector3Like;
  /**
   * The hand's rotation in the object's frame: the hand's world rotation (`absoluteRotationQuaternion`) is
   * the object's times this. Default identity.
   */
  rotation?: QuaternionLike;
}

export interface TwoHandGripOptions {
  /** The held object: a node without a parent, placed in world space by the grip every frame. */
  object: TransformNode;
  /** The left hand's handle. */
  left: GripHandle;
  /** The right hand's handle. */
  right: GripHandle;
  /** A node the object follows (place and rotation), or null: it then rides on the animated hands. */
  target?: TransformNode | null;
  /** How far the object goes from the animated hands' pose toward the target's, 0..1. Default 1. */
  targetWeight?: number;
  /**
   * How much each hand leads when the object cannot be held by both (0..1, default 1): a hand of weight 1
   * against 0 keeps its grip and the other comes as close as it can; equal weights share the miss.
   */
  leftWeight?: number;
  rightWeight?: number;
}

export const TWO_HAND_GRIP_OPTION_KEYS = [
  "object",
  "left",
  "right",
  "target",
  "targetWeight",
  "leftWeight",
  "rightWeight",
];

const WHO = "TwoHandGrip";

/** Refuses options TwoHandGrip does not know, naming them. */
export function checkGripOptionNames(options: object): void {
  if (options === null || typeof options !== "object") {
    throw new FabrikError(
      `${WHO}: options must be an object with object, left and right`,
      undefined,
      "options",
    );
  }
  for (const key of Object.keys(options)) {
    if (!TWO_HAND_GRIP_OPTION_KEYS.includes(key)) {
      throw new FabrikError(
        `${WHO}: unknown option "${key}" (options are ${TWO_HAND_GRIP_OPTION_KEYS.join(", ")})`,
        undefined,
        key,
      );
    }
  }
}

/** A weight in [0, 1], or the error naming it. */
export function checkWeight(value: unknown, name: string): number {
  return fraction(value, name, WHO);
}

/** The held object: a live TransformNode without a parent. */
export function checkObject(value: unknown): TransformNode {
  if (!(value instanceof TransformNode)) {
    throw new FabrikError(`${WHO}: object must be a TransformNode (a mesh or a node)`, undefined, "object");
  }
  if (value.isDisposed()) {
    throw new FabrikError(`${WHO}: object "${value.name}" is disposed`, undefined, "object");
  }
  if (value.parent !== null) {
    throw new FabrikError(
      `${WHO}: object "${value.name}" has a parent; the grip places it in world space, so it must have none`,
      undefined,
      "object",
    );
  }
  return value;
}

/** A node to follow, or null. */
export function checkTarget(value: unknown): TransformNode | null {
  if (value === null || value === undefined) return null;
  if (!(value instanceof TransformNode) || value.isDisposed()) {
    throw new FabrikError(`${WHO}: target must be a live TransformNode or null`, undefined, "target");
  }
  return value;
}

/** Writes a handle's position and unit rotation into `out[o..o+6]`, or throws naming `side`. */
export function readHandle(value: unknown, side: "left" | "right", out: Float64Array, o: number): void {
  const handle = value as GripHandle | null | undefined;
  const p = handle?.position;
  if (
    p === null ||
    typeof p !== "object" ||
    ![p.x, p.y, p.z].every((x) => typeof x === "number" && Number.isFinite(x))
  ) {
    throw new FabrikError(
      `${WHO}: ${side}.position must be a finite point, got ${p === undefined ? "nothing" : `(${p?.x}, ${p?.y}, ${p?.z})`}`,
      undefined,
      `${side}.position`,
    );
  }
  const q = handle?.rotation ?? { x: 0, y: 0, z: 0, w: 1 };
  const parts = [q.x, q.y, q.z, q.w];
  const len = Math.hypot(...parts.map((x) => (typeof x === "number" ? x : NaN)));
  if (!Number.isFinite(len) || Math.abs(len - 1) > 1e-3) {
    throw new FabrikError(
      `${WHO}: ${side}.rotation must be a finite unit quaternion, got (${parts.join(", ")})`,
      undefined,
      `${side}.rotation`,
    );
  }
  out[o] = p.x;
  out[o + 1] = p.y;
  out[o + 2] = p.z;
  for (let i = 0; i < 4; i++) out[o + 3 + i] = parts[i] / len;
}

/**
 * The arm joints of a side: parent of the upper arm, upper arm, forearm, hand, and the forearm's and the
 * hand's parents (the upper arm and the forearm, or the rigid segments between: Rigify's `.001` bones); or
 * the error naming the role.
 */
export function armJoints(
  ik: FabrikBehavior,
  side: "left" | "right",
): [number, number, number, number, number, number] {
  const roles = ik.roles;
  const names = [`${side}UpperArm`, `${side}LowerArm`, `${side}Hand`] as const;
  const joints = names.map((name) => roles[name]);
  const missing = names.find((_, i) => joints[i] === undefined);
  if (missing !== undefined) {
    throw new FabrikError(
      `${WHO}: the character has no "${missing}" role; two-hand grips need a humanoid's arms`,
      undefined,
      missing,
    );
  }
  const [upper, lower, hand] = joints as number[];
  const parents = ik.rig!.parents;
  const below = (top: number, j: number) => {
    for (let k = parents[j]; k >= 0; k = parents[k]) if (k === top) return true;
    return false;
  };
  if (!below(lower, hand) || !below(upper, lower)) {
    throw new FabrikError(
      `${WHO}: the ${side} arm is not upper arm → forearm → hand in the skeleton`,
      undefined,
      `${side}Hand`,
    );
  }
  return [parents[upper], upper, lower, hand, parents[lower], parents[hand]];
}
