import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FabrikBehavior } from "../babylon/index.js";
import type { JointLimitSpec, SwingLimitSpec } from "../solver/index.js";
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

/** The limits an Inspector range row edits: a twist, hinge or pivot range, or one of a universal joint's two. */
export type RangeKind = "twist" | "hinge" | "pivot" | "first" | "second";

/** What joint j is when it is not a swing/twist joint, for warnings; undefined for one that is (or is free). */
function otherKind(spec: JointLimitSpec): string | undefined {
  if (spec.fixed === true) return "a fixed joint";
  if (spec.hinge !== undefined) return "a hinge";
  if (spec.universal !== undefined) return "a universal joint";
  if (spec.pivot !== undefined) return "a pivot";
  return undefined;
}

/** The range a row of `kind` shows for a spec, undefined when the joint has none. */
export function rangeOf(
  spec: JointLimitSpec | undefined,
  kind: RangeKind,
): { min: number; max: number } | undefined {
  if (kind === "first" || kind === "second") return spec?.universal?.[kind];
  return spec?.[kind];
}

/** Sets one side of joint j's swing cone. A free joint gains a cone open to π on the other sides: the same freedom, now adjustable. */
export function editSwing(ik: FabrikBehavior, j: number, side: SwingSide, deg: number, warn: WarnOnce): void {
  const spec = ik.getLimit(jointObject(ik, j)) ?? {};
  const other = otherKind(spec);
  if (other !== undefined) {
    warn(`swing${j}`, `${jointName(ik, j)} is ${other}: it has no swing`);
    return;
  }
  const swing = spec.swing ?? { up: Math.PI, right: Math.PI, down: Math.PI, left: Math.PI };
  swing[side] = clamp(deg * RAD, 0, Math.PI);
  spec.swing = swing;
  ik.setLimit(jointObject(ik, j), spec);
}

/**
 * Sets one end of one of joint j's ranges, keeping min <= max by clamping against the other end. A twist row
 * on a free or swing joint adds a twist range; the other kinds edit only a joint of that kind.
 */
export function editRange(
  ik: FabrikBehavior,
  j: number,
  kind: RangeKind,
  end: "min" | "max",
  deg: number,
  warn: WarnOnce,
): void {
  const spec = ik.getLimit(jointObject(ik, j)) ?? {};
  let range = rangeOf(spec, kind);
  if (kind === "twist") {
    const other = otherKind(spec);
    if (other !== undefined) {
      warn(`twist${j}`, `${jointName(ik, j)} is ${other}: it has no twist`);
      return;
    }
    range ??= spec.twist = { min: -Math.PI, max: Math.PI };
  } else if (range === undefined) {
    warn(`${kind}${j}`, `${jointName(ik, j)} is not ${MAKE[kind]}`);
    return;
  }
  const bound = kind === "second" ? Math.PI / 2 : Math.PI;
  const value = deg * RAD;
  if (end === "min") range.min = clamp(value, -bound, range.max);
  else range.max = clamp(value, range.min, bound);
  ik.setLimit(jointObject(ik, j), spec);
}

const MAKE: Record<Exclude<RangeKind, "twist">, string> = {
  hinge: "a hinge; make it one with setLimit(joint, { hinge: { axis, min, max } })",
  pivot: "a pivot; make it one with setLimit(joint, { pivot: { min, max } })",
  first: "a universal joint; make it one with setLimit(joint, { universal: { first, second } })",
  second: "a universal joint; make it one with setLimit(joint, { universal: { first, second } })",
};
