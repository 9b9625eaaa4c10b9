import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSkeletonRig } from "../../plugin/babylon/index.js";
import {
  HUMANOID_ROLES,
  findBodyFrame,
  findHumanoidRoles,
  humanoidLimitPreset,
  isAncestor,
  type HumanoidRole,
  type HumanoidRoles,
} from "../../plugin/rig/index.js";
import { projectRotation } from "../../plugin/solver/jointLimitProjection.js";
import {
  createJointLimits,
  setJointLimit,
  type JointLimitSpec,
  type JointLimits,
} from "../../plugin/solver/limits.js";
import { createRig, type Rig } from "../../plugin/solver/rig.js";
import {
  characterNamed,
  loadCharacter,
  noteIfMissing,
  type Character,
  type Loaded,
} from "../babylon/characters.js";
import { attach } from "../babylon/fabrikHarness.js";

type V = [number, number, number];
type Q = [number, number, number, number];
const DEG = Math.PI / 180;

// ---- small quaternion and vector helpers (x y z w, Hamilton products, a * b applies b first) ----
const mul = (a: ArrayLike<number>, b: ArrayLike<number>): Q => [
  a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
];
const conj = (a: ArrayLike<number>): Q => [-a[0], -a[1], -a[2], a[3]];
const rotate = (q: ArrayLike<number>, v: ArrayLike<number>): V => {
  const r = mul(mul(q, [v[0], v[1], v[2], 0]), conj(q));
  return [r[0], r[1], r[2]];
};
const axisAngle = (axis: V, angle: number): Q => {
  const s = Math.sin(angle / 2) / Math.hypot(...axis);
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
};
/** Angle of the rotation taking a to b (radians). */
const rotationDistance = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  const r = mul(conj(a), b);
  return 2 * Math.atan2(Math.hypot(r[0], r[1], r[2]), Math.abs(r[3]));
};
const dot = (a: V, b: V) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: V, b: V): V => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const scale = (a: V, s: number): V => [a[0] * s, a[1] * s, a[2] * s];
const unit = (a: V): V => scale(a, 1 / Math.hypot(...a));
/** a without its component along unit `axis`, normalised. */
const across = (a: V, axis: V): V => unit(sub(a, scale(axis, dot(a, axis))));
const slice3 = (a: ArrayLike<number>, j: number): V => [a[3 * j], a[3 * j + 1], a[3 * j + 2]];
const slice4 = (a: ArrayLike<number>, j: number): Q => [a[4 * j], a[4 * j + 1], a[4 * j + 2], a[4 * j + 3]];

/** The character's axes in its model space, stated independently of the code under test. */
interface Facing {
  up: V;
  left: V;
  forward: V;
}

/** A rig with its roles, its limits set from the preset, and how it faces. */
interface Subject {
  rig: Rig;
  roles: HumanoidRoles;
  preset: Map<number, JointLimitSpec>;
  limits: JointLimits;
  facing: Facing;
}

function subject(rig: Rig, facing: Facing): Subject {
  const roles = findHumanoidRoles({
    names: rig.names!,
    parents: rig.parents,
    restPositions: rig.restPositions,
  });
  const preset = humanoidLimitPreset(rig, roles);
  const limits = createJointLimits(rig);
  for (const [j, spec] of preset) setJointLimit(limits, j, spec);
  return { rig, roles, preset, limits, facing };
}

/** Model-space direction of joint j's bone, as the limits see it (toward its main child). */
function boneDirection(s: Subject, j: number): V {
  return rotate(slice4(s.rig.restOrientations, j), slice3(s.limits.boneAxis, j));
}

/**
 * Turns joint j by `r`, a rotation about the joint in model space, and projects the result on its limits.
 * Returns whether the projection changed it, and the projected turn in model space.
 */
function turn(s: Subject, j: number, r: Q): { changed: boolean; turned: Q } {
  const w = slice4(s.rig.restOrientations, j);
  // Δ = W⁻¹ R W: the model-space turn seen from the joint's rest frame.
  const delta = Float64Array.from(mul(mul(conj(w), r), w));
  const changed = projectRotation(s.limits, j, delta, 0, new Float64Array(16), 0);
  return { changed, turned: mul(mul(w, delta), conj(w)) };
}

/** The turn taking joint j's bone from its rest direction `angle` radians toward `toward`. */
function swingToward(s: Subject, j: number, toward: V, angle: number): Q {
  const b = boneDirection(s, j);
  return axisAngle(cross(b, across(toward, b)), angle);
}

/** The model-space hinge turn of joint j by `angle`, from its spec (axis in the parent's frame). */
function hingeTurn(s: Subject, j: number, angle: number): Q {
  const spec = s.preset.get(j)!.hinge!;
  const p = s.rig.parents[j];
  const axis = p >= 0 ? rotate(slice4(s.rig.restOrientations, p), spec.axis) : ([...spec.axis] as V);
  return axisAngle(axis, angle);
}

const mirror = (s: Subject, v: V): V => sub(v, scale(s.facing.left, 2 * dot(v, s.facing.left)));

// ---- the checks every humanoid must pass ----

function expectValidPreset(s: Subject): void {
  const { rig, roles, preset } = s;
  expect(preset.size).toBeGreaterThan(10);
  const roleJoints = new Set(HUMANOID_ROLES.map((r) => roles[r]).filter((j) => j !== undefined));
  if (roles.hips !== undefined) expect(preset.has(roles.hips)).toBe(false);
  const fresh = createJointLimits(rig);
  for (const [j, spec] of preset) {
    // A joint without a role is a segment: a bone between two roles (humanoidSegments.test.ts).
    const between =
      [...roleJoints].some((r) => isAncestor(rig.parents, r, j)) &&
      [...roleJoints].some((r) => isAncestor(rig.parents, j, r));
    expect(roleJoints.has(j) || between, `joint ${j} has no role and lies between none`).toBe(true);
    expect(() => setJointLimit(fresh, j, spec)).not.toThrow();
    // The rest pose (Δ = identity) is inside: no swing, no twist, hinge angle 0.
    if (spec.swing)
      for (const side of ["up", "right", "down", "left"] as const)
        expect(spec.swing[side]).toBeGreaterThan(0);
    if (spec.twist) expect(spec.twist.min <= 0 && spec.twist.max >= 0).toBe(true);
    if (spec.hinge) expect(spec.hinge.min <= 0 && spec.hinge.max >= 0).toBe(true);
    const q = Float64Array.of(0, 0, 0, 1);
    expect(projectRotation(fresh, j, q, 0, new Float64Array(16), 0), rig.names?.[j]).toBe(false);
    expect(Array.from(q)).toEqual([0, 0, 0, 1]);
  }
}

function expectBodyFrame(s: Subject): void {
  const frame = findBodyFrame(s.rig, s.roles)!;
  expect(dot(frame.up, s.facing.up)).toBeGreaterThan(0.99);
  expect(dot(frame.left, s.facing.left)).toBeGreaterThan(0.99);
  expect(dot(frame.forward, s.facing.forward)).toBeGreaterThan(0.99);
}

function limbRoles(s: Subject, part: string): [number, number] {
  const left = s.roles[`left${part}` as HumanoidRole];
  const right = s.roles[`right${part}` as HumanoidRole];
  expect(left, `left${part}`).toBeTypeOf("number");
  expect(right, `right${part}`).toBeTypeOf("number");
  return [left!, right!];
}

/** Where the tip of joint j's bone moves (a unit-length bone) when the joint turns by r. */
function tipMotion(s: Subject, j: number, r: Q, toward?: number): { before: V; after: V; moved: V } {
  const before =
    toward === undefined
      ? boneDirection(s, j)
      : unit(sub(slice3(s.rig.restPositions, toward), slice3(s.rig.restPositions, j)));
  const after = rotate(r, before);
  return { before, after, moved: sub(after, before) };
}

/** Just inside a limit: angles exactly on it may land a rounding error outside and count as clamped. */
const INSIDE = 1e-9;

function expectKneesFoldBack(s: Subject): void {
  const { forward, up } = s.facing;
  const moves: V[] = [];
  const [leftFoot, rightFoot] = limbRoles(s, "Foot");
  for (const [i, knee] of limbRoles(s, "LowerLeg").entries()) {
    const hinge = s.preset.get(knee)?.hinge;
    expect(hinge, "knee hinge").toBeDefined();
    // The shin runs from the knee to the ankle (a child-less shin too, its foot under the root at its end).
    const ankle = i === 0 ? leftFoot : rightFoot;
    // Fully folded, the ankle has gone back and up: the heel toward the buttocks.
    const folded = hingeTurn(s, knee, hinge!.max - INSIDE);
    expect(turn(s, knee, folded).changed).toBe(false);
    const { moved } = tipMotion(s, knee, folded, ankle);
    expect(dot(moved, forward)).toBeLessThan(0);
    expect(dot(moved, up)).toBeGreaterThan(0);
    moves.push(unit(moved));
    // A right angle past straight puts the shin behind the knee.
    const square = hingeTurn(s, knee, hinge!.min + 90 * DEG);
    expect(dot(tipMotion(s, knee, square, ankle).after, forward)).toBeLessThan(-0.7);
    // Past full flexion, and bending the wrong way past straight, are both clamped.
    expect(turn(s, knee, hingeTurn(s, knee, hinge!.max + 10 * DEG)).changed).toBe(true);
    expect(turn(s, knee, hingeTurn(s, knee, hinge!.min - 10 * DEG)).changed).toBe(true);
  }
  // Left and right fold as mirror images of each other.
  expect(dot(moves[0], mirror(s, moves[1]))).toBeGreaterThan(0.9);
}

function expectElbowsFoldForward(s: Subject): void {
  const { forward, up } = s.facing;
  const moves: V[] = [];
  for (const elbow of limbRoles(s, "LowerArm")) {
    const hinge = s.preset.get(elbow)?.hinge;
    expect(hinge, "elbow hinge").toBeDefined();
    const folded = hingeTurn(s, elbow, hinge!.max - INSIDE);
    expect(turn(s, elbow, folded).changed).toBe(false);
    const { after, moved } = tipMotion(s, elbow, folded);
    // The wrist ends in front of the elbow and got there by moving forward or up, never mainly backward.
    expect(dot(after, forward)).toBeGreaterThan(0.2);
    expect(dot(moved, forward) + dot(moved, up)).toBeGreaterThan(0);
    expect(dot(moved, forward)).toBeGreaterThan(-0.3 * Math.hypot(...moved));
    // Folding the other way, past straight, is clamped.
    expect(turn(s, elbow, hingeTurn(s, elbow, hinge!.min - 10 * DEG)).changed).toBe(true);
    moves.push(unit(moved));
  }
  // Rest poses of third-party rigs are not exact mirrors; the folds still agree in sense.
  expect(dot(moves[0], mirror(s, moves[1]))).toBeGreaterThan(0.7);
}

function expectShouldersReachForwardNotBack(s: Subject): void {
  const { forward, up } = s.facing;
  for (const arm of limbRoles(s, "UpperArm")) {
    expect(turn(s, arm, swingToward(s, arm, forward, 90 * DEG)).changed, "arm forward 90°").toBe(false);
    expect(turn(s, arm, swingToward(s, arm, scale(forward, -1), 90 * DEG)).changed, "arm back 90°").toBe(
      true,
    );
    // Straight up from a T-pose (90° away) or an A-pose (135°). Not from an arm hanging at rest: overhead is
    // then nearly opposite the rest direction, where a rest-centred cone's narrow back quadrant decides.
    const b = boneDirection(s, arm);
    const overhead = Math.acos(dot(b, up));
    if (overhead < 140 * DEG) {
      expect(turn(s, arm, swingToward(s, arm, up, overhead)).changed, "arm overhead").toBe(false);
    }
    // Twisting the arm about itself: 60° is fine, 120° is not.
    expect(turn(s, arm, axisAngle(b, 60 * DEG)).changed).toBe(false);
    expect(turn(s, arm, axisAngle(b, -120 * DEG)).changed).toBe(true);
  }
  for (const leg of limbRoles(s, "UpperLeg")) {
    expect(turn(s, leg, swingToward(s, leg, forward, 80 * DEG)).changed, "leg forward 80°").toBe(false);
    expect(turn(s, leg, swingToward(s, leg, scale(forward, -1), 70 * DEG)).changed, "leg back 70°").toBe(
      true,
    );
  }
}

function expectHeadNodsAndTurns(s: Subject): void {
  const { up, left } = s.facing;
  const head = s.roles.head!;
  expect(s.preset.has(head)).toBe(true);
  for (const sign of [1, -1]) {
    expect(turn(s, head, axisAngle(left, sign * 30 * DEG)).changed, "nod 30°").toBe(false);
    expect(turn(s, head, axisAngle(up, sign * 30 * DEG)).changed, "turn 30°").toBe(false);
    expect(turn(s, head, axisAngle(left, sign * 120 * DEG)).changed, "nod 120°").toBe(true);
    expect(turn(s, head, axisAngle(up, sign * 120 * DEG)).changed, "turn 120°").toBe(true);
  }
  for (const j of [s.roles.spine, s.roles.chest].filter((j) => j !== undefined && s.preset.has(j))) {
    expect(turn(s, j!, axisAngle(left, 10 * DEG)).changed).toBe(false);
    expect(turn(s, j!, axisAngle(left, 70 * DEG)).changed).toBe(true);
  }
}

function expectWristsAndAnklesStayTame(s: Subject): void {
  const { up, forward } = s.facing;
  for (const side of ["left", "right"] as const) {
    const hand = s.roles[`${side}Hand`]!;
    const forearm = boneDirection(s, s.roles[`${side}LowerArm`]!);
    // Which way the palm faces is the rig's business; any bend within the smallest side is fine.
    const bendAxes = [cross(forearm, across(up, forearm)), across(up, forearm)];
    for (const axis of bendAxes) {
      for (const sign of [1, -1]) {
        expect(turn(s, hand, axisAngle(axis, sign * 15 * DEG)).changed, "wrist 15°").toBe(false);
        expect(turn(s, hand, axisAngle(axis, sign * 100 * DEG)).changed, "wrist 100°").toBe(true);
      }
    }
    // Rolling the hand about the forearm is the forearm's job: a little is fine, a quarter turn is not.
    expect(turn(s, hand, axisAngle(forearm, 10 * DEG)).changed, "wrist roll 10°").toBe(false);
    expect(turn(s, hand, axisAngle(forearm, 90 * DEG)).changed, "wrist roll 90°").toBe(true);

    const foot = s.roles[`${side}Foot`];
    if (foot === undefined || !s.preset.has(foot)) continue;
    // Positive turns about forward × up lift the toes.
    const ankle = cross(forward, up);
    expect(turn(s, foot, axisAngle(ankle, 20 * DEG)).changed, "dorsiflexion 20°").toBe(false);
    expect(turn(s, foot, axisAngle(ankle, 60 * DEG)).changed, "dorsiflexion 60°").toBe(true);
    expect(turn(s, foot, axisAngle(ankle, -40 * DEG)).changed, "plantar flexion 40°").toBe(false);
    expect(turn(s, foot, axisAngle(ankle, -80 * DEG)).changed, "plantar flexion 80°").toBe(true);
  }
}

function expectAnatomy(s: Subject): void {
  expectBodyFrame(s);
  expectKneesFoldBack(s);
  expectElbowsFoldForward(s);
  expectShouldersReachForwardNotBack(s);
  expectHeadNodsAndTurns(s);
  expectWristsAndAnklesStayTame(s);
}

// ---- characters ----

const MANNEQUIN: Character = {
  folder: "mannequin",
  file: "mannequin.glb",
  path: fileURLToPath(new URL("../../assets/mannequin.glb", import.meta.url)),
  present: true,
};

/**
 * How each character faces in its model space (the space below the glTF `__root__`), read off the files:
 * the mannequin is generated facing +Z with its left on +X; the Cesium figures and the robot keep their
 * Blender Z-up armature space, where the toes point -Y (RiggedFigure, RobotExpressive) or +X (CesiumMan).
 */
const FACING: Record<string, Facing> = {
  mannequin: { up: [0, 1, 0], left: [1, 0, 0], forward: [0, 0, 1] },
  RiggedFigure: { up: [0, 0, 1], left: [1, 0, 0], forward: [0, -1, 0] },
  CesiumMan: { up: [0, 0, 1], left: [0, 1, 0], forward: [1, 0, 0] },
  RobotExpressive: { up: [0, 0, 1], left: [1, 0, 0], forward: [0, -1, 0] },
};

const CHARACTERS = [MANNEQUIN, ...["RiggedFigure", "CesiumMan", "RobotExpressive"].map(characterNamed)];

describe.each(CHARACTERS.filter((c) => !noteIfMissing(c)))("humanoidLimitPreset on $folder", (c) => {
  let loaded: Loaded;
  let s: Subject;
  beforeAll(async () => {
    loaded = await loadCharacter(c);
    s = subject(createRig(buildSkeletonRig(loaded.root).toRigDescription()), FACING[c.folder]);
  });
  afterAll(() => loaded?.engine.dispose());

  it("validates, and the rest pose satisfies every limit", () => expectValidPreset(s));

  it("the toes point where the test says the character faces", () => {
    const feet = (["left", "right"] as const).map((side) => [s.roles[`${side}Foot`], s.roles[`${side}Toes`]]);
    for (const [foot, toes] of feet) {
      if (foot === undefined || toes === undefined) continue;
      // The toe joint sits low at the ball of the foot, so compare only the horizontal part.
      const along = sub(slice3(s.rig.restPositions, toes), slice3(s.rig.restPositions, foot));
      expect(dot(across(along, s.facing.up), s.facing.forward)).toBeGreaterThan(0.9);
    }
  });

  it("knees fold back, elbows forward, arms reach forward not back, head nods and turns, wrists and ankles", () =>
    expectAnatomy(s));

  it.runIf(c === MANNEQUIN)("the mannequin's left and right limits mirror each other exactly", () => {
    for (const part of ["Shoulder", "UpperArm", "Hand", "UpperLeg", "Foot", "Toes"]) {
      const [l, r] = limbRoles(s, part);
      const a = s.preset.get(l)!,
        b = s.preset.get(r)!;
      // Mirroring swaps a cone's right and left, and the sense of the twist.
      expect(b.swing!.up).toBeCloseTo(a.swing!.up, 9);
      expect(b.swing!.down).toBeCloseTo(a.swing!.down, 9);
      expect(b.swing!.right).toBeCloseTo(a.swing!.left, 9);
      expect(b.twist!.min).toBeCloseTo(-a.twist!.max, 9);
    }
  });
});

describe("humanoidLimitPreset skips what it cannot place", () => {
  it("RobotExpressive: feet parented to the root (Blender IK) are left free", async (ctx) => {
    const robot = characterNamed("RobotExpressive");
    if (noteIfMissing(robot)) return ctx.skip();
    const loaded = await loadCharacter(robot);
    try {
      const s = subject(createRig(buildSkeletonRig(loaded.root).toRigDescription()), FACING.RobotExpressive);
      expect(s.roles.leftFoot).toBeTypeOf("number");
      expect(s.preset.has(s.roles.leftFoot!)).toBe(false);
      expect(s.preset.has(s.roles.rightFoot!)).toBe(false);
    } finally {
      loaded.engine.dispose();
    }
  });
});

// ---- synthetic rigs ----

interface SyntheticOptions {
  /** Arms raised this far from hanging: 90° T-pose, 45° A-pose. */
  armRaise?: number;
  /** Multiplies every position. */
  size?: number;
  /** Seed for random rest orientations; identity when absent. */
  seed?: number;
  /** Leave these joints (by name) out, with everything below them. */
  without?: string[];
}

/**
 * A humanoid in a Z-up space facing -X (its left is -Y): forward = left × up. Mixamo names; straight elbows
 * and knees, so the fold direction comes from anatomy alone, not from a rest bend.
 */
function synthetic(options: SyntheticOptions = {}): Rig {
  const { armRaise = 90 * DEG, size = 1, seed, without = [] } = options;
  const names: string[] = [];
  const parents: number[] = [];
  const positions: number[] = [];
  const add = (name: string, parent: string | null, p: V): void => {
    if (without.includes(name) || (parent !== null && !names.includes(parent))) return;
    names.push(name);
    parents.push(parent === null ? -1 : names.indexOf(parent));
    positions.push(...scale(p, size));
  };
  add("Hips", null, [0, 0, 1]);
  add("Spine", "Hips", [0, 0, 1.1]);
  add("Spine1", "Spine", [0, 0, 1.25]);
  add("Spine2", "Spine1", [0, 0, 1.4]);
  add("Neck", "Spine2", [0, 0, 1.55]);
  add("Head", "Neck", [0, 0, 1.65]);
  add("HeadTop_End", "Head", [0, 0, 1.85]);
  for (const side of ["Left", "Right"]) {
    const out: V = side === "Left" ? [0, -1, 0] : [0, 1, 0];
    const arm: V = [0, out[1] * Math.sin(armRaise), -Math.cos(armRaise)];
    const shoulder: V = [0, out[1] * 0.18, 1.5];
    const along = (k: number): V => [
      shoulder[0] + arm[0] * k,
      shoulder[1] + arm[1] * k,
      shoulder[2] + arm[2] * k,
    ];
    add(`${side}Shoulder`, "Spine2", [0, out[1] * 0.05, 1.5]);
    add(`${side}Arm`, `${side}Shoulder`, shoulder);
    add(`${side}ForeArm`, `${side}Arm`, along(0.28));
    add(`${side}Hand`, `${side}ForeArm`, along(0.54));
    add(`${side}HandMiddle1`, `${side}Hand`, along(0.64));
    add(`${side}HandMiddle4`, `${side}HandMiddle1`, along(0.72));
    add(`${side}UpLeg`, "Hips", [0, out[1] * 0.1, 0.95]);
    add(`${side}Leg`, `${side}UpLeg`, [0, out[1] * 0.1, 0.52]);
    add(`${side}Foot`, `${side}Leg`, [0, out[1] * 0.1, 0.08]);
    add(`${side}ToeBase`, `${side}Foot`, [-0.14, out[1] * 0.1, 0.02]);
    add(`${side}Toe_End`, `${side}ToeBase`, [-0.22, out[1] * 0.1, 0.02]);
  }
  let state = seed ?? 0;
  const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  const orientations: number[] = [];
  for (let i = 0; i < names.length; i++) {
    if (seed === undefined) orientations.push(0, 0, 0, 1);
    else {
      const q: Q = [random(), random(), random(), random()];
      const l = Math.hypot(...q);
      orientations.push(...q.map((v) => v / l));
    }
  }
  // Insertion order already lists every parent before its children.
  return createRig({ names, parents, restPositions: positions, restOrientations: orientations });
}

const Z_UP_FACING_MINUS_X: Facing = { up: [0, 0, 1], left: [0, -1, 0], forward: [-1, 0, 0] };

describe("humanoidLimitPreset on synthetic rigs (Z up, facing -X)", () => {
  const variants: [string, SyntheticOptions][] = [
    ["T-pose, identity rest orientations", {}],
    ["A-pose, identity rest orientations", { armRaise: 45 * DEG }],
    ["T-pose, random rest orientations (any bone-axis convention)", { seed: 7 }],
    ["A-pose, random rest orientations, 1 mm tall", { armRaise: 45 * DEG, seed: 11, size: 1e-3 }],
    ["T-pose, 1 km tall", { size: 1e3 }],
  ];
  it.each(variants)("%s: validates and reads as a human", (_, options) => {
    const s = subject(synthetic(options), Z_UP_FACING_MINUS_X);
    expectValidPreset(s);
    expectAnatomy(s);
  });

  it("the limits mean the same motions whatever the joints' rest orientations and the rig's size", () => {
    const plain = subject(synthetic(), Z_UP_FACING_MINUS_X);
    const others = [
      subject(synthetic({ seed: 3 }), Z_UP_FACING_MINUS_X),
      subject(synthetic({ seed: 5, size: 250 }), Z_UP_FACING_MINUS_X),
    ];
    let state = 17;
    const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
    for (const other of others) {
      expect([...other.preset.keys()].sort()).toEqual([...plain.preset.keys()].sort());
      for (const j of plain.preset.keys()) {
        for (let k = 0; k < 40; k++) {
          const r = axisAngle([random(), random(), random()], Math.PI * random());
          const a = turn(plain, j, r),
            b = turn(other, j, r);
          expect(b.changed, plain.rig.names![j]).toBe(a.changed);
          expect(rotationDistance(a.turned, b.turned)).toBeLessThan(1e-6);
        }
      }
    }
  });

  it("a T-pose and an A-pose reach the same anatomical arm poses", () => {
    const t = subject(synthetic(), Z_UP_FACING_MINUS_X);
    const a = subject(synthetic({ armRaise: 45 * DEG }), Z_UP_FACING_MINUS_X);
    const { up, forward, left } = Z_UP_FACING_MINUS_X;
    // Arm pointing: straight forward, straight up, hanging, 30° across the body in front, straight back.
    const targets: [V, boolean][] = [
      [forward, true],
      [up, true],
      [scale(up, -1), true],
      [unit([forward[0], -0.5 * left[1], -1]), true],
      [scale(forward, -1), false],
    ];
    for (const s of [t, a]) {
      const arm = s.roles.leftUpperArm!;
      const b = boneDirection(s, arm);
      for (const [target, allowed] of targets) {
        const r = axisAngle(cross(b, across(target, b)), Math.acos(dot(b, target)));
        expect(turn(s, arm, r).changed, `${String(target)}`).toBe(!allowed);
      }
    }
  });

  it("a mirrored model space (left on +Y, still facing -X) is read from the toes", () => {
    const rig = synthetic();
    const flipped = createRig({
      names: [...rig.names!],
      parents: rig.parents,
      restPositions: rig.restPositions.map((v, i) => (i % 3 === 1 ? -v : v)),
    });
    const s = subject(flipped, { up: [0, 0, 1], left: [0, 1, 0], forward: [-1, 0, 0] });
    expectValidPreset(s);
    expectAnatomy(s);
  });

  it("without a head the neck gives up; without arms the legs give left", () => {
    const headless = subject(synthetic({ without: ["Head"] }), Z_UP_FACING_MINUS_X);
    expect(headless.roles.head).toBeUndefined();
    expect(headless.roles.neck).toBeTypeOf("number");
    expectBodyFrame(headless);
    expectValidPreset(headless);
    const armless = subject(synthetic({ without: ["LeftShoulder", "RightShoulder"] }), Z_UP_FACING_MINUS_X);
    expect(armless.roles.leftUpperArm).toBeUndefined();
    expectBodyFrame(armless);
    expectValidPreset(armless);
    expectKneesFoldBack(armless);
  });

  it("returns nothing when no side can be told from the other", () => {
    const rig = createRig({
      names: ["Hips", "Spine", "Neck", "Head"],
      parents: [-1, 0, 1, 2],
      restPositions: [0, 0, 1, 0, 0, 1.2, 0, 0, 1.5, 0, 0, 1.6],
    });
    const roles = findHumanoidRoles({
      names: rig.names!,
      parents: rig.parents,
      restPositions: rig.restPositions,
    });
    expect(humanoidLimitPreset(rig, roles).size).toBe(0);
    expect(humanoidLimitPreset(rig, {}).size).toBe(0);
    // Roles that do not fit the rig are ignored rather than read out of bounds.
    expect(humanoidLimitPreset(rig, { ...roles, leftUpperArm: 99, rightUpperArm: -1 }).size).toBe(0);
  });
});

describe("the behavior's humanoid preset tells a quadruped's front legs from arms", () => {
  for (const [folder, armsLimited] of [
    ["Fox", false],
    ["RobotExpressive", true],
  ] as const) {
    const character = characterNamed(folder);
    it.skipIf(noteIfMissing(character))(
      `${folder}: arms ${armsLimited ? "keep their limits (its long arms still end above mid-shin)" : "are left free (paws rest below mid-shin, by world up)"}; legs are limited`,
      async () => {
        const loaded = await loadCharacter(character);
        const ik = attach(loaded);
        const flags = ik.limits!.flags;
        for (const role of ["leftUpperArm", "leftLowerArm", "rightUpperArm", "rightLowerArm"] as const) {
          const j = ik.roles[role];
          expect(j, role).toBeDefined();
          expect(flags[j!] !== 0, `${folder} ${role}`).toBe(armsLimited);
        }
        for (const role of ["leftUpperLeg", "leftLowerLeg", "rightUpperLeg", "rightLowerLeg"] as const)
          expect(flags[ik.roles[role]!], `${folder} ${role}`).not.toBe(0);
        loaded.engine.dispose();
      },
    );
  }
});
