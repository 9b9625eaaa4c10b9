import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FabrikBehavior, FabrikJoint, FabrikTargetInfo } from "../babylon/index.js";
import { jointObject, type WarnOnce } from "./limitEdits.js";
import { isFiniteVector } from "./inspectorValues.js";

/*
 * The Inspector's target rows: where target e is, moving it, and setting it again with one option changed.
 */

/**
 * The Vector3 the Position row of target e edits: the user's own Vector3 (so the row follows it live), the
 * node's world position, or for a function the point of the last solve. `scratch` holds one reused Vector3
 * per target for the last two cases.
 */
export function targetPosition(ik: FabrikBehavior, e: number, scratch: Vector3[]): Vector3 | undefined {
  const t = ik.targets[e];
  if (t === undefined) return undefined;
  const source = t.source;
  if (source instanceof TransformNode) return source.getAbsolutePosition();
  if (source instanceof Vector3) return source;
  while (scratch.length <= e) scratch.push(new Vector3());
  const out = scratch[e];
  if (typeof source !== "function") return out.set(source.x, source.y, source.z);
  const points = ik.targetPositions,
    m = ik.modelToWorld;
  if (points === null || m === null || points.length < 3 * e + 3) return out.setAll(0);
  const x = points[3 * e],
    y = points[3 * e + 1],
    z = points[3 * e + 2];
  return out.set(
    x * m[0] + y * m[4] + z * m[8] + m[12],
    x * m[1] + y * m[5] + z * m[9] + m[13],
    x * m[2] + y * m[6] + z * m[10] + m[14],
  );
}

/** Moves target e (the t given) to the world point v: a node is placed, a Vector3 is written, a function cannot be moved. */
export function moveTarget(t: FabrikTargetInfo, e: number, v: unknown, warn: WarnOnce): void {
  if (!isFiniteVector(v)) throw new Error(`target ${e + 1}: the position must be a finite Vector3`);
  const source = t.source;
  if (source instanceof TransformNode) source.setAbsolutePosition(new Vector3(v.x, v.y, v.z));
  else if (typeof source === "function") {
    warn(
      `fn${e}`,
      `target ${e + 1} (${t.label}) is a function: move what it returns, or setTarget a Vector3 or a node`,
    );
  } else {
    const w = source as { x: number; y: number; z: number };
    w.x = v.x;
    w.y = v.y;
    w.z = v.z;
  }
}

/** Sets a target again with one option changed and every other option as it was. */
export function retarget(
  ik: FabrikBehavior,
  t: FabrikTargetInfo,
  change: { weight?: number; chainLength?: number },
): void {
  // Named as the user named it when that still means the same joint, so messages and rows keep the name.
  let joint: FabrikJoint = jointObject(ik, t.joint);
  try {
    const name: unknown = JSON.parse(t.label);
    if (typeof name === "string" && ik.jointIndex(name) === t.joint) joint = name;
  } catch {
    // Not a quoted name: keep the joint object.
  }
  ik.setTarget(joint, t.source, {
    weight: change.weight ?? t.weight,
    chainLength: change.chainLength ?? t.chainLength,
    matchOrientation: t.matchOrientation,
    rotation: t.rotation ?? undefined,
    pole: t.pole ?? undefined,
  });
}
