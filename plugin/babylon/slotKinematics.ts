import { SLOT_BASIS, SLOT_R, SLOT_S, SLOT_STRIDE, SLOT_T, type PoseBlock } from "./poseBlock.js";

/**
 * Forward kinematics of every slot of `block`, parents first: from each local translation, rotation and
 * scale to the model-space position, orientation and basis. The transform is `T * R * S`, as in Babylon and
 * glTF; the basis keeps scale, so positions stay exact under non-uniform scale, and the orientation leaves
 * it out (see `forwardKinematics`, which this follows number for number). One loop over the block, not a
 * call per joint: the arrays are fetched once.
 */
export function blockKinematics(block: PoseBlock): void {
  const d = block.d;
  const o4 = block.orientationsAt;
  const ints = block.ints;
  const parentAt = block.parentAt;
  const count = parentAt;
  for (let k = 0; k < count; k++) {
    const b = block.slotsAt + SLOT_STRIDE * k;
    const j = ints[k];
    let qx = d[b + SLOT_R],
      qy = d[b + SLOT_R + 1],
      qz = d[b + SLOT_R + 2],
      qw = d[b + SLOT_R + 3];
    const len = Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
    if (len > 0 && len < Infinity) {
      const inv = 1 / len;
      qx *= inv;
      qy *= inv;
      qz *= inv;
      qw *= inv;
    } else {
      qx = qy = qz = 0;
      qw = 1;
    }
    const sx = d[b + SLOT_S],
      sy = d[b + SLOT_S + 1],
      sz = d[b + SLOT_S + 2];
    const l0 = (1 - 2 * (qy * qy + qz * qz)) * sx,
      l1 = 2 * (qx * qy + qw * qz) * sx,
      l2 = 2 * (qx * qz - qw * qy) * sx;
    const l3 = 2 * (qx * qy - qw * qz) * sy,
      l4 = (1 - 2 * (qx * qx + qz * qz)) * sy,
      l5 = 2 * (qy * qz + qw * qx) * sy;
    const l6 = 2 * (qx * qz + qw * qy) * sz,
      l7 = 2 * (qy * qz - qw * qx) * sz,
      l8 = (1 - 2 * (qx * qx + qy * qy)) * sz;
    const tx = d[b + SLOT_T],
      ty = d[b + SLOT_T + 1],
      tz = d[b + SLOT_T + 2];
    const o = b + SLOT_BASIS;
    const ps = ints[parentAt + k];
    if (ps < 0) {
      d[3 * j] = tx;
      d[3 * j + 1] = ty;
      d[3 * j + 2] = tz;
      d[o4 + 4 * j] = qx;
      d[o4 + 4 * j + 1] = qy;
      d[o4 + 4 * j + 2] = qz;
      d[o4 + 4 * j + 3] = qw;
      d[o] = l0;
      d[o + 1] = l1;
      d[o + 2] = l2;
      d[o + 3] = l3;
      d[o + 4] = l4;
      d[o + 5] = l5;
      d[o + 6] = l6;
      d[o + 7] = l7;
      d[o + 8] = l8;
      continue;
    }
    const p = ints[ps];
    const pb = block.slotsAt + SLOT_STRIDE * ps + SLOT_BASIS;
    const p0 = d[pb],
      p1 = d[pb + 1],
      p2 = d[pb + 2],
      p3 = d[pb + 3],
      p4 = d[pb + 4],
      p5 = d[pb + 5],
      p6 = d[pb + 6],
      p7 = d[pb + 7],
      p8 = d[pb + 8];
    d[3 * j] = d[3 * p] + p0 * tx + p3 * ty + p6 * tz;
    d[3 * j + 1] = d[3 * p + 1] + p1 * tx + p4 * ty + p7 * tz;
    d[3 * j + 2] = d[3 * p + 2] + p2 * tx + p5 * ty + p8 * tz;
    d[o] = p0 * l0 + p3 * l1 + p6 * l2;
    d[o + 1] = p1 * l0 + p4 * l1 + p7 * l2;
    d[o + 2] = p2 * l0 + p5 * l1 + p8 * l2;
    d[o + 3] = p0 * l3 + p3 * l4 + p6 * l5;
    d[o + 4] = p1 * l3 + p4 * l4 + p7 * l5;
    d[o + 5] = p2 * l3 + p5 * l4 + p8 * l5;
    d[o + 6] = p0 * l6 + p3 * l7 + p6 * l8;
    d[o + 7] = p1 * l6 + p4 * l7 + p7 * l8;
    d[o + 8] = p2 * l6 + p5 * l7 + p8 * l8;
    const ax = d[o4 + 4 * p],
      ay = d[o4 + 4 * p + 1],
      az = d[o4 + 4 * p + 2],
      aw = d[o4 + 4 * p + 3];
    let ox = aw * qx + ax * qw + ay * qz - az * qy;
    let oy = aw * qy - ax * qz + ay * qw + az * qx;
    let oz = aw * qz + ax * qy - ay * qx + az * qw;
    let ow = aw * qw - ax * qx - ay * qy - az * qz;
    const inv = 1 / Math.sqrt(ox * ox + oy * oy + oz * oz + ow * ow);
    ox *= inv;
    oy *= inv;
    oz *= inv;
    ow *= inv;
    d[o4 + 4 * j] = ox;
    d[o4 + 4 * j + 1] = oy;
    d[o4 + 4 * j + 2] = oz;
    d[o4 + 4 * j + 3] = ow;
  }
}

/**
 * In place: the model-space vector `v[o..o+2]` in the space of slot `k`'s joint (its basis, scale included);
 * false when the basis cannot be inverted.
 */
export function toSlotSpace(block: PoseBlock, k: number, v: Float64Array, o: number): boolean {
  const d = block.d;
  const b = block.slotsAt + SLOT_STRIDE * k + SLOT_BASIS;
  const mx = v[o],
    my = v[o + 1],
    mz = v[o + 2];
  const x0 = d[b],
    x1 = d[b + 1],
    x2 = d[b + 2];
  const y0 = d[b + 3],
    y1 = d[b + 4],
    y2 = d[b + 5];
  const z0 = d[b + 6],
    z1 = d[b + 7],
    z2 = d[b + 8];
  const det = x0 * (y1 * z2 - y2 * z1) - y0 * (x1 * z2 - x2 * z1) + z0 * (x1 * y2 - x2 * y1);
  if (!(Math.abs(det) > 1e-300)) return false;
  v[o] = (mx * (y1 * z2 - y2 * z1) - y0 * (my * z2 - mz * z1) + z0 * (my * y2 - mz * y1)) / det;
  v[o + 1] = (x0 * (my * z2 - mz * z1) - mx * (x1 * z2 - x2 * z1) + z0 * (x1 * mz - x2 * my)) / det;
  v[o + 2] = (x0 * (y1 * mz - y2 * my) - y0 * (x1 * mz - x2 * my) + mx * (x1 * y2 - x2 * y1)) / det;
  return true;
}

/**
 * Whether slot `k`'s joint has a model-space basis (scale included) that is a reflection: an odd number of
 * mirrors in the skeleton above it, folded into its rotation by the read (scaleFold.ts). A boolean, not the
 * determinant: a double returned from a call V8 does not inline is boxed.
 */
export function slotIsReflection(block: PoseBlock, k: number): boolean {
  const d = block.d;
  const b = block.slot(k) + SLOT_BASIS;
  return (
    d[b] * (d[b + 4] * d[b + 8] - d[b + 5] * d[b + 7]) -
      d[b + 1] * (d[b + 3] * d[b + 8] - d[b + 5] * d[b + 6]) +
      d[b + 2] * (d[b + 3] * d[b + 7] - d[b + 4] * d[b + 6]) <
    0
  );
}
