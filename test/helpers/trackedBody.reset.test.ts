import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it, vi } from "vitest";
import { finite, TrackedRig, type Pose3 } from "./trackedBodyHarness.js";

/*
 * A teleport: the mannequin crouches deep, then its trackers jump 3 m sideways to a standing pose. After
 * `reset()` the first frame there stands as a body that has stood there all along; without it the body carries
 * the crouch (the hips' floor offset, the last solution) into the jump.
 */

const SIDEWAYS = new Vector3(3, 0, 0);

async function standingPose(): Promise<{ stand: Pose3; height: number }> {
  const rig = await TrackedRig.create();
  try {
    const w = rig.positions();
    const at = (role: string) => w[rig.j[role]].clone();
    const stand = { head: at("head"), left: at("leftHand"), right: at("rightHand") };
    return { stand, height: rig.body.height };
  } finally {
    rig.dispose();
  }
}

const moved = (p: Pose3, by: Vector3): Pose3 => ({
  head: p.head.add(by),
  left: p.left.add(by),
  right: p.right.add(by),
});

/** Crouches (60 frames standing, 60 going down by `drop`, 30 held), then one frame at `after`. */
async function crouchThenJump(stand: Pose3, drop: number, after: Pose3, reset: boolean): Promise<Vector3[]> {
  const rig = await TrackedRig.create();
  try {
    const down = new Vector3(0, -drop, 0);
    rig.run(60, () => stand);
    rig.run(90, (t) => moved(stand, down.scale(Math.min(1, t))));
    if (reset) rig.body.reset();
    return rig.run(1, () => after).world;
  } finally {
    rig.dispose();
  }
}

describe("TrackedBody reset()", () => {
  it("after a teleport, the first frame stands as a body that stood there all along", async () => {
    const { stand, height } = await standingPose();
    const there = moved(stand, SIDEWAYS);
    const settled = await TrackedRig.create();
    let expected: Vector3[];
    try {
      expected = settled.run(120, () => there).world;
    } finally {
      settled.dispose();
    }
    const drop = 0.45 * height;
    const cm = 175 / height;
    const worst = (world: Vector3[]) =>
      Math.max(...world.map((p, k) => p.subtract(expected[k]).length() * cm));
    const withReset = await crouchThenJump(stand, drop, there, true);
    const without = await crouchThenJump(stand, drop, there, false);
    expect(finite(withReset)).toBe(true);
    console.log(
      `[tracked body reset] worst joint off the settled pose: ${worst(withReset).toFixed(2)} cm with reset(), ${worst(without).toFixed(2)} cm without`,
    );
    expect(worst(withReset)).toBeLessThan(0.5);
    // What reset() changes: without it the crouch is carried into the jump.
    expect(worst(without)).toBeGreaterThan(5);
  }, 60000);

  it("after dispose() does nothing: the behavior's carried answer is left alone", async () => {
    const rig = await TrackedRig.create();
    try {
      const resetContinuity = vi.spyOn(rig.ik, "resetContinuity");
      rig.body.reset();
      expect(resetContinuity).toHaveBeenCalledTimes(1);
      rig.body.dispose();
      rig.body.reset();
      expect(resetContinuity).toHaveBeenCalledTimes(1);
    } finally {
      rig.dispose();
    }
  }, 60000);
});
