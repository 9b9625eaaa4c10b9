// The character's frame as a pipeline: passes before and after the solve, the scene's one system running
// every character, and the pose changes of passes written and put back with the solve's.
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FabrikBehavior, type FabrikFrame } from "../../plugin/babylon/fabrikBehavior.js";
import { FabrikSystem } from "../../plugin/babylon/fabrikSystem.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { FootPlacement } from "../../plugin/helpers/footPlacement.js";
import { LookAt } from "../../plugin/helpers/lookAt.js";
import { Reach } from "../../plugin/helpers/reach.js";
import { FabrikError } from "../../plugin/solver/errors.js";
import { OWN_CHARACTERS, loadCharacter, type Loaded } from "./characters.js";
import { attach, captureLocals, playFirstAnimation } from "./fabrikHarness.js";

const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;

let loaded: Loaded;
beforeEach(async () => {
  loaded = await loadCharacter(mannequin);
  playFirstAnimation(loaded.scene);
  loaded.scene.animationGroups[0]?.pause();
  loaded.scene.render();
});
afterEach(() => loaded?.engine.dispose());

const observers = () => [
  loaded.scene.onBeforeRenderObservable.observers.length,
  loaded.scene.onAfterRenderObservable.observers.length,
];

/** A point the left hand reaches: a few centimetres out from where the animation holds it. */
function handPoint(ik: FabrikBehavior): Vector3 {
  const reader = new PoseReader(ik.rig!);
  return reader
    .getWorldPositionToRef(ik.jointIndex("leftHand"), new Vector3())
    .add(new Vector3(0.05, 0.08, 0.05));
}

describe("the scene's system", () => {
  it("runs every character with one observer at the stage and one after rendering; helpers add none", () => {
    const before = observers();
    const a = attach(loaded);
    const b = new FabrikBehavior();
    loaded.root.addBehavior(b, true);
    new FootPlacement(a, { autoUpdate: false });
    new LookAt(b);
    new Reach(b);
    expect(observers()).toEqual([before[0] + 1, before[1] + 1]);
    const system = FabrikSystem.of(loaded.scene);
    expect(system.characterCount).toBe(2);
    expect(loaded.scene._getComponent(FabrikSystem.NAME)).toBe(system);
    a.setTarget("leftHand", handPoint(a));
    let solves = 0;
    a.onSolvedObservable.add(() => solves++);
    for (let i = 0; i < 3; i++) loaded.scene.render();
    expect(solves).toBe(3);
    loaded.root.removeBehavior(a);
    loaded.root.removeBehavior(b);
    expect(system.characterCount).toBe(0);
  });
});

describe("passes", () => {
  it("run before and after the solve, in order, on the pose read once; their changes are written and put back", () => {
    const ik = attach(loaded);
    const spine = ik.jointIndex("Spine");
    const hand = ik.jointIndex("leftHand");
    const target = handPoint(ik);
    ik.setTarget("leftHand", target);
    const nodes = ik.rig!.nodes;
    const animated = captureLocals(nodes);
    const turn = Quaternion.RotationAxis(new Vector3(0, 1, 0), 0.2);
    const turned = new Float64Array(4);
    const log: string[] = [];
    let handAfter = Infinity;
    ik.addPass({
      joints: ["Spine"],
      beforeSolve(frame: FabrikFrame) {
        log.push("turn");
        expect(frame.behavior).toBe(ik);
        expect(frame.deltaTime).toBeGreaterThan(0);
        frame.getLocalRotation(spine, turned, 0);
        const q = turn.multiply(new Quaternion(turned[0], turned[1], turned[2], turned[3]));
        turned.set([q.x, q.y, q.z, q.w]);
        frame.setLocalRotation(spine, turned, 0);
      },
    });
    ik.addPass({ beforeSolve: () => log.push("first") }, { order: -1 });
    ik.addPass({
      afterSolve(frame) {
        log.push("after");
        // The pose as it will be written: the hand on its target (model space).
        const m = frame.worldToModel;
        const t = [
          target.x * m[0] + target.y * m[4] + target.z * m[8] + m[12],
          target.x * m[1] + target.y * m[5] + target.z * m[9] + m[13],
          target.x * m[2] + target.y * m[6] + target.z * m[10] + m[14],
        ];
        const p = frame.positions;
        handAfter = Math.hypot(p[3 * hand] - t[0], p[3 * hand + 1] - t[1], p[3 * hand + 2] - t[2]);
      },
    });
    expect(ik.passes).toHaveLength(3);
    ik.onBeforeSolveObservable.add(() => log.push("observers"));
    let written: Float64Array = new Float64Array(0);
    ik.onSolvedObservable.add(() => (written = captureLocals(nodes)));
    loaded.scene.render();
    expect(log).toEqual(["first", "turn", "observers", "after"]);
    expect(handAfter).toBeLessThan(1e-3 * ik.height);
    // The spine was written as the pass turned it, and put back after the frame.
    expect(Array.from(written.slice(10 * spine, 10 * spine + 4))).toEqual(Array.from(turned));
    expect(captureLocals(nodes)).toEqual(animated);
  });

  it("are refused with a clear error for a detached behavior, an unknown joint or a bad order; a frame refuses unread joints", () => {
    const detached = new FabrikBehavior();
    expect(() => detached.addPass({})).toThrow(/addPass\(\): the behavior is not attached/);
    const ik = attach(loaded);
    expect(() => ik.addPass({ joints: ["Nope"] })).toThrow(FabrikError);
    expect(() => ik.addPass({}, { order: NaN })).toThrow(/order must be a finite number/);
    expect(() => ik.addPass(null as never)).toThrow(/a pass is an object/);
    expect(ik.passes).toHaveLength(0);
    let refusal: unknown = null;
    const finger = ik.jointIndex("LeftHandIndex4");
    ik.addPass({
      joints: ["Spine"],
      beforeSolve(frame) {
        try {
          frame.setLocalRotation(finger, new Float64Array([0, 0, 0, 1]), 0);
        } catch (error) {
          refusal = error;
        }
      },
    });
    loaded.scene.render();
    expect(String(refusal)).toMatch(
      /"LeftHandIndex4" is not read by this frame; declare it in the pass's joints/,
    );
    expect(ik.removePass(ik.passes[0])).toBe(true);
    expect(ik.removePass({})).toBe(false);
  });

  it("wait while the behavior is disabled; at weight 0 they run and nothing is written", () => {
    const ik = attach(loaded);
    const nodes = ik.rig!.nodes;
    const animated = captureLocals(nodes);
    const spine = ik.jointIndex("Spine");
    let runs = 0;
    ik.addPass({
      joints: [spine],
      beforeSolve(frame) {
        runs++;
        frame.setLocalRotation(spine, new Float64Array([0, 0.1, 0, Math.sqrt(0.99)]), 0);
      },
    });
    let seen: Float64Array = new Float64Array(0);
    loaded.scene.onAfterRenderObservable.add(() => (seen = captureLocals(nodes)), undefined, true);
    ik.enabled = false;
    loaded.scene.render();
    expect(runs).toBe(0);
    expect(seen).toEqual(animated);
    ik.enabled = true;
    ik.weight = 0;
    loaded.scene.render();
    expect(runs).toBe(1);
    expect(seen).toEqual(animated);
    ik.weight = 1;
    loaded.scene.render();
    expect(runs).toBe(2);
    expect(seen).not.toEqual(animated);
    expect(captureLocals(nodes)).toEqual(animated);
  });
});
