import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FabrikBehavior, type FabrikStage } from "../../plugin/babylon/fabrikBehavior.js";
import { findSkinnedMeshes } from "../../plugin/babylon/skeletonGroups.js";
import { FabrikError } from "../../plugin/solver/errors.js";
import { OWN_CHARACTERS, loadCharacter, type Loaded } from "./characters.js";
import { attach, captureLocals, leastBytesPerCall, playFirstAnimation } from "./fabrikHarness.js";

const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;

/** The behavior's per-frame entry points, for tests that drive frames without rendering. */
interface FrameHooks {
  _onStage(): void;
  _onAfterRender(): void;
}
const hooks = (ik: FabrikBehavior) => ik as unknown as FrameHooks;

function observerCounts(scene: Scene): number[] {
  return [
    scene.onBeforeRenderObservable,
    scene.onAfterRenderObservable,
    scene.onAfterAnimationsObservable,
    scene.onBeforeStepObservable,
  ].map((o) => o.observers.length);
}

/** Observable removals are deferred to the next tick. */
const nextTick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A point 10 % of the arm's length in front of the animated left hand (reachable). */
function handTarget(loaded: Loaded, ik: FabrikBehavior): Vector3 {
  const rig = ik.rig!;
  const hand = rig.nodes[ik.jointIndex("leftHand")]!;
  const lower = rig.nodes[ik.jointIndex("leftLowerArm")]!;
  loaded.scene.incrementRenderId();
  const p = hand.computeWorldMatrix(true).getTranslation();
  const q = lower.computeWorldMatrix(true).getTranslation();
  return p.add(new Vector3(0, 0.3, 1).normalize().scale(0.1 * Vector3.Distance(p, q) * 2));
}

describe.skipIf(!mannequin.present)("FabrikBehavior lifecycle (mannequin)", () => {
  let loaded: Loaded;
  beforeEach(async () => {
    loaded = await loadCharacter(mannequin);
    playFirstAnimation(loaded.scene);
    for (let i = 0; i < 3; i++) loaded.scene.render();
  });
  afterEach(() => loaded?.engine.dispose());

  it("looks like a Babylon behavior: constant name, class name, trivial init, found by name", () => {
    const ik = new FabrikBehavior();
    expect(ik.name).toBe("FabrikIK");
    expect(ik.getClassName()).toBe("FabrikBehavior");
    expect(ik.attachedNode).toBeNull();
    ik.init();
    loaded.root.addBehavior(ik, true);
    expect(ik.attachedNode).toBe(loaded.root);
    expect(loaded.root.getBehaviorByName("FabrikIK")).toBe(ik);
    expect(ik.effectors.map((e) => e.name)).toContain("HeadTop_End");
    expect(ik.roles.leftHand).toBe(ik.rig!.indexOf("LeftHand"));
    expect(ik.limits!.specs.some((s) => s !== undefined)).toBe(true);
    expect(ik.height).toBeGreaterThan(1.5);
  });

  it("drives the same rig from the skinned mesh as from __root__", () => {
    const mesh = findSkinnedMeshes(loaded.root)[0];
    const a = attach(loaded);
    const b = new FabrikBehavior();
    mesh.addBehavior(b, true);
    expect(b.rig!.names).toEqual(a.rig!.names);
    expect(b.rig!.nodes).toEqual(a.rig!.nodes);
  });

  it("weight 0 leaves the animated pose bit for bit, and so does enabled = false", () => {
    const ik = attach(loaded);
    const nodes = ik.rig!.nodes;
    ik.setTarget("leftHand", handTarget(loaded, ik));
    ik.setTarget("rightFoot", new Vector3(0.3, 0.3, 0.3));
    let solves = 0;
    ik.onSolvedObservable.add(() => solves++);
    let animated: Float64Array = new Float64Array(0);
    const mismatches: number[] = [];
    loaded.scene.onBeforeRenderObservable.add(() => (animated = captureLocals(nodes)), undefined, true);
    loaded.scene.onAfterRenderObservable.add(
      () => {
        const now = captureLocals(nodes);
        for (let i = 0; i < now.length; i++) if (!Object.is(now[i], animated[i])) mismatches.push(i);
      },
      undefined,
      true,
    );
    ik.weight = 0;
    for (let i = 0; i < 5; i++) loaded.scene.render();
    ik.weight = 1;
    ik.enabled = false;
    for (let i = 0; i < 5; i++) loaded.scene.render();
    expect(solves).toBe(0);
    expect(mismatches).toEqual([]);
    ik.enabled = true;
    loaded.scene.render();
    expect(solves).toBe(1);
    expect(mismatches.length).toBeGreaterThan(0);
  });

  it("weight blends: at 0.5 each written joint turns about half as far from its animated rotation", () => {
    const ik = attach(loaded, { limits: "none" });
    // Paused, so both solves start from the same animated pose.
    loaded.scene.animationGroups[0].pause();
    loaded.scene.render();
    const target = handTarget(loaded, ik);
    ik.setTarget("leftHand", target);
    const angles = (weight: number): number[] => {
      ik.weight = weight;
      let result: number[] = [];
      let animated: Float64Array = new Float64Array(0);
      const a = loaded.scene.onBeforeRenderObservable.add(
        () => (animated = captureLocals(ik.rig!.nodes)),
        undefined,
        true,
      );
      const b = ik.onSolvedObservable.add(() => {
        const now = captureLocals(ik.rig!.nodes);
        result = Array.from(ik.writtenJoints, (j) => {
          // Normalised (glTF stores float32), and by atan2, which stays exact for small angles.
          const q = Quaternion.FromArray(now, 10 * j).normalize();
          const r = Quaternion.FromArray(animated, 10 * j).normalize();
          const d = Quaternion.Inverse(r).multiply(q);
          return 2 * Math.atan2(Math.hypot(d.x, d.y, d.z), Math.abs(d.w));
        });
      });
      loaded.scene.render();
      a.remove();
      b.remove();
      return result;
    };
    const full = angles(1);
    const half = angles(0.5);
    expect(full.some((x) => x > 1e-3)).toBe(true);
    full.forEach((x, i) => expect(half[i]).toBeCloseTo(x / 2, 9));
    expect(() => (ik.weight = 1.5)).toThrow(/weight must be a number in \[0, 1\], got 1.5/);
    expect(() => (ik.weight = NaN)).toThrow(FabrikError);
    expect(ik.weight).toBe(0.5);
  });

  it("detach mid-frame restores the animated pose and removes every observer; attach/detach cycles leave none", async () => {
    const scene = loaded.scene;
    await nextTick();
    const counts = observerCounts(scene);
    const ik = attach(loaded);
    const nodes = ik.rig!.nodes;
    ik.setTarget("leftHand", handTarget(loaded, ik));
    let animated: Float64Array = new Float64Array(0);
    let afterDetach: Float64Array = new Float64Array(0);
    scene.onBeforeRenderObservable.add(() => (animated = captureLocals(nodes)), undefined, true);
    ik.onSolvedObservable.add(() => {
      expect(captureLocals(nodes)).not.toEqual(animated);
      loaded.root.removeBehavior(ik);
      afterDetach = captureLocals(nodes);
    });
    scene.render();
    expect(afterDetach).toEqual(animated);
    expect(ik.attachedNode).toBeNull();
    expect(ik.rig).toBeNull();
    expect(loaded.root.getBehaviorByName("FabrikIK")).toBeNull();
    ik.detach(); // idempotent
    await nextTick();
    // The test's own observer is the one extra on onBeforeRender.
    expect(observerCounts(scene)).toEqual([counts[0] + 1, counts[1], counts[2], counts[3]]);

    // Observers are counted exactly, so a few cycles show a leak of one per cycle; the heap over 10 000
    // cycles is lifecycle.test.ts's business.
    const other = new FabrikBehavior({ stage: "afterAnimations" });
    for (let i = 0; i < 20; i++) {
      loaded.root.addBehavior(other, true);
      other.setTarget("leftHand", new Vector3(0, 1, 0.5));
      loaded.root.removeBehavior(other);
    }
    await nextTick();
    expect(observerCounts(scene)).toEqual([counts[0] + 1, counts[1], counts[2], counts[3]]);
  });

  it("refuses a second node while attached, and accepts the same node again", () => {
    const ik = attach(loaded);
    expect(() => ik.attach(loaded.root)).not.toThrow();
    const other = new TransformNode("other", loaded.scene);
    expect(() => ik.attach(other)).toThrow(/already attached to "__root__"; detach it/);
    expect(ik.attachedNode).toBe(loaded.root);
  });

  it("solves in onAfterAnimations when asked, once per frame", () => {
    const ik = attach(loaded, { stage: "afterAnimations" });
    expect(ik.stage).toBe("afterAnimations");
    ik.setTarget("leftHand", handTarget(loaded, ik));
    let solves = 0;
    ik.onSolvedObservable.add(() => solves++);
    for (let i = 0; i < 4; i++) loaded.scene.render();
    expect(solves).toBe(4);
  });

  it("does not drift on joints without an animation channel, even when solved twice before a render", () => {
    // The fingers have no channels: without the restore, each frame would start from the last IK output.
    const ik = attach(loaded, { limits: "none" });
    // Every frame from the animation (not from the last frame's answer), so every solve is the same problem.
    ik.continuity = false;
    loaded.scene.animationGroups[0].pause();
    const rig = ik.rig!;
    const tip = ik.jointIndex("LeftHandIndex4");
    loaded.scene.incrementRenderId();
    const start = rig.nodes[tip]!.computeWorldMatrix(true).getTranslation();
    ik.setTarget("LeftHandIndex4", start.add(new Vector3(0.01, 0.01, 0)), { chainLength: 3 });
    const poses: Float64Array[] = [];
    ik.onSolvedObservable.add(() => poses.push(captureLocals(rig.nodes)));
    for (let i = 0; i < 3; i++) loaded.scene.render();
    // Two solves without a render between them (lockstep substeps do that).
    hooks(ik)._onStage();
    hooks(ik)._onStage();
    loaded.scene.render();
    expect(poses.length).toBe(6);
    for (const pose of poses) expect(pose).toEqual(poses[0]);
  });

  /**
   * The clip paused, and two behaviors at `stage` reaching for the left hand 5 cm apart (so both write the arm):
   * with nothing re-animated, whatever a restore leaves is the next solve's start. `before` is the pose then.
   */
  function twoBehaviorsOnOneHand(stage: FabrikStage) {
    loaded.scene.animationGroups[0].pause();
    const first = attach(loaded, { limits: "none", stage });
    const second = new FabrikBehavior({ limits: "none", stage });
    // Every frame from the animation, so every solve is the same problem and the restores alone are seen.
    first.continuity = false;
    second.continuity = false;
    loaded.root.addBehavior(second, true);
    const rig = first.rig!;
    const before = captureLocals(rig.nodes);
    const target = handTarget(loaded, first);
    first.setTarget("leftHand", target);
    second.setTarget("leftHand", target.add(new Vector3(0, 0.05, 0)));
    return { first, second, rig, before };
  }

  it("two behaviors writing the same joints leave no drift: the last to write restores first", () => {
    // With the clip paused no joint is re-animated, so whatever a restore leaves is the next frame's start.
    // Each behavior restores what it captured; restored in the order they wrote, the second would put back
    // the first one's output, and both would start the next frame from it.
    const { first, second, rig, before } = twoBehaviorsOnOneHand("beforeRender");
    for (let i = 0; i < 3; i++) loaded.scene.render();
    expect(captureLocals(rig.nodes)).toEqual(before);
    // Detaching leaves the pose as the animation had it.
    first.detach();
    second.detach();
    expect(captureLocals(rig.nodes)).toEqual(before);
  });

  it("two behaviors writing the same joints leave no drift over lockstep substeps either", () => {
    // At the afterAnimations stage each lockstep step solves, with no render between steps. The clip is paused,
    // so nothing re-animates the joints between steps: what the restore before a step leaves is its start.
    const { first, second, rig, before } = twoBehaviorsOnOneHand("afterAnimations");
    const solved: Float64Array[] = [];
    second.onSolvedObservable.add(() => solved.push(captureLocals(rig.nodes)));
    const scene = loaded.scene;
    for (let frame = 0; frame < 3; frame++) {
      // What Scene.animate does per step under a deterministic lockstep engine, three steps in this frame.
      for (let step = 0; step < 3; step++) {
        scene.onBeforeStepObservable.notifyObservers(scene);
        scene.onAfterAnimationsObservable.notifyObservers(scene);
      }
      scene.onBeforeRenderObservable.notifyObservers(scene);
      scene.onAfterRenderObservable.notifyObservers(scene);
      expect(captureLocals(rig.nodes)).toEqual(before);
    }
    expect(solved.length).toBe(9);
    for (const pose of solved) expect(pose).toEqual(solved[0]);
    first.detach();
    second.detach();
    expect(captureLocals(rig.nodes)).toEqual(before);
  });

  it("allocates nothing per frame in steady state", () => {
    // Free joints keep the frames short (the solver's limit passes allocate nothing either; that is the
    // solver's own test), so enough frames run for V8 to settle.
    const ik = attach(loaded, { limits: "none" });
    const target = handTarget(loaded, ik);
    const node = new TransformNode("target", loaded.scene);
    node.position.copyFrom(target).addInPlaceFromFloats(0, 0.02, 0);
    const point = new Vector3(0.2, 0.2, 0.2);
    ik.setTarget("leftHand", target);
    ik.setTarget("rightHand", node, { matchOrientation: true, pole: new Vector3(0, 1, -1) });
    ik.setTarget("leftFoot", () => point, { weight: 0.5 });
    const { _onStage, _onAfterRender } = hooks(ik);
    const frame = () => {
      _onStage();
      _onAfterRender();
    };
    // V8 boxes numbers in code it has not optimised yet: let it settle first.
    const start = performance.now();
    for (let i = 0; i < 100_000; i++) frame();
    const microseconds = ((performance.now() - start) / 100_000) * 1000;
    const best = leastBytesPerCall(frame);
    console.log(
      `[fabrik tests] mannequin, 3 targets: ${microseconds.toFixed(1)} µs and ${best.toFixed(3)} bytes per frame`,
    );
    expect(best).toBeLessThan(2);
  }, 60_000);
});

describe.skipIf(!mannequin.present)("FabrikBehavior errors", () => {
  let loaded: Loaded;
  beforeEach(async () => {
    loaded = await loadCharacter(mannequin);
  });
  afterEach(() => loaded?.engine.dispose());

  it("rejects bad options with a message naming the option", () => {
    expect(() => new FabrikBehavior({ stage: "later" as never })).toThrow(
      'FabrikIK: stage must be "beforeRender" or "afterAnimations", got "later"',
    );
    expect(() => new FabrikBehavior({ tolerance: -1 })).toThrow(/tolerance must be a finite number >= 0/);
    expect(() => new FabrikBehavior({ tolerance: NaN })).toThrow(/tolerance/);
    expect(() => new FabrikBehavior({ maxIterations: 0 })).toThrow(
      /maxIterations must be a whole number >= 1, got 0/,
    );
    expect(() => new FabrikBehavior({ maxIterations: 2.5 })).toThrow(/maxIterations/);
    expect(() => new FabrikBehavior({ limits: "robot" as never })).toThrow(
      /limits must be "humanoid" or "none"/,
    );
    expect(() => new FabrikBehavior({ tolerence: 1 } as never)).toThrow(/unknown option "tolerence"/);
    expect(() => new FabrikBehavior(null as never)).toThrow(/options must be an object/);
    try {
      new FabrikBehavior({ maxIterations: -3 });
    } catch (error) {
      expect(error).toBeInstanceOf(FabrikError);
      expect((error as FabrikError).option).toBe("maxIterations");
    }
    const ik = new FabrikBehavior();
    expect(() => (ik.tolerance = -2)).toThrow(/tolerance/);
    expect(() => (ik.maxIterations = 0)).toThrow(/maxIterations/);
    expect([ik.tolerance, ik.maxIterations]).toEqual([1e-3, 100]);
  });

  it("refuses a node with no skeleton under it, and changes nothing", async () => {
    await nextTick();
    const counts = observerCounts(loaded.scene);
    const empty = new TransformNode("empty", loaded.scene);
    const ik = new FabrikBehavior();
    expect(() => empty.addBehavior(ik, true)).toThrow(
      /FabrikIK: cannot attach to "empty": skeleton: no skinned mesh \(a mesh with a skeleton\) at or under TransformNode "empty"/,
    );
    expect(ik.attachedNode).toBeNull();
    expect(ik.rig).toBeNull();
    expect(observerCounts(loaded.scene)).toEqual(counts);
    // Still usable on a real character.
    loaded.root.addBehavior(ik, true);
    expect(ik.attachedNode).toBe(loaded.root);
  });

  it("refuses unknown bones and roles, naming them and suggesting close names", () => {
    const ik = attach(loaded);
    expect(() => ik.setTarget("LeftHnad", new Vector3())).toThrow(
      /FabrikIK setTarget\("LeftHnad"\): no bone or humanoid role named "LeftHnad"/,
    );
    expect(() => ik.setTarget("lefthand", new Vector3())).toThrow(
      /did you mean role "leftHand" or "LeftHand"/,
    );
    expect(() => ik.setTarget("leftHand", new Vector3(0, 1, 0))).not.toThrow();
    expect(() => ik.setLimit("Tail", undefined)).toThrow(
      /FabrikIK setLimit\("Tail"\): no bone or humanoid role named "Tail"/,
    );
    expect(() => ik.removeTarget("nope")).toThrow(/removeTarget\("nope"\)/);
    expect(ik.jointIndex("nope")).toBe(-1);
  });

  it("says when a role exists but was not recognised, and when the behavior is not attached", async () => {
    const tentacle = await loadCharacter(OWN_CHARACTERS.find((c) => c.folder === "tentacle")!);
    const ik = new FabrikBehavior();
    expect(() => ik.setTarget("leftHand", new Vector3())).toThrow(
      /the behavior is not attached; add it to the character first \(mesh.addBehavior\(ik, true\)/,
    );
    tentacle.root.addBehavior(ik, true);
    expect(() => ik.setTarget("leftHand", new Vector3())).toThrow(
      /no bone named "leftHand" \(the role "leftHand" was not recognised on this rig\).*no recognised humanoid roles/,
    );
    tentacle.engine.dispose();
  });

  it("refuses non-finite Vector3 targets and bad target options, changing nothing", () => {
    const ik = attach(loaded);
    ik.setTarget("leftHand", new Vector3(0, 1, 0.3));
    const plan = ik.plan;
    expect(() => ik.setTarget("rightHand", new Vector3(NaN, 1, 0))).toThrow(
      /FabrikIK setTarget\("rightHand"\): the target is not a finite point \(NaN, 1, 0\)/,
    );
    expect(() => ik.setTarget("rightHand", new Vector3(0, Infinity, 0))).toThrow(/not a finite point/);
    expect(() => ik.setTarget("rightHand", "up" as never)).toThrow(
      /a target must be a Vector3, a TransformNode or a function returning a Vector3, got the string "up"/,
    );
    expect(() => ik.setTarget("rightHand", new Vector3(), { weight: 2 })).toThrow(
      /weight must be a number in \[0, 1\], got 2/,
    );
    expect(() => ik.setTarget("rightHand", new Vector3(), { chainLength: 0 })).toThrow(
      /chainLength must be a whole number >= 1, got 0/,
    );
    expect(() => ik.setTarget("rightHand", new Vector3(), { matchOrientation: true })).toThrow(
      /matchOrientation needs a TransformNode target, or the rotation option/,
    );
    expect(() => ik.setTarget("rightHand", new Vector3(), { rotation: new Quaternion(0, 0, 0, 0) })).toThrow(
      /rotation is not a usable quaternion/,
    );
    expect(() => ik.setTarget("rightHand", new Vector3(), { pole: new Vector3(NaN, 0, 0) })).toThrow(
      /setTarget\("rightHand"\): pole: the target is not a finite point/,
    );
    expect(() => ik.setTarget("rightHand", new Vector3(), { chainlength: 2 } as never)).toThrow(
      /unknown option "chainlength"/,
    );
    expect(() => ik.setTarget("Hips", new Vector3())).toThrow(
      /FabrikIK setTarget\("Hips"\): \(joint 0 \("Hips"\)\): the joint is a root, which never moves/,
    );
    expect(ik.plan).toBe(plan);
    expect(ik.hasTarget("rightHand")).toBe(false);
    expect(ik.hasTarget("leftHand")).toBe(true);
  });

  it("refuses a bad limit spec and keeps the old one", () => {
    const ik = attach(loaded);
    const before = ik.getLimit("leftLowerArm");
    expect(before?.hinge).toBeDefined();
    expect(() => ik.setLimit("leftLowerArm", { swing: { up: 1, right: 1, down: 1, left: 5 } })).toThrow(
      /FabrikIK setLimit\("leftLowerArm"\): limits of joint \d+ \("LeftForeArm"\): swing.left must be an angle in \[0, π\] radians, got 5/,
    );
    expect(ik.getLimit("leftLowerArm")).toEqual(before);
  });
});
