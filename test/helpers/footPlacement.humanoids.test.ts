// FootPlacement's bar on every humanoid at hand, at default settings (no per-character option): a 20° slope
// rising ahead of the character, and 15 cm steps (one foot on a step up; one foot a step down, which lowers
// the hips). Lengths are judged as for a 1.75 m human: scaled by the character's height / 1.75 m. The
// animals (legs found by where they stand) take the same grounds and the ankle bar; their soles and knees
// are not judged (a hind knee bends back; Quaternius' skins weight body vertices to the feet).
import { existsSync } from "node:fs";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, describe, expect, it } from "vitest";
import { findBodyFrame } from "../../plugin/rig/bodyFrame.js";
import type { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { FootPlacement, type FootPlacementLegInfo } from "../../plugin/helpers/footPlacement.js";
import { createRig } from "../../plugin/solver/rig.js";
import {
  ASSETS_DIR,
  CHARACTERS,
  OWN_CHARACTERS,
  loadCharacter,
  type Character,
  type Loaded,
} from "../babylon/characters.js";
import { attach } from "../babylon/fabrikHarness.js";
import {
  DEGREES,
  FrameDriver,
  createSlope,
  createStep,
  footSurface,
  onSolvedFrame,
  samplePose,
  type PoseSample,
} from "./helperHarness.js";

/** The bar, for a 1.75 m human: each planted ankle within 1 cm of its animated height above the ground. */
const ANKLE_BAR = 0.01;
/**
 * The sole may sink below where the animation holds it by no more than this (skin blended across the ankle
 * stretches a little when the foot turns against the shin).
 */
const SOLE_BAR = 0.0025;
/** A knee bent by more than this (offset from the hip–ankle line) must bend within 45° of forward. */
const BENT = 0.01;
const KNEE_BAR = 45 * DEGREES;
const STEP = 0.15;
const SLOPE = 20;

const shared = (folder: string, file: string): Character => {
  const path = `${ASSETS_DIR}${folder}/${file}`;
  return { folder, file, path, present: existsSync(path) };
};

/** Each humanoid and the clip it plays: Idle where it has one, else its only clip, else its bind pose. */
const HUMANOIDS: readonly { character: Character; clip?: string }[] = [
  { character: OWN_CHARACTERS.find((c) => c.folder === "mannequin")!, clip: "Idle" },
  { character: OWN_CHARACTERS.find((c) => c.folder === "figure")!, clip: "Idle" },
  { character: shared("QuaterniusWorkerWoman", "Worker.glb") },
  { character: CHARACTERS.find((c) => c.folder === "CesiumMan")! },
  { character: CHARACTERS.find((c) => c.folder === "RiggedFigure")! },
  { character: CHARACTERS.find((c) => c.folder === "RobotExpressive")!, clip: "Idle" },
];

/** Animals, each playing its idle clip. */
const ANIMALS: readonly { character: Character; clip?: string }[] = [
  { character: shared("QuaterniusHorse", "Horse.glb"), clip: "AnimalArmature|Idle" },
  { character: shared("QuaterniusTrex", "Trex.glb"), clip: "Armature|TRex_Idle" },
  { character: CHARACTERS.find((c) => c.folder === "Fox")!, clip: "Survey" },
  { character: CHARACTERS.find((c) => c.folder === "QuaterniusSpider")!, clip: "SpiderArmature|Spider_Idle" },
  { character: OWN_CHARACTERS.find((c) => c.folder === "creature")!, clip: "Idle" },
];

const missing = [...HUMANOIDS, ...ANIMALS].filter((h) => !h.character.present).map((h) => h.character.folder);
if (missing.length > 0) {
  console.warn(`[foot placement on humanoids] skipping ${missing.join(", ")}: absent from ${ASSETS_DIR}`);
}

type Ground = "slope" | "step up" | "step down";
const GROUNDS: readonly Ground[] = ["slope", "step up", "step down"];

interface Row {
  character: string;
  ground: Ground;
  height: number;
  /** Worst planted ankle's distance from its animated height above the ground, scaled to 1.75 m. */
  ankle: number;
  /** Lowest sole point below where the animation holds it (positive: sunk), scaled to 1.75 m. */
  sole: number;
  /** Worst angle between a bent knee's bend and the character's forward; NaN when no knee bends. */
  knee: number;
  hips: number;
  finite: boolean;
  /** Soles and knees judged. */
  humanoid: boolean;
}
const rows: Row[] = [];

afterAll(() => {
  if (rows.length === 0) return;
  const mm = (v: number) => (v * 1000).toFixed(2);
  const lines = rows.map(
    (r) =>
      `| ${r.character} | ${r.ground} | ${r.height.toFixed(2)} | ${mm(r.ankle)} | ${r.humanoid ? mm(r.sole) : "—"} | ` +
      `${!r.humanoid ? "—" : Number.isNaN(r.knee) ? "straight" : (r.knee / DEGREES).toFixed(1)} | ${(r.hips * 100).toFixed(1)} | ${r.finite ? "yes" : "NO"} |`,
  );
  console.log(
    "[foot placement on humanoids and animals] (mm for a 1.75 m human)\n" +
      "| character | ground | height m | ankle error mm | sole sunk mm | knee off forward ° | hips lowered cm | finite |\n" +
      "|---|---|--:|--:|--:|--:|--:|---|\n" +
      lines.join("\n"),
  );
});

/** The character's height: its skinned surface, in the pose it stands in now (world units). */
function heightOf(ik: FabrikBehavior, humanoid: boolean): number {
  // The joints' height for the animals: FBX2glTF's horse skins a hundred times too tall here.
  if (!humanoid) return ik.height * Math.hypot(...Array.from(ik.modelToWorld!.subarray(4, 7)));
  let low = Infinity,
    high = -Infinity;
  for (const mesh of ik.rig!.meshes) {
    if (mesh.skeleton === null) continue;
    mesh.skeleton.prepare(true);
    const data = mesh.getPositionData(true, false)!;
    const world = mesh.computeWorldMatrix(true);
    for (let v = 0; v < data.length; v += 3) {
      const y = Vector3.TransformCoordinates(new Vector3(data[v], data[v + 1], data[v + 2]), world).y;
      low = Math.min(low, y);
      high = Math.max(high, y);
    }
  }
  return high - low;
}

/** The character's forward (world, unit): its rest body frame carried by the animated hips. */
function forwardOf(ik: FabrikBehavior, pose: PoseSample): Vector3 {
  const rig = ik.rig!;
  const frame = findBodyFrame(createRig(rig.toRigDescription()), ik.roles)!;
  const hips = ik.roles.hips!;
  const r = rig.restOrientations;
  const rest = new Quaternion(r[4 * hips], r[4 * hips + 1], r[4 * hips + 2], r[4 * hips + 3]);
  const model = new Vector3(...frame.forward).applyRotationQuaternion(
    pose.orientations[hips].multiply(Quaternion.Inverse(rest)),
  );
  const toWorld = Matrix.FromArray(Array.from(pose.worldToModel)).invert();
  return Vector3.TransformNormal(model, toWorld).normalize();
}

/**
 * How the knee bends: its offset from the hip–ankle line (world units) and the angle between that offset
 * and the character's forward (both square to the line).
 */
function kneeBend(ik: FabrikBehavior, leg: FootPlacementLegInfo, pose: PoseSample, forward: Vector3) {
  const knee = leg.shin >= 0 ? leg.shin : ik.rig!.parents[leg.foot];
  const hip = pose.world[leg.base];
  const line = pose.world[leg.foot].subtract(hip).normalize();
  const k = pose.world[knee].subtract(hip);
  const offset = k.subtract(line.scale(Vector3.Dot(k, line)));
  const ahead = forward.subtract(line.scale(Vector3.Dot(forward, line))).normalize();
  const cos = Vector3.Dot(offset.normalizeToNew(), ahead);
  return { offset: offset.length(), angle: Math.acos(Math.max(-1, Math.min(1, cos))) };
}

describe.each(HUMANOIDS.filter((h) => h.character.present))("FootPlacement on $character.folder", (h) => {
  it.each(GROUNDS)("at default settings on a %s: ankles, soles and knees", (ground) =>
    place(h, ground, true),
  );
});

describe.each(ANIMALS.filter((h) => h.character.present))("FootPlacement on $character.folder", (h) => {
  it.each(GROUNDS)("at default settings on a %s: ankles", (ground) => place(h, ground, false));
});

async function place(h: { character: Character; clip?: string }, ground: Ground, humanoid: boolean) {
  {
    const loaded: Loaded = await loadCharacter(h.character);
    const ik = attach(loaded);
    const group =
      h.clip !== undefined
        ? loaded.scene.getAnimationGroupByName(h.clip)
        : (loaded.scene.animationGroups[0] ?? null);
    const driver = new FrameDriver(loaded, group, 60);
    const feet = new FootPlacement(ik, { autoUpdate: false });
    // Every humanoid foot turns with the ground, toes or not.
    if (humanoid) expect(feet.legs.map((l) => l.align)).toEqual(feet.legs.map(() => true));
    const reader = new PoseReader(ik.rig!);
    const first = samplePose(ik, reader);
    const height = heightOf(ik, humanoid);
    const scale = height / 1.75;
    const legLength = feet.maxStepDown * 2;
    const far = 20 * legLength;
    // Ground heights at (x, z) under the character's own ground (the model root's plane, y = refY).
    const refY = loaded.root.position.y;
    let above: (p: Vector3) => number;
    if (ground === "slope") {
      const slope = createSlope(loaded.scene, SLOPE, new Vector3(0, refY, 0), 2 * far);
      above = slope.distance;
    } else {
      // The step's edge runs between the feet (along world Z); the +X foot steps up, or the −X one down.
      const xs = feet.legs.map((l) => first.world[l.foot].x);
      const edge = (Math.min(...xs) + Math.max(...xs)) / 2;
      const rise = STEP * scale;
      const [lowTop, highTop] = ground === "step up" ? [0, rise] : [-rise, 0];
      createStep(loaded.scene, "low", refY + lowTop, -far, edge - 1e-4 * legLength, -far, far);
      createStep(loaded.scene, "high", refY + highTop, edge + 1e-4 * legLength, far, -far, far);
      above = (p) => p.y - refY - (p.x > edge ? highTop : lowTop);
    }
    const surfaces = humanoid ? feet.legs.map((leg) => footSurface(ik, leg.foot)) : [];
    for (const s of surfaces) expect(s.count).toBeGreaterThan(0);
    driver.run([feet], 1);

    let animated: PoseSample | null = null;
    let solved: PoseSample | null = null;
    let animatedSoles: Vector3[][] = [];
    let solvedSoles: Vector3[][] = [];
    const stop = onSolvedFrame(loaded.scene, () => {
      solved = samplePose(ik, reader);
      solvedSoles = surfaces.map((s) => s.sample());
    });
    driver.frame([feet], () => {
      animated = samplePose(ik, reader);
      animatedSoles = surfaces.map((s) => s.sample());
    });
    stop();
    const a = animated! as PoseSample;
    const s = solved! as PoseSample;
    const forward = humanoid ? forwardOf(ik, a) : null;

    let ankle = 0,
      sole = -Infinity,
      knee = NaN;
    feet.legs.forEach((leg, i) => {
      expect(leg.grounded && leg.weight === 1, leg.name).toBe(true);
      ankle = Math.max(ankle, Math.abs(above(s.world[leg.foot]) - (a.world[leg.foot].y - refY)));
      if (forward === null) return;
      // The animation's own clearance of the sole over its flat ground, and the solved one over this ground.
      const held = Math.min(...animatedSoles[i].map((p) => p.y - refY));
      const now = Math.min(...solvedSoles[i].map(above));
      sole = Math.max(sole, Math.min(held, 0) - now);
      const bend = kneeBend(ik, leg, s, forward);
      if (bend.offset > BENT * scale) knee = Math.max(Number.isNaN(knee) ? 0 : knee, bend.angle);
    });
    const finite = s.locals.every((q) => q.every(Number.isFinite));
    rows.push({
      character: h.character.folder,
      ground,
      height,
      ankle: ankle / scale,
      sole: sole / scale,
      knee,
      hips: feet.hipsOffset / scale,
      finite,
      humanoid,
    });
    expect(finite).toBe(true);
    expect(ankle / scale).toBeLessThan(ANKLE_BAR);
    if (humanoid) expect(sole / scale).toBeLessThan(SOLE_BAR);
    if (!Number.isNaN(knee)) expect(knee).toBeLessThan(KNEE_BAR);
    feet.dispose();
    loaded.engine.dispose();
  }
}
