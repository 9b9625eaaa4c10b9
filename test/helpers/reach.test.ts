import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { Reach, type ReachHandle, type ReachOutcome } from "../../plugin/helpers/reach.js";
import { OWN_CHARACTERS, loadCharacter, type Loaded } from "../babylon/characters.js";
import { attach, captureLocals } from "../babylon/fabrikHarness.js";
import { FrameDriver, onSolvedFrame } from "./helperHarness.js";

const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[reach]\n  ${notes.join("\n  ")}`);
});

const smoothstep = (x: number) => (x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x));

describe("Reach on the mannequin", () => {
  let loaded: Loaded;
  let ik: FabrikBehavior;
  let driver: FrameDriver;
  let reach: Reach;
  /** A point the right hand can reach from its animated place: in front of the shoulder. */
  let point: Vector3;
  beforeEach(async () => {
    loaded = await loadCharacter(mannequin);
    ik = attach(loaded);
    driver = new FrameDriver(loaded, loaded.scene.getAnimationGroupByName("Walk"), 60);
    reach = new Reach(ik, { autoUpdate: false });
    const reader = new PoseReader(ik.rig!);
    const shoulder = reader.getWorldPositionToRef(ik.jointIndex("rightUpperArm"), new Vector3());
    point = shoulder.add(new Vector3(0.05, -0.25, 0.35));
  });
  afterEach(() => loaded?.engine.dispose());

  /** Distance from the hand to the reach's target in the frame just solved. */
  function handMiss(handle: ReachHandle): () => number {
    const hand = ik.jointIndex("rightHand");
    const reader = new PoseReader(ik.rig!);
    let miss = NaN;
    const stop = onSolvedFrame(loaded.scene, () => {
      reader.read();
      miss = Vector3.Distance(reader.getWorldPositionToRef(hand, new Vector3()), handle.target as Vector3);
    });
    handle.done.then(stop, stop);
    return () => miss;
  }

  it("eases in, holds, eases out and completes, on the clock", async () => {
    const handle = reach.reach(point, { hand: "rightHand", duration: 0.5, hold: 0.5 });
    expect(ik.hasTarget("rightHand")).toBe(true);
    let reachedAt = NaN;
    handle.onReachedObservable.add(() => (reachedAt = driver.time));
    const outcomes: ReachOutcome[] = [];
    handle.onDoneObservable.add((o) => outcomes.push(o));
    const miss = handMiss(handle);
    const start = driver.time;
    const timeline: [number, number, string][] = [];
    while (handle.phase !== "done" && driver.time - start < 3) {
      driver.frame([reach]);
      timeline.push([driver.time - start, handle.weight, handle.phase]);
      if (handle.phase === "hold") expect(miss()).toBeLessThan(ik.tolerance * ik.height * 1.01);
    }
    const at = (t: number) => timeline.find(([time]) => Math.abs(time - t) < 1e-9)!;
    expect(at(0.25)[1]).toBeCloseTo(smoothstep(0.5), 12);
    expect(at(0.25)[2]).toBe("in");
    expect(reachedAt - start).toBeCloseTo(0.5, 9);
    expect(at(0.75)[2]).toBe("hold");
    expect(at(0.75)[1]).toBe(1);
    expect(at(1.25)[1]).toBeCloseTo(1 - smoothstep(0.5), 12);
    expect(timeline.at(-1)![0]).toBeCloseTo(1.5, 9);
    expect(await handle.done).toBe("completed");
    expect(outcomes).toEqual(["completed"]);
    expect(ik.hasTarget("rightHand")).toBe(false);
    expect(reach.active).toEqual([]);
  });

  it("holds until released, then eases out", async () => {
    const handle = reach.reach(point, { duration: 0.2 });
    driver.run([reach], 3);
    expect(handle.phase).toBe("hold");
    expect(handle.weight).toBe(1);
    handle.release();
    expect(handle.phase).toBe("out");
    driver.run([reach], driver.time + 0.1);
    expect(handle.weight).toBeCloseTo(1 - smoothstep(0.5), 9);
    driver.run([reach], driver.time + 0.1);
    expect(handle.phase).toBe("done");
    expect(await handle.done).toBe("completed");
  });

  it.each([false, true])(
    "a cancelled reach (immediate: %s) hands the arm back to the animation, bit for bit",
    async (immediate) => {
      const handle = reach.reach(point, { duration: 0.4 });
      driver.run([reach], 0.25);
      expect(handle.weight).toBeGreaterThan(0.5);
      handle.cancel({ immediate });
      let animated: Float64Array | null = null;
      let solved: Float64Array | null = null;
      const stop = onSolvedFrame(loaded.scene, () => (solved = captureLocals(ik.rig!.nodes)));
      let frames = 0;
      let matchedFrom = -1;
      while (frames < 60) {
        driver.frame([reach], () => (animated = captureLocals(ik.rig!.nodes)));
        frames++;
        const same = solved!.every((v, i) => v === animated![i]);
        if (same && matchedFrom < 0) matchedFrom = frames;
        // Once the animation shows, it keeps showing.
        if (matchedFrom >= 0) expect(same, `frame ${frames}`).toBe(true);
      }
      stop();
      expect(await handle.done).toBe("cancelled");
      expect(ik.hasTarget("rightHand")).toBe(false);
      // Immediately: the first frame after cancelling. Eased: over the release time scaled by the weight.
      if (immediate) expect(matchedFrom).toBe(1);
      else expect(matchedFrom).toBeLessThanOrEqual(Math.ceil(0.4 * handle.weight * 60) + 26);
      notes.push(
        `cancel (immediate: ${immediate}): the animation shows bit for bit from frame ${matchedFrom} on`,
      );
    },
  );

  it("follows the same weight curve at 30 and 120 frames per second", () => {
    const curve = (rate: number) => {
      const d = new FrameDriver(loaded, loaded.scene.getAnimationGroupByName("Walk"), rate);
      const r = new Reach(ik, { autoUpdate: false });
      const handle = r.reach(point, { duration: 0.3, hold: 0.2, release: 0.4 });
      const samples = new Map<string, number>();
      for (let i = 0; i < rate; i++) {
        d.frame([r]);
        samples.set(d.time.toFixed(6), handle.weight);
      }
      handle.cancel({ immediate: true });
      return samples;
    };
    const slow = curve(30);
    const fast = curve(120);
    let compared = 0;
    for (const [time, weight] of slow) {
      expect(fast.get(time), time).toBeCloseTo(weight, 12);
      compared++;
    }
    expect(compared).toBe(30);
  });

  it("a second reach on the same hand takes over from the current weight", async () => {
    const first = reach.reach(point, { duration: 0.4 });
    driver.run([reach], 0.2);
    const weight = first.weight;
    const second = reach.reach(point.add(new Vector3(-0.1, 0.1, 0)), { duration: 0.4, hold: 0 });
    expect(await first.done).toBe("replaced");
    expect(second.weight).toBe(weight);
    expect(reach.active).toEqual([second]);
    driver.run([reach], driver.time + 1);
    expect(await second.done).toBe("completed");
    expect(ik.hasTarget("rightHand")).toBe(false);
  });

  it("names what is wrong, and dispose ends every reach", async () => {
    expect(() => reach.reach(point, { hand: "rightHnad" })).toThrow(/no joint "rightHnad"/);
    expect(() => reach.reach(point, { duration: -1 })).toThrow(/duration/);
    expect(() => reach.reach(new Vector3(NaN, 0, 0))).toThrow(/not a finite point/);
    expect(() => reach.reach(point, { orientation: true })).toThrow(/matchOrientation needs a TransformNode/);
    expect(ik.hasTarget("rightHand")).toBe(false);
    const a = reach.reach(point, { hand: "leftHand" });
    const b = reach.reach(point, { hand: "rightHand" });
    reach.dispose();
    expect([await a.done, await b.done]).toEqual(["cancelled", "cancelled"]);
    expect(ik.hasTarget("leftHand") || ik.hasTarget("rightHand")).toBe(false);
    expect(() => reach.reach(point)).toThrow(/disposed/);
  });
});

describe("Reach with an orientation", () => {
  it("gives the hand the wanted world rotation during the hold", async () => {
    const loaded = await loadCharacter(mannequin);
    const ik = attach(loaded, { limits: "none" });
    const driver = new FrameDriver(loaded, loaded.scene.getAnimationGroupByName("Idle"), 60);
    const reach = new Reach(ik, { autoUpdate: false });
    const reader = new PoseReader(ik.rig!);
    const shoulder = reader.getWorldPositionToRef(ik.jointIndex("rightUpperArm"), new Vector3());
    const rotation = Quaternion.RotationYawPitchRoll(0.3, -0.4, 0.8);
    const handle = reach.reach(shoulder.add(new Vector3(0.05, -0.2, 0.35)), {
      duration: 0.2,
      orientation: rotation,
    });
    driver.run([reach], 0.5);
    expect(handle.phase).toBe("hold");
    const hand = ik.rig!.nodes[ik.jointIndex("rightHand")]!;
    let error = NaN;
    const stop = onSolvedFrame(loaded.scene, () => {
      loaded.scene.incrementRenderId();
      hand.computeWorldMatrix(true);
      const q = hand.absoluteRotationQuaternion;
      error = 2 * Math.acos(Math.min(1, Math.abs(Quaternion.Dot(q, rotation))));
    });
    driver.frame([reach]);
    stop();
    // Read back through float32 world matrices.
    expect(error).toBeLessThan(1e-3);
    loaded.engine.dispose();
  });
});
