/**
 * Forward kinematics on flat typed arrays: local translation / rotation / scale per joint in, model-space
 * joint positions, orientations and bases out. Engine-free and allocation-free, so the pose reader can run
 * it every frame instead of asking Babylon for one world matrix per bone.
 *
 * A joint's local transform is `T * R * S` (scale first, then rotate, then translate), as in Babylon and
 * glTF. Each joint keeps its full model-space 3x3 basis, so positions stay exact under non-uniform scale
 * anywhere in the chain (which a rotation-plus-scale pair cannot represent once scales and rotations mix).
 */

/**
 * Computes model-space joint frames from local transforms.
 *
 * @param parents parent index per joint, parents first, -1 for a root (roots sit in model space).
 * @param translations local translation `x y z` per joint (3n).
 * @param rotations local rotation quaternion `x y z w` per joint (4n); need not be exactly unit.
 * @param scales local scale `x y z` per joint (3n).
 * @param positions out: model-space joint positions (3n).
 * @param orientations out: model-space orientations (4n), the composed local rotations, unit length.
 *   Scale is left out on purpose: with uniform positive scale this is exactly the rotation of the joint's
 *   model-space frame; with non-uniform scale no pure rotation describes that frame and the composed
 *   rotations are the meaningful part for writing local rotations back.
 * @param bases out: model-space basis per joint (9n): its local x, y and z axes, scale included, as three
 *   consecutive vectors. `basis * v` maps a vector from the joint's space to model space.
 * @param order optional: only these joints are computed, in this order, which must list every joint's
 *   parent before it (ascending joint indices do). The others' outputs are left as they were.
 */
export function forwardKinematics(
  parents: ArrayLike<number>,
  translations: ArrayLike<number>,
  rotations: ArrayLike<number>,
  scales: ArrayLike<number>,
  positions: Float64Array,
  orientations: Float64Array,
  bases: Float64Array,
  order?: ArrayLike<number>,
): void {
  const n = order === undefined ? parents.length : order.length;
  for (let k = 0; k < n; k++) {
    const j = order === undefined ? k : order[k];
    let qx = rotations[4 * j],
      qy = rotations[4 * j + 1],
      qz = rotations[4 * j + 2],
      qw = rotations[4 * j + 3];
    const len = Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
    if (len > 0 && len < Infinity) {
      // One division, four products: the per-joint divisions were a measurable share of the read.
      const inv = 1 / len;
      qx *= inv;
      qy *= inv;
      qz *= inv;
      qw *= inv;
    } else {
      qx = qy = qz = 0;
      qw = 1;
    }
    const sx = scales[3 * j],
      sy = scales[3 * j + 1],
      sz = scales[3 * j + 2];
    // Local linear part R * S, as three column vectors (the rotated, scaled local axes).
    const l0 = (1 - 2 * (qy * qy + qz * qz)) * sx,
      l1 = 2 * (qx * qy + qw * qz) * sx,
      l2 = 2 * (qx * qz - qw * qy) * sx;
    const l3 = 2 * (qx * qy - qw * qz) * sy,
      l4 = (1 - 2 * (qx * qx + qz * qz)) * sy,
      l5 = 2 * (qy * qz + qw * qx) * sy;
    const l6 = 2 * (qx * qz + qw * qy) * sz,
      l7 = 2 * (qy * qz - qw * qx) * sz,
      l8 = (1 - 2 * (qx * qx + qy * qy)) * sz;
    const tx = translations[3 * j],
      ty = translations[3 * j + 1],
      tz = translations[3 * j + 2];
    const b = 9 * j;
    const p = parents[j];
    if (p < 0) {
      positions[3 * j] = tx;
      positions[3 * j + 1] = ty;
      positions[3 * j + 2] = tz;
      orientations[4 * j] = qx;
      orientations[4 * j + 1] = qy;
      orientations[4 * j + 2] = qz;
      orientations[4 * j + 3] = qw;
      bases[b] = l0;
      bases[b + 1] = l1;
      bases[b + 2] = l2;
      bases[b + 3] = l3;
      bases[b + 4] = l4;
      bases[b + 5] = l5;
      bases[b + 6] = l6;
      bases[b + 7] = l7;
      bases[b + 8] = l8;
      continue;
    }
    const pb = 9 * p;
    const p0 = bases[pb],
      p1 = bases[pb + 1],
      p2 = bases[pb + 2],
      p3 = bases[pb + 3],
      p4 = bases[pb + 4],
      p5 = bases[pb + 5],
      p6 = bases[pb + 6],
      p7 = bases[pb + 7],
      p8 = bases[pb + 8];
    // The parent's basis (scale included) carries the child's translation into model space.
    positions[3 * j] = positions[3 * p] + p0 * tx + p3 * ty + p6 * tz;
    positions[3 * j + 1] = positions[3 * p + 1] + p1 * tx + p4 * ty + p7 * tz;
    positions[3 * j + 2] = positions[3 * p + 2] + p2 * tx + p5 * ty + p8 * tz;
    bases[b] = p0 * l0 + p3 * l1 + p6 * l2;
    bases[b + 1] = p1 * l0 + p4 * l1 + p7 * l2;
    bases[b + 2] = p2 * l0 + p5 * l1 + p8 * l2;
    bases[b + 3] = p0 * l3 + p3 * l4 + p6 * l5;
    bases[b + 4] = p1 * l3 + p4 * l4 + p7 * l5;
    bases[b + 5] = p2 * l3 + p5 * l4 + p8 * l5;
    bases[b + 6] = p0 * l6 + p3 * l7 + p6 * l8;
    bases[b + 7] = p1 * l6 + p4 * l7 + p7 * l8;
    bases[b + 8] = p2 * l6 + p5 * l7 + p8 * l8;
    // Orientation: parent then local rotation (Hamilton product parent * local).
    const ax = orientations[4 * p],
      ay = orientations[4 * p + 1],
      az = orientations[4 * p + 2],
      aw = orientations[4 * p + 3];
    let ox = aw * qx + ax * qw + ay * qz - az * qy;
    let oy = aw * qy - ax * qz + ay * qw + az * qx;
    let oz = aw * qz + ax * qy - ay * qx + az * qw;
    let ow = aw * qw - ax * qx - ay * qy - az * qz;
    // Renormalising stops rounding drift from compounding down 30-joint chains.
    const inv = 1 / Math.sqrt(ox * ox + oy * oy + oz * oz + ow * ow);
    ox *= inv;
    oy *= inv;
    oz *= inv;
    ow *= inv;
    orientations[4 * j] = ox;
    orientations[4 * j + 1] = oy;
    orientations[4 * j + 2] = oz;
    orientations[4 * j + 3] = ow;
  }
}

/**
 * In place: the model-space vector `v[o..o+2]` in the space of `joint` (its model-space axes with scale,
 * `bases[9 joint..]`), as a child's local position is; false when those axes cannot be inverted. A root's
 * children (joint -1) live in model space.
 */
export function toJointSpace(bases: Float64Array, joint: number, v: Float64Array, o: number): boolean {
  if (joint < 0) return true;
  const mx = v[o],
    my = v[o + 1],
    mz = v[o + 2];
  const b = 9 * joint;
  const x0 = bases[b],
    x1 = bases[b + 1],
    x2 = bases[b + 2];
  const y0 = bases[b + 3],
    y1 = bases[b + 4],
    y2 = bases[b + 5];
  const z0 = bases[b + 6],
    z1 = bases[b + 7],
    z2 = bases[b + 8];
  const det = x0 * (y1 * z2 - y2 * z1) - y0 * (x1 * z2 - x2 * z1) + z0 * (x1 * y2 - x2 * y1);
  if (!(Math.abs(det) > 1e-300)) return false;
  v[o] = (mx * (y1 * z2 - y2 * z1) - y0 * (my * z2 - mz * z1) + z0 * (my * y2 - mz * y1)) / det;
  v[o + 1] = (x0 * (my * z2 - mz * z1) - mx * (x1 * z2 - x2 * z1) + z0 * (x1 * mz - x2 * my)) / det;
  v[o + 2] = (x0 * (y1 * mz - y2 * my) - y0 * (x1 * mz - x2 * my) + mx * (x1 * y2 - x2 * y1)) / det;
  return true;
}
