import type { HumanoidRoles } from "./humanoidRoles.js";
import { isAncestor } from "./jointTree.js";

/*
 * Rigs made for Blender's IK keep the feet under the root, each where its shin ends (Quaternius' and many
 * Mixamo-to-Blender exports): the foot bone is an IK control, not part of the leg. Engine-free: the
 * behavior's setTarget and FootPlacement both find such feet with it.
 */

/** What the search reads of a rig: its tree and rest pose (model space). */
export interface FootShinRig {
  readonly parents: Int32Array;
  readonly restPositions: Float64Array;
  readonly restOrientations: Float64Array;
}

/** The pose the feet are checked on: model-space positions and unit orientations, and world up. */
export interface LegPose {
  readonly positions: Float64Array;
  readonly orientations: Float64Array;
  /** World up in model space. */
  readonly up: ArrayLike<number>;
}

function hasChild(parents: Int32Array, j: number): boolean {
  for (let k = j + 1; k < parents.length; k++) if (parents[k] === j) return true;
  return false;
}

/** v turned by the inverse of the unit quaternion q[qo..qo+3]. */
function unrotate(q: ArrayLike<number>, qo: number, v: readonly number[]): number[] {
  const x = -q[qo],
    y = -q[qo + 1],
    z = -q[qo + 2],
    w = q[qo + 3];
  const [vx, vy, vz] = v;
  const tx = 2 * (y * vz - z * vy),
    ty = 2 * (z * vx - x * vz),
    tz = 2 * (x * vy - y * vx);
  return [vx + w * tx + (y * tz - z * ty), vy + w * ty + (z * tx - x * tz), vz + w * tz + (x * ty - y * tx)];
}

/** Where `foot` sits in the frame of `shin` (its orientation, model units), on the given pose. */
function offsetIn(positions: ArrayLike<number>, orientations: ArrayLike<number>, shin: number, foot: number) {
  const d = [0, 1, 2].map((k) => positions[3 * foot + k] - positions[3 * shin + k]);
  return unrotate(orientations, 4 * shin, d);
}

const norm = (v: readonly number[]) => Math.hypot(v[0], v[1], v[2]);

/**
 * Whether `foot` sits where a child-less `shin` ends: at a fixed place of the shin's frame (the same in the
 * rest pose and the current one, within 20° and a factor of 2 in length: rigs may stretch), below the
 * shin's joint, and as far from it as a shin may be (a quarter to four times the thigh above it).
 */
function sitsAtShinEnd(rig: FootShinRig, shin: number, foot: number, pose: LegPose): boolean {
  const parents = rig.parents;
  const thigh = parents[shin];
  if (thigh < 0 || hasChild(parents, shin)) return false;
  const rest = offsetIn(rig.restPositions, rig.restOrientations, shin, foot);
  const now = offsetIn(pose.positions, pose.orientations, shin, foot);
  const r = rig.restPositions;
  const thighLength = Math.hypot(
    r[3 * shin] - r[3 * thigh],
    r[3 * shin + 1] - r[3 * thigh + 1],
    r[3 * shin + 2] - r[3 * thigh + 2],
  );
  const a = norm(rest),
    b = norm(now);
  if (!(a > 0.25 * thighLength && a < 4 * thighLength) || !(b > 0.5 * a && b < 2 * a)) return false;
  const cos = (rest[0] * now[0] + rest[1] * now[1] + rest[2] * now[2]) / (a * b);
  if (!(cos > Math.cos((20 * Math.PI) / 180))) return false;
  const p = pose.positions,
    up = pose.up;
  let below = 0;
  for (let k = 0; k < 3; k++) below += (p[3 * foot + k] - p[3 * shin + k]) * up[k];
  return below < 0;
}

/**
 * The shin a foot role sits at the end of when the foot does not hang below its leg, or -1: the side's
 * `LowerLeg` role, below its `UpperLeg`, neither above nor below the foot, child-less, with the foot at its
 * end (at one place of the shin's frame in the rest pose and in `pose`, below the knee, about a shin away).
 */
export function footShin(
  rig: FootShinRig,
  roles: Readonly<HumanoidRoles>,
  foot: number,
  pose: LegPose,
): number {
  const parents = rig.parents;
  for (const side of ["left", "right"] as const) {
    if (roles[`${side}Foot`] !== foot) continue;
    const shin = roles[`${side}LowerLeg`];
    const thigh = roles[`${side}UpperLeg`];
    if (shin === undefined || thigh === undefined) return -1;
    if (thigh !== parents[shin] && !isAncestor(parents, thigh, parents[shin])) return -1;
    if (shin === foot || isAncestor(parents, shin, foot) || isAncestor(parents, foot, shin)) return -1;
    return sitsAtShinEnd(rig, shin, foot, pose) ? shin : -1;
  }
  return -1;
}

/**
 * For any joint: the shin it sits at the end of, as a Blender-IK control foot does, or -1. The joint must
 * hang above the leg (its parent carries the thigh, or it is a root) and higher in the tree than the thigh,
 * so a tentacle's or a finger's tip is never taken for one; of the child-less joints it sits at the end of
 * (see {@link footShin}), the nearest in the rest pose. With `separateTree`, a joint at most two levels
 * below where its branch leaves the leg's will do too (an IK control under a root of its own: Quaternius'
 * animals keep the hoof target `FF.L` under `IKFrontLeg.L`, beside the body).
 */
export function controlFootShin(rig: FootShinRig, foot: number, pose: LegPose, separateTree = false): number {
  const parents = rig.parents;
  const from = parents[foot];
  const depth = (j: number) => {
    let d = 0;
    for (let k = parents[j]; k >= 0; k = parents[k]) d++;
    return d;
  };
  const r = rig.restPositions;
  let best = -1,
    nearest = Infinity;
  for (let shin = 0; shin < parents.length; shin++) {
    const thigh = parents[shin];
    if (thigh < 0 || shin === foot || depth(foot) >= depth(thigh)) continue;
    if (
      from >= 0 &&
      !isAncestor(parents, from, thigh) &&
      !(separateTree && controlBranch(parents, foot, thigh))
    ) {
      continue;
    }
    if (
      isAncestor(parents, foot, shin) ||
      !onBoneAxis(rig, shin, foot) ||
      !sitsAtShinEnd(rig, shin, foot, pose)
    )
      continue;
    const d = Math.hypot(
      r[3 * foot] - r[3 * shin],
      r[3 * foot + 1] - r[3 * shin + 1],
      r[3 * foot + 2] - r[3 * shin + 2],
    );
    if (d < nearest) {
      nearest = d;
      best = shin;
    }
  }
  return best;
}

/** A control's rest place within this angle of its shin's bone axis (+Y, Blender's) counts as the shin's end. */
const BONE_AXIS_COS = Math.cos((15 * Math.PI) / 180);

/**
 * Whether `foot` sits, at rest, on the bone axis of the child-less `shin`: its local +Y, along which Blender
 * lays every bone and which its glTF exporter keeps. Rigs made for Blender's IK put the foot control at the
 * shin's tail, on that axis (0° on RobotExpressive and Quaternius' animals); without it, any child-less bone
 * near a joint above a leg was taken for its shin (the snake's `Tail` for the shin of its `Head`, 155° off).
 */
function onBoneAxis(rig: FootShinRig, shin: number, foot: number): boolean {
  const local = offsetIn(rig.restPositions, rig.restOrientations, shin, foot);
  const length = norm(local);
  return length > 0 && local[1] > BONE_AXIS_COS * length;
}

/**
 * Whether `foot` hangs at most two joints below the joint where its branch and the thigh's meet (with no
 * joint in common, below a root above both).
 */
function controlBranch(parents: Int32Array, foot: number, thigh: number): boolean {
  let below = 1;
  for (let k = parents[foot]; k >= 0; k = parents[k], below++) {
    if (isAncestor(parents, k, thigh)) return below <= 2;
  }
  return below <= 3;
}
