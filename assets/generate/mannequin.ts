import type { Document } from "@gltf-transform/core";
import { sampleClip, type Pose } from "./animation.js";
import { buildCharacter } from "./character.js";
import {
  X,
  Y,
  Z,
  addScaled,
  cross,
  degrees,
  normalize,
  quatFromAxisAngle,
  rotate,
  scale,
  sub,
  type Vec3,
} from "./math.js";
import { SkeletonBuilder, type Skeleton } from "./skeleton.js";
import { SkinnedMeshBuilder, type Station } from "./skinnedMesh.js";

/**
 * A 1.75 m humanoid in A-pose (arms 45° down), facing +Z, with the 65 joints of the Mixamo skeleton
 * named without the `mixamorig:` prefix, so humanoid-role recognition written for real rigs finds them.
 * Left is +X (the character's own left when it faces +Z).
 */

const SIDES = [
  { prefix: "Left", s: 1 },
  { prefix: "Right", s: -1 },
] as const;

const ARM_DOWN = degrees(45);

interface Finger {
  readonly name: "Index" | "Middle" | "Ring" | "Pinky";
  /** Knuckle distance from the wrist along the hand, and offset toward the thumb side (+Z). */
  readonly knuckle: number;
  readonly across: number;
  /** Spread away from the middle finger, as a fraction of the hand's direction. */
  readonly splay: number;
  readonly lengths: readonly [number, number, number];
  readonly radius: number;
}

const FINGERS: readonly Finger[] = [
  {
    name: "Index",
    knuckle: 0.093,
    across: 0.024,
    splay: 0.08,
    lengths: [0.042, 0.025, 0.021],
    radius: 0.0085,
  },
  { name: "Middle", knuckle: 0.097, across: 0.008, splay: 0, lengths: [0.046, 0.028, 0.022], radius: 0.009 },
  {
    name: "Ring",
    knuckle: 0.093,
    across: -0.009,
    splay: -0.07,
    lengths: [0.043, 0.026, 0.021],
    radius: 0.0085,
  },
  {
    name: "Pinky",
    knuckle: 0.085,
    across: -0.025,
    splay: -0.15,
    lengths: [0.034, 0.02, 0.018],
    radius: 0.0075,
  },
];
const THUMB_LENGTHS = [0.042, 0.033, 0.028] as const;
/** A slight rest curl per finger joint, so a solver knows which way fingers bend. */
const FINGER_CURL = degrees(5);

/** Where the arm and hand of one side are, shared by the skeleton and the mesh. */
interface ArmLayout {
  readonly shoulder: Vec3;
  readonly arm: Vec3;
  readonly elbow: Vec3;
  readonly wrist: Vec3;
  /** Unit vector from the wrist toward the fingers. */
  readonly along: Vec3;
  /** Thumb first, then the fingers: four joints each, knuckle to tip. */
  readonly digits: readonly {
    readonly name: string;
    readonly points: readonly Vec3[];
    readonly radius: number;
  }[];
}

function armLayout(s: number): ArmLayout {
  const arm: Vec3 = [s * 0.17, 1.44, 0];
  const along: Vec3 = [s * Math.cos(ARM_DOWN), -Math.sin(ARM_DOWN), 0];
  // Palms face down and in, thumbs forward: the palm normal is perpendicular to the arm and to +Z.
  const palm = scale(normalize(cross(Z, along)), -s);
  // The elbow sits a little behind the shoulder-wrist line: a hint of flexion, as in most rest poses.
  const elbow = addScaled(addScaled(arm, along, 0.28), Z, -0.012);
  const wrist = addScaled(arm, along, 0.54);

  const chain = (start: Vec3, direction: Vec3, lengths: readonly number[]): Vec3[] => {
    const hinge = cross(direction, palm);
    const points = [start];
    lengths.forEach((l, i) => {
      const d = rotate(quatFromAxisAngle(hinge, FINGER_CURL * (i + 1)), direction);
      points.push(addScaled(points[i], d, l));
    });
    return points;
  };
  const fingers = FINGERS.map((f) => {
    const knuckle = addScaled(addScaled(wrist, along, f.knuckle), Z, f.across);
    return {
      name: f.name,
      points: chain(knuckle, normalize(addScaled(along, Z, f.splay)), f.lengths),
      radius: f.radius,
    };
  });
  const thumbBase = addScaled(addScaled(addScaled(wrist, along, 0.025), Z, 0.025), palm, 0.012);
  const thumbDirection = normalize(addScaled(addScaled(scale(along, 0.6), Z, 0.7), palm, 0.4));
  return {
    shoulder: [s * 0.05, 1.43, 0],
    arm,
    elbow,
    wrist,
    along,
    digits: [
      { name: "Thumb", points: chain(thumbBase, thumbDirection, THUMB_LENGTHS), radius: 0.012 },
      ...fingers,
    ],
  };
}

interface LegLayout {
  readonly upLeg: Vec3;
  readonly knee: Vec3;
  readonly ankle: Vec3;
  readonly toeBase: Vec3;
  readonly toeEnd: Vec3;
}

function legLayout(s: number): LegLayout {
  return {
    upLeg: [s * 0.09, 0.9, 0],
    // Knees a touch forward of the hip-ankle line, for the same reason as the elbows.
    knee: [s * 0.09, 0.5, 0.012],
    ankle: [s * 0.09, 0.085, 0],
    toeBase: [s * 0.09, 0.03, 0.125],
    toeEnd: [s * 0.09, 0.025, 0.2],
  };
}

export function mannequinSkeleton(): Skeleton {
  const b = new SkeletonBuilder()
    .add("Hips", null, [0, 0.95, 0])
    .add("Spine", "Hips", [0, 1.05, 0])
    .add("Spine1", "Spine", [0, 1.17, 0])
    .add("Spine2", "Spine1", [0, 1.3, 0])
    .add("Neck", "Spine2", [0, 1.5, 0])
    .add("Head", "Neck", [0, 1.6, 0.01])
    .add("HeadTop_End", "Head", [0, 1.75, 0.01]);
  for (const { prefix, s } of SIDES) {
    const a = armLayout(s);
    b.add(`${prefix}Shoulder`, "Spine2", a.shoulder)
      .add(`${prefix}Arm`, `${prefix}Shoulder`, a.arm)
      .add(`${prefix}ForeArm`, `${prefix}Arm`, a.elbow)
      .add(`${prefix}Hand`, `${prefix}ForeArm`, a.wrist, `${prefix}HandMiddle1`);
    for (const { name, points } of a.digits) {
      points.forEach((p, i) =>
        b.add(`${prefix}Hand${name}${i + 1}`, i === 0 ? `${prefix}Hand` : `${prefix}Hand${name}${i}`, p),
      );
    }
  }
  for (const { prefix, s } of SIDES) {
    const l = legLayout(s);
    b.add(`${prefix}UpLeg`, "Hips", l.upLeg)
      .add(`${prefix}Leg`, `${prefix}UpLeg`, l.knee)
      .add(`${prefix}Foot`, `${prefix}Leg`, l.ankle)
      .add(`${prefix}ToeBase`, `${prefix}Foot`, l.toeBase)
      .add(`${prefix}Toe_End`, `${prefix}ToeBase`, l.toeEnd);
  }
  return b.build();
}

const point = (a: Vec3, b: Vec3, t: number): Vec3 => addScaled(a, sub(b, a), t);

function mannequinMesh(sk: Skeleton) {
  const j = (name: string) => sk.index(name);
  const mesh = new SkinnedMeshBuilder();

  // Trunk, neck and head as one tube, elliptical (wider than deep), closing at the top of the head.
  const torso: [number, number, [number, number], string][] = [
    [0.84, 0, [0.13, 0.1], "Hips"],
    [0.95, 0, [0.16, 0.11], "Hips"],
    [1.05, 0, [0.145, 0.1], "Spine"],
    [1.17, 0, [0.15, 0.105], "Spine1"],
    [1.3, 0, [0.17, 0.115], "Spine2"],
    [1.4, 0, [0.175, 0.11], "Spine2"],
    [1.46, 0, [0.13, 0.085], "Spine2"],
    [1.5, 0, [0.055, 0.055], "Neck"],
    [1.58, 0.008, [0.05, 0.05], "Neck"],
    [1.6, 0.01, [0.065, 0.07], "Head"],
    [1.645, 0.015, [0.085, 0.1], "Head"],
    [1.695, 0.012, [0.085, 0.095], "Head"],
    [1.735, 0.01, [0.05, 0.06], "Head"],
  ];
  mesh.addTube({
    stations: torso.map(([y, z, radius, bone]) => ({ at: [0, y, z], radius, bone: j(bone) })),
    sides: 20,
    side: X,
    startCap: 0.05,
    endCap: 0.015,
  });
  // A nose, so the facing direction reads at a glance.
  mesh.addTube({
    stations: [
      { at: [0, 1.665, 0.09], radius: 0.014, bone: j("Head") },
      { at: [0, 1.655, 0.128], radius: 0.01, bone: j("Head") },
    ],
    sides: 8,
  });

  for (const { prefix, s } of SIDES) {
    const a = armLayout(s);
    const bone = (name: string) => j(`${prefix}${name}`);
    mesh.addTube({
      stations: [
        { at: [s * 0.08, 1.44, 0], radius: 0.05, bone: bone("Shoulder") },
        { at: a.arm, radius: 0.052, bone: bone("Arm") },
        { at: point(a.arm, a.elbow, 0.5), radius: 0.045, bone: bone("Arm") },
        { at: a.elbow, radius: 0.038, bone: bone("ForeArm") },
        { at: point(a.elbow, a.wrist, 0.45), radius: 0.04, bone: bone("ForeArm") },
        { at: a.wrist, radius: [0.03, 0.022], bone: bone("Hand") },
        { at: addScaled(a.wrist, a.along, 0.05), radius: [0.043, 0.017], bone: bone("Hand") },
        { at: addScaled(a.wrist, a.along, 0.088), radius: [0.04, 0.015], bone: bone("Hand") },
      ],
      sides: 12,
      side: Z,
      startCap: 0.04,
      endCap: 0.015,
    });
    for (const { name, points, radius } of a.digits) {
      const direction = normalize(sub(points[1], points[0]));
      const stations: Station[] = [
        { at: addScaled(points[0], direction, -0.025), radius, bone: bone("Hand") },
      ];
      points.forEach((p, i) => {
        const segment = Math.min(i + 1, 3);
        stations.push({ at: p, radius: radius * (1 - 0.08 * i), bone: bone(`Hand${name}${segment}`) });
      });
      mesh.addTube({ stations, sides: 6, side: Z, spacing: 0.012 });
    }

    const l = legLayout(s);
    mesh.addTube({
      stations: [
        { at: [s * 0.09, 0.99, 0], radius: 0.075, bone: j("Hips") },
        { at: l.upLeg, radius: 0.08, bone: bone("UpLeg") },
        { at: point(l.upLeg, l.knee, 0.45), radius: 0.066, bone: bone("UpLeg") },
        { at: point(l.upLeg, l.knee, 0.85), radius: 0.052, bone: bone("UpLeg") },
        { at: l.knee, radius: 0.05, bone: bone("Leg") },
        { at: point(l.knee, l.ankle, 0.35), radius: 0.05, bone: bone("Leg") },
        { at: point(l.knee, l.ankle, 0.75), radius: 0.038, bone: bone("Leg") },
        { at: l.ankle, radius: 0.034, bone: bone("Foot") },
      ],
      sides: 14,
      side: X,
      startCap: 0.04,
      endCap: 0.03,
    });
    mesh.addTube({
      stations: [
        { at: [s * 0.09, 0.045, -0.04], radius: [0.038, 0.04], bone: bone("Foot") },
        { at: [s * 0.09, 0.05, 0.03], radius: [0.045, 0.045], bone: bone("Foot") },
        { at: l.toeBase, radius: [0.045, 0.03], bone: bone("ToeBase") },
        { at: l.toeEnd, radius: [0.04, 0.022], bone: bone("ToeBase") },
      ],
      sides: 12,
      side: X,
      startCap: 0.025,
      endCap: 0.02,
    });
  }
  return mesh.build();
}

/** Hip joint to ankle, metres. */
const LEG_LENGTH = 0.815;
/** Leg and arm swing about the model X axis: positive moves a hanging limb's far end forward (+Z). */
const FORWARD: Vec3 = [-1, 0, 0];
/** Lowers the arms from the A-pose to hanging at the sides, so clips look natural and blend into each other. */
const ARMS_LOWERED = degrees(30);

function lowerArms(p: Pose, swing: (s: number) => number, elbowFlex: (s: number) => number): void {
  for (const { prefix, s } of SIDES) {
    const a = armLayout(s);
    p.rotate(`${prefix}Arm`, Z, -s * ARMS_LOWERED).rotate(`${prefix}Arm`, FORWARD, swing(s));
    // The elbow's hinge is perpendicular to the forearm and to "forward", so flexion brings the hand forward.
    p.rotate(`${prefix}ForeArm`, cross(normalize(sub(a.wrist, a.elbow)), Z), elbowFlex(s));
  }
}

/** Breathing, a slow weight shift and small head motion: a 2 s loop. */
function idle(phase: number, p: Pose): void {
  const a = 2 * Math.PI * phase;
  const shift = 0.01 * Math.sin(a);
  p.translate("Hips", [shift, 0, 0]);
  for (const { prefix } of SIDES) {
    // Lean the legs against the hip shift so the feet stay planted.
    const lean = -Math.asin(shift / LEG_LENGTH);
    p.rotate(`${prefix}UpLeg`, Z, lean).rotate(`${prefix}Foot`, Z, -lean);
  }
  p.rotate("Spine1", X, degrees(1) * Math.sin(a));
  p.rotate("Spine2", X, -degrees(1.5) * Math.sin(a));
  for (const { prefix, s } of SIDES) p.rotate(`${prefix}Shoulder`, Z, s * degrees(1.2) * Math.sin(a));
  p.rotate("Neck", X, degrees(1.5) * Math.sin(a + 1));
  p.rotate("Head", Y, degrees(3) * Math.sin(a + 0.5));
  lowerArms(
    p,
    () => degrees(1.5) * Math.sin(a),
    () => degrees(10),
  );
}

/**
 * A walk cycle in place, 1 s: the left leg is at mid-swing at phase 0 and the right half a cycle later.
 * Feet slide backwards in stance, as on a treadmill; hips bob down at double support and shift over the
 * standing leg; arms counter-swing.
 */
function walk(phase: number, p: Pose): void {
  const a = 2 * Math.PI * phase;
  const shift = -0.015 * Math.cos(a);
  // The pelvis drops on the swinging side.
  const roll = -degrees(2) * Math.cos(a);
  p.translate("Hips", [shift, -0.035 * Math.sin(a) ** 2, 0]);
  p.rotate("Hips", Y, -degrees(5) * Math.sin(a));
  p.rotate("Hips", Z, roll);
  p.rotate("Spine", X, degrees(3));
  p.rotate("Spine1", Y, degrees(2.5) * Math.sin(a));
  p.rotate("Spine2", Y, degrees(2.5) * Math.sin(a));
  p.rotate("Head", X, -degrees(3));
  for (const { prefix, s } of SIDES) {
    const legPhase = s > 0 ? a : a + Math.PI;
    const hip = degrees(18) * Math.sin(legPhase);
    // Knee flexion peaks early in swing (the thigh coming forward) and is small through stance.
    const swing = Math.max(0, Math.cos(legPhase + 0.3));
    const knee = degrees(5) + degrees(50) * swing * swing;
    const toeOff = Math.max(0, -Math.sin(legPhase + 0.3)) ** 4;
    // Undo the pelvis roll and shift at the hip joints, so standing feet do not slide sideways.
    p.rotate(`${prefix}UpLeg`, FORWARD, hip).rotate(
      `${prefix}UpLeg`,
      Z,
      -roll - Math.asin(shift / LEG_LENGTH),
    );
    p.rotate(`${prefix}Leg`, FORWARD, -knee);
    // Level the foot (toes up is positive about the same axis), pointing it down a little at toe-off.
    p.rotate(`${prefix}Foot`, FORWARD, knee - hip - degrees(12) * toeOff);
    p.rotate(`${prefix}ToeBase`, FORWARD, degrees(15) * toeOff);
  }
  lowerArms(
    p,
    (s) => degrees(16) * Math.sin((s > 0 ? a : a + Math.PI) + Math.PI),
    (s) => degrees(12) + degrees(14) * (1 + Math.sin((s > 0 ? a : a + Math.PI) + Math.PI)) * 0.5,
  );
}

export function buildMannequin(): Document {
  const skeleton = mannequinSkeleton();
  return buildCharacter({
    name: "Mannequin",
    skeleton,
    mesh: mannequinMesh(skeleton),
    color: [0.78, 0.72, 0.64, 1],
    roughness: 0.65,
    clips: [
      sampleClip(skeleton, "Idle", { duration: 2 }, idle),
      sampleClip(skeleton, "Walk", { duration: 1 }, walk),
    ],
  });
}
