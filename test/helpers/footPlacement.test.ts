import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { FootPlacement } from "../../plugin/helpers/footPlacement.js";
import { OWN_CHARACTERS, loadCharacter, type Loaded } from "../babylon/characters.js";
import { attach } from "../babylon/fabrikHarness.js";
import {
  DEGREES,
  FrameDriver,
  angleBetween,
  createSlope,
  createStep,
  onSolvedFrame,
  samplePose,
  toModelDirection,
  turnedUp,
  type PoseSample,
} from "./helperHarness.js";

const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;
const FEET = ["LeftFoot", "RightFoot"];
/** Points of each foot that must keep their animated height above the ground. */
const FOOT_POINTS = ["LeftFoot", "LeftToeBase", "LeftToe_End", "RightFoot", "RightToeBase", "RightToe_End"];
/** Contact error allowed: under the behavior's default tolerance (1e-3 of the 1.57 m body, 1.6 mm). */
const CONTACT = 1e-3;

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[foot placement]\n  ${notes.join("\n  ")}`);
});

/** Default settings, as a user attaches it. */
function attachForFeet(loaded: Loaded): FabrikBehavior {
  return attach(loaded);
}

/** The animated pose (sampled before the helpers run) and the solved one, of the last frame. */
function lastFrame(driver: FrameDriver, ik: FabrikBehavior, helpers: { update(dt: number): void }[]) {
  const reader = new PoseReader(ik.rig!);
  let animated: PoseSample | null = null;
  let solved: PoseSample | null = null;
  const stop = onSolvedFrame(driver.loaded.scene, () => (solved = samplePose(ik, reader)));
  driver.frame(helpers, () => (animated = samplePose(ik, reader)));
  stop();
  return { animated: animated! as PoseSample, solved: solved! as PoseSample };
}

describe("FootPlacement on the mannequin", () => {
  let loaded: Loaded;
  let ik: FabrikBehavior;
  let driver: FrameDriver;
  beforeEach(async () => {
    loaded = await loadCharacter(mannequin);
    ik = attachForFeet(loaded);
    driver = new FrameDriver(loaded, loaded.scene.getAnimationGroupByName("Idle"), 60);
  });
  afterEach(() => loaded?.engine.dispose());

  const jointOf = (name: string) => ik.jointIndex(name);

  it("rests both feet on a 20° slope, each turned to its normal", () => {
    const slope = createSlope(loaded.scene, 20);
    const feet = new FootPlacement(ik, { autoUpdate: false });
    driver.run([feet], 1);
    const { animated, solved } = lastFrame(driver, ik, [feet]);
    let worst = 0;
    for (const name of FOOT_POINTS) {
      const j = jointOf(name);
      // The animation's ground is y = 0 (the model root's origin): what the foot keeps above the slope.
      const error = Math.abs(slope.distance(solved.world[j]) - animated.world[j].y);
      worst = Math.max(worst, error);
      expect(error, name).toBeLessThan(CONTACT);
    }
    const normal = toModelDirection(animated, slope.normal);
    const tilts = FEET.map((name) => angleBetween(turnedUp(animated, solved, jointOf(name)), normal));
    for (const tilt of tilts) expect(tilt).toBeLessThan(0.2 * DEGREES);
    // The feet are raised a little (a tilted foot stands higher at the ankle): no leg needs the hips lower.
    expect(feet.hipsOffset).toBe(0);
    notes.push(
      `20° slope: contact error ≤ ${(worst * 1000).toFixed(2)} mm, foot normal error ${tilts.map((t) => (t / DEGREES).toFixed(3))}°`,
    );
  });

  it("tilts a foot no more than maxTilt", () => {
    const slope = createSlope(loaded.scene, 20);
    const feet = new FootPlacement(ik, { autoUpdate: false, maxTilt: 10 * DEGREES });
    driver.run([feet], 1);
    const { animated, solved } = lastFrame(driver, ik, [feet]);
    const normal = toModelDirection(animated, slope.normal);
    for (const name of FEET) {
      const up = turnedUp(animated, solved, jointOf(name));
      expect(angleBetween(up, animated.upModel) / DEGREES).toBeCloseTo(10, 1);
      // Toward the slope's normal: 10° short of it.
      expect(angleBetween(up, normal) / DEGREES).toBeCloseTo(10, 1);
    }
  });

  it("lowers the hips on steps by what the lower leg needs, and stands each foot on its step", () => {
    // The character's left (world -X under glTF's mirrored root) stands 12 cm lower.
    createStep(loaded.scene, "upper", 0, 0.01, 1);
    createStep(loaded.scene, "lower", -0.12, -1, -0.01);
    const feet = new FootPlacement(ik, { autoUpdate: false });
    driver.run([feet], 1.5);
    const { animated, solved } = lastFrame(driver, ik, [feet]);

    // Expected drop: the least d with |T − (B − d·up)| ≤ max(animated stretch, 0.95 × leg length).
    const foot = animated.world[jointOf("LeftFoot")];
    const knee = animated.world[jointOf("LeftLeg")];
    const hip = animated.world[jointOf("LeftUpLeg")];
    const length = Vector3.Distance(hip, knee) + Vector3.Distance(knee, foot);
    const reach = Math.max(Vector3.Distance(hip, foot), 0.95 * length);
    const target = new Vector3(foot.x, -0.12 + foot.y, foot.z);
    const v = target.subtract(hip);
    const expected = -v.y - Math.sqrt(v.y * v.y - v.lengthSquared() + reach * reach);
    expect(expected).toBeGreaterThan(0.1);
    // The Idle clip sways the hips a few millimetres a second; the smoothed drop trails it slightly.
    expect(Math.abs(feet.hipsOffset - expected)).toBeLessThan(2e-4);
    const hips = jointOf("Hips");
    expect(animated.world[hips].y - solved.world[hips].y).toBeCloseTo(feet.hipsOffset, 6);

    for (const [name, top] of [
      ["LeftFoot", -0.12],
      ["LeftToe_End", -0.12],
      ["RightFoot", 0],
    ] as const) {
      const j = jointOf(name);
      expect(Math.abs(solved.world[j].y - top - animated.world[j].y), name).toBeLessThan(CONTACT);
    }
    // The upper leg bends far (the hips came down 12 cm): keeping its foot flat takes the weight-bearing
    // dorsiflexion of the humanoid preset, and the toes rest on the step.
    const toe = jointOf("RightToe_End");
    const dip = animated.world[toe].y - solved.world[toe].y;
    expect(Math.abs(dip)).toBeLessThan(CONTACT);
    notes.push(
      `steps 12 cm: hips lowered ${(feet.hipsOffset * 100).toFixed(2)} cm (expected ${(expected * 100).toFixed(2)}); ` +
        `upper toes ${(dip * 1000).toFixed(1)} mm low`,
    );
  });

  it("without joint limits, stands both whole feet on their steps", async () => {
    loaded.engine.dispose();
    loaded = await loadCharacter(mannequin);
    ik = attach(loaded, { limits: "none" });
    driver = new FrameDriver(loaded, loaded.scene.getAnimationGroupByName("Idle"), 60);
    createStep(loaded.scene, "upper", 0, 0.01, 1);
    createStep(loaded.scene, "lower", -0.12, -1, -0.01);
    const feet = new FootPlacement(ik, { autoUpdate: false });
    driver.run([feet], 1);
    const { animated, solved } = lastFrame(driver, ik, [feet]);
    for (const name of FOOT_POINTS) {
      const j = jointOf(name);
      const top = name.startsWith("Left") ? -0.12 : 0;
      expect(Math.abs(solved.world[j].y - top - animated.world[j].y), name).toBeLessThan(CONTACT);
    }
  });

  it("over a hole, fades the leg back to its animation and removes its target; a closed hole brings it back", () => {
    createStep(loaded.scene, "right ground", 0.04, 0.01, 1);
    const feet = new FootPlacement(ik, { autoUpdate: false });
    driver.run([feet], 1);
    const left = feet.legs.find((l) => l.name === "LeftFoot")!;
    expect(left.grounded).toBe(false);
    expect(left.weight).toBe(0);
    expect(ik.hasTarget("LeftFoot")).toBe(false);
    expect(ik.hasTarget("RightFoot")).toBe(true);
    const { animated, solved } = lastFrame(driver, ik, [feet]);
    // Raising the other foot needs no lower hips, so the left leg is the animation, bit for bit.
    expect(feet.hipsOffset).toBe(0);
    for (const name of ["LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase"]) {
      expect(solved.locals[jointOf(name)], name).toEqual(animated.locals[jointOf(name)]);
    }
    const right = jointOf("RightFoot");
    expect(Math.abs(solved.world[right].y - 0.04 - animated.world[right].y)).toBeLessThan(CONTACT);

    createStep(loaded.scene, "left ground", -0.05, -1, -0.01);
    driver.run([feet], driver.time + 0.1);
    expect(left.weight).toBeGreaterThan(0);
    expect(left.weight).toBeLessThan(1);
    driver.run([feet], driver.time + 1);
    expect(left.weight).toBe(1);
    const after = lastFrame(driver, ik, [feet]);
    const j = jointOf("LeftFoot");
    expect(Math.abs(after.solved.world[j].y + 0.05 - after.animated.world[j].y)).toBeLessThan(CONTACT);
  });

  it("gives the same result at 30 and 120 frames per second, during a change and after it", async () => {
    const runAt = async (rate: number) => {
      const l = await loadCharacter(mannequin);
      const behavior = attachForFeet(l);
      const d = new FrameDriver(l, l.scene.getAnimationGroupByName("Idle"), rate);
      createStep(l.scene, "upper", 0, 0.01, 1);
      const lower = createStep(l.scene, "lower", 0, -1, -0.01);
      const feet = new FootPlacement(behavior, { autoUpdate: false, smoothing: 0.08, fadeTime: 0.2 });
      const reader = new PoseReader(behavior.rig!);
      const samples: { time: number; world: Vector3[]; height: number; drop: number }[] = [];
      let take = false;
      const stop = onSolvedFrame(l.scene, () => {
        if (!take) return;
        const s = samplePose(behavior, reader);
        samples.push({
          time: d.time,
          world: s.world,
          height: feet.legs[0].groundHeight,
          drop: feet.hipsOffset,
        });
      });
      // The left step drops 12 cm just before the frame at t = 0.5 s, which both rates render.
      d.run([feet], 0.5 - 1 / rate);
      lower.position.y -= 0.12;
      lower.computeWorldMatrix(true);
      for (const until of [0.6, 0.8, 2]) {
        d.run([feet], until - 1 / rate);
        take = true;
        d.frame([feet]);
        take = false;
      }
      stop();
      l.engine.dispose();
      return samples;
    };
    const slow = await runAt(30);
    const fast = await runAt(120);
    expect(slow.map((s) => s.time.toFixed(6))).toEqual(fast.map((s) => s.time.toFixed(6)));
    const lines: string[] = [];
    slow.forEach((s, i) => {
      const f = fast[i];
      let worst = 0;
      s.world.forEach((p, j) => (worst = Math.max(worst, Vector3.Distance(p, f.world[j]))));
      // The ground under the foot follows the same exponential at both rates, to rounding.
      expect(Math.abs(s.height - f.height)).toBeLessThan(1e-9);
      // The hips' goal comes from the animated pose, sampled at different times: close, not equal.
      expect(Math.abs(s.drop - f.drop)).toBeLessThan(1e-3);
      expect(worst).toBeLessThan(2e-3);
      lines.push(
        `t=${s.time.toFixed(2)} s: ground ${s.height.toFixed(4)} m, hips ${(s.drop * 100).toFixed(2)} / ${(f.drop * 100).toFixed(2)} cm, joints within ${(worst * 1000).toFixed(3)} mm`,
      );
    });
    // Mid-change the state is far from its end: the comparison above is not trivially of settled states.
    expect(Math.abs(slow[0].height - slow[2].height)).toBeGreaterThan(0.02);
    notes.push(`30 vs 120 fps: ${lines.join("; ")}`);
  });

  it("keeps the feet on a slope while the character walks across it and turns, updating by itself", () => {
    const slope = createSlope(loaded.scene, 12);
    for (const g of loaded.scene.animationGroups) g.stop();
    const walk = loaded.scene.getAnimationGroupByName("Walk")!;
    loaded.scene.useConstantAnimationDeltaTime = true;
    walk.start(true);
    const feet = new FootPlacement(ik, { maxTilt: 8 * DEGREES });
    const root = loaded.root;
    const reader = new PoseReader(ik.rig!);
    const errors: number[] = [];
    let animated: PoseSample | null = null;
    // Before the helper (inserted first after it): the animated pose of the frame.
    const before = loaded.scene.onBeforeRenderObservable.add(
      () => (animated = samplePose(ik, reader)),
      undefined,
      true,
    );
    const misses: number[] = [];
    const solvedObserver = ik.onSolvedObservable.add(() => {
      const solved = samplePose(ik, reader);
      for (const leg of feet.legs) {
        if (!leg.grounded || leg.weight < 1) continue;
        const j = leg.foot;
        const a = animated!.world[j];
        // The target: straight above the animated ankle, the ground plus the ankle's animated height above
        // the root's plane, measured square to the (tilted) foot, i.e. height / cos(tilt) vertically.
        const height = a.y - root.position.y;
        const tilt = Math.acos(leg.normal.y);
        errors.push(Math.abs(leg.targetPosition.y - slope.heightAt(a.x, a.z) - height / Math.cos(tilt)));
        misses.push(Vector3.Distance(solved.world[j], leg.targetPosition));
      }
    });
    const turn = Quaternion.RotationAxis(Vector3.Up(), 1.5 * DEGREES);
    for (let f = 0; f < 90; f++) {
      root.position.z += 0.01;
      root.position.x += 0.004;
      root.position.y = slope.heightAt(root.position.x, root.position.z);
      root.rotationQuaternion = turn.multiply(root.rotationQuaternion!);
      loaded.scene.render();
    }
    before.remove();
    solvedObserver.remove();
    // The ground is smoothed as a plane, so a foot sliding over the even slope sees no lag.
    const worst = Math.max(...errors);
    const miss = Math.max(...misses);
    expect(errors.length).toBeGreaterThan(100);
    expect(worst).toBeLessThan(1e-3);
    expect(miss).toBeLessThan(2e-3);
    notes.push(
      `walking and turning on 12°, ${errors.length} foot frames: target height error ≤ ${(worst * 1000).toFixed(2)} mm, ankle to target ≤ ${(miss * 1000).toFixed(2)} mm`,
    );
  });

  it("cleans up: dispose removes the targets and observers and leaves the animated pose", () => {
    createStep(loaded.scene, "upper", 0, 0.01, 1);
    createStep(loaded.scene, "lower", -0.12, -1, -0.01);
    const scene = loaded.scene;
    const counts = [
      scene.onBeforeRenderObservable.observers.length,
      scene.onAfterRenderObservable.observers.length,
    ];
    const nodes = scene.transformNodes.length;
    const feet = new FootPlacement(ik);
    driver.run([], 0.5);
    expect(feet.hipsOffset).toBeGreaterThan(0.1);
    feet.dispose();
    feet.dispose();
    expect(ik.hasTarget("LeftFoot") || ik.hasTarget("RightFoot")).toBe(false);
    expect([
      scene.onBeforeRenderObservable.observers.length,
      scene.onAfterRenderObservable.observers.length,
    ]).toEqual(counts);
    expect(scene.transformNodes.length).toBe(nodes);
    // After disposal a frame is the animation exactly.
    const { animated, solved } = lastFrame(driver, ik, []);
    expect(solved.locals).toEqual(animated.locals);
    expect(solved.world).toEqual(animated.world);
  });

  it("runs before the solve at the behavior's afterAnimations stage too", async () => {
    loaded.engine.dispose();
    loaded = await loadCharacter(mannequin);
    ik = attach(loaded, { stage: "afterAnimations" });
    driver = new FrameDriver(loaded, loaded.scene.getAnimationGroupByName("Idle"), 60);
    loaded.scene.useConstantAnimationDeltaTime = true;
    createStep(loaded.scene, "upper", 0, 0.01, 1);
    createStep(loaded.scene, "lower", -0.12, -1, -0.01);
    const feet = new FootPlacement(ik, { hipSmoothing: 0.05 });
    driver.run([], 1);
    const { animated, solved } = lastFrame(driver, ik, []);
    const j = jointOf("LeftFoot");
    expect(feet.hipsOffset).toBeGreaterThan(0.11);
    expect(Math.abs(solved.world[j].y + 0.12 - animated.world[j].y)).toBeLessThan(CONTACT);
  });

  it("names what is wrong with its options", () => {
    expect(() => new FootPlacement(ik, { legs: ["LeftFot"] })).toThrow(/no joint "LeftFot"/);
    expect(() => new FootPlacement(ik, { legs: [{ foot: "LeftFoot", chainLength: 9 }] })).toThrow(
      /chainLength/,
    );
    expect(() => new FootPlacement(ik, { maxTilt: -1 })).toThrow(/maxTilt/);
    expect(() => new FootPlacement(ik, { smoothin: 1 } as never)).toThrow(/unknown option "smoothin"/);
    // A foot at a shin's end: the shin must exist, and neither carry the foot nor hang from it.
    expect(() => new FootPlacement(ik, { legs: [{ foot: "LeftFoot", shin: "LeftShin" }] })).toThrow(
      /leg "LeftFoot": no shin joint "LeftShin"/,
    );
    expect(() => new FootPlacement(ik, { legs: [{ foot: "LeftFoot", shin: "LeftLeg" }] })).toThrow(
      /leg "LeftFoot": the shin "LeftLeg" must be a joint with a parent \(the thigh\) that the foot does not hang from/,
    );
    expect(
      () => new FootPlacement(ik, { legs: [{ foot: "RightHand", shin: "LeftLeg", chainLength: 3 }] }),
    ).toThrow(
      /leg "RightHand" sits at the end of the shin "LeftLeg": .* chainLength must be 2 \(or left out\), got 3/,
    );
    // A leg placed by where its bone ends: the bone must end in an _end node, and nothing else may be asked.
    expect(() => new FootPlacement(ik, { legs: [{ foot: "LeftFoot", end: true }] })).toThrow(
      /leg "LeftFoot": end needs the bone to end in a glTF _end node below "LeftFoot"; it has none/,
    );
    expect(() => new FootPlacement(ik, { legs: [{ foot: "LeftFoot", end: true, shin: "LeftLeg" }] })).toThrow(
      /leg "LeftFoot": end places the foot's own bone, so it takes no shin/,
    );
    expect(() => new FootPlacement(ik, { legs: [{ foot: "LeftFoot", end: true, chainLength: 3 }] })).toThrow(
      /leg "LeftFoot": end bends the foot's bone and the one above it: chainLength must be 2/,
    );
    expect(() => new FootPlacement(ik, { legs: [{ foot: "LeftFoot", end: true, align: true }] })).toThrow(
      /leg "LeftFoot": end turns the foot's bone to put its end down, so it cannot align/,
    );
    expect(loaded.scene.transformNodes.filter((n) => n.name.endsWith("foot target"))).toEqual([]);
  });
});
