import {
  deformingJoints,
  findEndSite,
  transformPoint,
  type FabrikBehavior,
  type SkeletonRig,
} from "../babylon/index.js";
import { controlFootShin, quatRotate, quatRotateInverse, type LegPose } from "../rig/index.js";

/*
 * Legs found by where the body stands rather than by name: a horse's hooves, a T-rex's hind feet, a spider's
 * eight legs, a rig with numbered bones. FootPlacement asks for them when the humanoid roles show no foot
 * on the ground (a T-rex's short arms are named legs; a horse's legs have no foot bone).
 */

/** The pose the legs are looked for on, with the matrix that brings end sites into model space. */
export interface GroundPose extends LegPose {
  readonly worldToModel: ArrayLike<number>;
}

/** A leg found on the ground, as joint indices. */
export interface GroundLeg {
  readonly foot: number;
  readonly shin?: number;
  readonly chainLength?: number;
  readonly end?: boolean;
}

/** A chain end this close to the ground (a fraction of the character's height) can stand on it. */
const ON_GROUND = 0.15;
/** A leg's top stands at least this far above its lowest point (a fraction of the height): not a tail. */
const LEG_RISE = 0.25;

/** Heights above the ground of one pose, per joint, in fractions of the character's height. */
export interface PoseHeights {
  /** The joint's. */
  readonly joint: Float64Array;
  /** Its lowest point: the joint, or the end site marking where its bone ends. */
  readonly low: Float64Array;
}

/** The heights in the pose at hand and in the rest pose (see {@link heightsAboveGround}). */
export interface GroundHeights {
  readonly now: PoseHeights;
  readonly rest: PoseHeights;
  /** Which joints carry the body (see `deformingJoints`). */
  readonly deforming: Uint8Array;
}

/**
 * Into `out[0..2]`: where joint `j`'s end site (the glTF `_end` node marking where its bone ends) sits in the
 * joint's frame on `pose` (model units); false when the joint has none.
 */
export function endSiteInJointFrame(
  rig: SkeletonRig,
  j: number,
  pose: GroundPose,
  out: Float64Array,
): boolean {
  const end = findEndSite(rig, j);
  if (end === null) return false;
  const w = end.getAbsolutePosition();
  transformPoint(pose.worldToModel, w.x, w.y, w.z, out);
  for (let k = 0; k < 3; k++) out[k] -= pose.positions[3 * j + k];
  quatRotateInverse(out, 0, pose.orientations, 4 * j, out, 0);
  return true;
}

/**
 * How far each joint lies above the ground, along up, in the pose at hand and in the rest pose: the ground is
 * each pose's lowest deforming point. Non-deforming joints (IK controls, poles) do not set it, though they
 * are measured. An end site is placed in the rest pose where it sits in its joint's frame now.
 */
export function heightsAboveGround(ik: FabrikBehavior, pose: GroundPose): GroundHeights {
  const rig = ik.rig!;
  const n = rig.jointCount;
  const len = Math.hypot(pose.up[0], pose.up[1], pose.up[2]);
  const up = [pose.up[0] / len, pose.up[1] / len, pose.up[2] / len];
  const deforming = deformingJoints(rig);
  const now = { joint: new Float64Array(n), low: new Float64Array(n) };
  const rest = { joint: new Float64Array(n), low: new Float64Array(n) };
  const along = (v: ArrayLike<number>, o: number) => v[o] * up[0] + v[o + 1] * up[1] + v[o + 2] * up[2];
  const local = new Float64Array(3);
  const turned = new Float64Array(3);
  for (let j = 0; j < n; j++) {
    now.joint[j] = now.low[j] = along(pose.positions, 3 * j);
    rest.joint[j] = rest.low[j] = along(rig.restPositions, 3 * j);
    if (!endSiteInJointFrame(rig, j, pose, local)) continue;
    // The end site as the joint's orientation now and at rest carries it.
    quatRotate(turned, 0, pose.orientations, 4 * j, local, 0);
    now.low[j] = Math.min(now.low[j], now.joint[j] + along(turned, 0));
    quatRotate(turned, 0, rig.restOrientations, 4 * j, local, 0);
    rest.low[j] = Math.min(rest.low[j], rest.joint[j] + along(turned, 0));
  }
  for (const heights of [now, rest]) {
    let ground = Infinity;
    for (let j = 0; j < n; j++) if (deforming[j] === 1) ground = Math.min(ground, heights.low[j]);
    for (let j = 0; j < n; j++) {
      heights.joint[j] = (heights.joint[j] - ground) / ik.height;
      heights.low[j] = (heights.low[j] - ground) / ik.height;
    }
  }
  return { now, rest, deforming };
}

/**
 * The legs a body stands on, by its shape: each deforming joint with no deforming joint below it that lies
 * within {@link ON_GROUND} of the ground and hangs below a leg rising at least a quarter of the height above
 * it. A foot sitting where a child-less shin ends (rigs made for Blender's IK) is placed through that shin;
 * the shin is then not a leg of its own. A foot whose bone ends in a glTF `_end` site (a hoof) is placed by
 * that end, bent at its joint (`FootPlacementLeg.end`). Otherwise the leg bends from the foot up to the last
 * joint before it branches off the body (a spider's hip), which keeps its place and turns.
 */
export function findGroundLegs(ik: FabrikBehavior, pose: GroundPose, heights: GroundHeights): GroundLeg[] {
  const rig = ik.rig!;
  const parents = rig.parents;
  const n = rig.jointCount;
  const deforming = heights.deforming;
  const children = new Int32Array(n);
  for (let j = 0; j < n; j++) if (deforming[j] === 1 && parents[j] >= 0) children[parents[j]]++;
  const stands = (h: PoseHeights, foot: number, top: number) =>
    h.low[foot] <= ON_GROUND && h.joint[top] - h.low[foot] >= LEG_RISE;
  const legs: GroundLeg[] = [];
  const shins = new Set<number>();
  for (let foot = 0; foot < n; foot++) {
    if (deforming[foot] !== 1 || children[foot] > 0 || !onGround(heights, foot)) continue;
    const shin = controlFootShin(rig, foot, pose, true);
    let top = shin >= 0 ? parents[shin] : foot;
    while (parents[top] >= 0 && children[parents[top]] === 1) top = parents[top];
    if (top === foot || !(stands(heights.now, foot, top) || stands(heights.rest, foot, top))) continue;
    if (shin >= 0) {
      shins.add(shin);
      legs.push({ foot, shin });
    } else if (findEndSite(rig, foot) !== null && parents[foot] >= 0) {
      // The bone ends on the ground (a hoof): placed by that end, bent at its joint.
      legs.push({ foot, end: true });
    } else {
      let chainLength = 0;
      for (let k = foot; k !== top; k = parents[k]) chainLength++;
      legs.push({ foot, chainLength });
    }
  }
  return legs.filter((leg) => !shins.has(leg.foot));
}

/** Whether the joint's lowest point is within {@link ON_GROUND} of the ground, now or at rest. */
export function onGround(heights: GroundHeights, j: number): boolean {
  return heights.now.low[j] <= ON_GROUND || heights.rest.low[j] <= ON_GROUND;
}
