import type { Document } from "@gltf-transform/core";
import { sampleClip, type Pose } from "./animation.js";
import { buildCharacter } from "./character.js";
import { X, Y, Z, degrees, type Vec3 } from "./math.js";
import { SkeletonBuilder, type Skeleton } from "./skeleton.js";
import { SkinnedMeshBuilder } from "./skinnedMesh.js";

/**
 * A 1.70 m humanoid laid out as a VRM avatar is: the VRM humanoid bone names (`hips`, `upperChest`,
 * `leftLowerLeg`, …), normalized bones (every joint's rest rotation is identity), facing +Z with its left on
 * +X, and a T-pose whose limbs are exactly straight: shoulder, elbow, wrist and hand tip on one horizontal
 * line, hip, knee and ankle on one vertical line. Nothing in the rest pose hints which way an elbow or a
 * knee folds. The feet have no toe joint: each ends in a `<foot>_end` node outside the skin, at the toe tip.
 */

const SIDES = [
  { side: "left", s: 1 },
  { side: "right", s: -1 },
] as const;

/** Shoulder height of the arm line, and the hip, knee and ankle heights of the leg line. */
const ARM_Y = 1.4;
const HIP_Y = 0.88;
const KNEE_Y = 0.48;
const ANKLE_Y = 0.08;
const LEG_X = 0.09;
/** The toe tip (the foot's end site) and the back of the heel, ahead of and behind the ankle. */
const TOE: Vec3 = [0, 0.02, 0.16];
const HEEL_Z = -0.05;

interface Limb {
  readonly shoulder: Vec3;
  readonly upperArm: Vec3;
  readonly lowerArm: Vec3;
  readonly hand: Vec3;
  readonly handEnd: Vec3;
  readonly upperLeg: Vec3;
  readonly lowerLeg: Vec3;
  readonly foot: Vec3;
  readonly footEnd: Vec3;
}

function limb(s: number): Limb {
  return {
    shoulder: [s * 0.04, ARM_Y, 0],
    upperArm: [s * 0.17, ARM_Y, 0],
    lowerArm: [s * 0.45, ARM_Y, 0],
    hand: [s * 0.7, ARM_Y, 0],
    handEnd: [s * 0.87, ARM_Y, 0],
    upperLeg: [s * LEG_X, HIP_Y, 0],
    lowerLeg: [s * LEG_X, KNEE_Y, 0],
    foot: [s * LEG_X, ANKLE_Y, 0],
    footEnd: [s * LEG_X + TOE[0], TOE[1], TOE[2]],
  };
}

export function figureSkeleton(): Skeleton {
  const b = new SkeletonBuilder()
    .add("hips", null, [0, 0.92, 0])
    .add("spine", "hips", [0, 1.02, 0])
    .add("chest", "spine", [0, 1.14, 0])
    .add("upperChest", "chest", [0, 1.27, 0])
    .add("neck", "upperChest", [0, 1.45, 0])
    .add("head", "neck", [0, 1.53, 0]);
  for (const { side, s } of SIDES) {
    const l = limb(s);
    b.add(`${side}Shoulder`, "upperChest", l.shoulder)
      .add(`${side}UpperArm`, `${side}Shoulder`, l.upperArm)
      .add(`${side}LowerArm`, `${side}UpperArm`, l.lowerArm)
      .add(`${side}Hand`, `${side}LowerArm`, l.hand);
  }
  for (const { side, s } of SIDES) {
    const l = limb(s);
    b.add(`${side}UpperLeg`, "hips", l.upperLeg)
      .add(`${side}LowerLeg`, `${side}UpperLeg`, l.lowerLeg)
      .add(`${side}Foot`, `${side}LowerLeg`, l.foot);
  }
  return b.build(true);
}

/** The end sites: head top, hand tips and toe tips. */
function figureEnds() {
  return [
    { name: "head_end", parent: "head", at: [0, 1.7, 0] as Vec3 },
    ...SIDES.flatMap(({ side, s }) => {
      const l = limb(s);
      return [
        { name: `${side}Hand_end`, parent: `${side}Hand`, at: l.handEnd },
        { name: `${side}Foot_end`, parent: `${side}Foot`, at: l.footEnd },
      ];
    }),
  ];
}

function figureMesh(sk: Skeleton) {
  const j = (name: string) => sk.index(name);
  const mesh = new SkinnedMeshBuilder();
  const torso: [number, [number, number], string][] = [
    [0.82, [0.12, 0.09], "hips"],
    [0.92, [0.15, 0.1], "hips"],
    [1.02, [0.135, 0.09], "spine"],
    [1.14, [0.14, 0.095], "chest"],
    [1.27, [0.16, 0.105], "upperChest"],
    [1.41, [0.15, 0.095], "upperChest"],
    [1.45, [0.05, 0.05], "neck"],
    [1.53, [0.065, 0.07], "head"],
    [1.63, [0.075, 0.09], "head"],
  ];
  mesh.addTube({
    stations: torso.map(([y, radius, bone]) => ({ at: [0, y, 0], radius, bone: j(bone) })),
    sides: 8,
    side: X,
    spacing: 0.12,
    startCap: 0.04,
    endCap: 0.07,
  });
  for (const { side, s } of SIDES) {
    const l = limb(s);
    const bone = (name: string) => j(`${side}${name}`);
    mesh.addTube({
      stations: [
        { at: [s * 0.06, ARM_Y, 0], radius: 0.045, bone: bone("Shoulder") },
        { at: l.upperArm, radius: 0.048, bone: bone("UpperArm") },
        { at: l.lowerArm, radius: 0.038, bone: bone("LowerArm") },
        { at: l.hand, radius: [0.028, 0.02], bone: bone("Hand") },
        { at: l.handEnd, radius: [0.04, 0.014], bone: bone("Hand") },
      ],
      sides: 6,
      side: Z,
      spacing: 0.12,
      startCap: 0.03,
      endCap: 0.015,
    });
    mesh.addTube({
      stations: [
        { at: [s * LEG_X, 0.97, 0], radius: 0.07, bone: j("hips") },
        { at: l.upperLeg, radius: 0.075, bone: bone("UpperLeg") },
        { at: l.lowerLeg, radius: 0.05, bone: bone("LowerLeg") },
        { at: l.foot, radius: 0.035, bone: bone("Foot") },
      ],
      sides: 8,
      side: X,
      spacing: 0.12,
      startCap: 0.04,
      endCap: 0.03,
    });
    // The foot, heel to toe tip, its sole on the ground (y = 0).
    mesh.addTube({
      stations: [
        { at: [s * LEG_X, 0.04, HEEL_Z], radius: [0.035, 0.04], bone: bone("Foot") },
        { at: [s * LEG_X, 0.045, 0.04], radius: [0.045, 0.045], bone: bone("Foot") },
        { at: limb(s).footEnd, radius: [0.04, 0.02], bone: bone("Foot") },
      ],
      sides: 8,
      side: X,
      spacing: 0.12,
      minDivisions: 2,
      startCap: 0.02,
      endCap: 0.01,
    });
  }
  return mesh.build();
}

/** Breathing and a slow look around, 2 s: the torso and head move, the straight limbs stay as they are. */
function idle(phase: number, p: Pose): void {
  const a = 2 * Math.PI * phase;
  p.rotate("chest", X, degrees(1) * Math.sin(a));
  p.rotate("upperChest", X, -degrees(1.5) * Math.sin(a));
  p.rotate("neck", X, degrees(1.5) * Math.sin(a + 1));
  p.rotate("head", Y, degrees(4) * Math.sin(a + 0.5));
}

export function buildFigure(): Document {
  const skeleton = figureSkeleton();
  return buildCharacter({
    name: "Figure",
    skeleton,
    mesh: figureMesh(skeleton),
    color: [0.55, 0.62, 0.72, 1],
    roughness: 0.6,
    clips: [sampleClip(skeleton, "Idle", { duration: 2, fps: 10 }, idle)],
    ends: figureEnds(),
  });
}
