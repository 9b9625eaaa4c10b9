import { quatMultiply, quatRotate } from "../solver/quaternion.js";
import type { DHTable } from "./dhTable.js";

/*
 * The walk down a DH table that places the rig joints of an arm for given joint values: forward kinematics
 * with the table's own transforms, composed as a quaternion and a point.
 *
 * Where the rig joints sit (see dhRig.ts for why): joint i's frame before it moves, F_i, is the product of
 * every earlier row and, in the modified convention, of row i's own Rx(α)·Tx(a). A revolute joint sits on
 * its axis (F_i's z) at `along[i]` from F_i's origin and takes F_i·Rz(θ_i) as its orientation, so its local
 * rotation from its parent differs from rest by a turn about that axis only. A prismatic joint is two rig
 * joints on its axis: a rail start at `along[i]`, and the slider at d_i, whose bone stretches.
 */

/** Where each DH joint went in the rig, and the rig joints the table adds. */
export interface DHLayout {
  /** Rig joint of each DH joint: the hinge of a revolute joint, the slider of a prismatic one. */
  readonly jointRig: Int32Array;
  /** Rig joint where a prismatic joint's rail starts (its slider's parent), or -1. */
  readonly railRig: Int32Array;
  /** Revolute: the joint's place on its axis from F_i's origin. Prismatic: where its rail starts. */
  readonly along: Float64Array;
  /** The end effector, at the tool point of the last DH frame. */
  readonly tool: number;
  /** Markers at `markerDistance` along the tool frame's x and z axes, for orientation targets. */
  readonly toolX: number;
  readonly toolZ: number;
  readonly markerDistance: number;
}

/** Rig joint count of a table: the base, one per revolute row, two per prismatic row, the tool and its markers. */
export function dhRigJointCount(table: DHTable): number {
  let n = 1 + 3;
  for (let i = 0; i < table.count; i++) n += table.prismatic[i] ? 2 : 1;
  return n;
}

const frame = new Float64Array(4 + 3 + 4 + 3 + 3);
const Q = 0; // orientation of the walking frame
const P = 4; // its origin
const TURN = 7; // an elementary rotation
const AXIS = 11; // a unit axis
const OUT = 14; // a rotated vector

/**
 * Writes the model-space position and orientation of every rig joint for the joint values `values` (one
 * per row, from `vo`). Allocates nothing.
 */
export function placeDHJoints(
  table: DHTable,
  layout: DHLayout,
  values: ArrayLike<number>,
  vo: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  const modified = table.convention === "modified";
  frame.fill(0);
  frame[Q + 3] = 1;
  write(0, 0, positions, orientations);
  for (let i = 0; i < table.count; i++) {
    if (modified) {
      turnAboutX(table.alpha[i]);
      moveAlong(0, table.a[i]);
    }
    const prismatic = table.prismatic[i] === 1;
    const q = table.offset[i] + values[vo + i];
    turnAboutZ(table.theta[i] + (prismatic ? 0 : q));
    const d = table.d[i] + (prismatic ? q : 0);
    if (prismatic) write(layout.railRig[i], layout.along[i], positions, orientations);
    write(layout.jointRig[i], prismatic ? d : layout.along[i], positions, orientations);
    moveAlong(2, d);
    if (!modified) {
      moveAlong(0, table.a[i]);
      turnAboutX(table.alpha[i]);
    }
  }
  // The tool point, then its markers along the tool frame's x and z.
  quatRotate(frame, OUT, frame, Q, table.toolOffset, 0);
  for (let k = 0; k < 3; k++) frame[P + k] += frame[OUT + k];
  write(layout.tool, 0, positions, orientations);
  moveAlong(0, layout.markerDistance);
  write(layout.toolX, 0, positions, orientations);
  moveAlong(0, -layout.markerDistance);
  moveAlong(2, layout.markerDistance);
  write(layout.toolZ, 0, positions, orientations);
}

/** Joint j at `t` along the walking frame's z, with the frame's orientation. */
function write(j: number, t: number, positions: Float64Array, orientations: Float64Array): void {
  unitAxis(2);
  for (let k = 0; k < 3; k++) positions[3 * j + k] = frame[P + k] + t * frame[OUT + k];
  for (let k = 0; k < 4; k++) orientations[4 * j + k] = frame[Q + k];
}

/** frame[OUT..] = the walking frame's x (0) or z (2) axis in model space. */
function unitAxis(axis: number): void {
  frame[AXIS] = axis === 0 ? 1 : 0;
  frame[AXIS + 1] = 0;
  frame[AXIS + 2] = axis === 2 ? 1 : 0;
  quatRotate(frame, OUT, frame, Q, frame, AXIS);
}

function moveAlong(axis: number, distance: number): void {
  unitAxis(axis);
  for (let k = 0; k < 3; k++) frame[P + k] += distance * frame[OUT + k];
}

function turnAboutX(angle: number): void {
  frame[TURN] = Math.sin(angle / 2);
  frame[TURN + 1] = 0;
  frame[TURN + 2] = 0;
  frame[TURN + 3] = Math.cos(angle / 2);
  quatMultiply(frame, Q, frame, Q, frame, TURN);
}

function turnAboutZ(angle: number): void {
  frame[TURN] = 0;
  frame[TURN + 1] = 0;
  frame[TURN + 2] = Math.sin(angle / 2);
  frame[TURN + 3] = Math.cos(angle / 2);
  quatMultiply(frame, Q, frame, Q, frame, TURN);
}
