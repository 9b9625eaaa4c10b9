import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { describe, expect, it } from "vitest";
import { FootPlacement } from "../../plugin/helpers/footPlacement.js";
import { LookAt } from "../../plugin/helpers/lookAt.js";
import { TrackedBody } from "../../plugin/helpers/trackedBody.js";
import { TwoHandGrip } from "../../plugin/helpers/twoHandGrip.js";
import { FabrikError } from "../../plugin/solver/index.js";
import { onSolvedFrame } from "../helpers/helperHarness.js";
import { OWN_CHARACTERS, loadCharacter } from "./characters.js";
import { jointCharacter } from "./codeCharacters.js";
import { attach } from "./fabrikHarness.js";

/**
 * An arm (shoulder > elbow > hand, straight along +X) whose shoulder node carries `scale`, its elbow's
 * translation divided by it so the arm stands where it stood; the hand's target is 0.58 from the shoulder.
 */
function scaledArm(scale: readonly [number, number, number]) {
  const loaded = jointCharacter([
    ["body", null, [0, 1, 0]],
    ["shoulder", "body", [0.2, 1.4, 0]],
    ["elbow", "shoulder", [0.5, 1.4, 0]],
    ["hand", "elbow", [0.8, 1.4, 0]],
  ]);
  const node = (name: string) => loaded.root.getChildTransformNodes(false).find((n) => n.name === name)!;
  node("shoulder").scaling.set(...scale);
  const elbow = node("elbow").position;
  elbow.set(elbow.x / scale[0], elbow.y / scale[1], elbow.z / scale[2]);
  const target = new TransformNode("target", loaded.scene);
  target.position.set(0.5, 1.1, 0.25);
  return { loaded, ik: attach(loaded), node, target };
}

describe("scale inside the skeleton", () => {
  it.each([[[1, 1, 1]], [[2, 2, 2]], [[-1, -1, -1]], [[-2, -2, -2]]] as const)(
    "a uniform scale %j, negative or not, is solved through",
    (scale) => {
      const { loaded, ik, node, target } = scaledArm(scale);
      ik.setTarget("hand", target, { chainLength: 2 });
      let hand = new Vector3(NaN, NaN, NaN);
      const stop = onSolvedFrame(loaded.scene, () => {
        for (const name of ["shoulder", "elbow", "hand"]) node(name).computeWorldMatrix(true);
        hand = node("hand").getAbsolutePosition().clone();
      });
      loaded.scene.render();
      stop();
      expect(Vector3.Distance(hand, target.position)).toBeLessThan(1e-5);
      loaded.engine.dispose();
    },
  );

  it.each([
    [[-1, 1, 1], "(-1, 1, 1)"],
    [[1, -1, 1], "(1, -1, 1)"],
    [[-1, -1, 1], "(-1, -1, 1)"],
  ] as const)(
    "a mirror or a half turn as scale %j is refused, naming the joint, changing nothing",
    (scale, text) => {
      const { loaded, ik, target } = scaledArm(scale);
      const plan = ik.plan;
      let error: unknown = null;
      try {
        ik.setTarget("hand", target, { chainLength: 2 });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FabrikError);
      expect((error as FabrikError).message).toContain(`"shoulder" is scaled ${text}`);
      expect((error as FabrikError).joint).toBe(ik.jointIndex("shoulder"));
      expect(ik.hasTarget("hand")).toBe(false);
      expect(ik.plan).toBe(plan);
      // The mirrored joint's own target too: its orientation carries the flip.
      expect(() => ik.setTarget("shoulder", target, { chainLength: 1 })).toThrow(/"shoulder" is scaled/);
      loaded.engine.dispose();
    },
  );

  it("the helpers refuse such a joint when built, before setting anything (FootPlacement and LookAt set targets in a frame)", async () => {
    const loaded = await loadCharacter(OWN_CHARACTERS.find((c) => c.folder === "mannequin")!);
    const ik = attach(loaded);
    const node = (name: string) => ik.rig!.nodes[ik.jointIndex(name)]!;
    node("LeftUpLeg").scaling.set(-1, 1, 1);
    expect(() => new FootPlacement(ik)).toThrow(/FootPlacement: "LeftUpLeg" is scaled \(-1, 1, 1\)/);
    node("Neck").scaling.set(1, -1, -1);
    expect(() => new LookAt(ik)).toThrow(/LookAt: "Neck" is scaled \(1, -1, -1\)/);
    node("LeftArm").scaling.set(-1, -1, 1);
    expect(() => new TrackedBody(ik)).toThrow(/TrackedBody: "LeftArm" is scaled \(-1, -1, 1\)/);
    const object = new TransformNode("box", loaded.scene);
    const handle = { position: new Vector3(0, 0, 0) };
    expect(() => new TwoHandGrip(ik, { object, left: handle, right: handle })).toThrow(
      /TwoHandGrip: "LeftArm" is scaled/,
    );
    expect(ik.passes).toEqual([]);
    expect(ik.targets).toEqual([]);
    node("LeftArm").scaling.set(1, 1, 1);
    // Put back, both build and run.
    node("LeftUpLeg").scaling.set(1, 1, 1);
    node("Neck").scaling.set(1, 1, 1);
    const feet = new FootPlacement(ik);
    const look = new LookAt(ik);
    loaded.scene.render();
    expect(ik.passes.length).toBe(2);
    feet.dispose();
    look.dispose();
    loaded.engine.dispose();
  });
});
