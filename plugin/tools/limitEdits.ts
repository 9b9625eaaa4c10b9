import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FabrikBehavior } from "../babylon/index.js";
import type { SwingLimitSpec } from "../solver/index.js";
import { clamp, RAD } from "./inspectorValues.js";

/*
 * Joint-limit edits from the Inspector's sliders, in degrees: each reads the joint's spec, changes one
 * number and hands the whole spec back to `setLimit`, so the behavior checks it as it checks any other.
 * An edit that does not fit the joint's kind of limit (a swing on a hinge) changes nothing and warns once.
 */

export type SwingSide = keyof Omit<SwingLimitSpec, "upAxis">;
export const SWING_SIDES: readonly SwingSide[] = ["up", "right", "down", "left"];

/** Logs `message` the first time `key` is seen. */
export type WarnOnce = (key: string, message: string) => void;

/** Joints are named to the behavior by object: bone names may repeat, nodes and bones do not. */
export function jointObject(ik: FabrikBehavior, j: number): TransformNode | Bone {
  const rig = ik.rig!;
  return rig.nodes[j] ?? rig.bones[j][0];
}

/** Joint j's name in quotes, for messages. */
export function jointName(ik: FabrikBehavior, j: number): string {
  return `"${ik.rig!.names[j]}"`;
}

/** Sets one side of joint j's swing cone. A free joint gains a cone open to π on the other sides: the same freedom, now adjustable. */
export function editSwing(ik: FabrikBehavior, j: number, side: SwingSide, deg: number, warn: WarnOnce): void {
  const spec = ik.getLimit(jointObject(ik, j)) ?? {};
  if (spec.hinge !== undefined || spec.fixed === true) {
    warn(`swing${j}`, `${jointName(ik, j)} is a ${spec.fixed ? "fixed joint" : "hinge"}: it has no swing`);
    return;
  }
  const swing = spec.swing ?? { up: Math.PI, right: Math.PI, down: Math.PI, left: Math.PI };
  swing[side] = clamp(deg * RAD, 0, Math.PI);
  spec.swing = swing;
  ik.setLimit(jointObject(ik, j), spec);
}

/** Sets one end of joint j's twist or hinge range, keeping min <= max by clamping against the other end. */
export function editRange(
  ik: FabrikBehavior,
  j: number,
  kind: "twist" | "hinge",
  end: "min" | "max",
  deg: number,
  warn: WarnOnce,
): void {
  const spec = ik.getLimit(jointObject(ik, j)) ?? {};
  let range: { min: number; max: number };
  if (kind === "hinge") {
    if (spec.hinge === undefined) {
      warn(
        `hinge${j}`,
        `${jointName(ik, j)} is not a hinge; make it one with setLimit(joint, { hinge: { axis, min, max } })`,
      );
      return;
    }
    range = spec.hinge;
  } else {
    if (spec.hinge !== undefined || spec.fixed === true) {
      warn(`twist${j}`, `${jointName(ik, j)} is a ${spec.fixed ? "fixed joint" : "hinge"}: it has no twist`);
      return;
    }
    range = spec.twist ?? { min: -Math.PI, max: Math.PI };
    spec.twist = range;
  }
  const value = deg * RAD;
  if (end === "min") range.min = clamp(value, -Math.PI, range.max);
  else range.max = clamp(value, range.min, Math.PI);
  ik.setLimit(jointObject(ik, j), spec);
}
