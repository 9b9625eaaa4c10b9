import type { SolvePlan } from "./plan.js";

/**
 * How far a joint of a chain lying on the line to its target is pushed toward the pole, as a fraction of the
 * chain's length: FABRIK moves joints only along the lines between them, so a chain on that line would never
 * leave it.
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
