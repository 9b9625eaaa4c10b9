// The behavior on a skeleton whose limbs have more bones than roles (Rigify's deforming bones, split in two
// along each upper arm, forearm, thigh and shin), built in code as glTF loads one: TransformNodes linked to
// Bones, under a model root, with a skinned mesh.
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it } from "vitest";
import { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { buildRigifyCharacter } from "./codeCharacters.js";

let engine: NullEngine | undefined;
afterEach(() => engine?.dispose());

/** How far (radians) a node's local rotation turns the +X axis (the left arm's bones at rest). */
function swingOfX(node: TransformNode): number {
  const v = new Vector3(1, 0, 0).applyRotationQuaternion(node.rotationQuaternion!);
  return Math.acos(Math.min(1, v.x));
}

describe("FabrikBehavior on a limb split into more bones than roles", () => {
  it("a hand reaching from the straight T-pose bends its elbow; the arm's segments only twist", () => {
    engine = new NullEngine();
    const scene = new Scene(engine);
    new FreeCamera("camera", new Vector3(0, 1, -5), scene);
    const { model, nodes } = buildRigifyCharacter(scene);
    const ik = new FabrikBehavior();
    model.addBehavior(ik, true);
    expect(ik.rig!.names[ik.roles.leftUpperArm!]).toBe("DEF-upper_arm.L");
    expect(ik.rig!.names[ik.roles.leftLowerArm!]).toBe("DEF-forearm.L");
    expect(ik.getLimit("DEF-upper_arm.L.001")?.fixed).toBe(true);
    expect(ik.getLimit("DEF-forearm.L.001")?.fixed).toBe(true);
    // In front of the chest, within reach with the elbow bent.
    const target = new Vector3(0.25, 1.3, 0.35);
    ik.setTarget("leftHand", target);
    let largest = 0;
    for (let f = 0; f < 5; f++) {
      scene.onBeforeRenderObservable.notifyObservers(scene);
      for (const name of ["DEF-upper_arm.L.001", "DEF-forearm.L.001"])
        largest = Math.max(largest, swingOfX(nodes.get(name)!));
      const reader = new PoseReader(ik.rig!);
      reader.read();
      const hand = reader.getWorldPositionToRef(ik.jointIndex("leftHand"), new Vector3());
      expect(Vector3.Distance(hand, target)).toBeLessThan(2e-3);
      // The elbow bends (the hand is nearer the shoulder than the arm's length).
      expect(swingOfX(nodes.get("DEF-forearm.L")!)).toBeGreaterThan(0.3);
      scene.onAfterRenderObservable.notifyObservers(scene);
    }
    expect(largest).toBeLessThan(1e-6);
  });
});
