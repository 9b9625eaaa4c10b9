import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { FootPlacement, type FootPlacementOptions } from "../../plugin/helpers/footPlacement.js";
import { FabrikError } from "../../plugin/solver/index.js";
import { jointCharacter, type JointLayout } from "../babylon/codeCharacters.js";
import { attach } from "../babylon/fabrikHarness.js";
import { DEGREES, FrameDriver, createSlope, createStep, onSolvedFrame, samplePose } from "./helperHarness.js";

/*
 * FootPlacement's `tiltBody`: a body on a slope pitches with it, about the middle of its legs' tops, so its
 * legs stand as on flat ground instead of the hips coming down for the lowest one.
 */

/** A four-legged body, Y up, facing +Z, 1.2 long: hips, knees and ankles (8 cm up) below a root at 1 m. */
function quadruped(): JointLayout[] {
  const joints: JointLayout[] = [["body", null, [0, 1, 0]]];
  for (const [name, z] of [
    ["front", 0.6],
    ["back", -0.6],
  ] as const) {
    for (const [side, x] of [
      ["L", 0.2],
      ["R", -0.2],
    ] as const) {
      joints.push([`${name}Hip.${side}`, "body", [x, 0.95, z]]);
      joints.push([`${name}Knee.${side}`, `${name}Hip.${side}`, [x, 0.5, z + 0.05]]);
      joints.push([`${name}Ankle.${side}`, `${name}Knee.${side}`, [x, 0.08, z]]);
    }
  }
  return joints;
}

/** After a second on `ground`: the body's pitch (degrees, nose up), its roll, how far the hips came down. */
function stand(
  options: FootPlacementOptions,
  ground: (scene: ReturnType<typeof jointCharacter>["scene"]) => void,
) {
  const loaded = jointCharacter(quadruped());
  const ik = attach(loaded);
  const feet = new FootPlacement(ik, { autoUpdate: false, ...options });
  ground(loaded.scene);
  const driver = new FrameDriver(loaded, null, 60);
  driver.run([feet], 1);
  let pose: ReturnType<typeof samplePose> | null = null;
  const stop = onSolvedFrame(loaded.scene, () => (pose = samplePose(ik)));
  driver.frame([feet]);
  stop();
  const at = (name: string) => pose!.world[ik.jointIndex(name)];
  const length = at("frontHip.L")
    .add(at("frontHip.R"))
    .subtract(at("backHip.L").add(at("backHip.R")))
    .scale(0.5);
  const width = at("frontHip.L").subtract(at("frontHip.R"));
  const result = {
    pitch: Math.atan2(length.y, Math.hypot(length.x, length.z)) / DEGREES,
    roll: Math.atan2(width.y, Math.hypot(width.x, width.z)) / DEGREES,
    drop: feet.hipsOffset,
    feet: feet.legs.map((leg) => Vector3.Distance(pose!.world[leg.foot], leg.targetPosition)),
  };
  loaded.engine.dispose();
  return result;
}

describe("FootPlacement tilts a four-legged body with the ground", () => {
  const slope = (degrees: number) => (scene: Parameters<typeof createSlope>[0]) =>
    void createSlope(scene, degrees, Vector3.Zero(), 20);

  it("pitches with a 20° slope by default, about the middle of the legs, so the hips barely come down", () => {
    const level = stand({ tiltBody: 0 }, slope(20));
    const tilted = stand({}, slope(20));
    const half = stand({ tiltBody: 0.5 }, slope(20));
    expect(level.pitch).toBeCloseTo(0, 6);
    expect(tilted.pitch).toBeCloseTo(20, 1);
    expect(half.pitch).toBeCloseTo(10, 1);
    // Level, the hips come down for the hind legs (and the front legs fold); pitched, by little.
    expect(level.drop).toBeGreaterThan(0.2);
    expect(tilted.drop).toBeLessThan(0.25 * level.drop);
    for (const r of [level, tilted, half]) for (const d of r.feet) expect(d).toBeLessThan(1e-3);
  });

  it("stays level on flat ground, and does not roll onto a step under one side", () => {
    const flat = stand({}, slope(0));
    expect(flat.pitch).toBeCloseTo(0, 6);
    expect(flat.drop).toBeCloseTo(0, 6);
    const step = stand({}, (scene) => {
      createSlope(scene, 0, Vector3.Zero(), 20);
      createStep(scene, "step", 0.1, 0, 10, -10, 10);
    });
    expect(Math.abs(step.roll)).toBeLessThan(0.5);
    expect(Math.abs(step.pitch)).toBeLessThan(0.5);
    for (const d of step.feet) expect(d).toBeLessThan(1e-3);
  });

  it("names a tiltBody outside 0..1", () => {
    const loaded = jointCharacter(quadruped());
    const ik = attach(loaded);
    expect(() => new FootPlacement(ik, { tiltBody: 2 })).toThrow(FabrikError);
    expect(() => new FootPlacement(ik, { tiltBody: 2 })).toThrow(
      /tiltBody must be a number in \[0, 1\], got 2/,
    );
    expect(ik.passes).toEqual([]);
    loaded.engine.dispose();
  });
});
