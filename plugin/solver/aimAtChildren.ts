import type { SolvePlan } from "./plan.js";
import { quatFromUnitVectors, quatMultiply, quatNormalize, quatRotate } from "./quaternion.js";

/*
 * A rotating joint's candidate orientation in the oriented passes, from where its children are: turned by the
 * shortest arc toward its one child, or by the rigid fit of several. Both start from the orientation the joint
 * has and leave the result in the plan's `candidate`.
 */

/** Lengths below this fraction of the bone they belong to have no direction worth following. */
const DEGENERATE = 1e-9;
/** Nearer opposite than this, the inline half-angle arc loses digits: quatFromUnitVectors takes over. */
const NEAR_OPPOSITE = 1e-6;

/** This file's temporaries. */
const temp = new Float64Array(12);
const V = 0; // vector
const W = 4; // vector
const R = 8; // rotation

/**
 * candidate = the orientation of `r` turned by the shortest arc that points child `ch` from r's position
 * toward the child's position. Degenerate directions leave the orientation as it is.
 */
export function alignToChild(
  plan: SolvePlan,
  r: number,
  ch: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  const candidate = plan.scratch.candidate;
  const r3 = 3 * r,
    r4 = 4 * r,
    c3 = 3 * ch;
  const qx = orientations[r4],
    qy = orientations[r4 + 1],
    qz = orientations[r4 + 2],
    qw = orientations[r4 + 3];
  candidate[0] = qx;
  candidate[1] = qy;
  candidate[2] = qz;
  candidate[3] = qw;
  const len = plan.scratch.boneLength[ch];
  if (len <= 0) return;
  let nx = positions[c3] - positions[r3],
    ny = positions[c3 + 1] - positions[r3 + 1],
    nz = positions[c3 + 2] - positions[r3 + 2];
  const d = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(d > DEGENERATE * len)) return;
  nx /= d;
  ny /= d;
  nz /= d;
  // Inline from here on (this runs for every joint in both passes): v = q · offset, the child's current
  // direction; the shortest arc v -> n; candidate = arc · q.
  const localOffset = plan.scratch.localOffset;
  const ox = localOffset[c3],
    oy = localOffset[c3 + 1],
    oz = localOffset[c3 + 2];
  const tx = 2 * (qy * oz - qz * oy),
    ty = 2 * (qz * ox - qx * oz),
    tz = 2 * (qx * oy - qy * ox);
  const vx = ox + qw * tx + (qy * tz - qz * ty),
    vy = oy + qw * ty + (qz * tx - qx * tz),
    vz = oz + qw * tz + (qx * ty - qy * tx);
  const dot = vx * nx + vy * ny + vz * nz;
  if (dot < -1 + NEAR_OPPOSITE) {
    // (Nearly) reversed: the general helper keeps the axis perpendicular and every digit of the angle.
    temp[V] = vx;
    temp[V + 1] = vy;
    temp[V + 2] = vz;
    temp[W] = nx;
    temp[W + 1] = ny;
    temp[W + 2] = nz;
    quatFromUnitVectors(temp, R, temp, V, temp, W);
    quatMultiply(candidate, 0, temp, R, candidate, 0);
    return;
  }
  let ax = vy * nz - vz * ny,
    ay = vz * nx - vx * nz,
    az = vx * ny - vy * nx,
    aw = 1 + dot;
  const al = Math.sqrt(ax * ax + ay * ay + az * az + aw * aw);
  ax /= al;
  ay /= al;
  az /= al;
  aw /= al;
  candidate[0] = aw * qx + ax * qw + ay * qz - az * qy;
  candidate[1] = aw * qy - ax * qz + ay * qw + az * qx;
  candidate[2] = aw * qz + ax * qy - ay * qx + az * qw;
  candidate[3] = aw * qw - ax * qx - ay * qy - az * qz;
}

/**
 * candidate = the rotation of `r` that best carries its children's offsets onto their positions
 * (weighted by branch), found by Müller et al.'s iterative rotation extraction warm-started from the current
 * orientation. With `free`, r's position is free too: the fit is of centred offsets, and `fitted` receives
 * r's fitted position, the weighted centroid of what each branch proposes.
 */
export function fitToChildren(
  plan: SolvePlan,
  r: number,
  first: number,
  last: number,
  positions: Float64Array,
  orientations: Float64Array,
  free: boolean,
): void {
  const { activeChildren } = plan;
  const { branchWeight, boneLength, localOffset, carriedBelow, carriedWeight, carriedOffset, carriedGoal } =
    plan.scratch;
  const { candidate, fitted } = plan.scratch;
  const r3 = 3 * r,
    r4 = 4 * r;
  candidate[0] = orientations[r4];
  candidate[1] = orientations[r4 + 1];
  candidate[2] = orientations[r4 + 2];
  candidate[3] = orientations[r4 + 3];

  // Centroids: of the children's positions (model) and of their offsets (r's frame).
  let cx = positions[r3],
    cy = positions[r3 + 1],
    cz = positions[r3 + 2];
  let ox = 0,
    oy = 0,
    oz = 0;
  if (free) {
    let sw = 0;
    cx = cy = cz = 0;
    for (let k = first; k < last; k++) {
      const ch = activeChildren[k];
      // A carried chain's run counts by its base: where it asks to be, as firmly as it asks.
      const b = carriedBelow[ch];
      const w = b >= 0 ? carriedWeight[b] : branchWeight[ch];
      const pa = b >= 0 ? carriedGoal : positions,
        p3 = b >= 0 ? 3 * b : 3 * ch;
      const oa = b >= 0 ? carriedOffset : localOffset,
        o3 = b >= 0 ? 3 * b : 3 * ch,
        len = b >= 0 ? 1 : boneLength[ch];
      cx += w * pa[p3];
      cy += w * pa[p3 + 1];
      cz += w * pa[p3 + 2];
      ox += w * len * oa[o3];
      oy += w * len * oa[o3 + 1];
      oz += w * len * oa[o3 + 2];
      sw += w;
    }
    if (!(sw > 0)) {
      // No branch asks anything of this joint: it stays as it is.
      fitted[0] = positions[r3];
      fitted[1] = positions[r3 + 1];
      fitted[2] = positions[r3 + 2];
      return;
    }
    cx /= sw;
    cy /= sw;
    cz /= sw;
    ox /= sw;
    oy /= sw;
    oz /= sw;
  }

  // Warm-started every pass, so a few steps a call suffice: the fit converges across passes.
  for (let iteration = 0; iteration < 4; iteration++) {
    let wx = 0,
      wy = 0,
      wz = 0,
      dot = 0;
    for (let k = first; k < last; k++) {
      const ch = activeChildren[k];
      const b = carriedBelow[ch];
      const w = b >= 0 ? carriedWeight[b] : branchWeight[ch];
      if (!(w > 0)) continue;
      const pa = b >= 0 ? carriedGoal : positions,
        p3 = b >= 0 ? 3 * b : 3 * ch;
      const oa = b >= 0 ? carriedOffset : localOffset,
        o3 = b >= 0 ? 3 * b : 3 * ch,
        len = b >= 0 ? 1 : boneLength[ch];
      temp[W] = len * oa[o3] - ox;
      temp[W + 1] = len * oa[o3 + 1] - oy;
      temp[W + 2] = len * oa[o3 + 2] - oz;
      quatRotate(temp, V, candidate, 0, temp, W);
      const dx = pa[p3] - cx,
        dy = pa[p3 + 1] - cy,
        dz = pa[p3 + 2] - cz;
      wx += w * (temp[V + 1] * dz - temp[V + 2] * dy);
      wy += w * (temp[V + 2] * dx - temp[V] * dz);
      wz += w * (temp[V] * dy - temp[V + 1] * dx);
      dot += w * (temp[V] * dx + temp[V + 1] * dy + temp[V + 2] * dz);
    }
    const scale = 1 / (Math.abs(dot) + 1e-9);
    wx *= scale;
    wy *= scale;
    wz *= scale;
    const angle = Math.sqrt(wx * wx + wy * wy + wz * wz);
    if (!(angle > 1e-10)) break;
    const s = Math.sin(0.5 * angle) / angle;
    temp[R] = wx * s;
    temp[R + 1] = wy * s;
    temp[R + 2] = wz * s;
    temp[R + 3] = Math.cos(0.5 * angle);
    quatMultiply(candidate, 0, temp, R, candidate, 0);
    quatNormalize(candidate, 0);
  }

  if (free) {
    temp[W] = ox;
    temp[W + 1] = oy;
    temp[W + 2] = oz;
    quatRotate(temp, V, candidate, 0, temp, W);
    fitted[0] = cx - temp[V];
    fitted[1] = cy - temp[V + 1];
    fitted[2] = cz - temp[V + 2];
  }
}
