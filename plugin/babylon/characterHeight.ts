import { VertexBuffer } from "@babylonjs/core/Buffers/buffer.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { invertAffineMatrix } from "./affineMatrix.js";
import type { SkeletonRig } from "./skeletonRig.js";
import { readWorldMatrix } from "./worldMatrix.js";

/** World +Y in the model root's space as the character stands now (the preset tells legs from arms by it). */
export function modelSpaceUp(rig: SkeletonRig): [number, number, number] {
  const root = rig.modelRoot;
  if (root === null) return [0, 1, 0];
  const m = new Float64Array(16);
  readWorldMatrix(root, m);
  const inverse = new Float64Array(16);
  if (!invertAffineMatrix(m, inverse)) return [0, 1, 0];
  // A direction: the second row of the inverse's linear part (Babylon's row-vector layout).
  return [inverse[4], inverse[5], inverse[6]];
}

/**
 * A body less tall than this fraction of its longest extent lies flat (a snake, a spider spread out): its
 * height would make a tolerance meaninglessly tight, so that fraction of the longest extent stands in.
 */
export const FLAT_BODY = 0.25;

/**
 * Joints that carry the body: some vertex of a skinned mesh of the rig gives them a weight above zero, or
 * a mesh hangs from their node (robots built of rigid parts). IK-control and pole bones (a hoof target under
 * the root, a knee pole floating in front) carry neither, nor do `_end` sites kept as joints. All joints
 * when nothing is found (a bare skeleton).
 */
export function deformingJoints(rig: SkeletonRig): Uint8Array {
  const weighted = new Uint8Array(rig.jointCount);
  let found = false;
  // A rigid part hangs from the nearest joint above it (through the TransformNode of a multi-part mesh).
  const top = rig.modelRoot;
  const meshes =
    top !== null ? top.getChildMeshes(false) : (rig.nodes.find((n) => n !== null)?.getScene().meshes ?? []);
  for (const mesh of meshes) {
    if (mesh.skeleton !== null || mesh.getTotalVertices() === 0) continue;
    for (let node = mesh.parent; node !== null; node = node.parent) {
      const j = rig.indexOf(node as TransformNode);
      if (j >= 0) {
        weighted[j] = 1;
        found = true;
        break;
      }
    }
  }
  for (const mesh of rig.meshes) {
    const skeleton = mesh.skeleton;
    if (skeleton === null) continue;
    // The matrix index a vertex names is the bone's index in the skin, not its place in `bones`.
    const jointOfMatrix = new Map<number, number>();
    for (const bone of skeleton.bones) jointOfMatrix.set(bone.getIndex(), rig.indexOf(bone));
    for (const index of weightedMatrices(mesh)) {
      const j = jointOfMatrix.get(index);
      if (j !== undefined && j >= 0) {
        weighted[j] = 1;
        found = true;
      }
    }
  }
  if (!found) weighted.fill(1);
  return weighted;
}

/** Per geometry (copies of a model share theirs): the matrix indices some vertex weights above zero. */
const WEIGHTED = new WeakMap<object, readonly number[]>();

function weightedMatrices(mesh: AbstractMesh): readonly number[] {
  const key = (mesh as { geometry?: object | null }).geometry ?? mesh;
  const known = WEIGHTED.get(key);
  if (known !== undefined) return known;
  const used = new Set<number>();
  const pairs: [string, string][] = [
    [VertexBuffer.MatricesIndicesKind, VertexBuffer.MatricesWeightsKind],
    [VertexBuffer.MatricesIndicesExtraKind, VertexBuffer.MatricesWeightsExtraKind],
  ];
  for (const [indexKind, weightKind] of pairs) {
    const indices = mesh.getVerticesData(indexKind);
    const weights = mesh.getVerticesData(weightKind);
    if (indices === null || weights === null) continue;
    const n = Math.min(indices.length, weights.length);
    for (let i = 0; i < n; i++) if (weights[i] > 0) used.add(indices[i]);
  }
  const result = [...used];
  WEIGHTED.set(key, result);
  return result;
}

/**
 * The character's height in model space, the unit of the behavior's tolerance: the extent of its deforming
 * joints (see {@link deformingJoints}) in the rest pose along `up` (model-space up; need not be unit). Arm
 * span, a tail held out behind and control bones far from the body do not count. A body lying flat (less
 * tall than {@link FLAT_BODY} of its longest extent, measured along `up` and two axes across it) takes that
 * fraction of its longest extent instead. Joint positions, not the skin: a head's top or a sole below the
 * ankle joints adds nothing. Never 0: a rig whose joints all coincide measures 1.
 */
export function characterHeight(
  positions: ArrayLike<number>,
  deforming: ArrayLike<number>,
  up: readonly [number, number, number],
): number {
  const u = unit(up) ?? ([0, 1, 0] as const);
  // Two axes across `up`: from whichever model axis is least parallel to it.
  const seed: readonly [number, number, number] = Math.abs(u[0]) < 0.9 ? [1, 0, 0] : [0, 0, 1];
  const a = unit(cross(u, seed))!;
  const b = cross(u, a);
  const tall = extent(positions, deforming, u);
  const longest = Math.max(tall, extent(positions, deforming, a), extent(positions, deforming, b));
  const height = tall >= FLAT_BODY * longest ? tall : FLAT_BODY * longest;
  return height > 0 && Number.isFinite(height) ? height : 1;
}

function extent(positions: ArrayLike<number>, deforming: ArrayLike<number>, d: readonly number[]): number {
  let min = Infinity,
    max = -Infinity;
  for (let j = 0; 3 * j < positions.length; j++) {
    if (deforming[j] !== 1) continue;
    const s = positions[3 * j] * d[0] + positions[3 * j + 1] * d[1] + positions[3 * j + 2] * d[2];
    if (s < min) min = s;
    if (s > max) max = s;
  }
  return max > min ? max - min : 0;
}

function cross(a: readonly number[], b: readonly number[]): [number, number, number] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function unit(v: readonly number[]): [number, number, number] | undefined {
  const len = Math.hypot(v[0], v[1], v[2]);
  return len > 0 && Number.isFinite(len) ? [v[0] / len, v[1] / len, v[2] / len] : undefined;
}
