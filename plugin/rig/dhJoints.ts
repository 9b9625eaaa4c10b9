import { FabrikError } from "../solver/errors.js";
import type { EffectorSpec } from "../solver/plan.js";
import type { Pose } from "../solver/pose.js";
import { quatConjugateMultiply, quatRotate } from "../solver/quaternion.js";
import { placeDHJoints } from "./dhFrames.js";
import type { DHArm } from "./dhRig.js";

/*
 * Between a DH arm's joint values and its poses: forward kinematics (to make targets, to check a solve),
 * reading joint values back from a solved pose, and the effectors and targets of a position or a full-pose
 * goal for the tool.
 */

const temp = new Float64Array(12);

/**
 * Writes the arm's pose for joint values `values` (one per DH row, radians or model units) into `pose`,
 * which must be sized for the arm's rig. Values outside the joints' ranges are placed as given. Allocates
 * nothing.
 */
export function dhForwardKinematics(arm: DHArm, values: ArrayLike<number>, pose: Pose): void {
  const n = arm.table.count;
  if (values == null || values.length !== n) {
    throw new FabrikError(
      `dhForwardKinematics: values must hold one joint value per row (${n})`,
      undefined,
      "values",
    );
  }
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(values[i])) {
      throw new FabrikError(
        `dhForwardKinematics: value of row ${i} ("${arm.table.names[i]}") is not finite (${values[i]})`,
        undefined,
        "values",
      );
    }
  }
  checkPose(arm, pose, "dhForwardKinematics");
  placeDHJoints(arm.table, arm, values, 0, pose.positions, pose.orientations);
}

/**
 * Reads the joint values of a pose of the arm (a solved one, or one from {@link dhForwardKinematics}) into
 * `out` (one per DH row). A revolute value is the hinge's angle from home, within π of it and moved by a
 * full turn where that brings it nearer the joint's range; a prismatic value is the slider's length.
 * Allocates nothing.
 */
export function readDHJointValues(arm: DHArm, pose: Pose, out: Float64Array): void {
  const { table } = arm;
  const n = table.count;
  if (!(out instanceof Float64Array) || out.length < n) {
    throw new FabrikError(`readDHJointValues: out must be a Float64Array of ${n} values`, undefined, "out");
  }
  checkPose(arm, pose, "readDHJointValues");
  const { positions, orientations } = pose;
  const restLocal = arm.limits.restLocal;
  for (let i = 0; i < n; i++) {
    const j = arm.jointRig[i];
    if (table.prismatic[i]) {
      // The slider's length along its rail (the rail's z axis).
      const r = arm.railRig[i];
      temp[0] = positions[3 * j] - positions[3 * r];
      temp[1] = positions[3 * j + 1] - positions[3 * r + 1];
      temp[2] = positions[3 * j + 2] - positions[3 * r + 2];
      temp[3] = 0;
      temp[4] = 0;
      temp[5] = 1;
      quatRotate(temp, 3, orientations, 4 * r, temp, 3);
      const length = temp[0] * temp[3] + temp[1] * temp[4] + temp[2] * temp[5];
      out[i] = arm.along[i] + length - table.d[i] - table.offset[i];
      continue;
    }
    // Δ = rest⁻¹ · parent⁻¹ · joint: a turn about the joint's own z axis.
    quatConjugateMultiply(temp, 0, orientations, 4 * (j - 1), orientations, 4 * j);
    quatConjugateMultiply(temp, 4, restLocal, 4 * j, temp, 0);
    let angle = 2 * Math.atan2(temp[6], temp[7]);
    if (angle > Math.PI) angle -= 2 * Math.PI;
    else if (angle < -Math.PI) angle += 2 * Math.PI;
    // Of the values a turn apart, the one nearest the range (a hinge at ±π may read either end).
    const value = table.home[i] + angle;
    const lo = table.min[i],
      hi = table.max[i];
    let bestValue = value;
    if (beyond(value + 2 * Math.PI, lo, hi) < beyond(bestValue, lo, hi)) bestValue = value + 2 * Math.PI;
    if (beyond(value - 2 * Math.PI, lo, hi) < beyond(bestValue, lo, hi)) bestValue = value - 2 * Math.PI;
    out[i] = bestValue;
  }
}

/**
 * The effectors of a goal for the arm's tool: the tool point alone, or, with `orientation`, also its two
 * markers, so that the tool's orientation is pulled toward the target's. Compile them with the arm's limits.
 */
export function dhEffectors(arm: DHArm, orientation = false): EffectorSpec[] {
  const tool: EffectorSpec = { joint: arm.tool };
  return orientation ? [tool, { joint: arm.toolX }, { joint: arm.toolZ }] : [tool];
}

/**
 * Writes the targets of a goal for the tool into `out`, in the order of {@link dhEffectors}: the point
 * `position` (x y z, from `po`), and with `orientation` (a unit quaternion x y z w, from `qo`: the tool
 * frame's wanted orientation in model space) the points its markers would then have. Allocates nothing.
 */
export function dhTargets(
  arm: DHArm,
  position: ArrayLike<number>,
  po: number,
  orientation: Float64Array | undefined,
  qo: number,
  out: Float64Array,
): void {
  const m = arm.markerDistance;
  out[0] = position[po];
  out[1] = position[po + 1];
  out[2] = position[po + 2];
  if (orientation === undefined) return;
  for (let axis = 0; axis < 2; axis++) {
    temp[0] = axis === 0 ? m : 0;
    temp[1] = 0;
    temp[2] = axis === 0 ? 0 : m;
    quatRotate(temp, 0, orientation, qo, temp, 0);
    for (let k = 0; k < 3; k++) out[3 + 3 * axis + k] = out[k] + temp[k];
  }
}

/** How far v lies outside [lo, hi]. */
function beyond(v: number, lo: number, hi: number): number {
  return v < lo ? lo - v : v > hi ? v - hi : 0;
}

function checkPose(arm: DHArm, pose: Pose, who: string): void {
  const n = arm.rig.jointCount;
  if (
    pose == null ||
    !(pose.positions instanceof Float64Array) ||
    pose.positions.length !== 3 * n ||
    !(pose.orientations instanceof Float64Array) ||
    pose.orientations.length !== 4 * n
  ) {
    throw new FabrikError(
      `${who}: pose must be { positions, orientations } of the arm's rig (${n} joints)`,
      undefined,
      "pose",
    );
  }
}
