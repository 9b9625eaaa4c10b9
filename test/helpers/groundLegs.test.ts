import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterAll, describe, expect, it } from "vitest";
import { FabrikError } from "../../plugin/solver/index.js";
import { FootPlacement } from "../../plugin/helpers/footPlacement.js";
import {
  CHARACTERS,
  OWN_CHARACTERS,
  characterNamed,
  loadCharacter,
  noteIfMissing,
  type Character,
  type Loaded,
} from "../babylon/characters.js";
import { jointCharacter, type JointLayout } from "../babylon/codeCharacters.js";
import { attach } from "../babylon/fabrikHarness.js";
import { FrameDriver, createSlope, onSolvedFrame, samplePose, type PoseSample } from "./helperHarness.js";

/*
 * FootPlacement with no `legs` option: the legs it finds on every character at hand. Humanoids (and the
 * Fox) by their roles; the others by where they stand: a leg is a chain end near the ground below a leg that
 * rises from it. A foot sitting at a child-less shin's end (a Blender-IK control) is placed through the shin.
 */

/** The legs found, as `foot` or `foot@shin`, in the order FootPlacement lists them; null: none (it throws). */
const EXPECTED: Record<string, string[] | null> = {
  RiggedSimple: null,
  SimpleSkin: null,
  RiggedFigure: ["leg_joint_L_3", "leg_joint_R_3"],
  CesiumMan: ["leg_joint_L_3", "leg_joint_R_3"],
  RobotExpressive: ["Foot.L@LowerLeg.L", "Foot.R@LowerLeg.R"],
  Fox: ["b_LeftFoot01_017", "b_RightFoot01_021", "b_LeftHand_011", "b_RightHand_08"],
  // Its leg bones end above the ground; each foot is a control under the root, at its shin's end.
  QuaterniusSpider: [
    "FrontFoot.L@FrontLeg3.L",
    "MidFrontFoot.L@MidFrontLeg3.L",
    "BackFoot.L@BackLeg3.L",
    "MidBackFoot.L@MidBackLeg3.L",
    "FrontFoot2.R@FrontLeg3.R",
    "MidFrontFoot.R@MidFrontLeg3.R",
    "BackFoot.R@BackLeg3.R",
    "MidBackFoot.R@MidBackLeg3.R",
  ],
  // Lies on the ground: nothing rises above its chain ends.
  QuaterniusSnake: null,
  mannequin: ["LeftFoot", "RightFoot"],
  // The tips below the ankles do not deform: the ankles are the chain ends.
  creature: ["L1", "L2", "L3", "R1", "R2", "R3"].map((leg) => `Leg.${leg}.Ankle`),
  tentacle: null,
  figure: ["leftFoot", "rightFoot"],
  // Its short arms carry the leg names (FrontUpLeg.L > FrontLowLeg.L > FrontFoot.L) but hang in the air.
  QuaterniusTrex: ["BackFoot.R@BackLowLeg.R", "BackFoot.L@BackLowLeg.L"],
  // The hooves' IK controls (FF.L under IKFrontLeg.L, beside the body) sit where the lower legs end.
  QuaterniusHorse: [
    "FFB.L@BackLowerLeg.L",
    "FF.L@FrontLowerLeg.L",
    "FFB.R@BackLowerLeg.R",
    "FF.R@FrontLowerLeg.R",
  ],
  QuaterniusWorkerWoman: ["Foot.L", "Foot.R"],
};

const characters: Character[] = [
  ...CHARACTERS.filter((c) => c.folder !== "RecursiveSkeletons"),
  ...OWN_CHARACTERS,
  characterNamed("QuaterniusTrex"),
  characterNamed("QuaterniusHorse"),
  characterNamed("QuaterniusWorkerWoman"),
];

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[legs found by FootPlacement]\n  ${notes.join("\n  ")}`);
});

describe("FootPlacement finds the legs by itself", () => {
  it.each(characters.filter((c) => !noteIfMissing(c)))("on $folder", async (character) => {
    const loaded = await loadCharacter(character);
    const ik = attach(loaded);
    const rig = ik.rig!;
    const expected = EXPECTED[character.folder];
    const passes = ik.passes.length;
    if (expected === null) {
      expect(() => new FootPlacement(ik, { autoUpdate: false })).toThrow(FabrikError);
      expect(() => new FootPlacement(ik, { autoUpdate: false })).toThrow(/no legs found/);
      expect(ik.passes.length).toBe(passes);
      notes.push(`${character.folder}: none (a clear error)`);
    } else {
      const feet = new FootPlacement(ik, { autoUpdate: false });
      const found = feet.legs.map((leg) => (leg.shin >= 0 ? `${leg.name}@${rig.names[leg.shin]}` : leg.name));
      expect(found).toEqual(expected);
      notes.push(`${character.folder}: ${found.join(", ")}`);
      feet.dispose();
    }
    loaded.engine.dispose();
  });
});

/** A root `bone_00` at `at`, and `bone(parent, at)` adding `bone_01`, `bone_02`, … below it. */
function numberedBones(at: [number, number, number]) {
  const joints: JointLayout[] = [["bone_00", null, at]];
  const bone = (parent: string, p: [number, number, number]): string => {
    const name = `bone_${String(joints.length).padStart(2, "0")}`;
    joints.push([name, parent, p]);
    return name;
  };
  return { joints, bone };
}

/**
 * A four-legged animal of numbered bones (nothing a name says), Y up, facing +Z: each leg a hip, knee and
 * ankle joint below the body, a neck and head ahead, and a tail held out behind.
 */
function numberedQuadruped(): JointLayout[] {
  const { joints, bone } = numberedBones([0, 1, 0]);
  for (const z of [0.6, -0.6]) {
    for (const x of [0.2, -0.2]) {
      const hip = bone("bone_00", [x, 0.95, z]);
      const knee = bone(hip, [x, 0.5, z + 0.05]);
      bone(knee, [x, 0.08, z]);
    }
  }
  const neck = bone("bone_00", [0, 1.3, 0.8]);
  bone(neck, [0, 1.6, 1.0]);
  let tail = "bone_00";
  for (let i = 1; i <= 4; i++) tail = bone(tail, [0, 1 - 0.05 * i, -0.6 - 0.2 * i]);
  return joints;
}

describe("legs found by shape on a rig of numbered bones", () => {
  it("places the four ankles on a slope, not the tail or the head", () => {
    const loaded = jointCharacter(numberedQuadruped());
    const ik = attach(loaded);
    const rig = ik.rig!;
    const feet = new FootPlacement(ik, { autoUpdate: false });
    // Each ankle with its knee and hip turning; the body, which every leg hangs from, is the hips.
    expect(feet.legs.map((leg) => rig.names[leg.foot])).toEqual(["bone_03", "bone_06", "bone_09", "bone_12"]);
    expect(feet.legs.map((leg) => rig.names[leg.base])).toEqual(["bone_01", "bone_04", "bone_07", "bone_10"]);
    expect(rig.names[feet.hips]).toBe("bone_00");
    const slope = createSlope(loaded.scene, 10, Vector3.Zero(), 20);
    const driver = new FrameDriver(loaded, null, 60);
    driver.run([feet], 1);
    let solved: PoseSample | null = null;
    const stop = onSolvedFrame(loaded.scene, () => (solved = samplePose(ik)));
    driver.frame([feet]);
    stop();
    for (const leg of feet.legs) {
      const p = solved!.world[leg.foot];
      // The ankle stood 8 cm above flat ground: now 8 cm above the slope, measured square to it.
      expect(slope.distance(p)).toBeCloseTo(0.08, 3);
    }
    feet.dispose();
    loaded.engine.dispose();
  });
});

/**
 * A hoofed animal of numbered bones (Y up, facing +Z): each leg a short top bone (a shoulder blade, a
 * pelvis), an upper and a lower bone, and no foot joint: the lower bone's glTF `_end` site is the hoof, on
 * the ground.
 */
function hoofedQuadruped(): { joints: JointLayout[]; ends: JointLayout[] } {
  const { joints, bone } = numberedBones([0, 1.3, 0]);
  const ends: JointLayout[] = [];
  for (const z of [0.7, -0.7]) {
    for (const x of [0.2, -0.2]) {
      const top = bone("bone_00", [x, 1.25, z]);
      const upper = bone(top, [x, 1.1, z + 0.05]);
      const lower = bone(upper, [x, 0.55, z]);
      ends.push([`${lower}_end`, lower, [x, 0, z]]);
    }
  }
  bone(bone("bone_00", [0, 1.6, 0.9]), [0, 1.9, 1.1]);
  bone("bone_00", [0, 1.2, -0.9]);
  return { joints, ends };
}

/** Each leg's `_end` node, in world space, as the frame being rendered left it. */
function endsAt(loaded: Loaded, names: readonly string[]): Vector3[] {
  return names.map((name) => {
    const end = loaded.scene.getTransformNodeByName(`${name}_end`)!;
    for (let k: TransformNode | null = end; k !== null; k = k.parent as TransformNode | null) {
      k.computeWorldMatrix(true);
    }
    return end.getAbsolutePosition().clone();
  });
}

describe("legs placed by where their last bone ends", () => {
  it.each([
    ["slope", 20],
    ["flat ground", 0],
  ] as const)("puts each hoof on a %s, the leg bent at its lower joint", (_, degrees) => {
    const { joints, ends } = hoofedQuadruped();
    const loaded = jointCharacter(joints, ends);
    const ik = attach(loaded);
    const rig = ik.rig!;
    const feet = new FootPlacement(ik, { autoUpdate: false });
    // Each lower bone, its end the foot; the upper bone turns (the leg's base), the lower one bends.
    expect(feet.legs.map((leg) => [rig.names[leg.foot], rig.names[leg.shin], rig.names[leg.base]])).toEqual([
      ["bone_03", "bone_03", "bone_02"],
      ["bone_06", "bone_06", "bone_05"],
      ["bone_09", "bone_09", "bone_08"],
      ["bone_12", "bone_12", "bone_11"],
    ]);
    const slope = createSlope(loaded.scene, degrees, Vector3.Zero(), 20);
    const driver = new FrameDriver(loaded, null, 60);
    driver.run([feet], 1);
    let hoofAt: Vector3[] = [];
    const stop = onSolvedFrame(
      loaded.scene,
      () =>
        (hoofAt = endsAt(
          loaded,
          feet.legs.map((l) => l.name),
        )),
    );
    driver.frame([feet]);
    stop();
    // Each hoof stood on flat ground: now on this ground, to a thousandth of the leg.
    for (const p of hoofAt) expect(Math.abs(slope.distance(p))).toBeLessThan(1e-3 * 1.3);
    feet.dispose();
    loaded.engine.dispose();
  });

  const horse = characterNamed("QuaterniusHorse");
  it.skipIf(!horse.present)(
    "puts the horse's hooves on a 20° slope through its lower legs, without its IK controls",
    async () => {
      const loaded = await loadCharacter(horse);
      const ik = attach(loaded);
      const lower = ["FrontLowerLeg.L", "FrontLowerLeg.R", "BackLowerLeg.L", "BackLowerLeg.R"];
      const feet = new FootPlacement(ik, {
        autoUpdate: false,
        legs: lower.map((foot) => ({ foot, end: true })),
      });
      const driver = new FrameDriver(loaded, loaded.scene.getAnimationGroupByName("AnimalArmature|Idle"), 60);
      const slope = createSlope(loaded.scene, 20, new Vector3(0, loaded.root.position.y, 0), 100);
      driver.run([feet], 1);
      let animated: Vector3[] = [];
      let solved: Vector3[] = [];
      const stop = onSolvedFrame(loaded.scene, () => (solved = endsAt(loaded, lower)));
      driver.frame([feet], () => (animated = endsAt(loaded, lower)));
      stop();
      const height = ik.height * Math.hypot(...Array.from(ik.modelToWorld!.subarray(4, 7)));
      lower.forEach((name, i) => {
        // Each hoof keeps its animated height over the ground, measured square to the slope.
        const want = animated[i].y - loaded.root.position.y;
        expect(Math.abs(slope.distance(solved[i]) - want) / height, name).toBeLessThan(1e-3);
      });
      notes.push(
        `QuaterniusHorse, lower legs by their ends on a 20° slope: hips lowered ${((feet.hipsOffset / height) * 100).toFixed(1)} % of its height`,
      );
      feet.dispose();
      loaded.engine.dispose();
    },
  );
});
