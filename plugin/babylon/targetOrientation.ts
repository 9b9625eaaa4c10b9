import { quaternionToRows, rowsToQuaternion } from "../rig/index.js";
import type { QuaternionLike } from "./targetBinding.js";

/*
 * World rotations of targets, brought into model space for an effector to take on.
 *
 * Under glTF's mirrored `__root__` a joint's world frame is a reflection, so no rotation can make it equal a
 * target's (right-handed) frame. Babylon resolves the same question when it decomposes a world matrix: it
 * puts the reflection into a negative Y scale and reports the rest as `absoluteRotationQuaternion`. These
 * helpers use that convention backwards: an effector "takes the target's world rotation" when its own
 * `absoluteRotationQuaternion` becomes the target's. Copying a joint's `absoluteRotationQuaternion` into a
 * target node therefore reproduces the joint's orientation exactly, mirrored root or not.
 *
 * A mirror inside the skeleton (scaleFold.ts) leaves the joint's model-space frame a rotation times a uniform
 * -1: its world frame is then the reflection of what its orientation says (`jointFlipped`), turned back here.
 */

const rows = new Float64Array(9);

/** Helpers' target nodes in the rig's model space (see {@link markModelTarget}). */
const modelTargets = new WeakSet<object>();

/**
 * Marks `node` as a helper's target in model space: an effector matching its orientation takes its local
 * quaternion exactly, even below a mirror inside the skeleton, where a world rotation given by the user is
 * met as Babylon decomposes the joint's reflected frame (`jointFlipped`).
 */
export function markModelTarget(node: object): void {
  modelTargets.add(node);
}

/** Whether `node` was marked by {@link markModelTarget}. */
export function isModelTarget(node: unknown): boolean {
  return typeof node === "object" && node !== null && modelTargets.has(node);
}

/**
 * The model-space orientation (unit quaternion into `out[o..o+3]`) that gives an effector the world rotation
 * of a node whose world matrix is `m` (Babylon's `Matrix.m` layout). `worldToModel` is the model root's
 * inverse world matrix, `modelMirrored` whether the model root's world matrix is a reflection. Returns false
 * when the node's frame is degenerate (scaled to zero, NaN). `jointFlipped`: the effector's scales, with its
 * ancestors', multiply to a negative one once folded (an odd number of mirrors above it).
 */
export function nodeRotationToModel(
  m: Float64Array,
  worldToModel: Float64Array,
  modelMirrored: boolean,
  out: Float64Array,
  o: number,
  jointFlipped = false,
): boolean {
  for (let r = 0; r < 3; r++) {
    rows[3 * r] = m[4 * r];
    rows[3 * r + 1] = m[4 * r + 1];
    rows[3 * r + 2] = m[4 * r + 2];
  }
  // The node's own frame, as Babylon decomposes it: a reflection goes into the Y axis.
  if (isReflection(rows)) negateRow(rows, 1);
  return rowsToModel(worldToModel, modelMirrored, jointFlipped, out, o);
}

/** Like {@link nodeRotationToModel}, for a world rotation given as a quaternion. */
export function quaternionRotationToModel(
  q: QuaternionLike,
  worldToModel: Float64Array,
  modelMirrored: boolean,
  out: Float64Array,
  o: number,
  jointFlipped = false,
): boolean {
  const x = q.x,
    y = q.y,
    z = q.z,
    w = q.w;
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  if (!(len > 0) || !Number.isFinite(len)) return false;
  // The unit quaternion into rows[0..3], read whole before its rows overwrite it.
  rows[0] = x / len;
  rows[1] = y / len;
  rows[2] = z / len;
  rows[3] = w / len;
  quaternionToRows(rows, 0, rows, 0);
  return rowsToModel(worldToModel, modelMirrored, jointFlipped, out, o);
}

/** `rows` hold a world rotation; writes the model-space orientation an effector needs to show it. */
function rowsToModel(
  worldToModel: Float64Array,
  modelMirrored: boolean,
  jointFlipped: boolean,
  out: Float64Array,
  o: number,
): boolean {
  // The effector's world frame carries the model root's reflection, in Babylon's place for it.
  if (modelMirrored) negateRow(rows, 1);
  // A folded -1 turns every axis over: x and z here, with the model's y above (z follows from x and y below).
  if (jointFlipped) {
    negateRow(rows, 0);
    negateRow(rows, 2);
  }
  const m = worldToModel;
  for (let r = 0; r < 3; r++) {
    const x = rows[3 * r],
      y = rows[3 * r + 1],
      z = rows[3 * r + 2];
    rows[3 * r] = x * m[0] + y * m[4] + z * m[8];
    rows[3 * r + 1] = x * m[1] + y * m[5] + z * m[9];
    rows[3 * r + 2] = x * m[2] + y * m[6] + z * m[10];
  }
  // Scale and shear of the model root are not rotation: keep x, make y perpendicular, and z = x × y.
  if (!normalizeRow(rows, 0)) return false;
  const d = rows[0] * rows[3] + rows[1] * rows[4] + rows[2] * rows[5];
  rows[3] -= d * rows[0];
  rows[4] -= d * rows[1];
  rows[5] -= d * rows[2];
  if (!normalizeRow(rows, 1)) return false;
  rows[6] = rows[1] * rows[5] - rows[2] * rows[4];
  rows[7] = rows[2] * rows[3] - rows[0] * rows[5];
  rows[8] = rows[0] * rows[4] - rows[1] * rows[3];
  rowsToQuaternion(rows, 0, out, o);
  return true;
}

/**
 * Whether the 3×3 rows are a reflection. A boolean, not the determinant: a double returned from a call V8
 * does not inline is boxed, an allocation per target a frame (32 B on RobotExpressive's two feet).
 */
function isReflection(r: Float64Array): boolean {
  return (
    r[0] * (r[4] * r[8] - r[5] * r[7]) -
      r[1] * (r[3] * r[8] - r[5] * r[6]) +
      r[2] * (r[3] * r[7] - r[4] * r[6]) <
    0
  );
}

function negateRow(r: Float64Array, row: number): void {
  r[3 * row] = -r[3 * row];
  r[3 * row + 1] = -r[3 * row + 1];
  r[3 * row + 2] = -r[3 * row + 2];
}

function normalizeRow(r: Float64Array, row: number): boolean {
  const o = 3 * row;
  const len = Math.sqrt(r[o] * r[o] + r[o + 1] * r[o + 1] + r[o + 2] * r[o + 2]);
  if (!(len > 1e-300) || !Number.isFinite(len)) return false;
  r[o] /= len;
  r[o + 1] /= len;
  r[o + 2] /= len;
  return true;
}
