// FootPlacement on RobotExpressive, whose feet hang from the root (a rig made for Blender's IK): each foot
// bone sits where its shin ends, and the shin (LowerLeg) has no child joint.
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FabrikBehavior, FabrikBehaviorOptions } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import {
  FootPlacement,
  type FootPlacementLegInfo,
  type FootPlacementOptions,
} from "../../plugin/helpers/footPlacement.js";
import { characterNamed, loadCharacter, noteIfMissing, type Loaded } from "../babylon/characters.js";
import { attach, worldScale } from "../babylon/fabrikHarness.js";
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

const robot = characterNamed("RobotExpressive");

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[foot placement on RobotExpressive]\n  ${notes.join("\n  ")}`);
});

/** A world direction in model space, its length kept. */
function toModel(sample: PoseSample, v: Vector3): Vector3 {
  return Vector3.TransformNormal(v, Matrix.FromArray(Array.from(sample.worldToModel)));
}
function toWorld(sample: PoseSample, v: Vector3): Vector3 {
  return Vector3.TransformNormal(v, Matrix.FromArray(Array.from(sample.worldToModel)).invert());
}

/**
 * Where the shin ends in the solved pose: the foot's animated place in the shin's frame (it sits at the
 * shin's end in the animation), carried by the solved shin.
 */
function shinEnd(animated: PoseSample, solved: PoseSample, leg: FootPlacementLegInfo): Vector3 {
  const offset = toModel(animated, animated.world[leg.foot].subtract(animated.world[leg.shin]));
  const carry = solved.orientations[leg.shin].multiply(Quaternion.Inverse(animated.orientations[leg.shin]));
  return solved.world[leg.shin].add(toWorld(solved, offset.applyRotationQuaternion(carry)));
}

/** The animated and the solved pose of one frame. */
function lastFrame(driver: FrameDriver, ik: FabrikBehavior, feet: FootPlacement) {
  const reader = new PoseReader(ik.rig!);
  let animated: PoseSample | null = null;
  let solved: PoseSample | null = null;
  const stop = onSolvedFrame(driver.loaded.scene, () => (solved = samplePose(ik, reader)));
  driver.frame([feet], () => (animated = samplePose(ik, reader)));
  stop();
  return { animated: animated! as PoseSample, solved: solved! as PoseSample };
}

/**
 * Bone lengths that must not change: body to thigh, thigh to knee, knee to the foot at the shin's end. World
 * distances, through the model root's float32 world matrix: equal to about 1e-8 of a length.
 */
function lengths(sample: PoseSample, ik: FabrikBehavior, feet: FootPlacement, ends?: Vector3[]): number[] {
  const parents = ik.rig!.parents;
  return feet.legs.flatMap((leg, i) => [
    Vector3.Distance(sample.world[parents[leg.base]], sample.world[leg.base]),
    Vector3.Distance(sample.world[leg.base], sample.world[leg.shin]),
    Vector3.Distance(sample.world[leg.shin], ends?.[i] ?? sample.world[leg.foot]),
  ]);
}

function expectFinite(sample: PoseSample): void {
  for (const local of sample.locals) for (const value of local) expect(Number.isFinite(value)).toBe(true);
  for (const p of sample.world) expect(Number.isFinite(p.x + p.y + p.z)).toBe(true);
}

describe.skipIf(noteIfMissing(robot))("FootPlacement on RobotExpressive (feet hang from the root)", () => {
  let loaded: Loaded;
  let ik: FabrikBehavior;
  let driver: FrameDriver;
  /** Its mean leg length (thigh and shin), world units: about 1.54. */
  let legLength: number;

  async function setUp(clip = "Idle", options: FabrikBehaviorOptions = {}, rate = 60) {
    loaded?.engine.dispose();
    loaded = await loadCharacter(robot);
    ik = attach(loaded, options);
    driver = new FrameDriver(loaded, loaded.scene.getAnimationGroupByName(clip), rate);
  }
  function placement(options: FootPlacementOptions = {}): FootPlacement {
    const feet = new FootPlacement(ik, { autoUpdate: false, ...options });
    legLength = feet.maxStepDown * 2;
    return feet;
  }
  beforeEach(async () => await setUp());
  afterEach(() => loaded?.engine.dispose());

  it("finds its legs: each foot at the end of its shin, the thigh and the shin bending", () => {
    const feet = placement();
    const names = ik.rig!.names;
    expect(
      feet.legs.map((l) => [names[l.foot], names[l.shin], names[l.base], l.chainLength, l.align]),
    ).toEqual([
      ["Foot.L", "LowerLeg.L", "UpperLeg.L", 2, true],
      ["Foot.R", "LowerLeg.R", "UpperLeg.R", 2, true],
    ]);
    expect(names[feet.hips]).toBe("Body");
    // Its long arms hang to the knees: they are not taken for front legs.
    expect(legLength).toBeGreaterThan(1.4);
    expect(legLength).toBeLessThan(1.7);
    // The same legs when listed by foot alone, or with their shins named.
    const listed = new FootPlacement(ik, {
      autoUpdate: false,
      legs: ["Foot.L", { foot: "Foot.R", shin: "LowerLeg.R" }],
    });
    expect(listed.legs.map((l) => l.shin)).toEqual(feet.legs.map((l) => l.shin));
    listed.dispose();
    // A foot at its shin's end and that shin as a leg of its own would both target the shin.
    expect(() => new FootPlacement(ik, { legs: ["Foot.L", { foot: "LowerLeg.L", chainLength: 1 }] })).toThrow(
      /the legs "Foot.L" and "LowerLeg.L" both place "LowerLeg.L"/,
    );
    // With its shin named, the leg is the thigh and the shin: no other chain length.
    expect(
      () => new FootPlacement(ik, { legs: [{ foot: "Foot.L", shin: "LowerLeg.L", chainLength: 1 }] }),
    ).toThrow(/chainLength must be 2/);
    feet.dispose();
  });

  for (const degrees of [10, 20]) {
    it(`rests both feet on a ${degrees}° slope, turned to its normal, each foot bone at its shin's end`, () => {
      const feet = placement();
      const slope = createSlope(loaded.scene, degrees, Vector3.Zero(), 40 * legLength);
      driver.run([feet], 1);
      const { animated, solved } = lastFrame(driver, ik, feet);
      expectFinite(solved);
      const ends = feet.legs.map((leg) => shinEnd(animated, solved, leg));
      const normal = toModelDirection(animated, slope.normal);
      const refY = loaded.root.position.y;
      let contact = 0,
        tilt = 0,
        apart = 0;
      feet.legs.forEach((leg, i) => {
        expect(leg.grounded && leg.weight === 1, leg.name).toBe(true);
        // The foot keeps its animated height above the ground, measured square to the slope.
        const height = animated.world[leg.foot].y - refY;
        for (const point of [solved.world[leg.foot], ends[i]]) {
          contact = Math.max(contact, Math.abs(slope.distance(point) - height));
        }
        apart = Math.max(apart, Vector3.Distance(ends[i], solved.world[leg.foot]));
        tilt = Math.max(tilt, angleBetween(turnedUp(animated, solved, leg.foot), normal));
        // The animated foot was level; now it lies on the slope.
        expect(angleBetween(turnedUp(animated, solved, leg.foot), animated.upModel) / DEGREES).toBeCloseTo(
          degrees,
          1,
        );
      });
      expect(contact / legLength).toBeLessThan(2e-4);
      // Apart only by float32 rounding of the world matrices the test measures with.
      expect(apart / legLength).toBeLessThan(1e-6);
      expect(tilt / DEGREES).toBeLessThan(0.05);
      const before = lengths(animated, ik, feet);
      lengths(solved, ik, feet, ends).forEach((l, k) =>
        expect(Math.abs(l - before[k]) / before[k]).toBeLessThan(1e-6),
      );
      notes.push(
        `${degrees}° slope: feet and shin ends ${((contact / legLength) * 100).toFixed(4)} % of a leg off the surface ` +
          `(${(contact * 1000).toFixed(3)} mm), foot bones ${(apart * 1000).toExponential(1)} mm from the shin ends, ` +
          `normal ${(tilt / DEGREES).toFixed(4)}° off, hips lowered ${(feet.hipsOffset * 1000).toFixed(1)} mm`,
      );
      feet.dispose();
    });
  }

  it("turns a foot no more than maxTilt", () => {
    const feet = placement({ maxTilt: 10 * DEGREES });
    const slope = createSlope(loaded.scene, 20, Vector3.Zero(), 40 * legLength);
    driver.run([feet], 1);
    const { animated, solved } = lastFrame(driver, ik, feet);
    const normal = toModelDirection(animated, slope.normal);
    for (const leg of feet.legs) {
      const up = turnedUp(animated, solved, leg.foot);
      expect(angleBetween(up, animated.upModel) / DEGREES).toBeCloseTo(10, 2);
      expect(angleBetween(up, normal) / DEGREES).toBeCloseTo(10, 2);
      // Tilted less than the ground, the foot keeps its height square to its own tilt.
      const height = animated.world[leg.foot].y - loaded.root.position.y;
      const ground = slope.heightAt(animated.world[leg.foot].x, animated.world[leg.foot].z);
      expect(
        Math.abs(solved.world[leg.foot].y - ground - height / Math.cos(10 * DEGREES)) / legLength,
      ).toBeLessThan(2e-4);
    }
    feet.dispose();
  });

  it("stands each foot on its step, lowering the hips for the lower one", () => {
    const feet = placement();
    // The robot's left (world −X under glTF's mirrored root) stands 15 % of a leg lower, its right 5 % higher.
    const low = -0.15 * legLength,
      high = 0.05 * legLength;
    createStep(loaded.scene, "upper", high, 0.01, 2 * legLength, -2 * legLength, 2 * legLength);
    createStep(loaded.scene, "lower", low, -2 * legLength, -0.01, -2 * legLength, 2 * legLength);
    driver.run([feet], 1);
    const { animated, solved } = lastFrame(driver, ik, feet);
    expectFinite(solved);
    const ends = feet.legs.map((leg) => shinEnd(animated, solved, leg));
    let contact = 0;
    feet.legs.forEach((leg, i) => {
      const top = animated.world[leg.foot].x < 0 ? low : high;
      const height = animated.world[leg.foot].y - loaded.root.position.y;
      for (const point of [solved.world[leg.foot], ends[i]])
        contact = Math.max(contact, Math.abs(point.y - top - height));
      expect(Vector3.Distance(ends[i], solved.world[leg.foot]) / legLength).toBeLessThan(1e-6);
      // Flat steps: the feet keep their animated orientation.
      expect(angleBetween(turnedUp(animated, solved, leg.foot), animated.upModel)).toBeLessThan(1e-9);
    });
    expect(contact / legLength).toBeLessThan(2e-4);
    // The lower leg cannot reach without the hips: they come down, by what the leg needs and no more.
    expect(feet.hipsOffset / legLength).toBeGreaterThan(0.05);
    const body = ik.jointIndex("Body");
    expect(animated.world[body].y - solved.world[body].y).toBeCloseTo(feet.hipsOffset, 9);
    const before = lengths(animated, ik, feet);
    lengths(solved, ik, feet, ends).forEach((l, k) =>
      expect(Math.abs(l - before[k]) / before[k]).toBeLessThan(1e-6),
    );
    // The drop is the least that works: the lower leg is at the end of its reach, either stretched to
    // legExtension (0.95) of its length or with its knee as straight as the humanoid preset's hinge allows.
    const lower = feet.legs.find((l) => animated.world[l.foot].x < 0)!;
    const thigh = Vector3.Distance(animated.world[lower.base], animated.world[lower.shin]);
    const shin = Vector3.Distance(animated.world[lower.shin], animated.world[lower.foot]);
    const stretch = Vector3.Distance(solved.world[lower.base], solved.world[lower.foot]) / (thigh + shin);
    const limits = ik.limits!;
    const rest = limits.restLocal.subarray(4 * lower.shin, 4 * lower.shin + 4);
    const local = solved.locals[lower.shin];
    const delta = new Quaternion(-rest[0], -rest[1], -rest[2], rest[3]).multiply(
      new Quaternion(local[0], local[1], local[2], local[3]),
    );
    const axis = limits.hingeAxis.subarray(3 * lower.shin, 3 * lower.shin + 3);
    // The turn about the hinge's axis, in (−π, π] whatever the quaternion's sign.
    const sign = delta.w < 0 ? -1 : 1;
    const knee =
      2 * Math.atan2(sign * (delta.x * axis[0] + delta.y * axis[1] + delta.z * axis[2]), sign * delta.w);
    const straightest = limits.hinge[2 * lower.shin];
    expect(Math.min(Math.abs(stretch - 0.95), Math.abs(knee - straightest))).toBeLessThan(1e-6);
    notes.push(
      `steps −15 % / +5 % of a leg: feet ${(contact * 1000).toFixed(3)} mm off their steps, hips lowered ` +
        `${((feet.hipsOffset / legLength) * 100).toFixed(2)} % of a leg (${(feet.hipsOffset * 100).toFixed(2)} cm): the lower ` +
        `leg stretched to ${(stretch * 100).toFixed(2)} % of its length, its knee ${(knee / DEGREES).toFixed(3)}° from its rest bend ` +
        `(straight at ${(straightest / DEGREES).toFixed(1)}°)`,
    );
    feet.dispose();
  });

  it("over a hole, fades the leg back to its animation and leaves the foot bone to it", () => {
    createStep(loaded.scene, "right ground", 0.03, 0.01, 5, -5, 5);
    const feet = placement();
    driver.run([feet], 1);
    const left = feet.legs.find((l) => l.name === "Foot.L")!;
    expect(left.grounded).toBe(false);
    expect(left.weight).toBe(0);
    expect(ik.hasTarget("LowerLeg.L")).toBe(false);
    expect(ik.hasTarget("LowerLeg.R")).toBe(true);
    const { animated, solved } = lastFrame(driver, ik, feet);
    expect(feet.hipsOffset).toBe(0);
    for (const name of ["UpperLeg.L", "LowerLeg.L", "Foot.L"]) {
      const j = ik.jointIndex(name);
      expect(solved.locals[j], name).toEqual(animated.locals[j]);
      expect(solved.world[j], name).toEqual(animated.world[j]);
    }
    const right = feet.legs.find((l) => l.name === "Foot.R")!;
    const height = animated.world[right.foot].y - loaded.root.position.y;
    expect(Math.abs(solved.world[right.foot].y - 0.03 - height) / legLength).toBeLessThan(2e-4);
    feet.dispose();
  });

  it("gives the same result at 30 and 120 frames per second, during a change and after it", async () => {
    const runAt = async (rate: number) => {
      await setUp("Idle", {}, rate);
      const feet = placement({ smoothing: 0.08, fadeTime: 0.2 });
      createStep(loaded.scene, "upper", 0, 0.01, 5, -5, 5);
      const lower = createStep(loaded.scene, "lower", 0, -5, -0.01, -5, 5);
      const reader = new PoseReader(ik.rig!);
      const samples: { time: number; world: Vector3[]; height: number; drop: number }[] = [];
      let take = false;
      const stop = onSolvedFrame(loaded.scene, () => {
        if (!take) return;
        samples.push({
          time: driver.time,
          world: samplePose(ik, reader).world,
          height: feet.legs[0].groundHeight,
          drop: feet.hipsOffset,
        });
      });
      // The left ground drops 20 % of a leg just before the frame at t = 0.5 s, which both rates render.
      driver.run([feet], 0.5 - 1 / rate);
      lower.position.y -= 0.2 * legLength;
      lower.computeWorldMatrix(true);
      for (const until of [0.6, 0.8, 2]) {
        driver.run([feet], until - 1 / rate);
        take = true;
        driver.frame([feet]);
        take = false;
      }
      stop();
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
      expect(Math.abs(s.height - f.height)).toBeLessThan(1e-9);
      expect(Math.abs(s.drop - f.drop) / legLength).toBeLessThan(1e-3);
      expect(worst / legLength).toBeLessThan(2e-3);
      lines.push(
        `t=${s.time.toFixed(2)} s: ground ${s.height.toFixed(4)}, hips ${(s.drop * 100).toFixed(2)} / ${(f.drop * 100).toFixed(2)} cm, joints within ${(worst * 1000).toFixed(3)} mm`,
      );
    });
    // Mid-change the state is far from its end, and the hips came down for the lowered ground.
    expect(Math.abs(slow[0].height - slow[2].height) / legLength).toBeGreaterThan(0.05);
    expect(slow[2].drop / legLength).toBeGreaterThan(0.05);
    notes.push(`30 vs 120 fps: ${lines.join("; ")}`);
  });

  // Its walk leaves the bare humanoid preset (the hip swings 6–10° past its cone, the knee 27–41° off its
  // hinge). Without limits the placement itself is measured: each foot within the behavior's tolerance of its
  // target; with the default limits, fitted to the clips, the knee's off-hinge swing is allowed but the
  // limits still shape the thigh a little: millimetres.
  for (const [label, options, bound] of [
    ["no limits", { limits: "none" }, "tolerance"],
    ["default limits fitted to the clips", {}, 5e-3],
  ] as const) {
    it(`keeps the feet on a slope while it walks across it and turns, updating by itself (${label})`, async () => {
      await setUp("Walking", options);
      const feet = new FootPlacement(ik, { maxTilt: 8 * DEGREES });
      legLength = feet.maxStepDown * 2;
      const slope = createSlope(loaded.scene, 12, Vector3.Zero(), 40 * legLength);
      for (const g of loaded.scene.animationGroups) g.stop();
      const walk = loaded.scene.getAnimationGroupByName("Walking")!;
      loaded.scene.useConstantAnimationDeltaTime = true;
      walk.start(true);
      const root = loaded.root;
      const reader = new PoseReader(ik.rig!);
      let animated: PoseSample | null = null;
      const before = loaded.scene.onBeforeRenderObservable.add(
        () => (animated = samplePose(ik, reader)),
        undefined,
        true,
      );
      const misses: number[] = [];
      const apart: number[] = [];
      const heights: number[] = [];
      const solvedObserver = loaded.scene.onAfterRenderObservable.add(
        () => {
          const solved = samplePose(ik, reader);
          for (const leg of feet.legs) {
            if (!leg.grounded || leg.weight < 1) continue;
            const a = animated!.world[leg.foot];
            const height = a.y - root.position.y;
            heights.push(
              Math.abs(
                leg.targetPosition.y - slope.heightAt(a.x, a.z) - height / Math.cos(Math.acos(leg.normal.y)),
              ),
            );
            misses.push(Vector3.Distance(solved.world[leg.foot], leg.targetPosition));
            apart.push(Vector3.Distance(shinEnd(animated!, solved, leg), solved.world[leg.foot]));
          }
        },
        undefined,
        true,
      );
      const turn = Quaternion.RotationAxis(Vector3.Up(), 1.5 * DEGREES);
      for (let f = 0; f < 90; f++) {
        root.position.z += 0.03;
        root.position.x += 0.012;
        root.position.y = slope.heightAt(root.position.x, root.position.z);
        root.rotationQuaternion = turn.multiply(root.rotationQuaternion!);
        loaded.scene.render();
      }
      before.remove();
      solvedObserver.remove();
      expect(misses.length).toBeGreaterThan(100);
      expect(Math.max(...heights) / legLength).toBeLessThan(1e-3);
      // The solver's tolerance in world units (float32 node storage adds a hair).
      const tolerance = (ik.tolerance * ik.height * worldScale(reader) * 1.001) / legLength;
      expect(Math.max(...misses) / legLength).toBeLessThan(bound === "tolerance" ? tolerance : bound);
      expect(Math.max(...apart) / legLength).toBeLessThan(1e-6);
      notes.push(
        `walking and turning on 12° (${label}), ${misses.length} foot frames: target height error ≤ ` +
          `${(Math.max(...heights) * 1000).toFixed(2)} mm, foot to target ≤ ${(Math.max(...misses) * 1000).toFixed(2)} mm`,
      );
      feet.dispose();
    });
  }

  it("dispose removes the knee targets and puts the feet back", () => {
    createStep(loaded.scene, "upper", 0.05, 0.01, 5, -5, 5);
    createStep(loaded.scene, "lower", -0.2, -5, -0.01, -5, 5);
    const scene = loaded.scene;
    const observers = [
      ik.onSolvedObservable.observers.length,
      scene.onAfterRenderObservable.observers.length,
    ];
    const nodes = scene.transformNodes.length;
    const feet = placement();
    driver.run([feet], 0.5);
    expect(ik.hasTarget("LowerLeg.L") && ik.hasTarget("LowerLeg.R")).toBe(true);
    feet.dispose();
    feet.dispose();
    expect(ik.hasTarget("LowerLeg.L") || ik.hasTarget("LowerLeg.R")).toBe(false);
    expect([ik.onSolvedObservable.observers.length, scene.onAfterRenderObservable.observers.length]).toEqual(
      observers,
    );
    expect(scene.transformNodes.length).toBe(nodes);
    const { animated, solved } = lastFrame(driver, ik, feet);
    expect(solved.locals).toEqual(animated.locals);
    expect(solved.world).toEqual(animated.world);
  });

  it("a leg whose target the behavior refuses (the user's own target on that foot) keeps its animation, warned once, and is placed once that target goes", () => {
    createStep(loaded.scene, "floor", 0, -5, 5, -5, 5);
    const warnings: string[] = [];
    const warn = Logger.Warn;
    Logger.Warn = (message: string | unknown[]) => void warnings.push(String(message));
    try {
      // The user's target bends LowerLeg.L, which FootPlacement would target for the left foot.
      ik.setTarget("leftFoot", new Vector3(0.3, 0.3, 0.3));
      const feet = placement();
      driver.run([feet], 0.5);
      expect(ik.hasTarget("LowerLeg.R")).toBe(true);
      expect(ik.hasTarget("LowerLeg.L")).toBe(false);
      expect(ik.hasTarget("leftFoot")).toBe(true);
      expect(warnings.filter((w) => w.startsWith("FootPlacement"))).toEqual([
        expect.stringContaining('the leg "Foot.L" keeps its animation: FabrikIK setTarget'),
      ]);
      ik.removeTarget("leftFoot");
      driver.run([feet], 1);
      expect(ik.hasTarget("LowerLeg.L")).toBe(true);
      feet.dispose();
    } finally {
      Logger.Warn = warn;
    }
  });
});
