// Putting the animation back after rendering through the scene's queue (RestoreQueue), and the per-frame
// observables a frame skips until they have an observer (WatchedObservable).
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { OWN_CHARACTERS, loadCharacter, type Loaded } from "./characters.js";
import { attach, captureLocals, playFirstAnimation } from "./fabrikHarness.js";

const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;

let loaded: Loaded;
beforeEach(async () => {
  loaded = await loadCharacter(mannequin);
  playFirstAnimation(loaded.scene);
  // Paused: nothing but the restore gives the joints their animated values back.
  loaded.scene.animationGroups[0]?.pause();
  loaded.scene.render();
});
afterEach(() => loaded?.engine.dispose());

/** A point `role` reaches: a few centimetres out from where the animation holds it. */
function pointNear(ik: FabrikBehavior, role: string, offset: Vector3): Vector3 {
  const reader = new PoseReader(ik.rig!);
  return reader.getWorldPositionToRef(ik.jointIndex(role), new Vector3()).add(offset);
}

/** The largest difference between two captures of the joints' locals. */
function largestChange(a: Float64Array, b: Float64Array): number {
  let largest = 0;
  for (let i = 0; i < a.length; i++) largest = Math.max(largest, Math.abs(a[i] - b[i]));
  return largest;
}

describe("the restore after rendering", () => {
  it("puts back every joint bit for bit, where two characters write one arm and one also moves a joint", () => {
    const a = attach(loaded);
    const b = new FabrikBehavior();
    loaded.root.addBehavior(b, true);
    a.setTarget("leftHand", pointNear(a, "leftHand", new Vector3(0.05, 0.08, 0.05)));
    b.setTarget("leftHand", pointNear(b, "leftHand", new Vector3(-0.04, 0.06, 0.02)));
    b.setTarget("rightHand", pointNear(b, "rightHand", new Vector3(0.03, -0.05, 0.04)));
    // A pass moving a joint: that frame cannot be put back by the queue alone, and is put back in turn.
    const spine = a.jointIndex("Spine");
    const moved = new Float64Array(3);
    a.addPass({
      joints: ["Spine"],
      beforeSolve(frame) {
        frame.getLocalPosition(spine, moved, 0);
        moved[1] += 0.01;
        frame.setLocalPosition(spine, moved, 0);
      },
    });
    const nodes = a.rig!.nodes;
    const animated = captureLocals(nodes);
    const written: Float64Array[] = [];
    b.onSolvedObservable.add(() => written.push(captureLocals(nodes)));
    const seenAfter: Float64Array[] = [];
    loaded.scene.onAfterRenderObservable.add(() => seenAfter.push(captureLocals(nodes)));
    for (let frame = 0; frame < 3; frame++) {
      loaded.scene.render();
      expect(largestChange(written[frame], animated)).toBeGreaterThan(1e-3);
      expect(seenAfter[frame]).toEqual(animated);
      expect(captureLocals(nodes)).toEqual(animated);
    }
  });

  it("leaves alone what a character put back itself before rendering ended", () => {
    const ik = attach(loaded);
    ik.setTarget("leftHand", pointNear(ik, "leftHand", new Vector3(0.05, 0.08, 0.05)));
    // Another character stays, so the scene still puts back after rendering.
    const other = new FabrikBehavior();
    loaded.root.addBehavior(other, true);
    other.setTarget("rightHand", pointNear(other, "rightHand", new Vector3(0.03, -0.05, 0.04)));
    const nodes = ik.rig!.nodes;
    const elbow = nodes[ik.jointIndex("LeftForeArm")]!;
    loaded.scene.render();
    // After the solve wrote the arm, the behavior leaves, and user code turns the elbow for this frame.
    let own: number[] = [];
    loaded.scene.onBeforeRenderObservable.add(() => {
      if (ik.attachedNode === null) return;
      loaded.root.removeBehavior(ik);
      elbow.rotationQuaternion!.set(0, 0, Math.sin(0.2), Math.cos(0.2));
      own = elbow.rotationQuaternion!.asArray();
    });
    loaded.scene.render();
    expect(own).toHaveLength(4);
    expect(elbow.rotationQuaternion!.asArray()).toEqual(own);
  });
});

describe("the frame's observables", () => {
  it("are skipped until they have an observer, however it was added", () => {
    const ik = attach(loaded);
    ik.setTarget("leftHand", pointNear(ik, "leftHand", new Vector3(0.05, 0.08, 0.05)));
    loaded.scene.render();
    let solved = 0,
      before = 0;
    ik.onSolvedObservable.addOnce(() => solved++);
    loaded.scene.render();
    loaded.scene.render();
    expect(solved).toBe(1);
    ik.onBeforeSolveObservable.clear();
    ik.onBeforeSolveObservable.add(() => before++);
    ik.onSolvedObservable.clear();
    ik.onSolvedObservable.add(() => solved++);
    loaded.scene.render();
    expect([before, solved]).toEqual([1, 2]);
  });
});
