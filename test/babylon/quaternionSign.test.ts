import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { FootPlacement } from "../../plugin/helpers/footPlacement.js";
import { TrackedBody } from "../../plugin/helpers/trackedBody.js";
import { FrameDriver, createSlope, onSolvedFrame } from "../helpers/helperHarness.js";
import {
  OWN_CHARACTERS,
  characterNamed,
  loadCharacter,
  noteIfMissing,
  type Character,
} from "./characters.js";
import { attach } from "./fabrikHarness.js";

/*
 * A quaternion and its negation are one rotation, and glTF keys come with either sign (an exporter's choice,
 * or a clip that keeps each key near the last). Every joint's animated quaternion negated, after the clip is
 * sampled and before the behavior reads it, must move nothing: FootPlacement on a slope, TrackedBody
 * following the clip's head. (The humanoid fuzzer found a hinged knee at a shin's end read 2π off from a
 * quaternion with w < 0: plugin/rig/shinEnd.ts; RobotExpressive's fitted knees are cones, not hinges.)
 */

type Helper = "feet" | "body";

async function run(
  character: Character,
  clip: string,
  helper: Helper,
  negated: boolean,
): Promise<Vector3[][]> {
  const loaded = await loadCharacter(character);
  const ik = attach(loaded);
  createSlope(loaded.scene, 12);
  const nodes = ik.rig!.nodes.filter((n) => n !== null);
  const driver = new FrameDriver(loaded, loaded.scene.getAnimationGroupByName(clip), 60);
  const updatable =
    helper === "feet"
      ? new FootPlacement(ik, { autoUpdate: false })
      : new TrackedBody(ik, { autoUpdate: false });
  if (updatable instanceof TrackedBody) {
    const head = ik.rig!.nodes[ik.roles.head!]!;
    updatable.head.follow(head);
  }
  const out: Vector3[][] = [];
  const stop = onSolvedFrame(loaded.scene, () => out.push(nodes.map((n) => n.getAbsolutePosition().clone())));
  for (let f = 0; f < 90; f++)
    driver.frame([updatable], () => {
      if (negated) for (const n of nodes) n.rotationQuaternion?.scaleInPlace(-1);
    });
  stop();
  updatable.dispose();
  loaded.engine.dispose();
  return out;
}

const CASES: [string, Character, string, Helper][] = [
  ["mannequin", OWN_CHARACTERS.find((c) => c.folder === "mannequin")!, "Walk", "feet"],
  ["RobotExpressive", characterNamed("RobotExpressive"), "Walking", "feet"],
  ["RobotExpressive", characterNamed("RobotExpressive"), "Idle", "body"],
];

describe("quaternion signs", () => {
  it.each(CASES)(
    "%s: every animated quaternion negated moves no joint",
    async (_, character, clip, helper) => {
      if (noteIfMissing(character)) return;
      const plain = await run(character, clip, helper, false);
      const negated = await run(character, clip, helper, true);
      expect(negated.length).toBe(plain.length);
      let worst = 0,
        size = 0;
      plain.forEach((pose, f) =>
        pose.forEach((p, j) => {
          size = Math.max(size, p.length());
          worst = Math.max(worst, negated[f][j].subtract(p).length());
        }),
      );
      expect(worst / size).toBeLessThan(1e-6);
    },
  );
});
