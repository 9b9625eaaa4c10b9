/**
 * Reads body part and side out of a joint name, across the naming schemes listed in `humanoidRoles.ts`.
 * Names are split into lower-case words at separators (`_ . - : | space`), camelCase humps and digit runs,
 * after dropping any namespace before the last `:` or `|` (`mixamorig:LeftHand` -> `left hand`).
 */

export type Side = "left" | "right";

/**
 * The body part a name speaks of. `arm` and `leg` are the generic words whose meaning depends on the rig
 * (Mixamo's `LeftArm` is the upper arm, its `LeftLeg` the shin; `arm_joint_L_2` is the elbow), `torso`
 * a spine segment, `palm` a metacarpal standing in for the hand, `finger` any finger joint.
 */
export type BodyPart =
  | "hips"
  | "spine"
  | "chest"
  | "upperChest"
  | "torso"
  | "neck"
  | "head"
  | "shoulder"
  | "upperArm"
  | "lowerArm"
  | "hand"
  | "palm"
  | "finger"
  | "upperLeg"
  | "lowerLeg"
  | "foot"
  | "toes"
  | "arm"
  | "leg";

export interface JointNameParts {
  readonly side: Side | null;
  readonly part: BodyPart | null;
  /**
   * A helper rather than a deforming body bone: IK/FK controls, pole targets, twist/roll bones, end sites,
   * Rigify `MCH-` mechanism bones. Helpers never take a humanoid role.
   */
  readonly helper: boolean;
  /** Preference between duplicates: 0 for Rigify `DEF-` (deforming), 1 for plain names, 2 for `ORG-`. */
  readonly rank: number;
}

const PART_OF_WORDS: Readonly<Record<string, BodyPart>> = {
  hips: "hips",
  hip: "hips",
  pelvis: "hips",
  spine: "spine",
  abdomen: "spine",
  waist: "spine",
  chest: "chest",
  upperchest: "upperChest",
  torso: "torso",
  neck: "neck",
  head: "head",
  shoulder: "shoulder",
  clavicle: "shoulder",
  collar: "shoulder",
  collarbone: "shoulder",
  upperarm: "upperArm",
  shldr: "upperArm",
  uparm: "upperArm",
  humerus: "upperArm",
  lowerarm: "lowerArm",
  forearm: "lowerArm",
  lowarm: "lowerArm",
  loarm: "lowerArm",
  elbow: "lowerArm",
  hand: "hand",
  wrist: "hand",
  palm: "palm",
  upperleg: "upperLeg",
  upleg: "upperLeg",
  thigh: "upperLeg",
  femur: "upperLeg",
  lowerleg: "lowerLeg",
  lowleg: "lowerLeg",
  loleg: "lowerLeg",
  shin: "lowerLeg",
  calf: "lowerLeg",
  knee: "lowerLeg",
  foot: "foot",
  ankle: "foot",
  toe: "toes",
  toes: "toes",
  toebase: "toes",
  ball: "toes",
  arm: "arm",
  leg: "leg",
};

/** Words that make any name a finger joint, whatever else it says (`LeftHandIndex1`, `index_metacarpal_l`). */
const FINGER_WORDS = new Set([
  "thumb",
  "index",
  "middle",
  "ring",
  "pinky",
  "little",
  "finger",
  "fingers",
  "metacarpal",
]);

/** Words that mark a helper (see {@link JointNameParts.helper}). */
const HELPER_WORDS = new Set([
  "mch",
  "ik",
  "fk",
  "pole",
  "target",
  "twist",
  "roll",
  "tweak",
  "ctrl",
  "control",
  "end",
  "nub",
  "tip",
  "top",
  "helper",
  "socket",
  "attach",
  "corrective",
  "aux",
  "prop",
  "weapon",
]);

/** Words that say nothing about the body part: rig prefixes (`DEF-`, `b_`, `J_Bip_C_`, `Bip01`) and fillers. */
const NOISE_WORDS = new Set([
  "def",
  "org",
  "mixamorig",
  "j",
  "bip",
  "b",
  "c",
  "skeleton",
  "joint",
  "jnt",
  "jt",
  "bone",
  "bn",
  "sk",
  "rig",
  "armature",
  "deform",
  // Auto-Rig Pro's deforming limb bones (`arm_stretch.l`) and centre suffix (`spine_01.x`); Daz Genesis'
  // bending bones (`lThighBend`, beside their `Twist` helpers).
  "stretch",
  "x",
  "bend",
]);

/**
 * Words that only say which of several bones of one part a joint is (Daz Genesis' `abdomenLower`,
 * `chestUpper`, `neckLower`): dropped when the name means nothing with them (`upper arm` keeps its meaning).
 */
const ORDER_WORDS = new Set(["lower", "upper", "mid"]);

/** True for a helper word other than `twist`. */
function isOtherHelper(word: string): boolean {
  return word !== "twist" && HELPER_WORDS.has(word);
}

/** Splits a joint name into lower-case words; see the file comment. */
export function splitJointName(name: string): string[] {
  const cut = Math.max(name.lastIndexOf(":"), name.lastIndexOf("|"));
  const local = cut >= 0 ? name.slice(cut + 1) : name;
  return local
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1 $2")
    .replace(/([A-Za-z])([0-9])/g, "$1 $2")
    .replace(/([0-9])([A-Za-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== "")
    .map((word) => word.toLowerCase());
}

/** Body part, side and helper status of a joint name. */
export function parseJointName(name: string): JointNameParts {
  const words = splitJointName(name);
  let side: Side | null = null;
  let helper = false;
  let finger = false;
  const rest: string[] = [];
  for (const word of words) {
    if (word === "l" || word === "left") side = "left";
    else if (word === "r" || word === "right") side = "right";
    else if (HELPER_WORDS.has(word)) helper = true;
    else if (FINGER_WORDS.has(word)) finger = true;
    else if (!NOISE_WORDS.has(word) && !/^[0-9]+$/.test(word)) rest.push(word);
  }
  const lower = name.toLowerCase();
  const rank = lower.startsWith("def") ? 0 : lower.startsWith("org") ? 2 : 1;
  let part: BodyPart | null = finger ? "finger" : (PART_OF_WORDS[rest.join("")] ?? null);
  // Unknown rig prefixes come first ("CC_Base_L_Upperarm"), so the part is read from the last words.
  if (part === null && rest.length > 2) part = PART_OF_WORDS[rest.slice(-2).join("")] ?? null;
  if (part === null && rest.length > 1) part = PART_OF_WORDS[rest[rest.length - 1]] ?? null;
  if (part === null && rest.some((word) => ORDER_WORDS.has(word))) {
    part = PART_OF_WORDS[rest.filter((word) => !ORDER_WORDS.has(word)).join("")] ?? null;
  }
  // A neck made of twist bones (Character Creator's `NeckTwist01`, `NeckTwist02`) is the neck itself: the
  // limbs' twist bones are helpers beside the bones they follow, but nothing else carries the head.
  if (helper && part === "neck" && words.includes("twist") && !words.some(isOtherHelper)) helper = false;
  return { side, part, helper, rank };
}
