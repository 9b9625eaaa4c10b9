import {
  createDeltaRobot,
  createPlatformPose,
  deltaForwardKinematics,
  deltaInverseKinematics,
  type DeltaRobotOptions,
  createStewartPlatform,
  stewartForwardKinematics,
  stewartInverseKinematics,
  stewartNearestReachable,
  type StewartPlatformOptions,
} from "../../plugin/index.js";
import { DELTA } from "../rig/deltaReference.js";
import { classicLayout } from "../rig/stewartReference.js";

/*
 * The bad-input rows of parallel mechanisms (Stewart–Gough platforms, delta robots), in the shape of badInput.test.ts's
 * rows, which runs them and writes them into docs/errors.md.
 */

export interface ParallelRow {
  readonly api: string;
  readonly input: string;
  readonly result: string;
  readonly option?: string;
  readonly call: () => unknown;
  readonly state: () => string;
}

/** Stable text of the values a call could change: typed arrays as arrays, NaN and ±Infinity spelled out. */
function text(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => {
    if (typeof v === "number" && !Number.isFinite(v)) return String(v);
    if (ArrayBuffer.isView(v))
      return Array.from(v as unknown as ArrayLike<number>, (x) => (Number.isFinite(x) ? x : String(x)));
    return v;
  });
}

const layout = classicLayout();
const options = (): StewartPlatformOptions => ({
  baseAnchors: layout.base.slice(),
  platformAnchors: layout.top.slice(),
  minLength: 0.9,
  maxLength: 1.6,
});
const platform = createStewartPlatform(options());
const lengths = new Float64Array(6);
stewartInverseKinematics(platform, platform.home, lengths);
const pose = createPlatformPose(platform.home.position, platform.home.orientation);
const state = () => text([pose, lengths, platform]);

/** A createStewartPlatform row: `change` spoils a fresh valid description. */
const build = (change: (o: Record<string, unknown>) => unknown) => {
  const o = options() as unknown as Record<string, unknown>;
  change(o);
  return { call: () => createStewartPlatform(o as never), state: () => text(o) };
};
const WHO = "`createStewartPlatform`";

export const PARALLEL_ROWS: ParallelRow[] = [
  {
    api: WHO,
    input: "`baseAnchors` or `platformAnchors` not 18 numbers (x y z for each of 6 legs)",
    result: "createStewartPlatform: baseAnchors must hold 18 numbers (17)",
    option: "baseAnchors",
    ...build((o) => (o.baseAnchors as number[]).pop()),
  },
  {
    api: WHO,
    input: "an anchor coordinate NaN, ±Infinity or not a number",
    result: "createStewartPlatform: platformAnchors[4] is not a finite number (NaN)",
    option: "platformAnchors",
    ...build((o) => ((o.platformAnchors as number[])[4] = NaN)),
  },
  {
    api: WHO,
    input: "two legs' anchors on one point",
    result: "createStewartPlatform: baseAnchors of legs 0 and 1 coincide; each leg needs its own joint",
    option: "baseAnchors",
    ...build((o) => (o.baseAnchors as number[]).splice(3, 3, ...layout.base.slice(0, 3))),
  },
  {
    api: WHO,
    input: "platform anchors all on one line",
    result:
      "createStewartPlatform: platformAnchors lie on one line, so the platform could turn about it freely",
    option: "platformAnchors",
    ...build((o) => (o.platformAnchors = Array.from({ length: 18 }, (_, i) => (i % 3 === 0 ? i / 10 : 0)))),
  },
  {
    api: WHO,
    input: "`minLength` or `maxLength` ≤ 0 (a leg of no length), not finite, or a list not one per leg",
    result: "createStewartPlatform: minLength of leg 0 must be a finite number > 0, got 0",
    option: "minLength",
    ...build((o) => (o.minLength = 0)),
  },
  {
    api: WHO,
    input: "a leg's range with `minLength` > `maxLength`",
    result: "createStewartPlatform: leg 4's range is inverted, minLength 1.7 > maxLength 1.6",
    option: "minLength",
    ...build((o) => (o.minLength = [0.9, 0.9, 0.9, 0.9, 1.7, 0.9])),
  },
  {
    api: WHO,
    input: "a `home` pose with a leg outside its range",
    result:
      "createStewartPlatform: at the home pose leg 0 is … long, outside its range [0.9, 1.6]; give a home pose where every leg is in range",
    option: "home",
    ...build((o) => (o.home = { position: [0, 0, 3] })),
  },
  {
    api: "`createStewartPlatform` and every call taking a pose",
    input: "a pose whose orientation has length 0 (or any pose number not finite)",
    result: "createStewartPlatform: home.orientation must be a quaternion (x y z w), got one of length 0",
    option: "home.orientation",
    ...build((o) => (o.home = { position: [0, 0, 1], orientation: [0, 0, 0, 0] })),
  },
  {
    api: "`stewartForwardKinematics`",
    input: "`lengths` not one finite number per leg",
    result: "stewartForwardKinematics: lengths must hold 6 numbers (5)",
    option: "lengths",
    call: () => stewartForwardKinematics(platform, lengths.subarray(1), pose),
    state,
  },
  {
    api: "`stewartForwardKinematics`",
    input: "a leg length ≤ 0",
    result: "stewartForwardKinematics: length of leg 2 must be > 0, got 0",
    option: "lengths",
    call: () => stewartForwardKinematics(platform, [1, 1, 0, 1, 1, 1], pose),
    state,
  },
  {
    api: "`stewartForwardKinematics`",
    input: "a start pose that is not typed arrays of 3 and 4 (it is written to)",
    result:
      "stewartForwardKinematics: pose must be a platform pose (position a Float64Array of 3, orientation of 4), as createPlatformPose makes",
    option: "pose",
    call: () =>
      stewartForwardKinematics(platform, lengths, {
        position: [0, 0, 1],
        orientation: [0, 0, 0, 1],
      } as never),
    state,
  },
  {
    api: "`stewartForwardKinematics`",
    input: "a start pose holding NaN",
    result: "stewartForwardKinematics: pose.position[1] is not a finite number (NaN)",
    option: "pose.position",
    call: () => stewartForwardKinematics(platform, lengths, createPoseWithNaN()),
    state,
  },
  {
    api: "`stewartForwardKinematics`, `stewartNearestReachable`",
    input: "`tolerance` not > 0, `maxIterations` not a whole number ≥ 1, `accelerate` not a boolean",
    result: "stewartForwardKinematics: tolerance must be a finite number > 0, got 0",
    option: "tolerance",
    call: () => stewartForwardKinematics(platform, lengths, pose, { tolerance: 0 }),
    state,
  },
  {
    api: "`stewartInverseKinematics`",
    input: "`out` not a `Float64Array` of one length per leg",
    result: "stewartInverseKinematics: out must be a Float64Array of 6 leg lengths",
    option: "out",
    call: () => stewartInverseKinematics(platform, pose, new Float64Array(5)),
    state,
  },
  {
    api: "`stewartInverseKinematics` and the other Stewart calls",
    input: "a platform not made by `createStewartPlatform` (e.g. a copy)",
    result: "stewartInverseKinematics: platform must come from createStewartPlatform",
    option: "platform",
    call: () => stewartInverseKinematics({ ...platform }, pose, lengths),
    state,
  },
  {
    api: "`stewartNearestReachable`",
    input: "`out` not a platform pose",
    result:
      "stewartNearestReachable: out must be a platform pose (position a Float64Array of 3, orientation of 4), as createPlatformPose makes",
    option: "out",
    call: () => stewartNearestReachable(platform, pose, {} as never),
    state,
  },
];

const robot = createDeltaRobot(DELTA);
const angles = robot.homeAngles.slice();
const position = robot.home.slice();
const deltaState = () => text([angles, position, robot]);
const delta = (change: Partial<Record<keyof DeltaRobotOptions, unknown>>) => {
  const o = { ...DELTA, ...change };
  return { call: () => createDeltaRobot(o as never), state: () => text(o) };
};

export const DELTA_ROWS: ParallelRow[] = [
  {
    api: "`createDeltaRobot`",
    input: "`baseRadius`, `upperArm` or `forearm` not a finite number > 0 (`platformRadius` ≥ 0)",
    result: "createDeltaRobot: forearm must be a finite number > 0, got 0",
    option: "forearm",
    ...delta({ forearm: 0 }),
  },
  {
    api: "`createDeltaRobot`",
    input: "a motor range with `minAngle` > `maxAngle`, or not finite",
    result: "createDeltaRobot: arm 1's range is inverted, minAngle 1 > maxAngle 0.5",
    option: "minAngle",
    ...delta({ minAngle: [0, 1, 0], maxAngle: 0.5 }),
  },
  {
    api: "`createDeltaRobot`",
    input: "two arms in one direction (`armAngles`)",
    result: "createDeltaRobot: armAngles of arms 0 and 2 coincide; the arms need three directions",
    option: "armAngles",
    ...delta({ armAngles: [0, 2, 2 * Math.PI] }),
  },
  {
    api: "`createDeltaRobot`",
    input: "a home angle outside its range",
    result:
      "createDeltaRobot: home angle of arm 0 (2) is outside its range [-1.0471975511965976, 1.5707963267948966]",
    option: "home",
    ...delta({ home: [2, 0, 0] }),
  },
  {
    api: "`createDeltaRobot`",
    input: "forearms too short to meet at the home angles",
    result:
      "createDeltaRobot: at the home angles the forearms cannot reach one platform centre (closest miss …); check the lengths or give other home angles",
    option: "home",
    ...delta({ forearm: 0.05 }),
  },
  {
    api: "`deltaForwardKinematics`",
    input: "`angles` not three finite numbers",
    result: "deltaForwardKinematics: angles[1] is not a finite number (NaN)",
    option: "angles",
    call: () => deltaForwardKinematics(robot, [0, NaN, 0], position),
    state: deltaState,
  },
  {
    api: "`deltaForwardKinematics`",
    input: "a start `position` that is not a `Float64Array` of 3 (it is written to)",
    result: "deltaForwardKinematics: position must be a Float64Array of 3",
    option: "position",
    call: () => deltaForwardKinematics(robot, angles, [0, 0, -1] as never),
    state: deltaState,
  },
  {
    api: "`deltaInverseKinematics`",
    input: "`out` not a `Float64Array` of 3",
    result: "deltaInverseKinematics: out must be a Float64Array of 3 motor angles",
    option: "out",
    call: () => deltaInverseKinematics(robot, position, new Float64Array(2)),
    state: deltaState,
  },
  {
    api: "`deltaInverseKinematics`, `deltaForwardKinematics`",
    input: "a robot not made by `createDeltaRobot`",
    result: "deltaInverseKinematics: robot must come from createDeltaRobot",
    option: "robot",
    call: () => deltaInverseKinematics({ ...robot }, position, angles),
    state: deltaState,
  },
];

function createPoseWithNaN() {
  const p = createPlatformPose();
  p.position[1] = NaN;
  return p;
}
