import {
  normalize3,
  quatFromUnitVectors,
  quatMultiply,
  quatMultiplyConjugate,
  quatRotate,
  quaternionToRows,
  quatScaleAngle,
  rowsToQuaternion,
  transformDirection,
} from "../rig/index.js";

/*
 * Rigid poses of a held object in the rig's model space, as 7 numbers: position (x y z) then orientation
 * (x y z w). The object's own pose is given in world space, where the glTF `__root__` may be a reflection:
 * there an effector takes a node's world rotation in Babylon's sense (its `absoluteRotationQuaternion`, see
 * `nodeRotationToModel`). Brought into model space that way, "hand = object · grip" stays a product of proper
 * rotations once the grip itself is mirrored the same way ({@link gripToModel}), so all the grip's arithmetic
 * happens in model space and only the object's pose crosses to world space and back.
 */

/** Number of values in a pose: position (3) and orientation (4). */
export const POSE = 7;

const rows = new Float64Array(9);
const scratch = new Float64Array(8);
const align = new Float64Array(32);

/** Whether the 3x3 part of a matrix (Babylon's `Matrix.m` layout) is a reflection. */
export function isMirrored(m: Float64Array): boolean {
  return determinant3(m) < 0;
}

/** Into `out[o]`: the uniform scale of a matrix's 3x3 part (the cube root of its determinant's size). */
export function uniformScale(m: Float64Array, out: Float64Array, o: number): void {
  out[o] = Math.cbrt(Math.abs(determinant3(m)));
}

function determinant3(m: Float64Array): number {
  return (
    m[0] * (m[5] * m[10] - m[6] * m[9]) -
    m[1] * (m[4] * m[10] - m[6] * m[8]) +
    m[2] * (m[4] * m[9] - m[5] * m[8])
  );
}

/**
 * A grip (handle pose in the object's frame, `grip[g..g+6]`) in the model-space form a hand's pose is
 * composed with: its offset scaled by the object's scaling `scale[s..s+2]` and by `unit` (model units per
 * world unit), and, under a mirrored model root, reflected across the Y axis Babylon puts the reflection in.
 */
export function gripToModel(
  out: Float64Array,
  o: number,
  grip: Float64Array,
  g: number,
  scale: Float64Array,
  s: number,
  unit: Float64Array,
  u: number,
  mirrored: boolean,
): void {
  const k = unit[u];
  const flip = mirrored ? -1 : 1;
  out[o] = grip[g] * scale[s] * k;
  out[o + 1] = flip * grip[g + 1] * scale[s + 1] * k;
  out[o + 2] = grip[g + 2] * scale[s + 2] * k;
  // A rotation reflected across the XZ plane turns the other way about the reflected axis.
  out[o + 3] = flip * grip[g + 3];
  out[o + 4] = grip[g + 4];
  out[o + 5] = flip * grip[g + 5];
  out[o + 6] = grip[g + 6];
}

/**
 * In place: the orientation `grip[g..g+3]` (model form) for a hand whose frame is a reflection (below an odd
 * number of mirrors inside the skeleton): the behavior meets such a hand's world rotation as Babylon
 * decomposes its frame, a half turn about Y from the rotation the solver holds (see `nodeRotationToModel`).
 */
export function turnGripOver(grip: Float64Array, g: number): void {
  const x = grip[g],
    y = grip[g + 1],
    z = grip[g + 2],
    w = grip[g + 3];
  grip[g] = -z;
  grip[g + 1] = w;
  grip[g + 2] = x;
  grip[g + 3] = -y;
}

/** out = the hand's pose holding grip `grip[g..]` (model form) of the object at `pose[p..]`. */
export function handOnGrip(
  out: Float64Array,
  o: number,
  pose: Float64Array,
  p: number,
  grip: Float64Array,
  g: number,
): void {
  quatRotate(scratch, 0, pose, p + 3, grip, g);
  out[o] = pose[p] + scratch[0];
  out[o + 1] = pose[p + 1] + scratch[1];
  out[o + 2] = pose[p + 2] + scratch[2];
  quatMultiply(out, o + 3, pose, p + 3, grip, g + 3);
}

/** out = the object's pose that puts grip `grip[g..]` (model form) exactly on the hand at `hand[h..]`. */
export function objectFromHand(
  out: Float64Array,
  o: number,
  hand: Float64Array,
  h: number,
  grip: Float64Array,
  g: number,
): void {
  quatMultiplyConjugate(scratch, 4, hand, h + 3, grip, g + 3);
  quatRotate(scratch, 0, scratch, 4, grip, g);
  out[o] = hand[h] - scratch[0];
  out[o + 1] = hand[h + 1] - scratch[1];
  out[o + 2] = hand[h + 2] - scratch[2];
  out[o + 3] = scratch[4];
  out[o + 4] = scratch[5];
  out[o + 5] = scratch[6];
  out[o + 6] = scratch[7];
}

/**
 * In place: `a[ao..]` becomes the blend of poses a and b, `values[t]` of the way to b (position lerp,
 * orientation nlerp on the near hemisphere; exact at 0 and 1).
 */
export function blendPose(
  a: Float64Array,
  ao: number,
  b: Float64Array,
  bo: number,
  values: Float64Array,
  t: number,
): void {
  const f = values[t];
  if (!(f > 0)) return;
  if (f >= 1) {
    for (let i = 0; i < POSE; i++) a[ao + i] = b[bo + i];
    return;
  }
  for (let i = 0; i < 3; i++) a[ao + i] += (b[bo + i] - a[ao + i]) * f;
  let dot = 0;
  for (let i = 3; i < POSE; i++) dot += a[ao + i] * b[bo + i];
  const sign = dot < 0 ? -1 : 1;
  let len = 0;
  for (let i = 3; i < POSE; i++) {
    const v = a[ao + i] * (1 - f) + sign * b[bo + i] * f;
    a[ao + i] = v;
    len += v * v;
  }
  len = Math.sqrt(len);
  for (let i = 3; i < POSE; i++) a[ao + i] /= len;
}

/**
 * In place: the object's pose `pose[p..]` turned so that the line between its handles (grips `grip[g0..]` and
 * `grip[g1..]`, model form) runs along the line between the hands (`held[h0..]`, `held[h1..]`), by the
 * fraction `values[fraction]` of that turn, then moved so that the handles' point at `values[share]` of the
 * way from the first to the second sits on the hands' point at the same share. When a hand cannot take its
 * handle's rotation, the candidates' blend turns the object and moves both handles off their hands; this puts
 * the handles back on the hands' places, leaving the miss in rotation.
 */
export function alignHandles(
  pose: Float64Array,
  p: number,
  grip: Float64Array,
  g0: number,
  g1: number,
  held: Float64Array,
  h0: number,
  h1: number,
  values: Float64Array,
  fraction: number,
  share: number,
): void {
  handOnGrip(align, 0, pose, p, grip, g0);
  handOnGrip(align, 7, pose, p, grip, g1);
  for (let i = 0; i < 3; i++) {
    align[14 + i] = align[7 + i] - align[i];
    align[17 + i] = held[h1 + i] - held[h0 + i];
  }
  if (values[fraction] > 0 && normalize3(align, 14, align, 14) && normalize3(align, 17, align, 17)) {
    quatFromUnitVectors(align, 20, align, 14, align, 17);
    quatScaleAngle(align, 20, values, fraction);
    quatMultiply(pose, p + 3, align, 20, pose, p + 3);
    handOnGrip(align, 0, pose, p, grip, g0);
    handOnGrip(align, 7, pose, p, grip, g1);
  }
  const f = values[share];
  for (let i = 0; i < 3; i++) {
    const handles = align[i] + (align[7 + i] - align[i]) * f;
    const hands = held[h0 + i] + (held[h1 + i] - held[h0 + i]) * f;
    pose[p + i] += hands - handles;
  }
}

/**
 * The world rotation (Babylon's `absoluteRotationQuaternion` sense) of a node whose model-space orientation,
 * as an effector takes it, is `q[qo..]`: the inverse of `nodeRotationToModel`. `modelToWorld` is the model
 * root's world matrix.
 */
export function modelRotationToWorld(
  out: Float64Array,
  o: number,
  q: Float64Array,
  qo: number,
  modelToWorld: Float64Array,
  mirrored: boolean,
): void {
  quaternionToRows(q, qo, rows, 0);
  for (let r = 0; r < 3; r++) {
    transformDirection(rows, 3 * r, modelToWorld, rows, 3 * r);
    const len = Math.sqrt(rows[3 * r] ** 2 + rows[3 * r + 1] ** 2 + rows[3 * r + 2] ** 2);
    // A mirrored root's reflection goes back into the Y axis, where Babylon's decomposition keeps it.
    const s = (r === 1 && mirrored ? -1 : 1) / len;
    rows[3 * r] *= s;
    rows[3 * r + 1] *= s;
    rows[3 * r + 2] *= s;
  }
  rowsToQuaternion(rows, 0, out, o);
}
