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
