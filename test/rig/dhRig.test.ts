// createRigFromDH on known arms: the rig's joints lie on the axes the textbook DH matrices give, the tool
// sits where they put it, joint values read back as they were given, and coincident joints come apart.
import { describe, expect, test } from "vitest";
import {
  FabrikError,
  createPose,
  createRigFromDH,
  dhEffectors,
  dhForwardKinematics,
  dhTargets,
  readDHJointValues,
  type DHArm,
} from "../../plugin/index.js";
import { limitViolation, rotate } from "../solver/limitChecks.js";
import {
  KNOWN_ARMS,
  PUMA_560,
  SCARA,
  UR5,
  buildKnown,
  dhFrames,
  origin,
  random,
  randomValues,
  xAxis,
  zAxis,
  type KnownArm,
} from "./dhArms.js";

type V3 = [number, number, number];
const sub = (a: ArrayLike<number>, b: ArrayLike<number>): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const length = (a: ArrayLike<number>) => Math.sqrt(dot(a, a));
const at = (a: Float64Array, j: number): V3 => [a[3 * j], a[3 * j + 1], a[3 * j + 2]];
const quat = (a: Float64Array, j: number) => a.subarray(4 * j, 4 * j + 4);
/** Distance of point p from the line through o along unit u. */
function offLine(p: ArrayLike<number>, o: ArrayLike<number>, u: ArrayLike<number>): number {
  const v = sub(p, o);
  const t = dot(v, u);
  return length([v[0] - t * u[0], v[1] - t * u[1], v[2] - t * u[2]]);
}

/** Largest disagreement between the rig's pose for `values` and the textbook matrices. */
function disagreement(known: KnownArm, arm: DHArm, values: number[]): number {
  const pose = createPose(arm.rig);
  dhForwardKinematics(arm, values, pose);
  const { before, end } = dhFrames(known.convention, known.rows, values);
  let worst = 0;
  const note = (e: number) => (worst = Math.max(worst, e));
  note(length(sub(at(pose.positions, arm.tool), origin(end))));
  // The tool frame's axes are the last DH frame's.
  note(length(sub(rotate(quat(pose.orientations, arm.tool), [1, 0, 0]), xAxis(end))));
  note(length(sub(rotate(quat(pose.orientations, arm.tool), [0, 0, 1]), zAxis(end))));
  known.rows.forEach((row, i) => {
    const j = arm.jointRig[i];
    const z = zAxis(before[i]);
    // Every joint turns (or slides) about its own axis: its frame's z is the axis, and it sits on it.
    note(length(sub(rotate(quat(pose.orientations, j), [0, 0, 1]), z)));
    note(offLine(at(pose.positions, j), origin(before[i]), z));
    if (row.joint === "prismatic") {
      const r = arm.railRig[i];
      note(offLine(at(pose.positions, r), origin(before[i]), z));
    }
  });
  return worst;
}

describe("the rig of a DH table", () => {
  test.each(KNOWN_ARMS.map((k) => [k.name, k] as const))(
    "%s: joints on the textbook axes and the tool on the last frame, at home and at 200 random values",
    (_, known) => {
      const arm = buildKnown(known);
      const home = known.rows.map(() => 0);
      expect(disagreement(known, arm, home)).toBeLessThan(1e-12);
      // The rest pose is the home pose.
      const pose = createPose(arm.rig);
      dhForwardKinematics(arm, home, pose);
      for (let k = 0; k < pose.positions.length; k++)
        expect(pose.positions[k]).toBeCloseTo(arm.rig.restPositions[k], 12);
      const rand = random(11);
      let worst = 0;
      for (let s = 0; s < 200; s++)
        worst = Math.max(worst, disagreement(known, arm, randomValues(arm, rand)));
      expect(worst).toBeLessThan(1e-12);
    },
  );

  test.each(KNOWN_ARMS.map((k) => [k.name, k] as const))(
    "%s: joint values read back as given, and the pose keeps every limit",
    (_, known) => {
      const arm = buildKnown(known);
      const rand = random(5);
      const pose = createPose(arm.rig);
      const back = new Float64Array(known.rows.length);
      let worst = 0;
      for (let s = 0; s < 200; s++) {
        const values = randomValues(arm, rand);
        dhForwardKinematics(arm, values, pose);
        readDHJointValues(arm, pose, back);
        // A range wider than a turn reads back within π of home: the same joint angle, a turn apart.
        values.forEach((v, i) => {
          const turn = known.rows[i].joint === "prismatic" ? Infinity : 2 * Math.PI;
          const e = Math.abs(back[i] - v);
          worst = Math.max(worst, Math.min(e, Math.abs(e - turn)));
          if (arm.table.max[i] - arm.table.min[i] < 2 * Math.PI) worst = Math.max(worst, e);
        });
        for (let j = 0; j < arm.rig.jointCount; j++)
          expect(limitViolation(arm.limits, pose, j)).toBeLessThan(1e-9);
      }
      expect(worst).toBeLessThan(1e-12);
    },
  );

  test("the rig is one chain: base, one joint per revolute row, rail and slider per prismatic row, tool, markers", () => {
    const arm = buildKnown(SCARA);
    expect(arm.rig.names).toEqual([
      "base",
      "joint1",
      "joint2",
      "joint3.rail",
      "joint3",
      "joint4",
      "tool",
      "tool.x",
      "tool.z",
    ]);
    expect(Array.from(arm.rig.parents)).toEqual([-1, 0, 1, 2, 3, 4, 5, 6, 6]);
    expect(arm.limits.specs[arm.jointRig[2]]).toMatchObject({
      fixed: true,
      stretch: { max: expect.any(Number) },
    });
    const stretch = arm.limits.specs[arm.jointRig[2]]!.stretch!;
    expect(stretch.max - stretch.min).toBeCloseTo(0.2, 12);
    expect(stretch.min).toBeGreaterThan(0);
    expect(arm.limits.specs[0]).toEqual({ fixed: true });
    expect(arm.limits.specs[arm.tool]).toEqual({ fixed: true });
    const hinge = arm.limits.specs[arm.jointRig[1]]!.hinge!;
    expect([hinge.min, hinge.max]).toEqual([SCARA.rows[1].min, SCARA.rows[1].max]);
  });

  test("a range of a full turn or more gives a hinge of [-π, π]; ranges are measured from home", () => {
    const ur5 = buildKnown(UR5);
    expect(ur5.limits.specs[ur5.jointRig[0]]!.hinge).toMatchObject({ min: -Math.PI, max: Math.PI });
    const arm = createRigFromDH([{ a: 1, alpha: 0, min: -0.5, max: 2 }], { home: [1] });
    expect(arm.limits.specs[arm.jointRig[0]]!.hinge).toMatchObject({ min: -1.5, max: 1 });
  });

  test("no two neighbouring joints coincide: a joint on its neighbour slides along its own axis", () => {
    for (const known of KNOWN_ARMS) {
      const arm = buildKnown(known);
      for (let j = 1; j <= arm.tool; j++) {
        // The tool may sit on its joint's axis, never on the joint.
        expect(arm.rig.restLengths[j], `${known.name}: ${arm.rig.names![j]}`).toBeGreaterThan(
          1e-4 * arm.reach,
        );
      }
    }
    // The PUMA's wrist axes meet at one point, where its tool also is.
    const puma = buildKnown(PUMA_560);
    // Joints 5 and 6 both slide (5 had 6 on it, 6 the tool); joint 1 sat on the base (d1 = 0).
    const s = 0.05 * puma.reach;
    expect(Array.from(puma.along, (t) => t / s)).toEqual([1, 0, 0, 0, 1, 1]);
    // With a tool beyond the wrist, joint 6 no longer needs to.
    const tooled = createRigFromDH(PUMA_560.rows, { toolOffset: [0, 0, 0.1] });
    const t = 0.05 * tooled.reach;
    expect(Array.from(tooled.along, (x) => Math.abs(x / t))).toEqual([1, 0, 0, 0, 1, 0]);
  });

  test("targets: the tool point, and with an orientation the markers along the tool's x and z", () => {
    const arm = buildKnown(UR5);
    expect(dhEffectors(arm)).toEqual([{ joint: arm.tool }]);
    expect(dhEffectors(arm, true).map((e) => e.joint)).toEqual([arm.tool, arm.toolX, arm.toolZ]);
    const pose = createPose(arm.rig);
    dhForwardKinematics(arm, randomValues(arm, random(3)), pose);
    const out = new Float64Array(9);
    dhTargets(arm, pose.positions, 3 * arm.tool, pose.orientations, 4 * arm.tool, out);
    for (const [k, j] of [arm.tool, arm.toolX, arm.toolZ].entries())
      for (let i = 0; i < 3; i++) expect(out[3 * k + i]).toBeCloseTo(pose.positions[3 * j + i], 12);
  });

  test("bad tables throw a FabrikError naming the row and field", () => {
    const bad: [unknown, unknown, RegExp][] = [
      [[], {}, /rows must be a non-empty array/],
      [[{ a: NaN, alpha: 0 }], {}, /row 0 \("joint1"\): a must be a finite number, got NaN/],
      [[{ a: 1, alpha: 0, min: 1, max: -1 }], {}, /range is inverted/],
      [[{ a: 1, alpha: 0, joint: "spherical" }], {}, /joint must be "revolute" or "prismatic"/],
      [[{ a: 1, alpha: 0 }], { convention: "craig" }, /convention must be "standard" or "modified"/],
      [[{ a: 1, alpha: 0, joint: "prismatic" }], {}, /needs its range/],
      [[{ a: 0, alpha: 0 }], {}, /the arm has no length/],
      [[{ a: 1, alpha: 0, min: 0, max: 4 }], {}, /reaches more than π from the home value/],
      [[{ a: 1, alpha: 0, min: 0, max: 1 }], { home: [2] }, /home value 2 is outside/],
      [[{ a: 1, alpha: 0 }], { names: ["tool"] }, /name of row 0/],
      [[{ a: 1, alpha: 0 }], { markerDistance: 0 }, /markerDistance must be/],
      [[{ a: 1, alpha: 0 }], { toolOffset: [0, 0] }, /toolOffset must be three finite numbers/],
    ];
    for (const [rows, options, message] of bad) {
      expect(() => createRigFromDH(rows as never, options as never)).toThrowError(FabrikError);
      expect(() => createRigFromDH(rows as never, options as never)).toThrowError(message);
    }
    const arm = buildKnown(UR5);
    expect(() => dhForwardKinematics(arm, [0, 0], createPose(arm.rig))).toThrowError(
      /one joint value per row/,
    );
    expect(() => readDHJointValues(arm, createPose(arm.rig), new Float64Array(2))).toThrowError(FabrikError);
  });
});
