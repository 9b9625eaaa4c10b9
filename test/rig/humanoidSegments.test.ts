import { describe, expect, it } from "vitest";
import {
  compilePlan,
  createJointLimits,
  createPose,
  createRig,
  findHumanoidRoles,
  humanoidLimitPreset,
  setJointLimit,
  solvePlan,
  type HumanoidRoles,
  type Rig,
} from "../../plugin/index.js";
import { axisAngle, conj, mul } from "../solver/limitChecks.js";
import { random } from "../babylon/fabrikHarness.js";
import { rigifyJoints, type Vec3 } from "./rigifyLayout.js";

/*
 * Limbs and spines made of more bones than their roles (Rigify's DEF-upper_arm.L.001, Daz Genesis' twist
 * bones, Unreal 5's spine_02): the preset limits the bones between two roles, so an arm reaching from a
 * straight T-pose bends at its elbow, never in the middle of its upper arm or forearm.
 */

type V = Vec3;

/** A rig built joint by joint, each placed in model space under a parent named before it. */
function rigBuilder(): { add: (name: string, parent: string | null, p: V) => void; rig: () => Rig } {
  const names: string[] = [];
  const parents: number[] = [];
  const positions: number[] = [];
  return {
    add: (name, parent, p) => {
      names.push(name);
      parents.push(parent === null ? -1 : names.indexOf(parent));
      positions.push(...p);
    },
    rig: () => createRig({ names, parents, restPositions: positions }),
  };
}

/** A Rigify-style deforming skeleton in a T-pose (Y up, facing +Z, its left along +X), in metres. */
function segmentedHumanoid(): Rig {
  const { add, rig } = rigBuilder();
  for (const [name, parent, at] of rigifyJoints()) add(name, parent, at);
  return rig();
}

/** The first child of joint j (these limbs have one). */
const childOf = (rig: Rig, j: number): number => rig.children[rig.childStart[j]];

function rolesOf(rig: Rig): HumanoidRoles {
  return findHumanoidRoles({ names: rig.names!, parents: rig.parents, restPositions: rig.restPositions });
}

const SEGMENTS = ["DEF-upper_arm.L.001", "DEF-forearm.L.001", "DEF-thigh.L.001", "DEF-shin.L.001"];

/** Angle (radians) by which joint j's local rotation turns its bone (toward `child`) away from its rest direction. */
function swing(rig: Rig, orientations: Float64Array, j: number, child: number): number {
  const p = rig.parents[j];
  const local = mul(conj(orientations.subarray(4 * p, 4 * p + 4)), orientations.subarray(4 * j, 4 * j + 4));
  const r = rig.restPositions;
  const axis = [0, 1, 2].map((i) => r[3 * child + i] - r[3 * j + i]);
  const n = Math.hypot(...axis);
  const v = mul(mul(local, [...axis, 0]), conj(local));
  return Math.acos(Math.min(1, (v[0] * axis[0] + v[1] * axis[1] + v[2] * axis[2]) / (n * n)));
}

describe("humanoid preset on limbs and spines with segment bones", () => {
  it("limits every bone between two roles: a limb's segment is rigid, a spine's bends as its role", () => {
    const rig = segmentedHumanoid();
    const roles = rolesOf(rig);
    expect(rig.names![roles.leftUpperArm!]).toBe("DEF-upper_arm.L");
    expect(rig.names![roles.leftLowerArm!]).toBe("DEF-forearm.L");
    const presets = humanoidLimitPreset(rig, roles, { up: [0, 1, 0] });
    for (const name of SEGMENTS) {
      expect(presets.get(rig.names!.indexOf(name)), name).toEqual({ fixed: true });
    }
    const neckSegment = presets.get(rig.names!.indexOf("DEF-spine.005"));
    expect(neckSegment?.swing ?? neckSegment?.twist).toBeDefined();
  });

  it("an arm reaching from its straight T-pose bends at the elbow only, and meets its targets", () => {
    const rig = segmentedHumanoid();
    const roles = rolesOf(rig);
    const limits = createJointLimits(rig);
    const presets = humanoidLimitPreset(rig, roles, { up: [0, 1, 0] });
    for (const [j, spec] of presets) setJointLimit(limits, j, spec);
    const hand = roles.leftHand!,
      shoulder = roles.leftShoulder!,
      upper = roles.leftUpperArm!,
      elbow = roles.leftLowerArm!;
    let chainLength = 0;
    for (let j = hand; j !== shoulder; j = rig.parents[j]) chainLength++;
    const plan = compilePlan(rig, { effectors: [{ joint: hand, chainLength }], limits });
    const hinge = presets.get(elbow)!.hinge!;
    const rand = random(7);
    let met = 0,
      largest = 0;
    const tries = 200;
    for (let t = 0; t < tries; t++) {
      // A pose the arm can take: the upper arm swung forward and down, the elbow bent its own way.
      const a = rand() * 1.2,
        b = rand() * 0.9;
      const bend = hinge.min + 0.1 + rand() * Math.min(1.8, hinge.max - hinge.min - 0.2);
      const turn: Record<number, number[]> = {
        [upper]: mul(axisAngle([0, 1, 0], -a), axisAngle([0, 0, 1], -b)),
        [elbow]: axisAngle(hinge.axis, bend),
      };
      const o = new Map<number, number[]>();
      const p = new Map<number, number[]>();
      const r = rig.restPositions;
      for (let j = shoulder; ; j = childOf(rig, j)) {
        const parent = rig.parents[j];
        const po = o.get(parent) ?? [0, 0, 0, 1];
        const offset = [0, 1, 2].map((i) => r[3 * j + i] - r[3 * parent + i]);
        const v = mul(mul(po, [...offset, 0]), conj(po));
        const pp = p.get(parent) ?? [r[3 * parent], r[3 * parent + 1], r[3 * parent + 2]];
        p.set(
          j,
          [0, 1, 2].map((i) => pp[i] + v[i]),
        );
        o.set(j, mul(po, turn[j] ?? [0, 0, 0, 1]));
        if (j === hand) break;
      }
      const pose = createPose(rig);
      const report = solvePlan(plan, pose, new Float64Array(p.get(hand)!), {});
      if (report.converged) met++;
      for (const name of ["DEF-upper_arm.L.001", "DEF-forearm.L.001"]) {
        const j = rig.names!.indexOf(name);
        largest = Math.max(largest, swing(rig, pose.orientations, j, childOf(rig, j)));
      }
    }
    expect(largest).toBeLessThan(1e-6);
    expect(met).toBe(tries);
  });
});

describe("a leg split into more bones than roles", () => {
  it("folds at its knee, forward, its segments straight, as the hips come down a quarter of the leg", () => {
    const rig = segmentedHumanoid();
    const names = rig.names!;
    const roles = rolesOf(rig);
    const limits = createJointLimits(rig);
    for (const [j, spec] of humanoidLimitPreset(rig, roles, { up: [0, 1, 0] }))
      setJointLimit(limits, j, spec);
    const foot = roles.leftFoot!,
      thigh = roles.leftUpperLeg!,
      knee = roles.leftLowerLeg!;
    let chainLength = 0;
    for (let j = foot; j !== thigh; j = rig.parents[j]) chainLength++;
    const plan = compilePlan(rig, { effectors: [{ joint: foot, chainLength }], limits });
    // The hips coming down is the foot's target coming up toward the hip, the leg's frame held.
    const r = rig.restPositions;
    const leg = r[3 * thigh + 1] - r[3 * foot + 1];
    let pose = createPose(rig);
    let met = 0,
      largest = 0,
      kneeBack = 0;
    const frames = 60;
    for (let f = 1; f <= frames; f++) {
      const target = new Float64Array([
        r[3 * foot],
        r[3 * foot + 1] + (0.25 * leg * f) / frames,
        r[3 * foot + 2],
      ]);
      // Each frame from the straight rest pose, as a body whose legs start from their animation solves.
      pose = createPose(rig);
      if (solvePlan(plan, pose, target, {}).converged) met++;
      // The knee ahead of the hip–foot line (+Z is forward), never behind it.
      if (pose.positions[3 * knee + 2] < -1e-9) kneeBack++;
      for (const name of ["DEF-thigh.L.001", "DEF-shin.L.001"]) {
        const j = names.indexOf(name);
        const o = pose.orientations,
          q = rig.parents[j];
        const local = mul(conj(o.subarray(4 * q, 4 * q + 4)), o.subarray(4 * j, 4 * j + 4));
        largest = Math.max(
          largest,
          2 * Math.atan2(Math.hypot(local[0], local[1], local[2]), Math.abs(local[3])),
        );
      }
    }
    expect(met).toBe(frames);
    expect(kneeBack).toBe(0);
    expect(pose.positions[3 * knee + 2]).toBeGreaterThan(0.1 * leg);
    expect(largest).toBeLessThan(1e-9);
  });
});

/** An Unreal 5 mannequin's skeleton in a T-pose (Y up, facing +Z), its spine of five bones, neck of two. */
function unrealHumanoid(): Rig {
  const { add, rig } = rigBuilder();
  add("root", null, [0, 0, 0]);
  add("pelvis", "root", [0, 1, 0]);
  UNREAL_SPINE.forEach(([name, y], i) => add(name, i === 0 ? "pelvis" : UNREAL_SPINE[i - 1][0], [0, y, 0]));
  for (const [s, x] of [
    ["l", 1],
    ["r", -1],
  ] as const) {
    add(`clavicle_${s}`, "spine_05", [0.03 * x, 1.45, 0]);
    add(`upperarm_${s}`, `clavicle_${s}`, [0.17 * x, 1.45, 0]);
    add(`lowerarm_${s}`, `upperarm_${s}`, [0.45 * x, 1.45, 0]);
    add(`hand_${s}`, `lowerarm_${s}`, [0.7 * x, 1.45, 0]);
    add(`thigh_${s}`, "pelvis", [0.1 * x, 0.95, 0]);
    add(`calf_${s}`, `thigh_${s}`, [0.1 * x, 0.5, 0]);
    add(`foot_${s}`, `calf_${s}`, [0.1 * x, 0.08, 0]);
    add(`ball_${s}`, `foot_${s}`, [0.1 * x, 0.02, 0.12]);
  }
  return rig();
}

const UNREAL_SPINE: [string, number][] = [
  ["spine_01", 1.05],
  ["spine_02", 1.13],
  ["spine_03", 1.21],
  ["spine_04", 1.3],
  ["spine_05", 1.4],
  ["neck_01", 1.52],
  ["neck_02", 1.57],
  ["head", 1.62],
];

describe("humanoid preset on a spine with more bones than roles", () => {
  it("a head reaching down the spine bends spine_02 and spine_03 within the spine's range", () => {
    const rig = unrealHumanoid();
    const names = rig.names!;
    const roles = rolesOf(rig);
    expect(names[roles.spine!]).toBe("spine_01");
    expect(names[roles.chest!]).toBe("spine_04");
    const limits = createJointLimits(rig);
    for (const [j, spec] of humanoidLimitPreset(rig, roles, { up: [0, 1, 0] }))
      setJointLimit(limits, j, spec);
    const plan = compilePlan(rig, { effectors: [{ joint: names.indexOf("head"), chainLength: 7 }], limits });
    const rand = random(3);
    let met = 0,
      largest = 0;
    const tries = 200;
    for (let t = 0; t < tries; t++) {
      // The roles' joints bend forward or back and sideways within the spine's and neck's ranges.
      const turn: Record<string, number[]> = {};
      for (const name of ["spine_01", "spine_04", "spine_05", "neck_01"])
        turn[name] = mul(
          axisAngle([1, 0, 0], (rand() * 2 - 1) * 0.35),
          axisAngle([0, 0, 1], (rand() * 2 - 1) * 0.2),
        );
      let o = [0, 0, 0, 1],
        p = [0, UNREAL_SPINE[0][1], 0];
      for (let i = 1; i < UNREAL_SPINE.length; i++) {
        o = mul(o, turn[UNREAL_SPINE[i - 1][0]] ?? [0, 0, 0, 1]);
        const v = mul(mul(o, [0, UNREAL_SPINE[i][1] - UNREAL_SPINE[i - 1][1], 0, 0]), conj(o));
        p = [p[0] + v[0], p[1] + v[1], p[2] + v[2]];
      }
      const pose = createPose(rig);
      if (solvePlan(plan, pose, new Float64Array(p), {}).converged) met++;
      for (const name of ["spine_02", "spine_03"]) {
        const j = names.indexOf(name),
          q = rig.parents[j];
        const o = pose.orientations;
        const local = mul(conj(o.subarray(4 * q, 4 * q + 4)), o.subarray(4 * j, 4 * j + 4));
        largest = Math.max(largest, 2 * Math.acos(Math.min(1, Math.abs(local[3]))));
      }
    }
    // Free, a segment took up to 55° (the spine folding at it); the spine's range is 25° at most.
    expect(largest).toBeLessThan((25.01 * Math.PI) / 180);
    expect(met).toBe(tries);
  });
});
