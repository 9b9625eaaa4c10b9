import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, describe, expect, it } from "vitest";
import type { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { FootPlacement, type FootPlacementOptions } from "../../plugin/helpers/footPlacement.js";
import { LookAt } from "../../plugin/helpers/lookAt.js";
import {
  CHARACTERS,
  OWN_CHARACTERS,
  characterNamed,
  loadCharacter,
  noteIfMissing,
  type Character,
} from "../babylon/characters.js";
import { attach } from "../babylon/fabrikHarness.js";
import {
  DEGREES,
  FrameDriver,
  createSlope,
  createStep,
  onSolvedFrame,
  samplePose,
  type PoseSample,
} from "./helperHarness.js";

interface Setup {
  /** The clip to play (default: the first). */
  readonly clip?: string;
  readonly feet: FootPlacementOptions;
  /** Leg count the helper must find. */
  readonly legs: number;
  /** Look joints, or the default (roles). */
  readonly look?: string[];
}

/**
 * Legs per character. Humanoids and the Fox are found by role (the Fox's hands rest below its knees, so
 * they count as front legs), the spider's, the horse's and the T-rex's by where they stand (see
 * groundLegs.test.ts); the creature's are listed, each ending in the tip joint below its ankle.
 */
const SETUPS: Record<string, Setup> = {
  creature: {
    clip: "Walk",
    feet: {
      legs: ["L1", "L2", "L3", "R1", "R2", "R3"].map((leg) => ({ foot: `Leg.${leg}.Foot`, chainLength: 3 })),
    },
    legs: 6,
  },
  Fox: { clip: "Walk", feet: {}, legs: 4 },
  QuaterniusSpider: { clip: "SpiderArmature|Spider_Walk", feet: {}, legs: 8 },
  CesiumMan: { feet: {}, legs: 2 },
  RiggedFigure: { feet: {}, legs: 2 },
  // Its feet hang from the root, each where its shin ends (a rig made for Blender's IK): found by role and
  // geometry, the knee placed so the shin ends on the ground, the foot moved with it. More in
  // footPlacement.robot.test.ts.
  RobotExpressive: { clip: "Idle", feet: {}, legs: 2 },
  QuaterniusHorse: { clip: "AnimalArmature|Walk", feet: {}, legs: 4 },
  QuaterniusTrex: { clip: "Armature|TRex_Walk", feet: {}, legs: 2 },
};

const characters: Character[] = [
  OWN_CHARACTERS.find((c) => c.folder === "creature")!,
  ...["Fox", "QuaterniusSpider", "CesiumMan", "RiggedFigure", "RobotExpressive"].map((f) =>
    CHARACTERS.find((c) => c.folder === f)!,
  ),
  characterNamed("QuaterniusHorse"),
  characterNamed("QuaterniusTrex"),
];

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[helpers on characters]\n  ${notes.join("\n  ")}`);
});

/** The animated and solved poses of one frame. */
function lastFrame(driver: FrameDriver, ik: FabrikBehavior, helpers: { update(dt: number): void }[]) {
  const reader = new PoseReader(ik.rig!);
  let animated: PoseSample | null = null;
  let solved: PoseSample | null = null;
  const stop = onSolvedFrame(driver.loaded.scene, () => (solved = samplePose(ik, reader)));
  driver.frame(helpers, () => (animated = samplePose(ik, reader)));
  stop();
  return { animated: animated! as PoseSample, solved: solved! as PoseSample };
}

describe.each(characters.filter((c) => !noteIfMissing(c)))("helpers on $folder", (character) => {
  const setup = SETUPS[character.folder];

  it("places every leg on a 10° slope with a step, the foot at its animated height above the ground", async () => {
    const loaded = await loadCharacter(character);
    const ik = attach(loaded);
    const group = setup.clip
      ? loaded.scene.getAnimationGroupByName(setup.clip)
      : loaded.scene.animationGroups[0];
    const driver = new FrameDriver(loaded, group, 60);
    const feet = new FootPlacement(ik, { autoUpdate: false, ...setup.feet });
    expect(feet.legs.length).toBe(setup.legs);
    // Sizes in the character's own units: its legs' mean length (the default step limits are half of it).
    const legLength = feet.maxStepDown * 2;
    const slope = createSlope(loaded.scene, 10, Vector3.Zero(), 40 * legLength);
    // A 12 %-of-leg step up under the character's left side (world −X under glTF's mirrored root).
    const stepTop = 0.12 * legLength;
    const far = 20 * legLength;
    createStep(loaded.scene, "step", stepTop, -far, -0.02 * legLength, -far, far);
    driver.run([feet], 1);
    const { animated, solved } = lastFrame(driver, ik, [feet]);
    const refY = loaded.root.position.y;
    let worstTarget = 0;
    let worstReach = 0;
    for (const leg of feet.legs) {
      expect(leg.weight, leg.name).toBe(1);
      const a = animated.world[leg.foot];
      const ground = Math.max(slope.heightAt(a.x, a.z), a.x < -0.02 * legLength ? stepTop : -Infinity);
      const height = a.y - refY;
      const want = ground + height / leg.normal.y;
      worstTarget = Math.max(worstTarget, Math.abs(leg.targetPosition.y - want));
      worstReach = Math.max(worstReach, Vector3.Distance(solved.world[leg.foot], leg.targetPosition));
    }
    // A walking foot that crosses onto another face blends over the smoothing time: small, not zero.
    expect(worstTarget / legLength).toBeLessThan(1e-3);
    expect(worstReach / legLength).toBeLessThan(2e-3);
    notes.push(
      `${character.folder}: ${feet.legs.length} legs (${feet.legs.map((l) => l.name).join(", ")}), hips "${ik.rig!.names[feet.hips]}" ` +
        `lowered ${((feet.hipsOffset / legLength) * 100).toFixed(1)} % of a leg; targets within ${((worstTarget / legLength) * 100).toFixed(3)} % of a leg of the ground rule, feet within ${((worstReach / legLength) * 100).toFixed(3)} % of a leg of their targets`,
    );
    feet.dispose();
    loaded.engine.dispose();
  });

  it("turns the head toward a point 35° to the side and 10° up", async () => {
    const loaded = await loadCharacter(character);
    const ik = attach(loaded);
    const group = setup.clip
      ? loaded.scene.getAnimationGroupByName(setup.clip)
      : loaded.scene.animationGroups[0];
    const driver = new FrameDriver(loaded, group, 60);
    const look = new LookAt(ik, {
      autoUpdate: false,
      smoothing: 0,
      ...(setup.look ? { joints: setup.look } : {}),
    });
    const reader = new PoseReader(ik.rig!);
    const head = look.joints[look.joints.length - 1];
    const eye = reader.getWorldPositionToRef(head, new Vector3());
    const size =
      ik.height / Math.hypot(reader.worldToModel[4], reader.worldToModel[5], reader.worldToModel[6]);
    const yaw = 35 * DEGREES,
      pitch = 10 * DEGREES;
    const point = eye.add(
      new Vector3(-Math.sin(yaw) * Math.cos(pitch), Math.sin(pitch), Math.cos(yaw) * Math.cos(pitch)).scale(
        2 * size,
      ),
    );
    look.target = point;
    driver.run([look], 1);
    // The gaze the helper turns: the front of the character at rest (+Z of its root, in model space),
    // carried by the head from its rest orientation to its solved one.
    const { solved } = lastFrame(driver, ik, [look]);
    reader.read();
    const w = reader.worldToModel;
    const r = ik.rig!.restOrientations;
    const rest = new Quaternion(r[4 * head], r[4 * head + 1], r[4 * head + 2], r[4 * head + 3]);
    const gazeModel = new Vector3(w[8], w[9], w[10])
      .normalize()
      .applyRotationQuaternion(Quaternion.Inverse(rest))
      .applyRotationQuaternion(solved.orientations[head]);
    const m = reader.modelToWorld;
    const gaze = new Vector3(
      gazeModel.x * m[0] + gazeModel.y * m[4] + gazeModel.z * m[8],
      gazeModel.x * m[1] + gazeModel.y * m[5] + gazeModel.z * m[9],
      gazeModel.x * m[2] + gazeModel.y * m[6] + gazeModel.z * m[10],
    ).normalize();
    const toPoint = point.subtract(solved.world[head]).normalize();
    const error = Math.acos(Math.min(1, Vector3.Dot(gaze, toPoint)));
    expect(ik.hasTarget(ik.rig!.names[head])).toBe(true);
    expect(error / DEGREES).toBeLessThan(0.1);
    notes.push(
      `${character.folder}: look joints ${look.joints.map((j) => ik.rig!.names[j]).join(" > ")}, gaze ${(error / DEGREES).toFixed(3)}° off`,
    );
    look.dispose();
    loaded.engine.dispose();
  });
});
