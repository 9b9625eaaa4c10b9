import type { JointLimits, Vector3Tuple } from "./limits.js";
import { quatConjugateMultiply, quatRotate, quatRotateInverse, vecNormalize } from "./quaternion.js";

/*
 * The frames a joint's limits are measured in, from the rig's rest pose: its rest local rotation, the axis
 * its bone runs along, and the up and right axes of its swing cone.
 */

/** Rest local rotations and bone axes, from the rig's rest pose. */
export function computeRestFrames(limits: JointLimits): void {
  const { rig, restLocal, boneAxis } = limits;
  const { parents, restOrientations, restPositions, childStart, children } = rig;
  const n = rig.jointCount;
  const descendants = new Int32Array(n);
  for (let j = n - 1; j > 0; j--) if (parents[j] >= 0) descendants[parents[j]] += descendants[j] + 1;
  const v = new Float64Array(3);
  for (let j = 0; j < n; j++) {
    const p = parents[j];
    if (p >= 0) quatConjugateMultiply(restLocal, 4 * j, restOrientations, 4 * p, restOrientations, 4 * j);
    else restLocal.set(restOrientations.subarray(4 * j, 4 * j + 4), 4 * j);

    // The bone axis: toward the main child, the one that best continues the bone coming in (a chest's neck
    // rather than a clavicle, a hand's middle finger rather than its thumb); for a root, the child with the
    // most descendants. A leaf continues its parent's bone.
    let main = -1;
    let best = -Infinity;
    for (let k = childStart[j]; k < childStart[j + 1]; k++) {
      const c = children[k];
      if (!(distanceSquared(restPositions, c, j) > 0)) continue;
      let score: number;
      if (p >= 0 && distanceSquared(restPositions, j, p) > 0) {
        const ix = restPositions[3 * j] - restPositions[3 * p],
          iy = restPositions[3 * j + 1] - restPositions[3 * p + 1],
          iz = restPositions[3 * j + 2] - restPositions[3 * p + 2];
        const ox = restPositions[3 * c] - restPositions[3 * j],
          oy = restPositions[3 * c + 1] - restPositions[3 * j + 1],
          oz = restPositions[3 * c + 2] - restPositions[3 * j + 2];
        score =
          (ix * ox + iy * oy + iz * oz) /
          Math.sqrt((ix * ix + iy * iy + iz * iz) * (ox * ox + oy * oy + oz * oz));
      } else {
        score = descendants[c];
      }
      if (score > best) {
        best = score;
        main = c;
      }
    }
    let ok = false;
    if (main >= 0) {
      v[0] = restPositions[3 * main] - restPositions[3 * j];
      v[1] = restPositions[3 * main + 1] - restPositions[3 * j + 1];
      v[2] = restPositions[3 * main + 2] - restPositions[3 * j + 2];
      ok = vecNormalize(v, 0);
    } else if (p >= 0) {
      v[0] = restPositions[3 * j] - restPositions[3 * p];
      v[1] = restPositions[3 * j + 1] - restPositions[3 * p + 1];
      v[2] = restPositions[3 * j + 2] - restPositions[3 * p + 2];
      ok = vecNormalize(v, 0);
    }
    if (!ok) {
      // No direction in the rest pose at all: the joint's own +Y.
      v[0] = 0;
      v[1] = 1;
      v[2] = 0;
      quatRotate(v, 0, restOrientations, 4 * j, v, 0);
    }
    // Into the joint's own rest frame.
    quatRotateInverse(boneAxis, 3 * j, restOrientations, 4 * j, v, 0);
    vecNormalize(boneAxis, 3 * j);
    setSwingFrame(limits, j, undefined);
  }
}

function distanceSquared(p: Float64Array, a: number, b: number): number {
  const dx = p[3 * a] - p[3 * b],
    dy = p[3 * a + 1] - p[3 * b + 1],
    dz = p[3 * a + 2] - p[3 * b + 2];
  return dx * dx + dy * dy + dz * dz;
}

/** The bone axis expressed in the parent's frame (what users give axes in). */
export function parentFrameBoneAxis(limits: JointLimits, joint: number): [number, number, number] {
  const v = new Float64Array(3);
  quatRotate(v, 0, limits.restLocal, 4 * joint, limits.boneAxis, 3 * joint);
  return [v[0], v[1], v[2]];
}

/** Up and right axes of the swing cone in the joint's rest frame; `upParent` is in the parent frame. */
export function setSwingFrame(limits: JointLimits, joint: number, upParent: Vector3Tuple | undefined): void {
  const j3 = 3 * joint;
  const a = limits.boneAxis;
  const ax = a[j3],
    ay = a[j3 + 1],
    az = a[j3 + 2];
  const up = new Float64Array(3);
  if (upParent !== undefined) {
    up[0] = upParent[0];
    up[1] = upParent[1];
    up[2] = upParent[2];
    quatRotateInverse(up, 0, limits.restLocal, 4 * joint, up, 0);
  } else {
    // The parent-frame axis least aligned with the bone, brought into the joint frame.
    const inParent = parentFrameBoneAxis(limits, joint).map(Math.abs);
    const k =
      inParent[0] <= inParent[1] && inParent[0] <= inParent[2] ? 0 : inParent[1] <= inParent[2] ? 1 : 2;
    up[k] = 1;
    quatRotateInverse(up, 0, limits.restLocal, 4 * joint, up, 0);
  }
  const d = up[0] * ax + up[1] * ay + up[2] * az;
  up[0] -= d * ax;
  up[1] -= d * ay;
  up[2] -= d * az;
  vecNormalize(up, 0);
  limits.upAxis[j3] = up[0];
  limits.upAxis[j3 + 1] = up[1];
  limits.upAxis[j3 + 2] = up[2];
  limits.rightAxis[j3] = ay * up[2] - az * up[1];
  limits.rightAxis[j3 + 1] = az * up[0] - ax * up[2];
  limits.rightAxis[j3 + 2] = ax * up[1] - ay * up[0];
}
