import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createStep } from "./helperHarness.js";
import { TrackedRig, type Measured, type Pose3 } from "./trackedBodyHarness.js";

/*
 * TrackedBody on ground that moves under planted feet: the mannequin stands on a box that rises and slides
 * (a lift, a moving platform), then on one that is taken away. The feet ride with the box and step down when
 * it is gone.
 */

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[tracked body on moving ground, mannequin]\n  ${notes.join("\n  ")}`);
});

const cm = (v: number): string => (100 * v).toFixed(1);

/** Head and hands of a player standing at (x, z) on ground `height` high, hands ahead at the waist. */
function standingAt(x: number, z: number, height: number): Pose3 {
  return {
    head: new Vector3(x, 1.6 + height, z + 0.01),
    left: new Vector3(x - 0.22, 1.05 + height, z + 0.35),
    right: new Vector3(x + 0.22, 1.05 + height, z + 0.35),
  };
}

describe("TrackedBody on moving ground (the mannequin)", () => {
  let rig: TrackedRig;
  afterEach(() => rig?.dispose());

  it("a box rising 20 cm and sliding 30 cm under the feet: the planted feet ride with it", async () => {
    rig = await TrackedRig.create();
    const box = createStep(rig.loaded.scene, "lift", 0.3, -1, 1, -1, 1);
    const j = rig.j;
    const rest = rig.positions()[j.leftFoot].y;
    rig.run(30, () => standingAt(0, 0, 0.3));
    const start = rig.positions();
    const steps = rig.body.steps;
    // Over a second the box rises 20 cm and slides 30 cm to the right (+X); the player rides on it.
    let worstHeight = 0,
      worstSlide = 0;
    const moved = (t: number) => ({ x: 0.3 * Math.min(1, t), y: 0.2 * Math.min(1, t) });
    const end = rig.run(
      90,
      (t) => {
        const m = moved(t);
        box.position.set(m.x, 0.3 + m.y - 0.5, 0);
        box.computeWorldMatrix(true);
        return standingAt(m.x, 0, 0.3 + m.y);
      },
      (f: Measured, t: number) => {
        const m = moved(t);
        for (const side of ["left", "right"] as const) {
          const foot = f.world[j[`${side}Foot`]];
          worstHeight = Math.max(worstHeight, Math.abs(foot.y - (0.3 + m.y) - rest));
          const from = start[j[`${side}Foot`]];
          worstSlide = Math.max(worstSlide, Math.hypot(foot.x - from.x - m.x, foot.z - from.z));
        }
      },
    );
    expect(rig.body.steps).toBe(steps);
    // The box moves 0.5 cm a frame up and 0.6 cm across at its fastest: the feet follow within a frame's move.
    expect(worstHeight).toBeLessThan(0.01);
    expect(worstSlide).toBeLessThan(0.01);
    expect(end.world[j.leftFoot].y - 0.5 - rest).toBeLessThan(0.005);
    notes.push(
      `a box rising 20 cm and sliding 30 cm in 1 s: no step, feet within ${cm(worstHeight)} cm of their ` +
        `height above it, ${cm(worstSlide)} cm of where they stood on it`,
    );
  });

  it("the box taken away: the feet step down to the ground below", async () => {
    rig = await TrackedRig.create();
    const scene = rig.loaded.scene;
    createStep(scene, "floor", 0, -3, 3, -3, 3);
    const box = createStep(scene, "platform", 0.3, -1, 1, -1, 1);
    const j = rig.j;
    const rest = rig.positions()[j.leftFoot].y;
    rig.run(30, () => standingAt(0, 0, 0.3));
    box.dispose();
    let both = 0;
    // The player comes down with the floor.
    const end = rig.run(
      90,
      (t) => standingAt(0, 0, 0.3 * Math.max(0, 1 - t / 0.3)),
      (f) => {
        if (f.stepping[0] && f.stepping[1]) both++;
      },
    );
    const off = Math.max(Math.abs(end.world[j.leftFoot].y - rest), Math.abs(end.world[j.rightFoot].y - rest));
    expect(both).toBe(0);
    expect(rig.body.steps).toBeGreaterThanOrEqual(2);
    expect(off).toBeLessThan(0.01);
    notes.push(
      `the box taken away: ${rig.body.steps} steps down, feet ${cm(off)} cm from their rest height above the floor`,
    );
  });
});
