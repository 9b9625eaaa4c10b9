import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { describe, expect, it } from "vitest";
import { FootPlacement } from "../../plugin/helpers/footPlacement.js";
import { LookAt } from "../../plugin/helpers/lookAt.js";
import { TrackedBody } from "../../plugin/helpers/trackedBody.js";
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

/** Solves the arm once toward its target; the hand's world position as written, and whether all went back. */
function solveArm(scale: readonly [number, number, number]) {
  const { loaded, ik, node, target } = scaledArm(scale);
  ik.setTarget("hand", target, { chainLength: 2 });
  const names = ["shoulder", "elbow", "hand"];
  const before = names.map((name) => node(name).rotationQuaternion!.asArray());
  let hand = new Vector3(NaN, NaN, NaN);
  const stop = onSolvedFrame(loaded.scene, () => {
    for (const name of names) node(name).computeWorldMatrix(true);
    hand = node("hand").getAbsolutePosition().clone();
  });
  loaded.scene.render();
  stop();
  const restored = names.every((name, k) =>
    node(name)
      .rotationQuaternion!.asArray()
      .every((v, i) => Object.is(v, before[k][i])),
  );
  loaded.engine.dispose();
  return { hand, target: target.position, restored };
}

describe("scale inside the skeleton", () => {
  it.each([[[1, 1, 1]], [[2, 2, 2]], [[-1, -1, -1]], [[-2, -2, -2]]] as const)(
    "a uniform scale %j, negative or not, is solved through",
    (scale) => {
      const { hand, target, restored } = solveArm(scale);
      expect(Vector3.Distance(hand, target)).toBeLessThan(1e-5);
      expect(restored).toBe(true);
    },
  );

  // Each is a uniform scale of one sign times a half turn (diag(-1, 1, 1) = -1 · diag(1, -1, -1)): the half
  // turn is read into the joint's rotation and taken back out of what is written (scaleFold.ts).
  it.each([
    [[-1, 1, 1]],
    [[1, -1, 1]],
    [[1, 1, -1]],
    [[-1, -1, 1]],
    [[-2, 2, 2]],
    [[-2, -2, 2]],
    [[2, -2, -2]],
  ] as const)(
    "a mirror or a half turn written as scale, %j, is solved through as exactly, and put back",
    (scale) => {
      const { hand, target, restored } = solveArm(scale);
      expect(Vector3.Distance(hand, target)).toBeLessThan(1e-5);
      expect(restored).toBe(true);
    },
  );

  // A mirror above the hand leaves its world frame a reflection: Babylon's decomposition (a negative Y scale
  // and the rest as absoluteRotationQuaternion) is what "the hand takes the target's rotation" means, as under
  // glTF's mirrored root (targetOrientation.ts).
  it.each([[[1, 1, 1]], [[-1, 1, 1]], [[-1, -1, 1]], [[-1, -1, -1]], [[2, -2, 2]]] as const)(
    "with the shoulder scaled %j, the hand takes its target's world rotation",
    (scale) => {
      const { loaded, ik, node, target } = scaledArm(scale);
      const goal = Quaternion.RotationYawPitchRoll(0.4, -0.3, 0.2);
      ik.setTarget("hand", target, { chainLength: 2, rotation: goal });
      let turn = NaN;
      let hand = new Vector3(NaN, NaN, NaN);
      const stop = onSolvedFrame(loaded.scene, () => {
        for (const name of ["shoulder", "elbow", "hand"]) node(name).computeWorldMatrix(true);
        hand = node("hand").getAbsolutePosition().clone();
        const q = node("hand").absoluteRotationQuaternion;
        turn = 2 * Math.acos(Math.min(1, Math.abs(Quaternion.Dot(q, goal))));
      });
      loaded.scene.render();
      stop();
      expect(Vector3.Distance(hand, target.position)).toBeLessThan(1e-4);
      expect(turn).toBeLessThan(1e-4);
      loaded.engine.dispose();
    },
  );

  it("the helpers build and run on a mannequin with mirrored joints (FootPlacement, LookAt, TrackedBody), nothing NaN", async () => {
    const loaded = await loadCharacter(OWN_CHARACTERS.find((c) => c.folder === "mannequin")!);
    const ik = attach(loaded);
    const node = (name: string) => ik.rig!.nodes[ik.jointIndex(name)]!;
    // Each mirrored joint's children moved so that its joints stand where they stood.
    const mirrored: [string, [number, number, number]][] = [
      ["LeftUpLeg", [-1, 1, 1]],
      ["Neck", [1, -1, -1]],
      ["LeftArm", [-1, -1, 1]],
    ];
    for (const [name, scale] of mirrored) {
      node(name).scaling.set(...scale);
      for (const child of node(name).getChildTransformNodes(true)) {
        const p = child.position;
        p.set(p.x / scale[0], p.y / scale[1], p.z / scale[2]);
      }
    }
    const feet = new FootPlacement(ik);
    const look = new LookAt(ik);
    look.target = new Vector3(1, 1.6, 2);
    const footTarget = new Vector3();
    const stop = onSolvedFrame(loaded.scene, () => {
      footTarget.copyFrom(node("LeftFoot").getAbsolutePosition());
    });
    for (let f = 0; f < 3; f++) loaded.scene.render();
    stop();
    expect(Number.isFinite(footTarget.x + footTarget.y + footTarget.z)).toBe(true);
    expect(ik.passes.length).toBe(2);
    feet.dispose();
    look.dispose();
    const body = new TrackedBody(ik);
    const hand = new Vector3();
    const stopBody = onSolvedFrame(loaded.scene, () => hand.copyFrom(node("LeftHand").getAbsolutePosition()));
    for (let f = 0; f < 3; f++) loaded.scene.render();
    stopBody();
    expect(Number.isFinite(hand.x + hand.y + hand.z)).toBe(true);
    body.dispose();
    loaded.engine.dispose();
  });
});
