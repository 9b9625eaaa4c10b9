import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { readLocalRotation } from "./localRotation.js";

const scratchRotation = new Float64Array(4);

/**
 * Babylon features this composition does not reproduce; a node using one is left to Babylon. Plain
 * position / rotation / scaling covers glTF `__root__`, armatures and ordinary character parents.
 */
export function isPlain(node: TransformNode): boolean {
  return (
    node.billboardMode === 0 &&
    !node.infiniteDistance &&
    !node.isUsingPivotMatrix() &&
    !node.reIntegrateRotationIntoRotationQuaternion &&
    // Set by attachToBone(): the node then follows a bone, not its position.
    (node as unknown as { _transformToBoneReferal: unknown })._transformToBoneReferal == null
  );
}

/**
 * Composes the world matrix of `node` from its own and its ancestors' local position, rotation and scaling,
 * into `out` (Babylon's `Matrix.m` layout, see `affineMatrix.ts`), in float64 and without allocating.
 *
 * Unlike `computeWorldMatrix`, it never trusts Babylon's per-frame cache, which misses in-place changes
 * (`node.position.x += 1`) within one render id, and it has no side effects: no cache update, no
 * `onAfterWorldMatrixUpdateObservable` call. A frozen ancestor contributes its frozen world matrix.
 *
 * Returns false, leaving `out` unspecified, when a node on the way uses a pivot matrix, billboarding,
 * infinite distance, bone attachment, or has a parent that is not a TransformNode; the caller then asks
 * Babylon (`computeWorldMatrix(true)`).
 */
export function composeWorldMatrix(node: TransformNode, out: Float64Array): boolean {
  // Accumulated row-vector product local(node) * local(parent) * ..., so the walk goes upwards only.
  out.fill(0);
  out[0] = out[5] = out[10] = out[15] = 1;
  let current: TransformNode | null = node;
  while (current !== null) {
    if (current.isWorldMatrixFrozen) {
      multiplyInto(out, current.computeWorldMatrix().m);
      return true;
    }
    if (!isPlain(current)) return false;
    multiplyByLocal(out, current);
    const parent: unknown = current.parent;
    if (parent === null) return true;
    if (!(parent instanceof TransformNode)) return false;
    current = parent;
  }
  return true;
}

/**
 * The world matrix of `node` into `out`: composed (see {@link composeWorldMatrix}), or, for a node using a
 * feature composing leaves to Babylon, Babylon's, forced so its same-render-id cache is not trusted. Returns
 * whether it was composed.
 */
export function readWorldMatrix(node: TransformNode, out: Float64Array): boolean {
  if (composeWorldMatrix(node, out)) return true;
  const m = node.computeWorldMatrix(true).m;
  for (let i = 0; i < 16; i++) out[i] = m[i];
  return false;
}

/**
 * out = out * local(node), local = scale, then rotate by the node's rotation (normalised), then translate.
 * Takes the node, not numbers, so no double is boxed when V8 does not inline the call.
 */
function multiplyByLocal(out: Float64Array, node: TransformNode): void {
  const q = scratchRotation;
  readLocalRotation(node, q, 0);
  const t = node.position;
  const s = node.scaling;
  const d = node.scalingDeterminant;
  const sx = s.x * d,
    sy = s.y * d,
    sz = s.z * d;
  const qx = q[0],
    qy = q[1],
    qz = q[2],
    qw = q[3];
  // Rows of the local linear part: each local axis, rotated and scaled.
  const r00 = (1 - 2 * (qy * qy + qz * qz)) * sx,
    r01 = 2 * (qx * qy + qw * qz) * sx,
    r02 = 2 * (qx * qz - qw * qy) * sx;
  const r10 = 2 * (qx * qy - qw * qz) * sy,
    r11 = (1 - 2 * (qx * qx + qz * qz)) * sy,
    r12 = 2 * (qy * qz + qw * qx) * sy;
  const r20 = 2 * (qx * qz + qw * qy) * sz,
    r21 = 2 * (qy * qz - qw * qx) * sz,
    r22 = (1 - 2 * (qx * qx + qy * qy)) * sz;
  const tx = t.x,
    ty = t.y,
    tz = t.z;
  for (let row = 0; row < 4; row++) {
    const a = out[4 * row],
      b = out[4 * row + 1],
      c = out[4 * row + 2];
    const w = row === 3 ? 1 : 0;
    out[4 * row] = a * r00 + b * r10 + c * r20 + w * tx;
    out[4 * row + 1] = a * r01 + b * r11 + c * r21 + w * ty;
    out[4 * row + 2] = a * r02 + b * r12 + c * r22 + w * tz;
  }
}

/** out = out * m, both affine in Babylon's layout. */
function multiplyInto(out: Float64Array, m: ArrayLike<number>): void {
  for (let row = 0; row < 4; row++) {
    const a = out[4 * row],
      b = out[4 * row + 1],
      c = out[4 * row + 2];
    const w = row === 3 ? 1 : 0;
    out[4 * row] = a * m[0] + b * m[4] + c * m[8] + w * m[12];
    out[4 * row + 1] = a * m[1] + b * m[5] + c * m[9] + w * m[13];
    out[4 * row + 2] = a * m[2] + b * m[6] + c * m[10] + w * m[14];
  }
}
