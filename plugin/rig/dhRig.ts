import { FabrikError } from "../solver/errors.js";
import { createJointLimits, setJointLimit, type JointLimits } from "../solver/limits.js";
import { quatRotate, quatRotateInverse } from "../solver/quaternion.js";
import { createRig, type Rig } from "../solver/rig.js";
import { dhRigJointCount, placeDHJoints, type DHLayout } from "./dhFrames.js";
import { validateDHTable, type DHOptions, type DHRow, type DHTable } from "./dhTable.js";

/*
 * A robot arm from a Denavit–Hartenberg table: the solver's rig, its hinge and stretch limits, and what
 * dhJoints.ts needs to go between joint values and poses.
 *
 * Every revolute DH joint becomes one rig joint with a hinge about its axis, so reading a joint value back is
 * reading one hinge angle. A revolute joint may sit anywhere on its axis without changing the arm: it sits
 * where its frame F_i has its origin, unless that puts it on its neighbour (consecutive axes that meet, as in
 * a spherical wrist, or a link with a = d = 0). FABRIK aims a joint along the bone to its child; a bone of
 * zero length gives no direction, so the joint would never turn. Such a joint is slid along its axis by
 * {@link DH_SEPARATION} of the reach, away from its child. A prismatic joint is a rail start and a slider on
 * the axis, the slider's bone stretching over the joint's range; both keep their local rotation (`fixed`).
 */

/** Joints nearer than this fraction of the arm's reach count as coincident. */
const COINCIDENT = 1e-4;
/** How far a joint on its neighbour is slid along its axis, and the shortest rail, as a fraction of reach. */
export const DH_SEPARATION = 0.05;
/** Default distance of the orientation markers from the tool point, as a fraction of reach. */
const MARKER_FRACTION = 0.25;

/** A robot arm built by {@link createRigFromDH}. */
export interface DHArm extends DHLayout {
  readonly rig: Rig;
  /** A hinge about every revolute joint's axis, a stretch for every slider; the base, rails and tool fixed. */
  readonly limits: JointLimits;
  readonly table: DHTable;
  /**
   * Sum of the link lengths (|a|, |d| or a slider's longest travel, and the tool offset): no point is
   * further than this from the base. Tolerances scale with it.
   */
  readonly reach: number;
}

/**
 * Builds the rig, limits and layout of a robot arm from its DH table, at the home joint values. The rig is
 * one chain: a fixed root `base` at the origin (the table's frame 0 is model space), one joint per revolute
 * row and two per prismatic row (`<name>.rail`, `<name>`), then `tool` at the tool point and its markers
 * `tool.x`, `tool.z`. Solve with `tool` as the effector, adding the markers for an orientation target (see
 * {@link dhEffectors}, {@link dhTargets}); read joint values back with {@link readDHJointValues}. Throws a
 * {@link FabrikError} naming the row and field of a bad table.
 */
export function createRigFromDH(rows: readonly DHRow[], options: DHOptions = {}): DHArm {
  const table = validateDHTable(rows, options);
  const n = table.count;
  const reach = armReach(table);
  if (!(reach > 0)) {
    throw new FabrikError(
      "createRigFromDH: the arm has no length (every a, d and the tool offset are 0)",
      undefined,
      "rows",
    );
  }
  const separation = DH_SEPARATION * reach;
  const jointRig = new Int32Array(n);
  const railRig = new Int32Array(n).fill(-1);
  const along = new Float64Array(n);
  const names = ["base"];
  for (let i = 0; i < n; i++) {
    if (table.prismatic[i]) {
      railRig[i] = names.length;
      names.push(`${table.names[i]}.rail`);
      // The rail starts `separation` short of the slider's lowest place, so its bone never has length 0.
      along[i] = table.d[i] + table.offset[i] + table.min[i] - separation;
    }
    jointRig[i] = names.length;
    names.push(table.names[i]);
  }
  const tool = names.length;
  names.push("tool", "tool.x", "tool.z");
  const layout: DHLayout = {
    jointRig,
    railRig,
    along,
    tool,
    toolX: tool + 1,
    toolZ: tool + 2,
    markerDistance: options.markerDistance ?? MARKER_FRACTION * reach,
  };
  const count = dhRigJointCount(table);
  const positions = new Float64Array(3 * count);
  const orientations = new Float64Array(4 * count);
  placeDHJoints(table, layout, table.home, 0, positions, orientations);
  separateCoincident(table, layout, positions, orientations, reach);
  placeDHJoints(table, layout, table.home, 0, positions, orientations);

  const parents = names.map((_, j) => j - 1);
  parents[tool + 2] = tool;
  const rig = createRig({ parents, restPositions: positions, restOrientations: orientations, names });
  const limits = createJointLimits(rig);
  setJointLimit(limits, 0, { fixed: true });
  setJointLimit(limits, tool, { fixed: true });
  const axis = new Float64Array(3);
  for (let i = 0; i < n; i++) {
    const j = jointRig[i];
    if (table.prismatic[i]) {
      setJointLimit(limits, railRig[i], { fixed: true });
      const low = table.d[i] + table.offset[i] + table.min[i] - along[i];
      setJointLimit(limits, j, {
        fixed: true,
        stretch: { min: low, max: low + table.max[i] - table.min[i] },
      });
      continue;
    }
    // The joint's z axis, seen from its parent's frame.
    axis[0] = 0;
    axis[1] = 0;
    axis[2] = 1;
    quatRotate(axis, 0, orientations, 4 * j, axis, 0);
    quatRotateInverse(axis, 0, orientations, 4 * (j - 1), axis, 0);
    const fullTurn = table.max[i] - table.min[i] >= 2 * Math.PI;
    const min = fullTurn ? -Math.PI : table.min[i] - table.home[i];
    const max = fullTurn ? Math.PI : table.max[i] - table.home[i];
    setJointLimit(limits, j, { hinge: { axis: [axis[0], axis[1], axis[2]], min, max } });
  }
  return { ...layout, rig, limits, table, reach };
}

function armReach(table: DHTable): number {
  let reach = Math.hypot(table.toolOffset[0], table.toolOffset[1], table.toolOffset[2]);
  for (let i = 0; i < table.count; i++) {
    reach += Math.abs(table.a[i]);
    const d = table.d[i] + table.offset[i];
    reach += table.prismatic[i]
      ? Math.max(Math.abs(d + table.min[i]), Math.abs(d + table.max[i]))
      : Math.abs(table.d[i]);
  }
  return reach;
}

/**
 * Slides every revolute joint that lies on its parent or its child along its axis (see the file comment),
 * and every rail start that lies on its parent further back. `positions` hold the home pose without slides.
 */
function separateCoincident(
  table: DHTable,
  layout: DHLayout,
  positions: Float64Array,
  orientations: Float64Array,
  reach: number,
): void {
  const near = COINCIDENT * reach;
  const separation = DH_SEPARATION * reach;
  const axis = new Float64Array(3);
  const gap = (a: number, b: number) =>
    Math.hypot(
      positions[3 * a] - positions[3 * b],
      positions[3 * a + 1] - positions[3 * b + 1],
      positions[3 * a + 2] - positions[3 * b + 2],
    );
  const dot = (a: number, b: number) =>
    axis[0] * (positions[3 * a] - positions[3 * b]) +
    axis[1] * (positions[3 * a + 1] - positions[3 * b + 1]) +
    axis[2] * (positions[3 * a + 2] - positions[3 * b + 2]);
  for (let i = 0; i < table.count; i++) {
    const prismatic = table.prismatic[i] === 1;
    const j = prismatic ? layout.railRig[i] : layout.jointRig[i];
    axis[0] = 0;
    axis[1] = 0;
    axis[2] = 1;
    quatRotate(axis, 0, orientations, 4 * j, axis, 0);
    let slide = 0;
    if (prismatic) {
      if (gap(j, j - 1) < near) slide = -separation;
    } else if (gap(j, j - 1) < near || gap(j + 1, j) < near) {
      // Away from the child; a child beside the axis (or on the joint), away from the parent.
      const ahead = gap(j + 1, j) < near ? 0 : dot(j + 1, j);
      const behind = dot(j, j - 1);
      slide = Math.abs(ahead) > near ? -Math.sign(ahead) * separation : behind < 0 ? -separation : separation;
    }
    if (slide === 0) continue;
    layout.along[i] += slide;
    for (let k = 0; k < 3; k++) positions[3 * j + k] += slide * axis[k];
  }
}
