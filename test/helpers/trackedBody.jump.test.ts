import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createStep } from "./helperHarness.js";
import { finite, TrackedRig, type Measured, type Pose3 } from "./trackedBodyHarness.js";

/*
 * Jumps on the mannequin: the head rises above its standing height and comes back down, in place and forward.
 * The feet leave the ground together while the hips are above their standing height, go with the hips, and
 * land where they come down (on the ground they left, or on a box); a head rising less than a jump's take-off
 * (on tiptoe) leaves them planted.
 */

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[tracked body, jumps (mannequin)]\n  ${notes.join("\n  ")}`);
});

const HEAD = new Vector3(0, 1.6, 0.01);
const standing = (): Pose3 => ({
  head: HEAD.clone(),
  left: new Vector3(-0.22, 1.05, 0.35),
  right: new Vector3(0.22, 1.05, 0.35),
});

/** The trackers of a jump starting at `start` s: up by `rise` m and forward by `ahead` m over `time` s (a parabola). */
function jump(start: number, time: number, rise: number, ahead: number): (t: number) => Pose3 {
  return (t) => {
    const u = Math.min(1, Math.max(0, (t - start) / time));
    const offset = new Vector3(0, 4 * rise * u * (1 - u), ahead * u);
    const p = standing();
    return { head: p.head.add(offset), left: p.left.add(offset), right: p.right.add(offset) };
  };
}

const cm = (v: number): string => (100 * v).toFixed(1);

/**
 * How far a planted foot moves while planted, the largest over the frames `see` is given (world m): each
 * foot's drift is measured from where it landed.
 */
function slideMeter(j: Record<string, number>): { see: (m: Measured) => void; largest: () => number } {
  const landed: (Vector3 | null)[] = [null, null];
  let slide = 0;
  return {
    see: (m) => {
      for (const [i, side] of (["left", "right"] as const).entries()) {
        const foot = m.world[j[`${side}Foot`]];
        if (m.stepping[i]) landed[i] = null;
        else if (landed[i] === null) landed[i] = foot.clone();
        else slide = Math.max(slide, foot.subtract(landed[i]).length());
      }
    },
    largest: () => slide,
  };
}

describe("TrackedBody: jumps", () => {
  let rig: TrackedRig;
  afterEach(() => rig?.dispose());

  it.each([
    ["in place", 0],
    ["forward 40 cm", 0.4],
  ])(
    "%s: both feet leave the ground together, go up with the hips, land and stay planted",
    async (_, ahead) => {
      rig = await TrackedRig.create();
      const start = rig.run(30, standing).world;
      const j = rig.j;
      const footHeight = [start[j.leftFoot].y, start[j.rightFoot].y];
      const standHips = start[j.hips].y;
      const steps = rig.body.steps;
      const path = jump(0.25, 0.6, 0.3, ahead);
      let air = 0,
        one = 0,
        highest = 0,
        headMiss = 0,
        allFinite = true;
      const slides = slideMeter(j);
      const end = rig.run(120, path, (m, t) => {
        allFinite &&= finite(m.world);
        const [l, r] = m.stepping;
        if (l && r) air++;
        else if (l !== r) one++;
        const lift = Math.min(m.world[j.leftFoot].y - footHeight[0], m.world[j.rightFoot].y - footHeight[1]);
        highest = Math.max(highest, lift);
        headMiss = Math.max(headMiss, m.world[j.head].subtract(path(t).head).length());
        slides.see(m);
      }).world;
      notes.push(
        `jump ${ahead > 0 ? `forward ${cm(ahead)} cm` : "in place"}, the head 30 cm up: ${air} frames in the air ` +
          `(one foot only: ${one}), feet up to ${cm(highest)} cm, head ≤ ${cm(headMiss)} cm off its tracker, ` +
          `planted feet slid ≤ ${cm(slides.largest())} cm, ${rig.body.steps - steps} steps, hips back at ` +
          `${cm(end[j.hips].y - standHips)} cm`,
      );
      expect(allFinite).toBe(true);
      // In the air for most of the jump, both feet at once, never one without the other.
      expect(air).toBeGreaterThan(20);
      expect(one).toBe(0);
      // The feet rise with the hips: most of the head's rise (less the take-off's few centimetres).
      expect(highest).toBeGreaterThan(0.2);
      // The hips follow the head up, so the head meets its tracker throughout.
      expect(headMiss).toBeLessThan(0.01);
      // Landed where they came down (no step after), on the ground, planted.
      expect(rig.body.steps).toBe(steps);
      expect(slides.largest()).toBeLessThan(0.01);
      expect(rig.body.isStepping(0) || rig.body.isStepping(1)).toBe(false);
      for (const [i, side] of (["left", "right"] as const).entries()) {
        expect(Math.abs(end[j[`${side}Foot`]].y - footHeight[i])).toBeLessThan(0.005);
        expect(Math.abs(end[j[`${side}Foot`]].z - start[j[`${side}Foot`]].z - ahead)).toBeLessThan(0.05);
      }
      expect(Math.abs(end[j.hips].y - standHips)).toBeLessThan(0.01);
    },
  );

  it("onto a 30 cm box: the feet land on its top and stay planted there", async () => {
    rig = await TrackedRig.create();
    createStep(rig.loaded.scene, "box", 0.3, -1, 1, 0.4, 2);
    const start = rig.run(30, standing).world;
    const j = rig.j;
    const footHeight = [start[j.leftFoot].y, start[j.rightFoot].y];
    // Up 30 cm and forward 60 cm in 0.6 s, arcing 25 cm over the straight line, then standing on the box.
    const path = (t: number): Pose3 => {
      const u = Math.min(1, Math.max(0, (t - 0.25) / 0.6));
      const offset = new Vector3(0, 0.3 * u + u * (1 - u), 0.6 * u);
      const p = standing();
      return { head: p.head.add(offset), left: p.left.add(offset), right: p.right.add(offset) };
    };
    let allFinite = true,
      air = 0;
    const slides = slideMeter(j);
    const end = rig.run(120, path, (m) => {
      allFinite &&= finite(m.world);
      if (m.stepping[0] && m.stepping[1]) air++;
      slides.see(m);
    }).world;
    notes.push(
      `onto a 30 cm box (60 cm ahead): ${air} frames in the air, feet at ` +
        `${cm(end[j.leftFoot].y - footHeight[0])} / ${cm(end[j.rightFoot].y - footHeight[1])} cm over where ` +
        `they stood, planted feet slid ≤ ${cm(slides.largest())} cm, head ${cm(end[j.head].subtract(path(2).head).length())} cm off`,
    );
    expect(allFinite).toBe(true);
    expect(air).toBeGreaterThan(20);
    expect(rig.body.isStepping(0) || rig.body.isStepping(1)).toBe(false);
    for (const [i, side] of (["left", "right"] as const).entries()) {
      expect(Math.abs(end[j[`${side}Foot`]].y - footHeight[i] - 0.3)).toBeLessThan(0.005);
      expect(end[j[`${side}Foot`]].z).toBeGreaterThan(0.4);
    }
    expect(slides.largest()).toBeLessThan(0.01);
    expect(end[j.head].subtract(path(2).head).length()).toBeLessThan(0.01);
  });

  it("on tiptoe (the head 1 cm up) the feet stay planted", async () => {
    rig = await TrackedRig.create();
    const start = rig.run(30, standing).world;
    const j = rig.j;
    let lifted = 0,
      moved = 0;
    rig.run(60, jump(0.1, 0.8, 0.01, 0), (m) => {
      if (m.stepping[0] || m.stepping[1]) lifted++;
      for (const side of ["left", "right"] as const) {
        const k = j[`${side}Foot`];
        moved = Math.max(moved, m.world[k].subtract(start[k]).length());
      }
    });
    expect(lifted).toBe(0);
    expect(moved).toBeLessThan(0.01);
  });
});
