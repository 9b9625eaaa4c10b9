import type { SolvePlan } from "./plan.js";
import { quatFromUnitVectors } from "./quaternion.js";

/** Points nearer than this fraction of the lengths involved are coincident: no direction between them. */
const DEGENERATE_EPSILON = 1e-9;
/** Nearer opposite than this (1 + cos of the arc), the inline half-angle arc loses digits. */
const NEAR_OPPOSITE = 1e-6;
/** This file's temporaries: a joint's change of orientation, then an arc's two directions and the arc. */
const temp = new Float64Array(16);

/*
 * The fast path for the commonest case: one unbranched chain, no limits. Positions only in the passes
 * (the joint just placed stays in registers), orientations derived once at the end.
 */

/**
 * The forward pass for one unbranched chain whose tip is the effector: the tip goes to the target and each
 * joint above goes back to bone length along the line toward where it was.
 */
export function forwardPassChain(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
): void {
  const { activeJoints } = plan;
  const { boneLength, inputDirection } = plan.scratch;
  const start = plan.componentStart[c];
  let k = plan.componentStart[c + 1] - 1;
  const e3 = 3 * plan.componentEffectors[plan.componentEffectorStart[c]];
  let j = activeJoints[k];
  let x = targets[e3],
    y = targets[e3 + 1],
    z = targets[e3 + 2];
  positions[3 * j] = x;
  positions[3 * j + 1] = y;
  positions[3 * j + 2] = z;
  for (k--; k >= start; k--) {
    const p = activeJoints[k];
    const p3 = 3 * p;
    const dx = positions[p3] - x,
      dy = positions[p3 + 1] - y,
      dz = positions[p3 + 2] - z;
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const len = boneLength[j];
    if (d > DEGENERATE_EPSILON * (len + d)) {
      const s = len / d;
      x += dx * s;
      y += dy * s;
      z += dz * s;
    } else {
      x -= len * inputDirection[3 * j];
      y -= len * inputDirection[3 * j + 1];
      z -= len * inputDirection[3 * j + 2];
    }
    positions[p3] = x;
    positions[p3 + 1] = y;
    positions[p3 + 2] = z;
    j = p;
  }
}
export function backwardPassChain(plan: SolvePlan, c: number, positions: Float64Array): void {
  const { activeJoints } = plan;
  const { boneLength, inputDirection } = plan.scratch;
  const b3 = 3 * plan.componentBase[c];
  let x = positions[b3],
    y = positions[b3 + 1],
    z = positions[b3 + 2];
  const end = plan.componentStart[c + 1];
  for (let k = plan.componentStart[c]; k < end; k++) {
    const j = activeJoints[k];
    const j3 = 3 * j;
    const dx = positions[j3] - x,
      dy = positions[j3 + 1] - y,
      dz = positions[j3 + 2] - z;
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const len = boneLength[j];
    if (d > DEGENERATE_EPSILON * (len + d)) {
      const s = len / d;
      x += dx * s;
      y += dy * s;
      z += dz * s;
    } else {
      x += len * inputDirection[j3];
      y += len * inputDirection[j3 + 1];
      z += len * inputDirection[j3 + 2];
    }
    positions[j3] = x;
    positions[j3 + 1] = y;
    positions[j3 + 2] = z;
  }
}
export function straightenIfOutOfReach(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
): boolean {
  const tolerance = plan.scratch.tolerance[0];
  const { activeJoints } = plan;
  const parents = plan.rig.parents;
  const boneLength = plan.scratch.boneLength;
  const e = plan.componentEffectors[plan.componentEffectorStart[c]];
  const b3 = 3 * plan.componentBase[c];
  const start = plan.componentStart[c],
    end = plan.componentStart[c + 1];
  let reach = 0;
  for (let k = start; k < end; k++) reach += boneLength[activeJoints[k]];
  let dx = targets[3 * e] - positions[b3],
    dy = targets[3 * e + 1] - positions[b3 + 1],
    dz = targets[3 * e + 2] - positions[b3 + 2];
  const distance = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (distance < reach - tolerance || distance <= 0) return false;
  dx /= distance;
  dy /= distance;
  dz /= distance;
  for (let k = start; k < end; k++) {
    const j = activeJoints[k];
    const p3 = 3 * parents[j];
    const len = boneLength[j];
    positions[3 * j] = positions[p3] + len * dx;
    positions[3 * j + 1] = positions[p3 + 1] + len * dy;
    positions[3 * j + 2] = positions[p3 + 2] + len * dz;
  }
  return true;
}

/**
 * Orientations for a chain solved by positions alone. Walking from the base, each joint's orientation
 * changes by D = S · D_parent: its parent's change D_parent, then the shortest arc S taking its bone (as
 * the parent's change left it) onto the bone's new direction. Only swing is added, so input twist survives.
 * Everything is inline: this runs once per solve on the fast path.
 */
export function orientChainFromPositions(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  const { rotatingJoints, activeChildStart, activeChildren } = plan;
  const { rotatingIndex, inputDirection } = plan.scratch;
  // The running change D, identity at the base's parent, which does not move.
  let dx = 0,
    dy = 0,
    dz = 0,
    dw = 1;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const r = rotatingJoints[ri];
    const ch = activeChildren[activeChildStart[ri]];
    const r3 = 3 * r,
      c3 = 3 * ch;
    // Old bone direction, carried by the parent's change: v = D · d_old.
    const ox = inputDirection[c3],
      oy = inputDirection[c3 + 1],
      oz = inputDirection[c3 + 2];
    const tx = 2 * (dy * oz - dz * oy),
      ty = 2 * (dz * ox - dx * oz),
      tz = 2 * (dx * oy - dy * ox);
    const vx = ox + dw * tx + (dy * tz - dz * ty),
      vy = oy + dw * ty + (dz * tx - dx * tz),
      vz = oz + dw * tz + (dx * ty - dy * tx);
    let nx = positions[c3] - positions[r3],
      ny = positions[c3 + 1] - positions[r3 + 1],
      nz = positions[c3 + 2] - positions[r3 + 2];
    const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (nl > DEGENERATE_EPSILON * plan.scratch.boneLength[ch]) {
      nx /= nl;
      ny /= nl;
      nz /= nl;
      // S = shortest arc v -> n, in the half-angle form while v and n are not nearly opposite.
      let sx = vy * nz - vz * ny,
        sy = vz * nx - vx * nz,
        sz = vx * ny - vy * nx,
        sw = 1 + vx * nx + vy * ny + vz * nz;
      let sl = Math.sqrt(sx * sx + sy * sy + sz * sz + sw * sw);
      if (sw < NEAR_OPPOSITE) {
        // A bone (nearly) flipped around: the general helper keeps the arc exact there.
        temp[4] = vx;
        temp[5] = vy;
        temp[6] = vz;
        temp[8] = nx;
        temp[9] = ny;
        temp[10] = nz;
        quatFromUnitVectors(temp, 12, temp, 4, temp, 8);
        sx = temp[12];
        sy = temp[13];
        sz = temp[14];
        sw = temp[15];
        sl = 1;
      }
      {
        sx /= sl;
        sy /= sl;
        sz /= sl;
        sw /= sl;
        const x = sw * dx + sx * dw + sy * dz - sz * dy,
          y = sw * dy - sx * dz + sy * dw + sz * dx,
          z = sw * dz + sx * dy - sy * dx + sz * dw,
          w = sw * dw - sx * dx - sy * dy - sz * dz;
        dx = x;
        dy = y;
        dz = z;
        dw = w;
      }
    }
    temp[0] = dx;
    temp[1] = dy;
    temp[2] = dz;
    temp[3] = dw;
    applyChange(orientations, 4 * r, temp);
    if (rotatingIndex[ch] < 0) applyChange(orientations, 4 * ch, temp);
  }
}

/** q = D · q, normalised, with D in d[0..3] (an array, so no double is boxed on the way in). */
function applyChange(q: Float64Array, o: number, d: Float64Array): void {
  const dx = d[0],
    dy = d[1],
    dz = d[2],
    dw = d[3];
  const qx = q[o],
    qy = q[o + 1],
    qz = q[o + 2],
    qw = q[o + 3];
  const x = dw * qx + dx * qw + dy * qz - dz * qy,
    y = dw * qy - dx * qz + dy * qw + dz * qx,
    z = dw * qz + dx * qy - dy * qx + dz * qw,
    w = dw * qw - dx * qx - dy * qy - dz * qz;
  const l = Math.sqrt(x * x + y * y + z * z + w * w);
  q[o] = x / l;
  q[o + 1] = y / l;
  q[o + 2] = z / l;
  q[o + 3] = w / l;
}
