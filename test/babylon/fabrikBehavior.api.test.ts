// setTargetWeight, joint indices in the per-target methods, and onBeforeSolveObservable.
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FabrikBehavior, type FabrikBeforeSolveEvent } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { FabrikError } from "../../plugin/solver/errors.js";
import { OWN_CHARACTERS, loadCharacter, type Loaded } from "./characters.js";
import { attach, captureLocals, playFirstAnimation } from "./fabrikHarness.js";

const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;

let loaded: Loaded;
let ik: FabrikBehavior;
let reader: PoseReader;

beforeEach(async () => {
  loaded = await loadCharacter(mannequin);
  playFirstAnimation(loaded.scene);
  // A still pose: every frame animates to the same place, so frames compare exactly.
  loaded.scene.animationGroups[0]?.pause();
  loaded.scene.render();
  ik = attach(loaded);
  reader = new PoseReader(ik.rig!);
});
afterEach(() => loaded?.engine.dispose());

/** A point the left hand reaches: 12 cm out from where the animation holds it. */
function handPoint(): Vector3 {
  reader.read();
  return reader
    .getWorldPositionToRef(ik.jointIndex("leftHand"), new Vector3())
    .add(new Vector3(0.05, 0.1, 0.05));
}

/** Renders a frame; returns the joint nodes' locals as the animation left them and as the behavior wrote them. */
function frame(): { animated: Float64Array; written: Float64Array; hand: Vector3 } {
  const nodes = ik.rig!.nodes;
  let animated: Float64Array = new Float64Array(0),
    written: Float64Array = new Float64Array(0);
  const hand = new Vector3(NaN, NaN, NaN);
  const before = loaded.scene.onBeforeRenderObservable.add(
    () => (animated = captureLocals(nodes)),
    undefined,
    true,
  );
  const after = loaded.scene.onAfterRenderObservable.add(
    () => {
      written = captureLocals(nodes);
      reader.read();
      reader.getWorldPositionToRef(ik.jointIndex("leftHand"), hand);
    },
    undefined,
    true,
  );
  loaded.scene.render();
  before.remove();
  after.remove();
  return { animated, written, hand };
}

/** What a refused call could have changed. */
function state(): string {
  return JSON.stringify([
    ik.targets.map((t) => [t.joint, t.weight, t.chainLength, t.matchOrientation]),
    Array.from(ik.writtenJoints),
    ik.plan === null ? null : Array.from(ik.plan.effectorJoints),
  ]);
}

function expectRefused(call: () => unknown, message: RegExp, option: string, joint?: number): void {
  const before = state();
  const plan = ik.plan;
  let thrown: unknown;
  try {
    call();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(FabrikError);
  expect((thrown as FabrikError).message).toMatch(message);
  expect((thrown as FabrikError).option).toBe(option);
  expect((thrown as FabrikError).joint).toBe(joint);
  expect(state()).toBe(before);
  expect(ik.plan).toBe(plan);
}

describe("setTargetWeight", () => {
  it("changes the weight the solve shows, without rebuilding the plan", () => {
    const point = handPoint();
    ik.setTarget("leftHand", point, { weight: 1 });
    const plan = ik.plan;
    let rebuilt = 0;
    ik.onTargetsChangedObservable.add(() => rebuilt++);
    const arm = ["leftUpperArm", "leftLowerArm"].map((r) => ik.jointIndex(r));

    const full = frame();
    expect(Vector3.Distance(full.hand, point)).toBeLessThan(1e-3);

    ik.setTargetWeight("leftHand", 0);
    expect(ik.targets[0].weight).toBe(0);
    const none = frame();
    // Weight 0: the arm is the animation, bit for bit.
    for (const j of arm) {
      expect(Array.from(none.written.subarray(10 * j, 10 * j + 4))).toEqual(
        Array.from(none.animated.subarray(10 * j, 10 * j + 4)),
      );
    }

    ik.setTargetWeight(ik.jointIndex("leftHand"), 0.5);
    const half = frame();
    const animatedHand = none.hand;
    const partway = Vector3.Distance(half.hand, animatedHand) / Vector3.Distance(full.hand, animatedHand);
    expect(partway).toBeGreaterThan(0.2);
    expect(partway).toBeLessThan(0.8);

    ik.setTargetWeight("LeftHand", 1);
    expect(Vector3.Distance(frame().hand, point)).toBeLessThan(1e-3);
    expect(ik.plan).toBe(plan);
    expect(rebuilt).toBe(0);
    // The other options are untouched.
    expect(ik.targets[0]).toMatchObject({ source: point, weight: 1, matchOrientation: false, pole: null });
  });

  it("refuses a weight outside [0, 1] or not a number, an unknown joint, and a joint without a target", () => {
    ik.setTarget("leftHand", handPoint(), { weight: 0.7 });
    const hand = ik.jointIndex("leftHand");
    for (const bad of [NaN, -0.1, 1.5, Infinity, "0.5", null]) {
      expectRefused(
        () => ik.setTargetWeight("leftHand", bad as never),
        /^FabrikIK setTargetWeight\("leftHand"\): weight must be a number in \[0, 1\], got /,
        "weight",
        hand,
      );
    }
    expectRefused(
      () => ik.setTargetWeight("lefthnad", 0.5),
      /^FabrikIK setTargetWeight\("lefthnad"\): no bone or humanoid role named "lefthnad"/,
      "joint",
    );
    const right = ik.jointIndex("rightHand");
    expectRefused(
      () => ik.setTargetWeight("rightHand", 0.5),
      /^FabrikIK setTargetWeight\("rightHand"\): "RightHand" has no target; give it one with setTarget first$/,
      "joint",
      right,
    );
    expect(ik.targets[0].weight).toBe(0.7);
    ik.clearTargets();
    expectRefused(() => ik.setTargetWeight("leftHand", 0.5), /"LeftHand" has no target/, "joint", hand);
    expect(() => new FabrikBehavior().setTargetWeight("leftHand", 1)).toThrow(
      /^FabrikIK setTargetWeight\("leftHand"\): the behavior is not attached/,
    );
  });
});

describe("joint indices", () => {
  it("name the same joint as its name in setTarget, hasTarget, setTargetWeight and removeTarget", () => {
    const hand = ik.jointIndex("LeftHand");
    expect(ik.jointIndex(hand)).toBe(hand);
    const point = handPoint();
    ik.setTarget(hand, point, { chainLength: 2 });
    expect(ik.hasTarget("leftHand")).toBe(true);
    expect(ik.hasTarget(hand)).toBe(true);
    expect(Array.from(ik.plan!.effectorJoints)).toEqual([hand]);
    expect(ik.targets[0]).toMatchObject({ joint: hand, label: String(hand), chainLength: 2 });
    expect(Vector3.Distance(frame().hand, point)).toBeLessThan(1e-3);
    // Set again by name: the same target, replaced.
    ik.setTarget("LeftHand", point, { chainLength: 2, weight: 0.5 });
    expect(ik.targets.length).toBe(1);
    ik.setTargetWeight(hand, 0.25);
    expect(ik.targets[0].weight).toBe(0.25);
    expect(ik.removeTarget(hand)).toBe(true);
    expect(ik.removeTarget(hand)).toBe(false);
    expect(ik.hasTarget(hand)).toBe(false);
    // setLimit and getLimit take indices too.
    const elbow = ik.jointIndex("leftLowerArm");
    expect(ik.getLimit(elbow)).toEqual(ik.getLimit("leftLowerArm"));
  });

  it("refuses an index outside the rig or not whole, naming it", () => {
    ik.setTarget("leftHand", handPoint());
    const count = ik.rig!.jointCount;
    expect(ik.jointIndex(count)).toBe(-1);
    expect(ik.jointIndex(-1)).toBe(-1);
    expect(ik.jointIndex(1.5)).toBe(-1);
    expect(ik.hasTarget(NaN)).toBe(false);
    const range = `\\(the rig's joints are 0\\.\\.${count - 1}\\)$`;
    expectRefused(
      () => ik.setTarget(count, new Vector3()),
      new RegExp(`^FabrikIK setTarget\\(${count}\\): joint index ${count} is outside the rig ${range}`),
      "joint",
    );
    expectRefused(
      () => ik.setTarget(-1, new Vector3()),
      new RegExp(`^FabrikIK setTarget\\(-1\\): joint index -1 is outside the rig ${range}`),
      "joint",
    );
    expectRefused(
      () => ik.removeTarget(2.5),
      new RegExp(`^FabrikIK removeTarget\\(2\\.5\\): joint index 2\\.5 is not a whole number ${range}`),
      "joint",
    );
    expectRefused(() => ik.setTargetWeight(NaN, 1), /joint index NaN is not a whole number/, "joint");
    expectRefused(() => ik.setLimit(count, undefined), /joint index \d+ is outside the rig/, "joint");
  });
});

describe("onBeforeSolveObservable", () => {
  it("fires once a frame between the animation and the solve, with the model matrices", () => {
    ik.setTarget("leftHand", handPoint());
    const order: string[] = [];
    let seen: FabrikBeforeSolveEvent | null = null;
    let animated: Float64Array = new Float64Array(0);
    let atNotify: Float64Array = new Float64Array(0);
    loaded.scene.onBeforeRenderObservable.add(
      () => (animated = captureLocals(ik.rig!.nodes)),
      undefined,
      true,
    );
    ik.onBeforeSolveObservable.add((event) => {
      order.push("before");
      seen = event;
      atNotify = captureLocals(ik.rig!.nodes);
    });
    ik.onSolvedObservable.add(() => order.push("solved"));
    frame();
    frame();
    expect(order).toEqual(["before", "solved", "before", "solved"]);
    // Nothing is written before it: the nodes hold the animated pose.
    expect(atNotify).toEqual(animated);
    const event = seen! as FabrikBeforeSolveEvent;
    expect(event.behavior).toBe(ik);
    expect(Array.from(event.modelToWorld)).toEqual(Array.from(ik.modelToWorld!));
    reader.read();
    expect(Array.from(event.worldToModel)).toEqual(Array.from(reader.worldToModel));
  });

  it("lets observers move targets and weights for the frame being solved", () => {
    const point = handPoint();
    const target = new Vector3(0, -10, 0);
    ik.setTarget("leftHand", target, { weight: 0 });
    const observer = ik.onBeforeSolveObservable.add(() => {
      target.copyFrom(point);
      ik.setTargetWeight("leftHand", 1);
    });
    // The first frame already reaches the point set inside it.
    expect(Vector3.Distance(frame().hand, point)).toBeLessThan(1e-3);
    observer!.remove();
  });

  it("solves the new set of targets when an observer changes it, notifying once", () => {
    const point = handPoint();
    ik.setTarget("rightHand", new Vector3(0, 1, 0), { weight: 0 });
    let notified = 0;
    let solvedEffectors: number[] = [];
    ik.onSolvedObservable.add(() => (solvedEffectors = Array.from(ik.plan!.effectorJoints)));
    ik.onBeforeSolveObservable.add(() => {
      notified++;
      if (!ik.hasTarget("leftHand")) ik.setTarget("leftHand", point);
    });
    const first = frame();
    expect(notified).toBe(1);
    expect(solvedEffectors).toContain(ik.jointIndex("leftHand"));
    expect(Vector3.Distance(first.hand, point)).toBeLessThan(1e-3);
    // The frame after renders as usual, and what was written is put back after each frame.
    const second = frame();
    expect(notified).toBe(2);
    expect(Vector3.Distance(second.hand, point)).toBeLessThan(1e-3);
    expect(captureLocals(ik.rig!.nodes)).toEqual(second.animated);
  });

  it("an observer removing every target leaves the frame to the animation", () => {
    ik.setTarget("leftHand", handPoint());
    ik.onBeforeSolveObservable.addOnce(() => ik.clearTargets());
    let solved = 0;
    ik.onSolvedObservable.add(() => solved++);
    const f = frame();
    expect(solved).toBe(0);
    expect(f.written).toEqual(f.animated);
  });

  it("is not fired while the behavior is disabled, at weight 0, or without targets", () => {
    let notified = 0;
    ik.onBeforeSolveObservable.add(() => notified++);
    frame();
    expect(notified).toBe(0);
    ik.setTarget("leftHand", handPoint());
    ik.enabled = false;
    frame();
    ik.enabled = true;
    ik.weight = 0;
    frame();
    expect(notified).toBe(0);
    ik.weight = 1;
    frame();
    expect(notified).toBe(1);
  });
});
