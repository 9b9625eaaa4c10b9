import { bendingPathStart } from "./carriedChains.js";
import { measureHingeAngle } from "./hingeJoint.js";
import { LIMIT_FIXED, LIMIT_HINGE } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import { quatConjugateMultiply, quatRotate } from "./quaternion.js";

/*
 * Folding a straight limb at its one-sided hinge (an elbow, a knee): which side of its line the hinge lets
 * it fold to, and the fold itself. They take their vectors from, and give them back in, the plan's fold
 * fields (foldLine, foldSide, foldDistance, foldDirection).
 */

/** This file's temporaries: a hinge's Δ, its angle, its axis. */
const temp = new Float64Array(11);
const DELTA = 0;
const ANGLE = 4;
const AXIS = 8;

/**
 * A limb that bends at a one-sided hinge (an elbow, a knee) folds there only: the bones above the hinge
 * joint are laid straight from the base to it, those below straight from it to the target, and the hinge
 * joint sits where the law of cosines puts it, on side p of the line to the target, from the base joint at
 * 3 * b3 (the distance in foldDistance, unit t toward the target in foldDirection, unit p in foldSide).
 * `hinge` is the hinge joint's index in effector e's path.
 */
export function foldAtHinge(
  plan: SolvePlan,
  e: number,
  hinge: number,
  positions: Float64Array,
  b3: number,
): void {
  const { effectorPath, effectorPathStart } = plan;
  const { boneLength, foldDirection, foldSide } = plan.scratch;
  const distance = plan.scratch.foldDistance[0],
    tx = foldDirection[0],
    ty = foldDirection[1],
    tz = foldDirection[2],
    px = foldSide[0],
    py = foldSide[1],
    pz = foldSide[2];
  const first = bendingPathStart(plan, e),
    last = effectorPathStart[e + 1];
  let a = 0,
    b = 0;
  for (let i = first; i < last; i++) {
    if (i <= hinge) a += boneLength[effectorPath[i]];
    else b += boneLength[effectorPath[i]];
  }
  if (!(a > 0) || !(b > 0)) return;
  const d = Math.min(Math.max(distance, Math.abs(a - b)), a + b);
  const along = (a * a - b * b + d * d) / (2 * d);
  const h = Math.sqrt(Math.max(0, a * a - along * along));
  const bx = positions[b3],
    by = positions[b3 + 1],
    bz = positions[b3 + 2];
  // Unit directions of the upper and lower segments.
  const ux = (along * tx + h * px) / a,
    uy = (along * ty + h * py) / a,
    uz = (along * tz + h * pz) / a;
  const lx = ((d - along) * tx - h * px) / b,
    ly = ((d - along) * ty - h * py) / b,
    lz = ((d - along) * tz - h * pz) / b;
  let s = 0;
  for (let i = first; i < last; i++) {
    const j = effectorPath[i];
    s += boneLength[j];
    const j3 = 3 * j;
    if (i <= hinge) {
      positions[j3] = bx + s * ux;
      positions[j3 + 1] = by + s * uy;
      positions[j3 + 2] = bz + s * uz;
    } else {
      const r = s - a;
      positions[j3] = bx + a * ux + r * lx;
      positions[j3 + 1] = by + a * uy + r * ly;
      positions[j3 + 2] = bz + a * uz + r * lz;
    }
  }
}

/**
 * The side a straight chain (line direction in foldLine) must fold toward for the first hinge on effector
 * e's path to bend the way its range allows, from the angle it has now toward the middle of its range: a
 * unit vector across the line, into foldSide. Returns the hinge's index in the path. Folding the other way
 * would bend a knee or an elbow backwards, which the limit then has to undo, often by a lock escape. -1 when
 * no joint with a child on the path is a hinge, or the hinge turns about the line itself, or its range
 * prefers no side.
 */
export function hingeSide(plan: SolvePlan, e: number, orientations: Float64Array): number {
  const { effectorPath, effectorPathStart, limits } = plan;
  const parents = plan.rig.parents;
  const { foldLine: line, foldSide } = plan.scratch;
  for (let i = bendingPathStart(plan, e); i < effectorPathStart[e + 1] - 1; i++) {
    const h = effectorPath[i];
    const kind = plan.scratch.flags[h] & (LIMIT_HINGE | LIMIT_FIXED);
    if (kind !== LIMIT_HINGE || plan.scratch.rotatingIndex[h] < 0) continue;
    const p = parents[h];
    // Δ = rest⁻¹ · parent⁻¹ · orientation, as the limits measure it.
    quatConjugateMultiply(temp, DELTA, orientations, 4 * p, orientations, 4 * h);
    quatConjugateMultiply(temp, DELTA, limits.restLocal, 4 * h, temp, DELTA);
    measureHingeAngle(limits, h, temp, DELTA, temp, ANGLE);
    const turn = 0.5 * (limits.hinge[2 * h] + limits.hinge[2 * h + 1]) - temp[ANGLE];
    if (!(Math.abs(turn) > 1e-6)) continue;
    // A positive turn about the hinge axis a swings the child bone toward a × line, which is where the
    // joint must not go: the child leans away from the joint's offset. So the joint moves along line × a.
    quatRotate(temp, AXIS, orientations, 4 * h, limits.hingeAxis, 3 * h);
    const sign = turn > 0 ? 1 : -1;
    const sx = sign * (line[1] * temp[AXIS + 2] - line[2] * temp[AXIS + 1]),
      sy = sign * (line[2] * temp[AXIS] - line[0] * temp[AXIS + 2]),
      sz = sign * (line[0] * temp[AXIS + 1] - line[1] * temp[AXIS]);
    const sl = Math.sqrt(sx * sx + sy * sy + sz * sz);
    if (!(sl > 1e-6)) continue;
    foldSide[0] = sx / sl;
    foldSide[1] = sy / sl;
    foldSide[2] = sz / sl;
    return i;
  }
  return -1;
}
