/*
 * The solver turns bones by rotations and carries a joint's orientation down to its children as a product of
 * rotations, with each joint's scale applied to its children's offsets. A scale whose signs differ (a mirror,
 * (-1, 1, 1), or a half turn written as scale, (-1, -1, 1)) is not a rotation times a scale of one sign, as
 * that product needs; but every such scale is one: diag(-1, 1, 1) = -1 · diag(1, -1, -1), a uniform -1 and a
 * half turn about x. So a joint's rotation R and scale S are read as R·H and H⁻¹·S, H the half turn the signs
 * hold: the same local matrix, with a scale of one sign, which the solver carries exactly (uniform) or as
 * well as any non-uniform scale. Its written rotation is turned back by H⁻¹ before Babylon gets it.
 *
 * The fold is taken from the scale's signs as read, so it is the same for a node's scaling and for a matrix
 * decomposed by Babylon (which puts a mirror's sign on y): both give the same R·H.
 */

/** No half turn: the scale's signs are all the same. */
export const NO_FOLD = 0;

/**
 * The half turn (1 about x, 2 y, 3 z, or {@link NO_FOLD}) that the signs of scale `s[o..o+2]` hold. Two
 * negative: the half turn about the positive axis; one negative: about that axis (the rest is a uniform -1).
 */
export function foldAxis(s: ArrayLike<number>, o: number): number {
  const nx = s[o] < 0,
    ny = s[o + 1] < 0,
    nz = s[o + 2] < 0;
  const negatives = (nx ? 1 : 0) + (ny ? 1 : 0) + (nz ? 1 : 0);
  if (negatives === 0 || negatives === 3) return NO_FOLD;
  // One negative: -p has +1 on that axis; two: p has +1 on the third.
  if (negatives === 1) return nx ? 1 : ny ? 2 : 3;
  return !nx ? 1 : !ny ? 2 : 3;
}

/**
 * Folds joint data read with fold `axis` ({@link foldAxis}): rotation `q[qo..qo+3]` := q·H and scale
 * `s[so..so+2]` := H⁻¹·s (every component then of one sign). Nothing for {@link NO_FOLD}.
 */
export function foldJoint(axis: number, q: Float64Array, qo: number, s: Float64Array, so: number): void {
  if (axis === NO_FOLD) return;
  foldRotation(axis, q, qo);
  // H⁻¹ = H is diag with -1 on the two other axes.
  for (let k = 1; k <= 3; k++) if (k !== axis) s[so + k - 1] = -s[so + k - 1];
}

/** Rotation `q[qo..qo+3]` := q·H: a local rotation read (an animation's key) as the solver sees it. */
export function foldRotation(axis: number, q: Float64Array | number[], qo: number): void {
  if (axis !== NO_FOLD) turnByHalf(axis, q, qo, 1);
}

/** Rotation `q[qo..qo+3]` := q·H⁻¹: a folded rotation turned back for Babylon. */
export function unfoldRotation(axis: number, q: Float64Array, qo: number): void {
  if (axis !== NO_FOLD) turnByHalf(axis, q, qo, -1);
}

/** q := q·(±e), e the unit quaternion of the half turn about `axis` (sign -1: its inverse). */
function turnByHalf(axis: number, q: Float64Array | number[], qo: number, sign: number): void {
  const x = q[qo],
    y = q[qo + 1],
    z = q[qo + 2],
    w = q[qo + 3];
  if (axis === 1) {
    q[qo] = sign * w;
    q[qo + 1] = sign * z;
    q[qo + 2] = -sign * y;
    q[qo + 3] = -sign * x;
  } else if (axis === 2) {
    q[qo] = -sign * z;
    q[qo + 1] = sign * w;
    q[qo + 2] = sign * x;
    q[qo + 3] = -sign * y;
  } else {
    q[qo] = sign * y;
    q[qo + 1] = -sign * x;
    q[qo + 2] = sign * w;
    q[qo + 3] = -sign * z;
  }
}
