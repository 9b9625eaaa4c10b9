import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSkeletonRig } from "../../plugin/babylon/index.js";
import {
  HUMANOID_ROLES,
  findHumanoidRoles,
  isAncestor,
  parseJointName,
  type HumanoidRole,
} from "../../plugin/rig/index.js";
import { outline, rolesByName, sided } from "./roleOutline.js";
import {
  OWN_CHARACTERS,
  characterNamed,
  loadCharacter,
  noteIfMissing,
  type Loaded,
} from "../babylon/characters.js";

describe("findHumanoidRoles on name schemes (plain arrays)", () => {
  it("Mixamo: Arm is the upper arm, Leg the shin, Spine1/Spine2 chest/upperChest; fingers and ends ignored", () => {
    const tree = outline(`
mixamorig:Hips
  mixamorig:Spine
    mixamorig:Spine1
      mixamorig:Spine2
        mixamorig:Neck
          mixamorig:Head
            mixamorig:HeadTop_End
        mixamorig:{s}Shoulder
          mixamorig:{s}Arm
            mixamorig:{s}ForeArm
              mixamorig:{s}Hand
                mixamorig:{s}HandThumb1
                  mixamorig:{s}HandThumb2
                mixamorig:{s}HandIndex1
  mixamorig:{s}UpLeg
    mixamorig:{s}Leg
      mixamorig:{s}Foot
        mixamorig:{s}ToeBase
          mixamorig:{s}Toe_End
`);
    const m = (name: string) => `mixamorig:${name}`;
    expect(rolesByName(tree)).toEqual(
      sided(
        {
          hips: m("Hips"),
          spine: m("Spine"),
          chest: m("Spine1"),
          upperChest: m("Spine2"),
          neck: m("Neck"),
          head: m("Head"),
        },
        {
          Shoulder: m("{s}Shoulder"),
          UpperArm: m("{s}Arm"),
          LowerArm: m("{s}ForeArm"),
          Hand: m("{s}Hand"),
          UpperLeg: m("{s}UpLeg"),
          LowerLeg: m("{s}Leg"),
          Foot: m("{s}Foot"),
          Toes: m("{s}ToeBase"),
        },
      ),
    );
  });

  it("Blender/Rigify: DEF- over ORG-, MCH- and controls ignored, segmented bones, unnamed neck and head", () => {
    const tree = outline(
      `
root
  DEF-spine
    DEF-pelvis.{s}
    DEF-thigh.{s}
      DEF-thigh.{s}.001
        DEF-shin.{s}
          DEF-shin.{s}.001
            DEF-foot.{s}
              DEF-toe.{s}
    DEF-spine.001
      DEF-spine.002
        DEF-spine.003
          DEF-breast.{s}
          DEF-shoulder.{s}
            DEF-upper_arm.{s}
              DEF-upper_arm.{s}.001
                DEF-forearm.{s}
                  DEF-forearm.{s}.001
                    DEF-hand.{s}
                      DEF-f_index.01.{s}
          DEF-spine.004
            DEF-spine.005
              DEF-spine.006
  ORG-spine
    ORG-thigh.{s}
      ORG-shin.{s}
        ORG-foot.{s}
  MCH-torso.parent
    MCH-hand_ik.{s}
  hand_ik.{s}
  upper_arm_fk.{s}
  foot_ik.{s}
  thigh_parent.{s}
`,
      ["L", "R"],
    );
    expect(rolesByName(tree)).toEqual(
      sided(
        {
          hips: "DEF-spine",
          spine: "DEF-spine.001",
          chest: "DEF-spine.002",
          upperChest: "DEF-spine.003",
          neck: "DEF-spine.004",
          head: "DEF-spine.006",
        },
        {
          Shoulder: "DEF-shoulder.{s}",
          UpperArm: "DEF-upper_arm.{s}",
          LowerArm: "DEF-forearm.{s}",
          Hand: "DEF-hand.{s}",
          UpperLeg: "DEF-thigh.{s}",
          LowerLeg: "DEF-shin.{s}",
          Foot: "DEF-foot.{s}",
          Toes: "DEF-toe.{s}",
        },
        ["L", "R"],
      ),
    );
  });

  it("Unreal mannequin: _l/_r suffixes, clavicle, calf, ball, spine_01..03; twist and ik bones ignored", () => {
    const tree = outline(
      `
root
  pelvis
    spine_01
      spine_02
        spine_03
          clavicle_{s}
            upperarm_{s}
              upperarm_twist_01_{s}
              lowerarm_{s}
                lowerarm_twist_01_{s}
                hand_{s}
                  index_metacarpal_{s}
                    index_01_{s}
                  thumb_01_{s}
          neck_01
            head
    thigh_{s}
      thigh_twist_01_{s}
      calf_{s}
        calf_twist_01_{s}
        foot_{s}
          ball_{s}
  ik_foot_root
    ik_foot_{s}
  ik_hand_root
    ik_hand_gun
      ik_hand_{s}
`,
      ["l", "r"],
    );
    expect(rolesByName(tree)).toEqual(
      sided(
        {
          hips: "pelvis",
          spine: "spine_01",
          chest: "spine_02",
          upperChest: "spine_03",
          neck: "neck_01",
          head: "head",
        },
        {
          Shoulder: "clavicle_{s}",
          UpperArm: "upperarm_{s}",
          LowerArm: "lowerarm_{s}",
          Hand: "hand_{s}",
          UpperLeg: "thigh_{s}",
          LowerLeg: "calf_{s}",
          Foot: "foot_{s}",
          Toes: "ball_{s}",
        },
        ["l", "r"],
      ),
    );
  });

  it("VRM humanoid names, with and without upperChest", () => {
    const full = outline(
      `
hips
  spine
    chest
      upperChest
        neck
          head
        {s}Shoulder
          {s}UpperArm
            {s}LowerArm
              {s}Hand
                {s}ThumbProximal
  {s}UpperLeg
    {s}LowerLeg
      {s}Foot
        {s}Toes
`,
      ["left", "right"],
    );
    const limbs = {
      Shoulder: "{s}Shoulder",
      UpperArm: "{s}UpperArm",
      LowerArm: "{s}LowerArm",
      Hand: "{s}Hand",
      UpperLeg: "{s}UpperLeg",
      LowerLeg: "{s}LowerLeg",
      Foot: "{s}Foot",
      Toes: "{s}Toes",
    };
    const center = {
      hips: "hips",
      spine: "spine",
      chest: "chest",
      upperChest: "upperChest",
      neck: "neck",
      head: "head",
    };
    expect(rolesByName(full)).toEqual(sided(center, limbs, ["left", "right"]));

    const short = outline(
      `
hips
  spine
    chest
      neck
        head
      {s}UpperArm
        {s}LowerArm
          {s}Hand
  {s}UpperLeg
    {s}LowerLeg
      {s}Foot
`,
      ["left", "right"],
    );
    expect(rolesByName(short)).toEqual(
      sided(
        { hips: "hips", spine: "spine", chest: "chest", neck: "neck", head: "head" },
        {
          UpperArm: "{s}UpperArm",
          LowerArm: "{s}LowerArm",
          Hand: "{s}Hand",
          UpperLeg: "{s}UpperLeg",
          LowerLeg: "{s}LowerLeg",
          Foot: "{s}Foot",
        },
        ["left", "right"],
      ),
    );
  });

  it("VRoid J_Bip_ names and 3ds Max Biped names (thighs under the spine, clavicles under the neck)", () => {
    const vroid = outline(
      `
Root
  J_Bip_C_Hips
    J_Bip_C_Spine
      J_Bip_C_Chest
        J_Bip_C_UpperChest
          J_Bip_C_Neck
            J_Bip_C_Head
          J_Bip_{s}_Shoulder
            J_Bip_{s}_UpperArm
              J_Bip_{s}_LowerArm
                J_Bip_{s}_Hand
    J_Bip_{s}_UpperLeg
      J_Bip_{s}_LowerLeg
        J_Bip_{s}_Foot
          J_Bip_{s}_ToeBase
`,
      ["L", "R"],
    );
    expect(rolesByName(vroid)).toEqual(
      sided(
        {
          hips: "J_Bip_C_Hips",
          spine: "J_Bip_C_Spine",
          chest: "J_Bip_C_Chest",
          upperChest: "J_Bip_C_UpperChest",
          neck: "J_Bip_C_Neck",
          head: "J_Bip_C_Head",
        },
        {
          Shoulder: "J_Bip_{s}_Shoulder",
          UpperArm: "J_Bip_{s}_UpperArm",
          LowerArm: "J_Bip_{s}_LowerArm",
          Hand: "J_Bip_{s}_Hand",
          UpperLeg: "J_Bip_{s}_UpperLeg",
          LowerLeg: "J_Bip_{s}_LowerLeg",
          Foot: "J_Bip_{s}_Foot",
          Toes: "J_Bip_{s}_ToeBase",
        },
        ["L", "R"],
      ),
    );

    const biped = outline(
      `
Bip01
  Bip01 Pelvis
    Bip01 Spine
      Bip01 {s} Thigh
        Bip01 {s} Calf
          Bip01 {s} Foot
            Bip01 {s} Toe0
      Bip01 Spine1
        Bip01 Spine2
          Bip01 Neck
            Bip01 Head
            Bip01 {s} Clavicle
              Bip01 {s} UpperArm
                Bip01 {s} Forearm
                  Bip01 {s} Hand
                    Bip01 {s} Finger0
`,
      ["L", "R"],
    );
    expect(rolesByName(biped)).toEqual(
      sided(
        {
          hips: "Bip01 Pelvis",
          spine: "Bip01 Spine",
          chest: "Bip01 Spine1",
          upperChest: "Bip01 Spine2",
          neck: "Bip01 Neck",
          head: "Bip01 Head",
        },
        {
          Shoulder: "Bip01 {s} Clavicle",
          UpperArm: "Bip01 {s} UpperArm",
          LowerArm: "Bip01 {s} Forearm",
          Hand: "Bip01 {s} Hand",
          UpperLeg: "Bip01 {s} Thigh",
          LowerLeg: "Bip01 {s} Calf",
          Foot: "Bip01 {s} Foot",
          Toes: "Bip01 {s} Toe0",
        },
        ["L", "R"],
      ),
    );
  });

  it("L_/R_ prefixes and _L/_R suffixes, in any case", () => {
    for (const [pattern, sides] of [
      ["{s}_", ["L", "R"]],
      ["{s}_", ["l", "r"]],
      ["_{s}", ["L", "R"]],
    ] as const) {
      const tag = (part: string) => (pattern === "{s}_" ? `{s}_${part}` : `${part}_{s}`);
      const tree = outline(
        `
Hips
  Spine
    Chest
      Neck
        Head
      ${tag("Clavicle")}
        ${tag("UpperArm")}
          ${tag("Forearm")}
            ${tag("Hand")}
  ${tag("Thigh")}
    ${tag("Shin")}
      ${tag("Foot")}
        ${tag("Toe")}
`,
        [sides[0], sides[1]],
      );
      expect(rolesByName(tree)).toEqual(
        sided(
          { hips: "Hips", spine: "Spine", chest: "Chest", neck: "Neck", head: "Head" },
          {
            Shoulder: tag("Clavicle"),
            UpperArm: tag("UpperArm"),
            LowerArm: tag("Forearm"),
            Hand: tag("Hand"),
            UpperLeg: tag("Thigh"),
            LowerLeg: tag("Shin"),
            Foot: tag("Foot"),
            Toes: tag("Toe"),
          },
          [sides[0], sides[1]],
        ),
      );
    }
  });

  it("numbered limbs (RiggedFigure): placed along the chain by the tree, whatever the numbers say", () => {
    const tree = outline(
      `
torso_joint_1
  torso_joint_2
    torso_joint_3
      neck_joint_1
        neck_joint_2
      arm_joint_{s}_3
        arm_joint_{s}_2
          arm_joint_{s}_1
  leg_joint_{s}_1
    leg_joint_{s}_2
      leg_joint_{s}_3
        leg_joint_{s}_5
`,
      ["L", "R"],
    );
    expect(rolesByName(tree)).toEqual(
      sided(
        {
          hips: "torso_joint_1",
          spine: "torso_joint_2",
          chest: "torso_joint_3",
          neck: "neck_joint_1",
          head: "neck_joint_2",
        },
        {
          UpperArm: "arm_joint_{s}_3",
          LowerArm: "arm_joint_{s}_2",
          Hand: "arm_joint_{s}_1",
          UpperLeg: "leg_joint_{s}_1",
          LowerLeg: "leg_joint_{s}_2",
          Foot: "leg_joint_{s}_3",
          Toes: "leg_joint_{s}_5",
        },
        ["L", "R"],
      ),
    );
  });

  it("Quaternius: the hips must carry the legs, palms stand in for the hand, feet may hang off the root", () => {
    const tree = outline(
      `
Bone
  Foot.{s}
  PoleTarget.{s}
  Body
    Hips
      Abdomen
        Torso
          Neck
            Head
          Shoulder.{s}
            UpperArm.{s}
              LowerArm.{s}
                Palm1.{s}
                  Index.{s}
                Palm2.{s}
                  Middle1.{s}
                    Middle2.{s}
                Thumb.{s}
                Palm3.{s}
    UpperLeg.{s}
      LowerLeg.{s}
`,
      ["L", "R"],
    );
    // Palms start at the wrist and fan out; the middle one continues the forearm.
    const positions: number[] = [];
    const at: Record<string, [number, number, number]> = {
      "LowerArm.": [3, 0, 0],
      "Palm1.": [4, 0, 0],
      "Palm2.": [4, 0, 0],
      "Palm3.": [4, 0, 0],
      "Index.": [5, 0.5, 0],
      "Middle1.": [5, 0, 0],
      "Middle2.": [6, 0.05, 0],
      "Thumb.": [3.8, 0.5, 0],
    };
    for (const name of tree.names) {
      const [x, y, z] = at[name.slice(0, -1)] ?? [0, 0, 0];
      positions.push(name.endsWith(".R") ? -x : x, y, z);
    }
    const expected = sided(
      { hips: "Body", spine: "Abdomen", chest: "Torso", neck: "Neck", head: "Head" },
      {
        Shoulder: "Shoulder.{s}",
        UpperArm: "UpperArm.{s}",
        LowerArm: "LowerArm.{s}",
        Hand: "Palm2.{s}",
        UpperLeg: "UpperLeg.{s}",
        LowerLeg: "LowerLeg.{s}",
        Foot: "Foot.{s}",
      },
      ["L", "R"],
    );
    expect(rolesByName({ ...tree, restPositions: positions })).toEqual(expected);
    const roles = findHumanoidRoles(tree);
    expect(isAncestor(tree.parents, roles.leftLowerLeg!, roles.leftFoot!)).toBe(false);
    // Without positions the first palm is taken: still a joint at the wrist.
    expect(tree.names[roles.leftHand!]).toBe("Palm1.L");
  });

  it("sides limbs whose names carry no side by their rest position along the left axis", () => {
    const tree = outline(
      `
pelvis
  spine
    chest
      head
      {s}upper_arm
        {s}forearm
          {s}hand
  {s}thigh
    {s}shin
      {s}foot
`,
      ["", ""],
    );
    // The first copy of each limb sits at z = +1, the second at z = -1.
    const positions: number[] = [];
    const seen = new Set<string>();
    for (const name of tree.names) {
      const limb = !["pelvis", "spine", "chest", "head"].includes(name);
      positions.push(0, 0, limb ? (seen.has(name) ? -1 : 1) : 0);
      seen.add(name);
    }
    const restPositions = positions;
    // Along the default +X every limb sits at 0: no side can be told, so no limb roles.
    const blind = findHumanoidRoles({ ...tree, restPositions });
    expect(Object.keys(blind).sort()).toEqual(["chest", "head", "hips", "spine"]);
    const roles = findHumanoidRoles({ ...tree, restPositions, leftAxis: [0, 0, 1] });
    for (const part of ["UpperArm", "LowerArm", "Hand", "UpperLeg", "LowerLeg", "Foot"]) {
      const left = roles[`left${part}` as HumanoidRole]!;
      const right = roles[`right${part}` as HumanoidRole]!;
      expect(tree.names[left]).toBe(tree.names[right]);
      expect([positions[3 * left + 2], positions[3 * right + 2]]).toEqual([1, -1]);
    }
  });

  it("finds nothing on rigs that are not humanoid, without throwing", () => {
    expect(findHumanoidRoles({ names: ["#0", "#1", "#2"], parents: [-1, 0, 1] })).toEqual({});
    expect(findHumanoidRoles({ names: ["Root", "Tail", "Tail1"], parents: [-1, 0, 1] })).toEqual({});
    expect(findHumanoidRoles({ names: [], parents: [] })).toEqual({});
  });

  it("rejects names that do not match the joints", () => {
    expect(() => findHumanoidRoles({ names: ["hips"], parents: [-1, 0] })).toThrow(
      /humanoid roles: names must hold one name per joint \(2\), got 1/,
    );
  });
});

describe("parseJointName", () => {
  it.each([
    ["mixamorig:LeftHand", "left", "hand", false],
    ["mixamorig:RightHandIndex1", "right", "finger", false],
    ["LeftUpLeg", "left", "upperLeg", false],
    ["LeftToeBase", "left", "toes", false],
    ["HeadTop_End", null, "head", true],
    ["hand.L", "left", "hand", false],
    ["DEF-forearm.R", "right", "lowerArm", false],
    ["ORG-upper_arm.L", "left", "upperArm", false],
    ["MCH-shin_ik.L", "left", "lowerLeg", true],
    ["upperarm_twist_01_l", "left", "upperArm", true],
    ["ik_hand_r", "right", "hand", true],
    ["lowerarm_r", "right", "lowerArm", false],
    ["leftUpperArm", "left", "upperArm", false],
    ["upperChest", null, "upperChest", false],
    ["J_Bip_L_LowerLeg", "left", "lowerLeg", false],
    ["Bip01 R Calf", "right", "lowerLeg", false],
    ["L_Hand", "left", "hand", false],
    ["LHand", "left", "hand", false],
    ["Skeleton_arm_joint_L__4_", "left", "arm", false],
    ["b_LeftForeArm_010", "left", "lowerArm", false],
    ["CC_Base_L_Upperarm", "left", "upperArm", false],
    ["PoleTarget.L", "left", null, true],
    ["Tail3", null, null, false],
    ["#12", null, null, false],
  ] as const)("%s", (name, side, part, helper) => {
    const parsed = parseJointName(name);
    expect([parsed.side, parsed.part, parsed.helper]).toEqual([side, part, helper]);
  });
});

const HUMANOIDS = ["RiggedFigure", "CesiumMan", "RobotExpressive"].map(characterNamed);
/** Per character, the name words that mark its left and right joints. */
const SIDE_MARK: Record<string, [RegExp, RegExp]> = {
  RiggedFigure: [/_L(_|$)/, /_R(_|$)/],
  CesiumMan: [/_L(_|$)/, /_R(_|$)/],
  RobotExpressive: [/\.L$/, /\.R$/],
};

describe.each(HUMANOIDS.filter((c) => !noteIfMissing(c)))("findHumanoidRoles on $folder", (c) => {
  let loaded: Loaded;
  beforeAll(async () => (loaded = await loadCharacter(c)));
  afterAll(() => loaded?.engine.dispose());

  it("finds head, hips, and both arms and legs with hands and feet, on the right sides", () => {
    const rig = buildSkeletonRig(loaded.root);
    const roles = findHumanoidRoles({
      names: rig.names,
      parents: rig.parents,
      restPositions: rig.restPositions,
    });
    const required: HumanoidRole[] = ["hips", "spine", "head"];
    for (const side of ["left", "right"] as const) {
      for (const part of ["UpperArm", "LowerArm", "Hand", "UpperLeg", "LowerLeg", "Foot"]) {
        required.push(`${side}${part}` as HumanoidRole);
      }
    }
    for (const role of required) expect(roles[role], role).toBeTypeOf("number");
    const [left, right] = SIDE_MARK[c.folder];
    for (const role of HUMANOID_ROLES) {
      const joint = roles[role];
      if (joint === undefined) continue;
      if (role.startsWith("left")) expect(rig.names[joint]).toMatch(left);
      if (role.startsWith("right")) expect(rig.names[joint]).toMatch(right);
    }
    // Arms read down the tree: upper arm, lower arm, hand.
    for (const side of ["left", "right"] as const) {
      expect(isAncestor(rig.parents, roles[`${side}UpperArm`]!, roles[`${side}LowerArm`]!)).toBe(true);
      expect(isAncestor(rig.parents, roles[`${side}LowerArm`]!, roles[`${side}Hand`]!)).toBe(true);
      expect(isAncestor(rig.parents, roles.hips!, roles[`${side}UpperLeg`]!)).toBe(true);
    }
  });
});

describe("findHumanoidRoles on the generated VRM-style figure", () => {
  it("gives each of its 20 joints the role its VRM name says; the _end sites outside the skin take none", async () => {
    const loaded = await loadCharacter(OWN_CHARACTERS.find((c) => c.folder === "figure")!);
    const rig = buildSkeletonRig(loaded.root);
    const roles = findHumanoidRoles({
      names: rig.names,
      parents: rig.parents,
      restPositions: rig.restPositions,
    });
    expect(rig.names.some((n) => n.endsWith("_end"))).toBe(false);
    const named = Object.fromEntries(Object.entries(roles).map(([role, j]) => [role, rig.names[j]]));
    expect(named).toEqual(Object.fromEntries(rig.names.map((n) => [n, n])));
    expect(rig.jointCount).toBe(20);
    loaded.engine.dispose();
  });
});
