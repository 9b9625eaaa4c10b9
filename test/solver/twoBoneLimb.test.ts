import { describe, expect, it } from "vitest";
import {
  compilePlan,
  createJointLimits,
  createPose,
  createRig,
  setJointLimit,
  solvePlan,
  type SolvePlan,
} from "../../plugin/index.js";
import { projectRotation } from "../../plugin/solver/jointLimitProjection.js";
import { quatRotate } from "../../plugin/solver/quaternion.js";
import { placeTwoBoneLimb } from "../../plugin/solver/twoBoneLimb.js";

/*
 * The closed-form two-bone limb on an arm limited as the humanoid preset limits one: the elbow's hinge runs
 * from straight, the end of its range, to folded. A character's arm is rarely exactly straight at rest (this
 * one bends 9°) nor laid along an axis (this one is turned in space), so the straight bend the limb computes
 * from a target and the end of the hinge's range agree only to rounding. On a branched body the passes
 * leave such an arm wherever they push it when the closed form refuses (a shoulder's twist rolling from one
 * end of its range to the other between frames), so the closed form must answer on either side of straight.
 */

type Vec = [number, number, number];

const DEGREE = Math.PI / 180;
const UPPER = 0.27,
  LOWER = 0.25,
  REST_BEND = 9 * DEGREE;

/** The whole arm's turn in space: 0.7 rad about the unit axis (0.48, 0.6, 0.64). */
const TILT = Float64Array.of(
  0.48 * Math.sin(0.35),
  0.6 * Math.sin(0.35),
  0.64 * Math.sin(0.35),
  Math.cos(0.35),
);
const tilt = (v: Vec): Vec => {
  const out = new Float64Array(3);
  quatRotate(out, 0, TILT, 0, Float64Array.from(v), 0);
  return [out[0], out[1], out[2]];
};

/** Chest, shoulder, elbow, wrist, the forearm bent forward at rest, the whole arm turned in space. */
const POINTS: Vec[] = (
  [
    [0, 1.4, 0],
    [0.16, 1.4, 0],
    [0.16 + UPPER, 1.4, 0],
    [0.16 + UPPER + LOWER * Math.cos(REST_BEND), 1.4, LOWER * Math.sin(REST_BEND)],
  ] as Vec[]
).map(tilt);

/** The arm planned for its hand, its elbow's hinge starting `straightEnd` radians past straight. */
function arm(straightEnd: number): SolvePlan {
  const rig = createRig({
    parents: [-1, 0, 1, 2],
    restPositions: POINTS.flat(),
    names: ["chest", "upperArm", "forearm", "hand"],
  });
  const limits = createJointLimits(rig);
  setJointLimit(limits, 1, {
    swing: { up: 2.6, right: 2.6, down: 2.6, left: 2.6, upAxis: tilt([0, 1, 0]) },
    twist: { min: -80 * DEGREE, max: 80 * DEGREE },
  });
  // The forearm folds toward forward; its rest bend is already REST_BEND of that.
  setJointLimit(limits, 2, {
    hinge: { axis: tilt([0, -1, 0]), min: -REST_BEND + straightEnd, max: 150 * DEGREE - REST_BEND },
  });
  return compilePlan(rig, { effectors: [{ joint: "hand", chainLength: 2 }], limits });
}

describe("two-bone limb at the straight end of its hinge", () => {
  for (const [label, straightEnd] of [
    ["a hair short of straight", 1e-10],
    ["exactly at straight", 0],
    ["a hair past straight", -1e-10],
  ] as const) {
    it(`out of reach, straight toward the target, its hinge's end ${label}`, () => {
      const plan = arm(straightEnd);
      const rest = createPose(plan.rig);
      const pose = createPose(plan.rig);
      const target = new Float64Array(3);
      const shoulder = POINTS[1];
      // One solve from the rest pose leaves the solve's inputs (the given pose, the limits' flags) in place.
      solvePlan(plan, pose, Float64Array.from(POINTS[3]));
      let placed = 0,
        tried = 0,
        offLine = 0;
      for (let k = 0; k < 200; k++) {
        // Directions spread by golden angles within 115° of the arm at rest (its swing limit is 149°), 5–30 %
        // beyond reach.
        const z = 1 - (2 * (k + 0.5)) / 200,
          r = Math.sqrt(1 - z * z),
          phi = k * 2.399963229728653;
        if (r * Math.cos(phi) < -0.42) continue;
        const dir = tilt([r * Math.cos(phi), z, r * Math.sin(phi)]);
        const d = (UPPER + LOWER) * (1.05 + 0.25 * ((k * 0.618034) % 1));
        for (let i = 0; i < 3; i++) target[i] = shoulder[i] + d * dir[i];
        pose.positions.set(rest.positions);
        pose.orientations.set(rest.orientations);
        tried++;
        if (!placeTwoBoneLimb(plan, 0, pose.positions, pose.orientations, target)) continue;
        placed++;
        const p = pose.positions;
        const h: Vec = [p[9] - shoulder[0], p[10] - shoulder[1], p[11] - shoulder[2]];
        const reach = Math.hypot(...h);
        const toward = (h[0] * dir[0] + h[1] * dir[1] + h[2] * dir[2]) / reach;
        offLine = Math.max(offLine, Math.abs(reach - (UPPER + LOWER)), 1 - toward);
      }
      expect(placed).toBe(tried);
      expect(offLine).toBeLessThan(1e-9);
    });
  }
});

/*
 * A straight leg's swivel only rolls the thigh about its own line, so every swivel has the thigh's swing of
 * the pose the target came from: when that pose lies on the swing limit's boundary (as a pose clamped to its
 * limits does), every swivel lies on it too, inside or outside by rounding alone. The closed form must then
 * still take the least turn from the given pose, as it does with the limit a hair wider.
 */
describe("two-bone limb whose target comes from a pose on its root's swing limit", () => {
  /** Hips, thigh, shin, foot: a straight leg down -Y, the knee folding backward from straight. */
  function leg(wider: number): SolvePlan {
    const rig = createRig({
      parents: [-1, 0, 1, 2],
      restPositions: [0, 1, 0, 0.1, 0.95, 0, 0.1, 0.52, 0, 0.1, 0.1, 0],
      names: ["hips", "thigh", "shin", "foot"],
    });
    const limits = createJointLimits(rig);
    setJointLimit(limits, 1, {
      swing: { up: 1.9 + wider, right: 0.6 + wider, down: 0.4 + wider, left: 0.9 + wider, upAxis: [0, 0, 1] },
      twist: { min: -0.7, max: 0.7 },
    });
    setJointLimit(limits, 2, { hinge: { axis: [1, 0, 0], min: 0, max: 2.6 } });
    return compilePlan(rig, { effectors: [{ joint: "foot", chainLength: 2 }], limits });
  }

  it("takes the same swivel as with the limit a hair wider", () => {
    const exact = leg(0),
      wider = leg(1e-7);
    const rest = createPose(exact.rig);
    const poses = [createPose(exact.rig), createPose(wider.rig)];
    const swing = new Float64Array(4),
      scratch = new Float64Array(16),
      toFoot = Float64Array.of(0, -0.85, 0),
      target = new Float64Array(3);
    for (const plan of [exact, wider]) solvePlan(plan, createPose(plan.rig), Float64Array.of(0.1, 0.1, 0));
    let largest = 0;
    for (let k = 0; k < 120; k++) {
      // The thigh swung 2 rad toward a direction around the bone, clamped onto its limit; the leg straight,
      // the target at the foot or up to 10 % beyond.
      const around = (2 * Math.PI * k) / 120;
      const ax = Math.cos(around),
        az = Math.sin(around);
      swing.set([Math.sin(1) * ax, 0, Math.sin(1) * az, Math.cos(1)]);
      projectRotation(exact.limits, 1, swing, 0, scratch, 0);
      quatRotate(target, 0, swing, 0, toFoot, 0);
      const beyond = 1 + 0.1 * ((k * 0.618034) % 1);
      for (let i = 0; i < 3; i++) target[i] = rest.positions[3 + i] + beyond * target[i];
      [exact, wider].forEach((plan, i) => {
        poses[i].positions.set(rest.positions);
        poses[i].orientations.set(rest.orientations);
        expect(placeTwoBoneLimb(plan, 0, poses[i].positions, poses[i].orientations, target)).toBe(true);
      });
      const a = poses[0].orientations,
        b = poses[1].orientations;
      const dot = Math.abs(a[4] * b[4] + a[5] * b[5] + a[6] * b[6] + a[7] * b[7]);
      largest = Math.max(largest, 2 * Math.acos(Math.min(1, dot)));
    }
    expect(largest).toBeLessThan(1e-5);
  });
});

/*
 * A middle joint limited by swing and twist (not a hinge) bends in the plane it bent in as given. When the
 * target's pose bent it to the edge of its swing limit, the bend the closed form computes lies on that edge,
 * inside or outside by rounding alone; it must be placed all the same.
 */
describe("two-bone limb whose target bends its middle joint to its swing limit", () => {
  /** Shoulder, upper arm, forearm, hand: the elbow bent 20° at rest; it may bend 50° more each way. */
  function limb(wider: number): SolvePlan {
    const bend = 20 * DEGREE;
    const rig = createRig({
      parents: [-1, 0, 1, 2],
      restPositions: [
        0,
        0,
        0,
        0.15,
        0,
        0,
        0.45,
        0,
        0,
        0.45 + 0.28 * Math.cos(bend),
        0,
        0.28 * Math.sin(bend),
      ],
      names: ["shoulder", "upperArm", "forearm", "hand"],
    });
    const limits = createJointLimits(rig);
    setJointLimit(limits, 1, {
      swing: { up: 2, right: 2, down: 2, left: 2, upAxis: [0, 1, 0] },
      twist: { min: -1, max: 1 },
    });
    const cone = 50 * DEGREE + wider;
    setJointLimit(limits, 2, {
      swing: { up: cone, right: cone, down: cone, left: cone, upAxis: [0, 1, 0] },
      twist: { min: -0.5, max: 0.5 },
    });
    return compilePlan(rig, { effectors: [{ joint: "hand", chainLength: 2 }], limits });
  }

  it("places the limb, as with the limit a hair wider", () => {
    const exact = limb(0),
      wider = limb(1e-7);
    const rest = createPose(exact.rig);
    const poses = [createPose(exact.rig), createPose(wider.rig)];
    for (const plan of [exact, wider]) solvePlan(plan, createPose(plan.rig), Float64Array.of(0.7, 0, 0.1));
    const target = new Float64Array(3);
    let largest = 0;
    for (let k = 0; k < 60; k++) {
      // The hand where the arm puts it with the elbow bent to the edge of its cone, either way in its plane,
      // the upper arm turned about the arm's line.
      const edge = (k % 2 === 0 ? 1 : -1) * 50 * DEGREE + 20 * DEGREE;
      const along = 0.3 + 0.28 * Math.cos(edge),
        across = 0.28 * Math.sin(edge);
      const roll = (2 * Math.PI * k) / 60;
      target.set([0.15 + along, across * Math.sin(roll), across * Math.cos(roll)]);
      [exact, wider].forEach((plan, i) => {
        poses[i].positions.set(rest.positions);
        poses[i].orientations.set(rest.orientations);
        expect(placeTwoBoneLimb(plan, 0, poses[i].positions, poses[i].orientations, target)).toBe(true);
      });
      for (let j = 1; j <= 2; j++) {
        const a = poses[0].orientations,
          b = poses[1].orientations;
        let dot = 0;
        for (let i = 0; i < 4; i++) dot += a[4 * j + i] * b[4 * j + i];
        largest = Math.max(largest, 2 * Math.acos(Math.min(1, Math.abs(dot))));
      }
    }
    expect(largest).toBeLessThan(1e-5);
  });
});
