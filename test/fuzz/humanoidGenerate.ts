// Random humanoids for the humanoid fuzzer (not a test file): the joints a character tool exports, named its
// way, in a T- or A-pose of random proportions, with random bone axes and, sometimes, twist bones, IK control
// bones and `_end` sites. Everything comes from one seeded generator.
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { HumanoidRole } from "../../plugin/index.js";
import type { JointLayout } from "../babylon/codeCharacters.js";
import { chance, pick, uniform, type Rand } from "./generate.js";

type V = [number, number, number];
type Side = "left" | "right";

/** A tool's names: the torso's by part, a limb's by part and side. */
interface Scheme {
  readonly name: string;
  readonly root?: string;
  readonly hips: string;
  readonly spine: readonly string[];
  readonly neck: string;
  readonly head: string;
  readonly limb: (part: LimbPart, side: Side) => string;
  /** Extra bones a tool's export keeps: a twist bone beside a limb part, an IK control under the root. */
  readonly twist?: (part: "upperArm" | "upperLeg", side: Side) => string;
  readonly ik?: (side: Side) => string;
  /** Each limb part split in two, the second half a segment named `…001` (Blender's Rigify). */
  readonly segmented?: boolean;
}

type LimbPart = "shoulder" | "upperArm" | "lowerArm" | "hand" | "upperLeg" | "lowerLeg" | "foot" | "toes";

const MIXAMO: Record<LimbPart, string> = {
  shoulder: "Shoulder",
  upperArm: "Arm",
  lowerArm: "ForeArm",
  hand: "Hand",
  upperLeg: "UpLeg",
  lowerLeg: "Leg",
  foot: "Foot",
  toes: "ToeBase",
};
const UNREAL: Record<LimbPart, string> = {
  shoulder: "clavicle",
  upperArm: "upperarm",
  lowerArm: "lowerarm",
  hand: "hand",
  upperLeg: "thigh",
  lowerLeg: "calf",
  foot: "foot",
  toes: "ball",
};
const VROID: Record<LimbPart, string> = {
  shoulder: "Shoulder",
  upperArm: "UpperArm",
  lowerArm: "LowerArm",
  hand: "Hand",
  upperLeg: "UpperLeg",
  lowerLeg: "LowerLeg",
  foot: "Foot",
  toes: "ToeBase",
};
const BLENDER: Record<LimbPart, string> = { ...VROID, toes: "Toes" };
const BIPED: Record<LimbPart, string> = {
  shoulder: "Clavicle",
  upperArm: "UpperArm",
  lowerArm: "Forearm",
  hand: "Hand",
  upperLeg: "Thigh",
  lowerLeg: "Calf",
  foot: "Foot",
  toes: "Toe0",
};

const RIGIFY: Record<LimbPart, string> = {
  shoulder: "DEF-shoulder",
  upperArm: "DEF-upper_arm",
  lowerArm: "DEF-forearm",
  hand: "DEF-hand",
  upperLeg: "DEF-thigh",
  lowerLeg: "DEF-shin",
  foot: "DEF-foot",
  toes: "DEF-toe",
};

const SCHEMES: readonly Scheme[] = [
  {
    name: "Rigify",
    hips: "DEF-spine",
    spine: ["DEF-spine.001", "DEF-spine.002", "DEF-spine.003"],
    neck: "DEF-spine.004",
    head: "DEF-spine.006",
    limb: (part, side) => `${RIGIFY[part]}.${side === "left" ? "L" : "R"}`,
    segmented: true,
  },
  {
    name: "Mixamo",
    hips: "mixamorig:Hips",
    spine: ["mixamorig:Spine", "mixamorig:Spine1", "mixamorig:Spine2"],
    neck: "mixamorig:Neck",
    head: "mixamorig:Head",
    limb: (part, side) => `mixamorig:${side === "left" ? "Left" : "Right"}${MIXAMO[part]}`,
  },
  {
    name: "Unreal",
    root: "root",
    hips: "pelvis",
    spine: ["spine_01", "spine_02", "spine_03"],
    neck: "neck_01",
    head: "head",
    limb: (part, side) => `${UNREAL[part]}_${side[0]}`,
    twist: (part, side) => `${UNREAL[part]}_twist_01_${side[0]}`,
    ik: (side) => `ik_foot_${side[0]}`,
  },
  {
    name: "VRoid",
    root: "Root",
    hips: "J_Bip_C_Hips",
    spine: ["J_Bip_C_Spine", "J_Bip_C_Chest", "J_Bip_C_UpperChest"],
    neck: "J_Bip_C_Neck",
    head: "J_Bip_C_Head",
    limb: (part, side) => `J_Bip_${side === "left" ? "L" : "R"}_${VROID[part]}`,
  },
  {
    name: "Blender",
    hips: "Hips",
    spine: ["Abdomen", "Chest"],
    neck: "Neck",
    head: "Head",
    limb: (part, side) => `${BLENDER[part]}.${side === "left" ? "L" : "R"}`,
  },
  {
    name: "3ds Max Biped",
    root: "Bip01",
    hips: "Bip01 Pelvis",
    spine: ["Bip01 Spine", "Bip01 Spine1", "Bip01 Spine2"],
    neck: "Bip01 Neck",
    head: "Bip01 Head",
    limb: (part, side) => `Bip01 ${side === "left" ? "L" : "R"} ${BIPED[part]}`,
  },
];

export interface GeneratedHumanoid {
  readonly scheme: string;
  readonly joints: JointLayout[];
  readonly ends: JointLayout[];
  /** The joint each role should be found on (by name). */
  readonly roles: Partial<Record<HumanoidRole, string>>;
  /** Standing height (model units). */
  readonly height: number;
  /** Degrees the arms hang below the horizontal at rest (0: a T-pose). */
  readonly armDrop: number;
  /** A rest frame per joint (world orientation), for `buildJointCharacter`. */
  readonly frameOf: (name: string) => Quaternion;
  /** A scale per joint: the left side mirrored on some (`(-1, 1, 1)`, as some exporters leave it). */
  readonly scaleOf: (name: string) => V;
  readonly mirrored: boolean;
  /** The feet hang from the root at their shins' ends (a rig made for Blender's IK). */
  readonly footControls: boolean;
  /** Every joint's quaternion written with w < 0 (the same rotations), as some exporters write them. */
  readonly negated: boolean;
}

/** "left" for a joint given a left role. */
function roleSide(roles: Partial<Record<HumanoidRole, string>>, name: string): Side | null {
  for (const [role, joint] of Object.entries(roles))
    if (joint === name) return role.startsWith("left") ? "left" : null;
  return null;
}

/**
 * A humanoid of a random tool's names: height 1.2–2 (times a unit of 1 or 100), legs 45–53 % of it, arms in
 * a T-pose or up to 45° down, 1–3 spine bones, sometimes a root joint on the ground, twist bones and IK foot
 * controls (where the tool has them) and `_end` sites; each joint's rest frame random or none.
 */
export function generateHumanoid(rand: Rand): GeneratedHumanoid {
  const scheme = pick(rand, SCHEMES);
  const unit = pick(rand, [1, 1, 100]);
  const height = uniform(rand, 1.2, 2) * unit;
  const hipsY = uniform(rand, 0.45, 0.53) * height;
  const chestY = 0.79 * height;
  const neckY = 0.85 * height;
  const headY = 0.9 * height;
  const spineCount = 1 + Math.floor(rand() * Math.min(3, scheme.spine.length));
  const shoulderX = 0.02 * height;
  const armX = 0.1 * height;
  const upperArm = uniform(rand, 0.16, 0.19) * height;
  const lowerArm = uniform(rand, 0.14, 0.17) * height;
  const hand = 0.05 * height;
  const drop = chance(rand, 0.5) ? 0 : uniform(rand, 10, 45);
  const legX = uniform(rand, 0.07, 0.11) * height;
  const ankleY = 0.045 * height;
  const kneeY = ankleY + 0.5 * (hipsY - 0.04 * height - ankleY);
  // Knees a little ahead and elbows a little back at rest, as many bind poses have them; toes turned out.
  const kneeAhead = uniform(rand, 0, 0.04) * height;
  const elbowBack = uniform(rand, 0, 0.03) * height;
  const toeOut = uniform(rand, 0, 0.03) * height;
  const fingers = chance(rand, 0.4) ? 1 + Math.floor(3 * rand()) : 0;
  const joints: JointLayout[] = [];
  const ends: JointLayout[] = [];
  const roles: Partial<Record<HumanoidRole, string>> = {};
  const add = (name: string, parent: string | null, at: V, role?: HumanoidRole) => {
    joints.push([name, parent, at]);
    if (role !== undefined) roles[role] = name;
  };
  // Blender-IK rigs (RobotExpressive, Quaternius) keep each foot under a root, where its child-less shin ends.
  const footControls = scheme.name === "Blender" && chance(rand, 0.4);
  const root = footControls ? "Root" : scheme.root !== undefined && chance(rand, 0.5) ? scheme.root : null;
  if (root !== null) add(root, null, [0, 0, 0]);
  add(scheme.hips, root, [0, hipsY, 0], "hips");
  let top = scheme.hips;
  for (let i = 0; i < spineCount; i++) {
    const y = hipsY + ((i + 1) / (spineCount + 1)) * (chestY - hipsY);
    add(scheme.spine[i], top, [0, y, 0]);
    top = scheme.spine[i];
  }
  add(scheme.neck, top, [0, neckY, 0], "neck");
  add(scheme.head, scheme.neck, [0, headY, 0.01 * height], "head");
  if (chance(rand, 0.5)) ends.push([`${scheme.head}_end`, scheme.head, [0, height, 0.01 * height]]);
  const twists = scheme.twist !== undefined && chance(rand, 0.5);
  for (const side of ["left", "right"] as const) {
    const s = side === "left" ? 1 : -1;
    const S = side === "left" ? "left" : "right";
    const limb = (part: LimbPart) => scheme.limb(part, side);
    add(limb("shoulder"), top, [s * shoulderX, chestY, 0], `${S}Shoulder`);
    const a = (drop * Math.PI) / 180;
    const along = (d: number): V => [
      s * (armX + d * Math.cos(a)),
      chestY - d * Math.sin(a),
      d > 0 && d <= upperArm ? -elbowBack * (d / upperArm) : d > upperArm ? -elbowBack : 0,
    ];
    // A segmented part's second half hangs from its first, and carries the next part.
    const half = (part: LimbPart, at: V): string => {
      if (!scheme.segmented) return limb(part);
      add(`${limb(part)}.001`, limb(part), at);
      return `${limb(part)}.001`;
    };
    add(limb("upperArm"), limb("shoulder"), along(0), `${S}UpperArm`);
    if (twists) add(scheme.twist!("upperArm", side), limb("upperArm"), along(0.5 * upperArm));
    const elbowFrom = half("upperArm", along(0.5 * upperArm));
    add(limb("lowerArm"), elbowFrom, along(upperArm), `${S}LowerArm`);
    const wristFrom = half("lowerArm", along(upperArm + 0.5 * lowerArm));
    add(limb("hand"), wristFrom, along(upperArm + lowerArm), `${S}Hand`);
    if (chance(rand, 0.5))
      ends.push([`${limb("hand")}_end`, limb("hand"), along(upperArm + lowerArm + hand)]);
    for (let f = 0; f < fingers; f++) {
      let parent = limb("hand");
      for (let k = 1; k <= 3; k++) {
        const tip = along(upperArm + lowerArm + hand + 0.02 * height * k);
        const name = `${limb("hand")}_finger${f}_${k}`;
        add(name, parent, [tip[0], tip[1], tip[2] + 0.015 * height * (f - 1)]);
        parent = name;
      }
    }
    add(limb("upperLeg"), scheme.hips, [s * legX, hipsY - 0.04 * height, 0], `${S}UpperLeg`);
    if (twists) add(scheme.twist!("upperLeg", side), limb("upperLeg"), [s * legX, 0.5 * (hipsY + kneeY), 0]);
    const kneeFrom = half("upperLeg", [s * legX, 0.5 * (hipsY - 0.04 * height + kneeY), 0.5 * kneeAhead]);
    add(limb("lowerLeg"), kneeFrom, [s * legX, kneeY, 0.005 * height + kneeAhead], `${S}LowerLeg`);
    const ankleFrom = footControls
      ? limb("lowerLeg")
      : half("lowerLeg", [s * legX, 0.5 * (kneeY + ankleY), 0.5 * kneeAhead]);
    add(limb("foot"), footControls ? root : ankleFrom, [s * legX, ankleY, 0], `${S}Foot`);
    add(limb("toes"), limb("foot"), [s * (legX + toeOut), 0.012 * height, 0.08 * height], `${S}Toes`);
    if (root !== null && scheme.ik !== undefined && chance(rand, 0.5))
      add(scheme.ik(side), root, [s * legX, ankleY, 0]);
  }
  const frames = new Map<string, Quaternion>();
  const randomFrames = chance(rand, 0.5);
  for (const [name] of joints) {
    const axis = new Vector3(rand() - 0.5, rand() - 0.5, rand() - 0.5);
    frames.set(
      name,
      randomFrames && axis.lengthSquared() > 1e-6
        ? Quaternion.RotationAxis(axis.normalize(), 2 * Math.PI * rand())
        : Quaternion.Identity(),
    );
  }
  const mirrored = chance(rand, 0.3);
  const negated = chance(rand, 0.3);
  const mirror = new Set(joints.filter(([name]) => roleSide(roles, name) === "left").map(([name]) => name));
  return {
    negated,
    footControls,
    mirrored,
    scaleOf: (name) => (mirrored && mirror.has(name) ? [-1, 1, 1] : [1, 1, 1]),
    scheme: scheme.name,
    joints,
    ends,
    roles,
    height,
    armDrop: drop,
    frameOf: (name) => frames.get(name)!.clone(),
  };
}
