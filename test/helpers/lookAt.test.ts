import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { LookAt } from "../../plugin/helpers/lookAt.js";
import { OWN_CHARACTERS, loadCharacter, type Loaded } from "../babylon/characters.js";
import { attach, captureLocals, limitViolation } from "../babylon/fabrikHarness.js";
import { DEGREES, FrameDriver, onSolvedFrame } from "./helperHarness.js";

const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[look-at]\n  ${notes.join("\n  ")}`);
});

/**
 * The gaze in the frame just solved: the head's rest forward (+Z in model space, the glTF front) carried by
 * its solved orientation, in world space; and the eye (the head joint).
 */
function gazeOf(ik: FabrikBehavior, reader: PoseReader): { eye: Vector3; gaze: Vector3 } {
  reader.read();
  const head = ik.jointIndex("head");
  const r = ik.rig!.restOrientations;
  const rest = new Quaternion(r[4 * head], r[4 * head + 1], r[4 * head + 2], r[4 * head + 3]);
  const o = reader.orientations;
  const now = new Quaternion(o[4 * head], o[4 * head + 1], o[4 * head + 2], o[4 * head + 3]);
  const g = new Vector3(0, 0, 1)
    .applyRotationQuaternion(Quaternion.Inverse(rest))
    .applyRotationQuaternion(now);
  const m = reader.modelToWorld;
  const gaze = new Vector3(
    g.x * m[0] + g.y * m[4] + g.z * m[8],
    g.x * m[1] + g.y * m[5] + g.z * m[9],
    g.x * m[2] + g.y * m[6] + g.z * m[10],
  ).normalize();
  return { eye: reader.getWorldPositionToRef(head, new Vector3()), gaze };
}

/** Angle between the gaze and the direction from the eye to `point`. */
function gazeError(ik: FabrikBehavior, reader: PoseReader, point: Vector3): number {
  const { eye, gaze } = gazeOf(ik, reader);
  const want = point.subtract(eye).normalize();
  return Math.acos(Math.min(1, Vector3.Dot(gaze, want)));
}

/** A point at `yaw` (to the character's left) and `pitch` (up) from the head, 2 m away. */
function around(eye: Vector3, yaw: number, pitch: number): Vector3 {
  // The mannequin faces world +Z; under glTF's mirrored root its left is world −X.
  const dir = new Vector3(-Math.sin(yaw) * Math.cos(pitch), Math.sin(pitch), Math.cos(yaw) * Math.cos(pitch));
  return eye.add(dir.scale(2));
}

describe("LookAt on the mannequin", () => {
  let loaded: Loaded;
  let ik: FabrikBehavior;
  let driver: FrameDriver;
  let reader: PoseReader;
  let eye: Vector3;
  beforeEach(async () => {
    loaded = await loadCharacter(mannequin);
    ik = attach(loaded);
    driver = new FrameDriver(loaded, loaded.scene.getAnimationGroupByName("Idle"), 60);
    reader = new PoseReader(ik.rig!);
    eye = gazeOf(ik, reader).eye;
  });
  afterEach(() => loaded?.engine.dispose());

  /** Joints of the look, with how far (radians) each is outside its limits in the frame just solved. */
  function violations(look: LookAt): number[] {
    return look.joints.map((j) => {
      const q = ik.rig!.nodes[j]!.rotationQuaternion!;
      return limitViolation(ik.limits!, j, [q.x, q.y, q.z, q.w]);
    });
  }

  it.each([
    [30, 0],
    [60, 10],
    [-70, -15],
    [0, 25],
    [75, 0],
  ])("looks exactly at a point %i° to the side and %i° up, within the limits", (yaw, pitch) => {
    // Unsmoothed, so the Idle clip's head motion leaves no lag to measure.
    const look = new LookAt(ik, { autoUpdate: false, smoothing: 0 });
    const point = around(eye, yaw * DEGREES, pitch * DEGREES);
    look.target = point;
    driver.run([look], 2);
    let error = NaN;
    let outside: number[] = [];
    const stop = onSolvedFrame(loaded.scene, () => {
      error = gazeError(ik, reader, point);
      outside = violations(look);
    });
    driver.frame([look]);
    stop();
    expect(look.currentWeight).toBe(1);
    expect(error / DEGREES).toBeLessThan(0.05);
    for (const v of outside) expect(v).toBeLessThan(1e-6);
    notes.push(`yaw ${yaw}°, pitch ${pitch}°: gaze ${(error / DEGREES).toFixed(4)}° off the point`);
  });

  it("keeps neck and head within their limits for a point behind, turning as far as they allow", () => {
    const look = new LookAt(ik, { autoUpdate: false, maxAngle: Math.PI });
    const point = around(eye, 150 * DEGREES, 0);
    look.target = point;
    driver.run([look], 2);
    let error = NaN;
    let outside: number[] = [];
    let yaw = NaN;
    const stop = onSolvedFrame(loaded.scene, () => {
      error = gazeError(ik, reader, point);
      outside = violations(look);
      const { gaze } = gazeOf(ik, reader);
      yaw = Math.atan2(-gaze.x, gaze.z);
    });
    driver.frame([look]);
    stop();
    for (const v of outside) expect(v).toBeLessThan(1e-6);
    // Neck (50° turn) and head (40°) together: about 90° of the 150°.
    expect(yaw / DEGREES).toBeGreaterThan(80);
    expect(error / DEGREES).toBeGreaterThan(50);
    notes.push(
      `150° behind: turned ${(yaw / DEGREES).toFixed(1)}°, limits kept (worst ${Math.max(...outside).toExponential(1)} rad)`,
    );
  });

  it("shares the turn with the chest when asked", () => {
    const look = new LookAt(ik, { autoUpdate: false, chest: true, smoothing: 0 });
    expect(look.joints.map((j) => ik.rig!.names[j])).toEqual(["Spine2", "Neck", "Head"]);
    const point = around(eye, 95 * DEGREES, 0);
    look.target = point;
    driver.run([look], 2);
    let error = NaN;
    const stop = onSolvedFrame(loaded.scene, () => (error = gazeError(ik, reader, point)));
    driver.frame([look]);
    stop();
    // 95° is past neck and head alone (50° + 40°); the chest makes up the rest.
    expect(error / DEGREES).toBeLessThan(0.05);
  });

  it("fades out when the target is cleared and leaves the animation exactly", () => {
    const look = new LookAt(ik, { autoUpdate: false, fadeTime: 0.25 });
    look.target = around(eye, 40 * DEGREES, 10 * DEGREES);
    driver.run([look], 1);
    expect(ik.hasTarget("head")).toBe(true);
    look.target = null;
    driver.run([look], driver.time + 0.1);
    expect(look.currentWeight).toBeGreaterThan(0);
    expect(look.currentWeight).toBeLessThan(1);
    driver.run([look], driver.time + 0.3);
    expect(look.currentWeight).toBe(0);
    expect(ik.hasTarget("head")).toBe(false);
    let animated: Float64Array | null = null;
    let solved: Float64Array | null = null;
    const stop = onSolvedFrame(loaded.scene, () => (solved = captureLocals(ik.rig!.nodes)));
    driver.frame([look], () => (animated = captureLocals(ik.rig!.nodes)));
    stop();
    expect(Array.from(solved!)).toEqual(Array.from(animated!));
  });

  it("turns toward the point along the same curve at 30 and 120 frames per second", () => {
    const curve = (rate: number) => {
      const d = new FrameDriver(loaded, loaded.scene.getAnimationGroupByName("Idle"), rate);
      const look = new LookAt(ik, { autoUpdate: false, smoothing: 0.15, fadeTime: 0.2 });
      const samples = new Map<string, Vector3>();
      const stop = onSolvedFrame(loaded.scene, () => samples.set(d.time.toFixed(6), gazeOf(ik, reader).gaze));
      // The target appears just before the frame at t = 0.1 s, which both rates render.
      d.run([look], 0.1 - 1 / rate);
      look.target = around(eye, 60 * DEGREES, 15 * DEGREES);
      d.run([look], 0.7);
      stop();
      look.dispose();
      return samples;
    };
    const slow = curve(30);
    const fast = curve(120);
    let worst = 0;
    let compared = 0;
    for (const [time, gaze] of slow) {
      const other = fast.get(time);
      if (other === undefined) continue;
      worst = Math.max(worst, Math.acos(Math.min(1, Vector3.Dot(gaze, other))));
      compared++;
    }
    expect(compared).toBeGreaterThan(15);
    expect(worst / DEGREES).toBeLessThan(0.05);
    notes.push(`30 vs 120 fps while turning: gazes within ${(worst / DEGREES).toFixed(4)}°`);
  });

  it("names what is wrong with its options, and cleans up", () => {
    expect(() => new LookAt(ik, { joints: ["Head", "Neck"] })).toThrow(/parent to child/);
    expect(() => new LookAt(ik, { shares: [1] })).toThrow(/shares/);
    expect(() => new LookAt(ik, { joints: ["Nekc"] })).toThrow(/no joint "Nekc"/);
    const look = new LookAt(ik);
    expect(() => (look.target = "there" as never)).toThrow(/target must be/);
    // A point that is not finite is refused as the behavior's own targets are, and the old target stays.
    const point = new Vector3(1, 2, 3);
    look.target = point;
    expect(() => (look.target = new Vector3(0, NaN, 1))).toThrow(
      /LookAt\.target: the target is not a finite point \(0, NaN, 1\)/,
    );
    expect(look.target).toBe(point);
    // A look is a pass of the behavior's frame: disposing it takes it out.
    expect(ik.passes).toHaveLength(1);
    look.dispose();
    look.dispose();
    expect(ik.passes).toHaveLength(0);
  });
});
