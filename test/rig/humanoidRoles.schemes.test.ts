import { describe, expect, it } from "vitest";
import { parseJointName } from "../../plugin/rig/index.js";
import { outline, rolesByName, sided } from "./roleOutline.js";

/*
 * Name schemes of character tools whose exports reach glTF often, each written as its tool names and parents
 * its bones (deforming bones only, as a game export keeps them).
 */
describe("findHumanoidRoles on more tools' names", () => {
  it("Daz Genesis: Bend bones are the limbs, Twist bones helpers, Lower/Upper pairs in the torso and neck", () => {
    const tree = outline(
      `
hip
  pelvis
    {s}ThighBend
      {s}ThighTwist
        {s}Shin
          {s}Foot
            {s}Metatarsals
              {s}Toe
  abdomenLower
    abdomenUpper
      chestLower
        chestUpper
          {s}Collar
            {s}ShldrBend
              {s}ShldrTwist
                {s}ForearmBend
                  {s}ForearmTwist
                    {s}Hand
          neckLower
            neckUpper
              head
`,
      ["l", "r"],
    );
    expect(rolesByName(tree)).toEqual(
      sided(
        {
          hips: "hip",
          spine: "abdomenLower",
          chest: "chestLower",
          upperChest: "chestUpper",
          neck: "neckLower",
          head: "head",
        },
        {
          Shoulder: "{s}Collar",
          UpperArm: "{s}ShldrBend",
          LowerArm: "{s}ForearmBend",
          Hand: "{s}Hand",
          UpperLeg: "{s}ThighBend",
          LowerLeg: "{s}Shin",
          Foot: "{s}Foot",
          Toes: "{s}Toe",
        },
        ["l", "r"],
      ),
    );
  });

  it("Character Creator: CC_Base_ prefix, a neck of NeckTwist bones, limb twist bones beside the limbs", () => {
    const tree = outline(
      `
CC_Base_BoneRoot
  CC_Base_Hip
    CC_Base_Pelvis
      CC_Base_{s}_Thigh
        CC_Base_{s}_Calf
          CC_Base_{s}_Foot
            CC_Base_{s}_ToeBase
          CC_Base_{s}_CalfTwist01
        CC_Base_{s}_ThighTwist01
    CC_Base_Waist
      CC_Base_Spine01
        CC_Base_Spine02
          CC_Base_NeckTwist01
            CC_Base_NeckTwist02
              CC_Base_Head
          CC_Base_{s}_Clavicle
            CC_Base_{s}_Upperarm
              CC_Base_{s}_Forearm
                CC_Base_{s}_Hand
                CC_Base_{s}_ForearmTwist01
              CC_Base_{s}_UpperarmTwist01
`,
      ["L", "R"],
    );
    expect(rolesByName(tree)).toEqual(
      sided(
        {
          hips: "CC_Base_Hip",
          spine: "CC_Base_Waist",
          chest: "CC_Base_Spine01",
          upperChest: "CC_Base_Spine02",
          neck: "CC_Base_NeckTwist01",
          head: "CC_Base_Head",
        },
        {
          Shoulder: "CC_Base_{s}_Clavicle",
          UpperArm: "CC_Base_{s}_Upperarm",
          LowerArm: "CC_Base_{s}_Forearm",
          Hand: "CC_Base_{s}_Hand",
          UpperLeg: "CC_Base_{s}_Thigh",
          LowerLeg: "CC_Base_{s}_Calf",
          Foot: "CC_Base_{s}_Foot",
          Toes: "CC_Base_{s}_ToeBase",
        },
        ["L", "R"],
      ),
    );
  });

  it("Auto-Rig Pro: stretch bones are the limbs, .x the midline, twist bones and the traj control ignored", () => {
    const tree = outline(
      `
root.x
  c_traj
  spine_01.x
    spine_02.x
      spine_03.x
        neck.x
          head.x
        shoulder.{s}
          arm_stretch.{s}
            forearm_stretch.{s}
              hand.{s}
            forearm_twist.{s}
          arm_twist.{s}
  thigh_stretch.{s}
    leg_stretch.{s}
      foot.{s}
        toes_01.{s}
    leg_twist.{s}
  thigh_twist.{s}
`,
      ["l", "r"],
    );
    expect(rolesByName(tree)).toEqual(
      sided(
        {
          hips: "root.x",
          spine: "spine_01.x",
          chest: "spine_02.x",
          upperChest: "spine_03.x",
          neck: "neck.x",
          head: "head.x",
        },
        {
          Shoulder: "shoulder.{s}",
          UpperArm: "arm_stretch.{s}",
          LowerArm: "forearm_stretch.{s}",
          Hand: "hand.{s}",
          UpperLeg: "thigh_stretch.{s}",
          LowerLeg: "leg_stretch.{s}",
          Foot: "foot.{s}",
          Toes: "toes_01.{s}",
        },
        ["l", "r"],
      ),
    );
  });

  it("BVH and Kinect joint names: the shoulder below the collar is the upper arm, a sided hip the thigh", () => {
    const bvh = outline(
      `
Hips
  Chest
    Chest2
      Neck
        Head
      {s}Collar
        {s}Shoulder
          {s}Elbow
            {s}Wrist
  {s}Hip
    {s}Knee
      {s}Ankle
        {s}Toe
`,
    );
    expect(rolesByName(bvh)).toEqual(
      sided(
        { hips: "Hips", chest: "Chest", upperChest: "Chest2", neck: "Neck", head: "Head" },
        {
          Shoulder: "{s}Collar",
          UpperArm: "{s}Shoulder",
          LowerArm: "{s}Elbow",
          Hand: "{s}Wrist",
          UpperLeg: "{s}Hip",
          LowerLeg: "{s}Knee",
          Foot: "{s}Ankle",
          Toes: "{s}Toe",
        },
      ),
    );
    const kinect = outline(
      `
PELVIS
  SPINE_NAVAL
    SPINE_CHEST
      NECK
        HEAD
      CLAVICLE_{s}
        SHOULDER_{s}
          ELBOW_{s}
            WRIST_{s}
  HIP_{s}
    KNEE_{s}
      ANKLE_{s}
        FOOT_{s}
`,
      ["LEFT", "RIGHT"],
    );
    expect(rolesByName(kinect)).toEqual(
      sided(
        { hips: "PELVIS", spine: "SPINE_NAVAL", chest: "SPINE_CHEST", neck: "NECK", head: "HEAD" },
        {
          Shoulder: "CLAVICLE_{s}",
          UpperArm: "SHOULDER_{s}",
          LowerArm: "ELBOW_{s}",
          Hand: "WRIST_{s}",
          UpperLeg: "HIP_{s}",
          LowerLeg: "KNEE_{s}",
          Foot: "ANKLE_{s}",
          Toes: "FOOT_{s}",
        },
        ["LEFT", "RIGHT"],
      ),
    );
    // A bone name wins: CMU's LHipJoint (pelvis to hip joint) sits above LeftUpLeg, the thigh.
    const cmu = outline(
      `
Hips
  LHipJoint
    LeftUpLeg
      LeftLeg
        LeftFoot
  RHipJoint
    RightUpLeg
      RightLeg
        RightFoot
  LowerBack
    Spine
      Neck
        Head
      {s}Shoulder
        {s}Arm
          {s}ForeArm
            {s}Hand
`,
    );
    // Several hips a side are legs of a many-legged body (the project's creature), not a biped's thighs.
    const legs = [1, 2, 3].map((n) => `  Leg.{s}${n}.Hip\n    Leg.{s}${n}.Knee\n      Leg.{s}${n}.Ankle\n`);
    const creature = rolesByName(outline(`\nBody\n${legs.join("")}  Head\n`, ["L", "R"]));
    expect(creature.leftUpperLeg).toBeUndefined();
    expect(creature.rightUpperLeg).toBeUndefined();
    const cmuRoles = rolesByName(cmu);
    expect(cmuRoles.leftUpperLeg).toBe("LeftUpLeg");
    expect(cmuRoles.rightUpperLeg).toBe("RightUpLeg");
    expect(cmuRoles.leftUpperArm).toBe("LeftArm");
  });

  it("order words name a part only where the name means nothing with them", () => {
    expect(parseJointName("upper_arm.L").part).toBe("upperArm");
    expect(parseJointName("LowerLeg.R").part).toBe("lowerLeg");
    expect(parseJointName("neckUpper").part).toBe("neck");
    expect(parseJointName("spine_mid").part).toBe("spine");
    expect(parseJointName("CC_Base_NeckTwist02")).toMatchObject({ part: "neck", helper: false });
    expect(parseJointName("neck_twist_ik")).toMatchObject({ part: "neck", helper: true });
    expect(parseJointName("upperarm_twist_01_l")).toMatchObject({ part: "upperArm", helper: true });
  });
});
