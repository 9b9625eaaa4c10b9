import { measureHingeAngle as measureHingeAngleBinding } from "./jointLimitProjection.js";
import { LIMIT_HINGE as LIMIT_HINGEBinding } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import {
  quatConjugateMultiply as quatConjugateMultiplyBinding,
  quatRotate as quatRotateBinding,
} from "./quaternion.js";

// Local copies: a constant imported from another module is read through a getter under test transforms.
const TOLERANCE_SLOT = 0;
const LIMIT_HINGE = LIMIT_HINGEBinding;
const measureHingeAngle = measureHingeAngleBinding;
const quatConjugateMultiply = quatConjugateMultiplyBinding;
const quatRotate = quatRotateBinding;

// plan.scratch.temp slots of hingeSide: the line direction in, the side out, Δ, the angle, the hinge axis.
const LINE = 0;
const SIDE = 4;
const DELTA = 8;
const ANGLE = 12;
const AXIS = 16;

/**
 * How far a fully collinear chain is bent before iterating, as a fraction of its length. FABRIK moves joints
 * only along the lines between them, so a straight chain whose target lies on its own line never leaves
 * that line; the paper's remedy is a small perturbation off it.
 */
const COLLINEAR_BEND = 0.05;

/**
 * Pole (bend hint): each interior joint of an effector's own chain is turned about the line from the chain's
 * start (its base or sub-base) to the target, into the half-plane that holds the pole point. A joint lying on
 * that line is pushed off it toward the pole, so a straight start folds the pole's way. Bone lengths are left
 * to the passes that follow.
 */
export function applyPoles(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
  poles: Float64Array,
): void {
  const { effectorPath, effectorPathStart, effectorChainStart, effectorHasPole } = plan;
  const parents = plan.rig.parents;
  const boneLength = plan.scratch.boneLength;
  for (let k = plan.componentEffectorStart[c]; k < plan.componentEffectorStart[c + 1]; k++) {
    const e = plan.componentEffectors[k];
    if (!effectorHasPole[e]) continue;
    const first = effectorChainStart[e],
      last = effectorPathStart[e + 1] - 1; // the effector itself is not turned
    if (last - first < 1) continue;
    const s3 = 3 * parents[effectorPath[first]];
    const sx = positions[s3],
      sy = positions[s3 + 1],
      sz = positions[s3 + 2];
    let nx = targets[3 * e] - sx,
      ny = targets[3 * e + 1] - sy,
      nz = targets[3 * e + 2] - sz;
    const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (!(nl > 1e-12)) continue;
    nx /= nl;
    ny /= nl;
    nz /= nl;
    let qx = poles[3 * e] - sx,
      qy = poles[3 * e + 1] - sy,
      qz = poles[3 * e + 2] - sz;
    const qa = qx * nx + qy * ny + qz * nz;
    qx -= qa * nx;
    qy -= qa * ny;
    qz -= qa * nz;
    const ql = Math.sqrt(qx * qx + qy * qy + qz * qz);
    if (!(ql > 1e-12)) continue; // the pole lies on the line: it prefers no side
    qx /= ql;
    qy /= ql;
    qz /= ql;
    let length = 0;
    for (let i = first; i <= last + 1 && i < effectorPathStart[e + 1]; i++)
      length += boneLength[effectorPath[i]];
    for (let i = first; i < last + 1; i++) {
      const j3 = 3 * effectorPath[i];
      const vx = positions[j3] - sx,
        vy = positions[j3 + 1] - sy,
        vz = positions[j3 + 2] - sz;
      const along = vx * nx + vy * ny + vz * nz;
      const px = vx - along * nx,
        py = vy - along * ny,
        pz = vz - along * nz;
      let radius = Math.sqrt(px * px + py * py + pz * pz);
      if (radius < 1e-9 * length)
        radius = COLLINEAR_BEND * length * Math.sin((Math.PI * (i - first + 1)) / (last - first + 2));
      positions[j3] = sx + along * nx + radius * qx;
      positions[j3 + 1] = sy + along * ny + radius * qy;
      positions[j3 + 2] = sz + along * nz + radius * qz;
    }
  }
}

/**
 * A straight chain whose target lies on its own line cannot leave that line under FABRIK's passes
 * (Aristidou et al. 2016 perturb it). Bend it slightly, as a half sine arc perpendicular to the line, so the
 * passes have a direction to fold in: the way its first hinge bends within its range, or else across a world
 * axis chosen by the line's direction alone. Either way the same input always bends the same way.
 */
export function bendCollinearChains(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
): void {
  const tolerance = plan.scratch.numbers[TOLERANCE_SLOT];
  const { effectorPath, effectorPathStart } = plan;
  const boneLength = plan.scratch.boneLength;
  const b3 = 3 * plan.componentBase[c];
  const bx = positions[b3],
    by = positions[b3 + 1],
    bz = positions[b3 + 2];
  for (let k = plan.componentEffectorStart[c]; k < plan.componentEffectorStart[c + 1]; k++) {
    const e = plan.componentEffectors[k];
    const first = effectorPathStart[e],
      last = effectorPathStart[e + 1];
    if (last - first < 2 || plan.effectorHasPole[e]) continue; // one bone cannot bend; a pole decides itself
    if (plan.report.residuals[e] <= tolerance) continue; // measured just before

    let length = 0;
    for (let i = first; i < last; i++) length += boneLength[effectorPath[i]];
    if (length <= 0) continue;
    // The chain's line: from the base through the farthest joint of the path.
    let ux = 0,
      uy = 0,
      uz = 0,
      far = 0;
    for (let i = first; i < last; i++) {
      const j3 = 3 * effectorPath[i];
      const dx = positions[j3] - bx,
        dy = positions[j3 + 1] - by,
        dz = positions[j3 + 2] - bz;
      const d = dx * dx + dy * dy + dz * dz;
      if (d > far) {
        far = d;
        ux = dx;
        uy = dy;
        uz = dz;
      }
    }
    if (far <= 0) {
      // Every joint sits on the base: a fully folded, zero-extent chain. Use the first bone's input direction.
      const j3 = 3 * effectorPath[first];
      ux = plan.scratch.inputDirection[j3];
      uy = plan.scratch.inputDirection[j3 + 1];
      uz = plan.scratch.inputDirection[j3 + 2];
    } else {
      const inv = 1 / Math.sqrt(far);
      ux *= inv;
      uy *= inv;
      uz *= inv;
    }
    const slack = 1e-6 * length;
    // Collinear when the target (i = first - 1) and every path joint lie within `slack` of the line.
    let collinear = true;
    for (let i = first - 1; collinear && i < last; i++) {
      const source = i < first ? targets : positions;
      const o3 = i < first ? 3 * e : 3 * effectorPath[i];
      const x = source[o3] - bx,
        y = source[o3 + 1] - by,
        z = source[o3 + 2] - bz;
      const t = x * ux + y * uy + z * uz;
      const rx = x - t * ux,
        ry = y - t * uy,
        rz = z - t * uz;
      collinear = rx * rx + ry * ry + rz * rz <= slack * slack;
    }
    if (!collinear) continue;

    // Perpendicular: toward the side the chain's first hinge bends within its range; else the line crossed
    // with the world axis least aligned with it.
    const temp = plan.scratch.temp;
    temp[LINE] = ux;
    temp[LINE + 1] = uy;
    temp[LINE + 2] = uz;
    const ax = Math.abs(ux),
      ay = Math.abs(uy),
      az = Math.abs(uz);
    let px: number, py: number, pz: number;
    if (hingeSide(plan, e, orientations)) {
      px = temp[SIDE];
      py = temp[SIDE + 1];
      pz = temp[SIDE + 2];
    } else if (ax <= ay && ax <= az) {
      px = 0;
      py = uz;
      pz = -uy;
    } else if (ay <= az) {
      px = -uz;
      py = 0;
      pz = ux;
    } else {
      px = uy;
      py = -ux;
      pz = 0;
    }
    const pl = Math.sqrt(px * px + py * py + pz * pz);
    const amplitude = (COLLINEAR_BEND * length) / pl;
    const count = last - first;
    for (let i = first; i < last; i++) {
      const s = amplitude * Math.sin((Math.PI * (i - first + 1)) / (count + 1));
      const j3 = 3 * effectorPath[i];
      positions[j3] += s * px;
      positions[j3 + 1] += s * py;
      positions[j3 + 2] += s * pz;
    }
  }
}

/**
 * The side a straight chain (line direction in temp[LINE..]) must fold toward for the first hinge on
 * effector e's path to bend the way its range allows, from the angle it has now toward the middle of its
 * range: a unit vector across the line, into temp[SIDE..]. Folding the other way would bend a knee or an
 * elbow backwards, which the limit then has to undo, often by a lock escape. False when no joint with a
 * child on the path is a hinge, or the hinge turns about the line itself, or its range prefers no side.
 */
function hingeSide(plan: SolvePlan, e: number, orientations: Float64Array): boolean {
  const { effectorPath, effectorPathStart, limits } = plan;
  const parents = plan.rig.parents;
  const temp = plan.scratch.temp;
  for (let i = effectorPathStart[e]; i < effectorPathStart[e + 1] - 1; i++) {
    const h = effectorPath[i];
    if ((limits.flags[h] & LIMIT_HINGE) === 0 || plan.scratch.rotatingIndex[h] < 0) continue;
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
    const sx = sign * (temp[LINE + 1] * temp[AXIS + 2] - temp[LINE + 2] * temp[AXIS + 1]),
      sy = sign * (temp[LINE + 2] * temp[AXIS] - temp[LINE] * temp[AXIS + 2]),
      sz = sign * (temp[LINE] * temp[AXIS + 1] - temp[LINE + 1] * temp[AXIS]);
    const sl = Math.sqrt(sx * sx + sy * sy + sz * sz);
    if (!(sl > 1e-6)) continue;
    temp[SIDE] = sx / sl;
    temp[SIDE + 1] = sy / sl;
    temp[SIDE + 2] = sz / sl;
    return true;
  }
  return false;
}
