import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { InspectableType, type IInspectable } from "@babylonjs/core/Misc/iInspectable.js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FabrikBehavior, type FabrikBehaviorOptions } from "../../plugin/babylon/index.js";
import {
  FabrikDebugView,
  getSelectedJoint,
  inspectorPrefix,
  installFabrikInspector,
} from "../../plugin/tools/index.js";
import { OWN_CHARACTERS, loadCharacter, type Loaded } from "../babylon/characters.js";
import {
  attach as attachBehavior,
  captureLocals,
  limitViolation,
  playFirstAnimation,
} from "../babylon/fabrikHarness.js";

const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;

type Bag = Record<string, unknown>;
const bag = (o: object) => o as Bag;
const rowsOf = (o: object): IInspectable[] =>
  (o as { inspectableCustomProperties?: IInspectable[] }).inspectableCustomProperties ?? [];
const row = (o: object, name: string) => rowsOf(o).find((r) => r.propertyName === name);

/** Attaches a behavior with its Inspector rows (they are opt-in). */
function attach(loaded: Loaded, options: FabrikBehaviorOptions = {}): FabrikBehavior {
  const ik = attachBehavior(loaded, options);
  installFabrikInspector(ik);
  return ik;
}

/** What the Inspector does to a watched property: wrap it, call the original, then its hook. */
function watch(target: object, key: string): { count: number; dispose(): void } {
  const original = Object.getOwnPropertyDescriptor(target, key)!;
  const state = {
    count: 0,
    dispose: () => Object.defineProperty(target, key, original),
  };
  Object.defineProperty(target, key, {
    configurable: true,
    get: () => original.get!.call(target),
    set: (v: unknown) => {
      original.set!.call(target, v);
      state.count++;
    },
  });
  return state;
}

/** A reachable point: 15 % of the arm's length from the animated left hand, forward and up. */
function handTarget(loaded: Loaded, ik: FabrikBehavior): Vector3 {
  const rig = ik.rig!;
  loaded.scene.incrementRenderId();
  const hand = rig.nodes[ik.jointIndex("leftHand")]!.computeWorldMatrix(true).getTranslation();
  const elbow = rig.nodes[ik.jointIndex("leftLowerArm")]!.computeWorldMatrix(true).getTranslation();
  return hand.add(new Vector3(0, 0.5, 1).normalize().scale(0.3 * Vector3.Distance(hand, elbow)));
}

describe.skipIf(!mannequin.present)("Inspector properties (mannequin)", () => {
  let loaded: Loaded;
  beforeEach(async () => {
    loaded = await loadCharacter(mannequin);
    playFirstAnimation(loaded.scene);
    for (let i = 0; i < 3; i++) loaded.scene.render();
  });
  afterEach(() => loaded?.engine.dispose());

  it("puts typed rows on the attached node, the skinned mesh and the behavior, each backed by a property", () => {
    const ik = attach(loaded);
    const mesh = ik.rig!.meshes[0];
    expect(inspectorPrefix(ik)).toBe("fabrik");
    const expected: [string, InspectableType][] = [
      ["fabrikSummary", InspectableType.Tab],
      ["fabrikEnabled", InspectableType.Checkbox],
      ["fabrikSkipWhenHidden", InspectableType.Checkbox],
      ["fabrikWeight", InspectableType.Slider],
      ["fabrikMaxIterations", InspectableType.Slider],
      ["fabrikTolerance", InspectableType.Slider],
      ["fabrikLastSolve", InspectableType.Tab],
      ["fabrikDebug", InspectableType.Checkbox],
      ["fabrikJoint", InspectableType.Options],
      ["fabrikJointLimits", InspectableType.Tab],
      ["fabrikSwingUp", InspectableType.Slider],
      ["fabrikSwingRight", InspectableType.Slider],
      ["fabrikSwingDown", InspectableType.Slider],
      ["fabrikSwingLeft", InspectableType.Slider],
      ["fabrikTwistMin", InspectableType.Slider],
      ["fabrikTwistMax", InspectableType.Slider],
      ["fabrikHingeMin", InspectableType.Slider],
      ["fabrikHingeMax", InspectableType.Slider],
      ["fabrikPivotMin", InspectableType.Slider],
      ["fabrikPivotMax", InspectableType.Slider],
      ["fabrikUniversalFirstMin", InspectableType.Slider],
      ["fabrikUniversalFirstMax", InspectableType.Slider],
      ["fabrikUniversalSecondMin", InspectableType.Slider],
      ["fabrikUniversalSecondMax", InspectableType.Slider],
      ["fabrikResetJoint", InspectableType.Button],
      ["fabrikFreeJoint", InspectableType.Button],
    ];
    for (const host of [loaded.root, mesh, ik]) {
      const rows = rowsOf(host);
      expect(rows.map((r) => [r.propertyName, r.type])).toEqual(expected);
      for (const r of rows) {
        if (r.type === InspectableType.Button) {
          expect(typeof r.callback).toBe("function");
          continue;
        }
        // The Inspector reads and writes target[propertyName] and can only watch configurable properties.
        const d = Object.getOwnPropertyDescriptor(host, r.propertyName)!;
        expect(d, r.propertyName).toBeDefined();
        expect(d.configurable).toBe(true);
        expect(d.enumerable).toBe(false);
        expect(typeof d.get).toBe("function");
        expect(typeof d.set).toBe("function");
      }
    }
    expect(row(mesh, "fabrikWeight")).toMatchObject({ min: 0, max: 1 });
    expect(row(mesh, "fabrikSwingUp")).toMatchObject({ min: 0, max: 180 });
    expect(row(mesh, "fabrikTwistMin")).toMatchObject({ min: -180, max: 180 });
    const options = row(loaded.root, "fabrikJoint")!.options!;
    expect(options.length).toBe(ik.rig!.jointCount);
    expect(options[ik.jointIndex("leftHand")]).toEqual({
      label: "LeftHand (leftHand)",
      value: ik.jointIndex("leftHand"),
    });
    expect(bag(loaded.root).fabrikSummary).toBe("65 joints, 0 targets");
    expect(bag(mesh).fabrikWeight).toBe(1);
    expect(bag(ik).fabrikMaxIterations).toBe(100);
  });

  it("edits the behavior's settings live, and clamps what the behavior would reject", () => {
    const ik = attach(loaded);
    const root = bag(loaded.root);
    ik.setTarget("leftHand", handTarget(loaded, ik));
    const nodes = ik.rig!.nodes;
    const arm = ik.jointIndex("leftUpperArm");
    let written: Float64Array = new Float64Array(0);
    ik.onSolvedObservable.add(() => (written = captureLocals(nodes)));
    loaded.scene.animationGroups[0].pause();
    loaded.scene.render();
    const full = written.slice(10 * arm, 10 * arm + 4);

    root.fabrikWeight = 0.5;
    expect(ik.weight).toBe(0.5);
    loaded.scene.render();
    const half = written.slice(10 * arm, 10 * arm + 4);
    expect(Math.max(...full.map((v, i) => Math.abs(v - half[i])))).toBeGreaterThan(1e-3);

    root.fabrikWeight = 7;
    expect(ik.weight).toBe(1);
    root.fabrikWeight = Number.NaN;
    expect(ik.weight).toBe(1);
    root.fabrikEnabled = false;
    expect(ik.enabled).toBe(false);
    root.fabrikEnabled = true;
    root.fabrikSkipWhenHidden = true;
    expect(ik.skipWhenHidden).toBe(true);
    root.fabrikSkipWhenHidden = false;
    expect(ik.skipWhenHidden).toBe(false);

    root.fabrikTolerance = 0;
    ik.setTarget("leftHand", new Vector3(5, 5, 5)); // out of reach: iterations run to the cap
    loaded.scene.render();
    const uncapped = ik.plan!.report.iterations;
    root.fabrikMaxIterations = 3.4;
    expect(ik.maxIterations).toBe(3);
    loaded.scene.render();
    // The cap holds per pass sequence (a second, limit-aware sequence may follow the plain one).
    expect(ik.plan!.report.iterations).toBeLessThanOrEqual(6);
    expect(ik.plan!.report.iterations).toBeLessThan(uncapped);
    root.fabrikMaxIterations = 0;
    expect(ik.maxIterations).toBe(1);
    root.fabrikTolerance = -1;
    expect(ik.tolerance).toBe(0);
    root.fabrikTolerance = 0.5;
    // From the animation, not from the last frame's arm stretched toward (5, 5, 5).
    ik.continuity = false;
    ik.setTarget("leftHand", handTarget(loaded, ik));
    loaded.scene.render();
    // Half the character's height: the hand starts within tolerance.
    expect(ik.plan!.report.iterations).toBe(0);
    expect(root.fabrikLastSolve).toMatch(/^0 iterations, residual .* converged, \d+ joints? on limits$/);
  });

  it("lists one group of rows per target, rebuilt when the targets change", () => {
    const ik = attach(loaded);
    const mesh = ik.rig!.meshes[0];
    const point = handTarget(loaded, ik);
    const node = new TransformNode("footTarget", loaded.scene);
    node.position.set(0.2, 0.1, 0.3);
    ik.setTarget("leftHand", point);
    ik.setTarget("rightFoot", node);
    const names = rowsOf(mesh).map((r) => r.propertyName);
    expect(names.filter((n) => n.startsWith("fabrikTarget"))).toEqual([
      "fabrikTarget0",
      "fabrikTarget0Position",
      "fabrikTarget0Weight",
      "fabrikTarget0ChainLength",
      "fabrikTarget1",
      "fabrikTarget1Position",
      "fabrikTarget1Weight",
      "fabrikTarget1ChainLength",
    ]);
    expect(row(mesh, "fabrikTarget0Position")!.type).toBe(InspectableType.Vector3);
    expect(bag(mesh).fabrikTarget0).toBe('"leftHand", Vector3');
    expect(bag(mesh).fabrikTarget1).toBe('"rightFoot", node "footTarget"');
    expect(bag(mesh).fabrikSummary).toBe("65 joints, 2 targets");

    // A Vector3 target is the row's own value; an edit (a new Vector3, as the Inspector assigns) moves it.
    expect(bag(mesh).fabrikTarget0Position).toBe(point);
    bag(mesh).fabrikTarget0Position = new Vector3(0.1, 1.2, 0.3);
    expect(point.asArray()).toEqual([0.1, 1.2, 0.3]);
    // A node target shows and takes its world position.
    bag(mesh).fabrikTarget1Position = new Vector3(0.4, 0.05, 0.2);
    expect(
      node
        .getAbsolutePosition()
        .subtract(new Vector3(0.4, 0.05, 0.2))
        .length(),
    ).toBeLessThan(1e-6);

    bag(mesh).fabrikTarget1Weight = 0.25;
    expect(ik.targets[1].weight).toBe(0.25);
    expect(ik.targets[1].source).toBe(node);
    const depth = row(mesh, "fabrikTarget0ChainLength")!.max!;
    expect(bag(mesh).fabrikTarget0ChainLength).toBe(ik.plan!.chainLengths[0]);
    bag(mesh).fabrikTarget0ChainLength = 1;
    expect(ik.plan!.chainLengths[0]).toBe(1);
    bag(mesh).fabrikTarget0ChainLength = 1000;
    expect(ik.plan!.chainLengths[0]).toBe(depth);
    expect(ik.targets[0].source).toBe(point);

    ik.removeTarget("leftHand");
    expect(rowsOf(mesh).filter((r) => r.propertyName.startsWith("fabrikTarget")).length).toBe(4);
    expect(bag(mesh).fabrikTarget0).toBe('"rightFoot", node "footTarget"');
    ik.clearTargets();
    expect(rowsOf(mesh).some((r) => r.propertyName.startsWith("fabrikTarget"))).toBe(false);
    expect(bag(mesh).fabrikSummary).toBe("65 joints, 0 targets");
  });

  it("edits the selected joint's limits, and the solve keeps to them", () => {
    const ik = attach(loaded);
    const root = bag(loaded.root);
    loaded.scene.animationGroups[0].pause();
    ik.setTarget("leftHand", handTarget(loaded, ik));
    const nodes = ik.rig!.nodes;
    const arm = ik.jointIndex("leftUpperArm");
    let written: Float64Array = new Float64Array(0);
    ik.onSolvedObservable.add(() => (written = captureLocals(nodes)));
    loaded.scene.render();
    const before = written.slice(10 * arm, 10 * arm + 4);
    const residualBefore = ik.plan!.report.maxResidual;

    root.fabrikJoint = arm;
    expect(getSelectedJoint(ik)).toBe(arm);
    expect(root.fabrikJointLimits).toBe("LeftArm: swing + twist");
    const preset = ik.getLimit("leftUpperArm")!;
    expect(root.fabrikSwingUp).toBeCloseTo((preset.swing!.up * 180) / Math.PI, 5);
    expect(root.fabrikTwistMax).toBeCloseTo((preset.twist!.max * 180) / Math.PI, 5);

    for (const side of ["Up", "Right", "Down", "Left"]) root[`fabrikSwing${side}`] = 2;
    const spec = ik.getLimit("leftUpperArm")!;
    expect(spec.swing).toMatchObject({ up: (2 * Math.PI) / 180, right: (2 * Math.PI) / 180 });
    expect(spec.swing!.upAxis).toEqual(preset.swing!.upAxis);
    // The pose solved before lies well outside the new cone; the next solve keeps to it.
    expect(limitViolation(ik.limits!, arm, before)).toBeGreaterThan(0.05);
    loaded.scene.render();
    const after = written.slice(10 * arm, 10 * arm + 4);
    expect(limitViolation(ik.limits!, arm, after)).toBeLessThan(1e-6);
    expect(ik.plan!.report.maxResidual).toBeGreaterThan(residualBefore);

    // min stays <= max: each end is clamped against the other.
    root.fabrikTwistMax = -10;
    root.fabrikTwistMin = 20;
    expect(root.fabrikTwistMin).toBeCloseTo(-10, 9);
    root.fabrikSwingUp = 500;
    expect(root.fabrikSwingUp).toBe(180);
    // No hinge here: the hinge rows change nothing.
    root.fabrikHingeMin = 10;
    expect(ik.getLimit("leftUpperArm")!.hinge).toBeUndefined();

    row(loaded.root, "fabrikResetJoint")!.callback!();
    expect(ik.getLimit("leftUpperArm")).toEqual(preset);
    row(loaded.root, "fabrikFreeJoint")!.callback!();
    expect(ik.getLimit("leftUpperArm")).toBeUndefined();
    expect(root.fabrikJointLimits).toMatch(/^LeftArm: free( \(on its limit\))?$/);
    expect(root.fabrikSwingDown).toBe(180);
    // A free joint gains a cone open everywhere but the edited side.
    root.fabrikSwingDown = 30;
    expect(ik.getLimit("leftUpperArm")!.swing).toEqual({
      up: Math.PI,
      right: Math.PI,
      down: Math.PI / 6,
      left: Math.PI,
    });

    // A hinge (the elbow): hinge rows edit it, swing and twist rows do not apply.
    root.fabrikJoint = ik.jointIndex("leftLowerArm");
    const hinge = ik.getLimit("leftLowerArm")!.hinge!;
    expect(root.fabrikHingeMax).toBeCloseTo((hinge.max * 180) / Math.PI, 5);
    root.fabrikHingeMax = 90;
    expect(ik.getLimit("leftLowerArm")!.hinge).toMatchObject({
      axis: hinge.axis,
      min: hinge.min,
      max: Math.PI / 2,
    });
    root.fabrikSwingUp = 10;
    root.fabrikTwistMin = -10;
    expect(ik.getLimit("leftLowerArm")!.swing).toBeUndefined();
    expect(ik.getLimit("leftLowerArm")!.twist).toBeUndefined();
    root.fabrikJoint = 10_000;
    expect(getSelectedJoint(ik)).toBe(ik.jointIndex("leftLowerArm"));

    // A universal joint (the wrist made one): its two ranges have rows of their own, the second within ±90°.
    const wrist = ik.jointIndex("leftHand");
    ik.setLimit("leftHand", {
      universal: { first: { min: -0.5, max: 0.5 }, second: { min: -0.3, max: 0.3 } },
    });
    root.fabrikJoint = wrist;
    expect(root.fabrikJointLimits).toMatch(/^LeftHand: universal/);
    root.fabrikUniversalFirstMax = 40;
    root.fabrikUniversalSecondMin = -120;
    expect(ik.getLimit("leftHand")!.universal).toMatchObject({
      first: { min: -0.5, max: (40 * Math.PI) / 180 },
      second: { min: -Math.PI / 2, max: 0.3 },
    });
    expect(root.fabrikPivotMin).toBe(-180);
    root.fabrikSwingUp = 10;
    root.fabrikTwistMax = 10;
    root.fabrikPivotMax = 10;
    expect(ik.getLimit("leftHand")).toEqual({
      universal: { first: { min: -0.5, max: (40 * Math.PI) / 180 }, second: { min: -Math.PI / 2, max: 0.3 } },
    });
    // A pivot: its roll range has rows; the universal rows change nothing.
    ik.setLimit("leftHand", { pivot: { min: -1, max: 1 } });
    root.fabrikPivotMin = -30;
    root.fabrikUniversalFirstMin = 0;
    expect(ik.getLimit("leftHand")).toEqual({ pivot: { min: -Math.PI / 6, max: 1 } });
  });

  it("tells a watching Inspector to re-read the rows that a change affects", () => {
    const ik = attach(loaded);
    const root = bag(loaded.root);
    const swing = watch(loaded.root, "fabrikSwingUp");
    const kind = watch(loaded.root, "fabrikJointLimits");
    const summary = watch(loaded.root, "fabrikSummary");
    root.fabrikJoint = ik.jointIndex("leftLowerArm");
    expect(swing.count).toBe(1);
    expect(kind.count).toBe(1);
    root.fabrikHingeMin = 0;
    expect(kind.count).toBe(2);
    ik.setTarget("leftHand", new Vector3(0.3, 1.2, 0.4));
    expect(summary.count).toBeGreaterThan(0);
    // Re-reading never writes: the limits are as they were.
    const spec = ik.getLimit("leftLowerArm");
    root.fabrikJoint = ik.jointIndex("leftLowerArm");
    expect(ik.getLimit("leftLowerArm")).toEqual(spec);
    for (const w of [swing, kind, summary]) w.dispose();
  });

  it("removes every row and property on detach, and leaves the user's own rows", () => {
    const mesh = attach(loaded).rig!.meshes[0];
    loaded.root.behaviors.slice().forEach((b) => loaded.root.removeBehavior(b));
    const mine: IInspectable = { label: "Mine", propertyName: "mine", type: InspectableType.Checkbox };
    mesh.inspectableCustomProperties = [mine];
    expect(rowsOf(loaded.root)).toEqual([]);

    const ik = attach(loaded);
    ik.setTarget("leftHand", new Vector3(0.3, 1.2, 0.4));
    expect(rowsOf(mesh)[0]).toBe(mine);
    expect(rowsOf(mesh).length).toBeGreaterThan(20);
    loaded.root.removeBehavior(ik);
    expect(rowsOf(mesh)).toEqual([mine]);
    expect(loaded.root.inspectableCustomProperties).toBeUndefined();
    expect(ik.inspectableCustomProperties).toEqual([]);
    for (const host of [loaded.root, mesh, ik]) {
      expect(Object.getOwnPropertyNames(host).filter((k) => k.startsWith("fabrik"))).toEqual([]);
    }
    expect(inspectorPrefix(ik)).toBeNull();
  });

  it("adds nothing until installed, follows attach and detach, and is removed by its handle", () => {
    const ik = attachBehavior(loaded);
    const mesh = ik.rig!.meshes[0];
    expect(rowsOf(loaded.root)).toEqual([]);
    expect(rowsOf(ik)).toEqual([]);
    expect("fabrikWeight" in loaded.root).toBe(false);
    expect(inspectorPrefix(ik)).toBeNull();

    const inspector = installFabrikInspector(ik);
    expect(installFabrikInspector(ik)).toBe(inspector);
    expect(inspectorPrefix(ik)).toBe("fabrik");
    expect(rowsOf(mesh).length).toBeGreaterThan(15);
    loaded.root.removeBehavior(ik);
    expect(rowsOf(mesh)).toEqual([]);
    expect(inspectorPrefix(ik)).toBeNull();
    loaded.root.addBehavior(ik, true);
    expect(bag(loaded.root).fabrikWeight).toBe(1);
    expect(rowsOf(ik).length).toBeGreaterThan(15);

    inspector.dispose();
    expect(rowsOf(mesh)).toEqual([]);
    expect(rowsOf(ik)).toEqual([]);
    expect("fabrikWeight" in loaded.root).toBe(false);
    expect(inspectorPrefix(ik)).toBeNull();
    loaded.root.removeBehavior(ik);
    loaded.root.addBehavior(ik, true);
    expect(rowsOf(loaded.root)).toEqual([]);
    // Installed again, a new handle.
    expect(installFabrikInspector(ik)).not.toBe(inspector);
    expect(inspectorPrefix(ik)).toBe("fabrik");
  });

  it("gives a second behavior on the same node its own prefix", () => {
    const a = attach(loaded);
    const b = new FabrikBehavior({ limits: "none" });
    installFabrikInspector(b); // before attaching: the rows come with the attach
    loaded.root.addBehavior(b, true);
    expect(inspectorPrefix(a)).toBe("fabrik");
    expect(inspectorPrefix(b)).toBe("fabrik2");
    bag(loaded.root).fabrik2Weight = 0.3;
    expect(b.weight).toBe(0.3);
    expect(a.weight).toBe(1);
    expect(row(b, "fabrik2Weight")).toBeDefined();
    loaded.root.removeBehavior(b);
    expect("fabrik2Weight" in loaded.root).toBe(false);
    expect(bag(loaded.root).fabrikWeight).toBe(1);
  });

  it("toggles the debug view from its checkbox", async () => {
    const ik = attach(loaded);
    const root = bag(loaded.root);
    expect(root.fabrikDebug).toBe(false);
    root.fabrikDebug = true;
    await vi.waitFor(() => expect(FabrikDebugView.of(ik)).not.toBeNull());
    const view = FabrikDebugView.of(ik)!;
    expect(root.fabrikDebug).toBe(true);
    loaded.scene.render();
    expect(view.mesh!.isEnabled()).toBe(true);
    root.fabrikDebug = false;
    expect(view.isDisposed).toBe(true);
    expect(FabrikDebugView.of(ik)).toBeNull();

    // A view the user made is only hidden by the checkbox, never disposed.
    const own = new FabrikDebugView(ik);
    own.enabled = false;
    root.fabrikDebug = true;
    await vi.waitFor(() => expect(own.enabled).toBe(true));
    root.fabrikDebug = false;
    expect(own.isDisposed).toBe(false);
    expect(own.enabled).toBe(false);
    own.dispose();

    root.fabrikDebug = true;
    await vi.waitFor(() => expect(FabrikDebugView.of(ik)).not.toBeNull());
    const made = FabrikDebugView.of(ik)!;
    loaded.root.removeBehavior(ik);
    expect(made.isDisposed).toBe(true);
  });
});

const tentacle = OWN_CHARACTERS.find((c) => c.folder === "tentacle")!;

describe("Inspector rows of continuum sections (tentacle)", () => {
  it("shows each section, whether the targets bend it, and edits its bend limit", async () => {
    const loaded = await loadCharacter(tentacle);
    try {
      const ik = attach(loaded, {
        continuumSections: [
          { bones: { from: "Tentacle.00", to: "Tentacle.08" }, maxBend: Math.PI / 2 },
          { bones: { from: "Tentacle.08", to: "Tentacle.16" } },
        ],
      });
      const root = bag(loaded.root);
      expect(row(loaded.root, "fabrikSection0")!.type).toBe(InspectableType.Tab);
      expect(row(loaded.root, "fabrikSection1MaxBend")!.type).toBe(InspectableType.Slider);
      expect(root.fabrikSection0).toBe(
        "Tentacle.00 → Tentacle.08, 8 bones, not in use (no target's chain moves it whole)",
      );
      expect(root.fabrikSection0MaxBend).toBe(90);
      expect(root.fabrikSection1MaxBend).toBe(180);
      const summary = watch(loaded.root, "fabrikSection0");
      ik.setTarget("Tentacle.12", new Vector3(0.3, 0.8, 0.2));
      // A new plan: the rows re-read, and the first section now bends as an arc.
      expect(summary.count).toBeGreaterThan(0);
      summary.dispose();
      expect(root.fabrikSection0).toBe("Tentacle.00 → Tentacle.08, 8 bones, bending as one arc");
      expect(root.fabrikSection1).toMatch(/not in use/);
      root.fabrikSection0MaxBend = 45;
      expect(ik.continuumSections[0].maxBend).toBeCloseTo(Math.PI / 4, 12);
      expect(ik.plan!.continuum.maxBend[0]).toBeCloseTo(Math.PI / 4, 12);
      // Out of range is clamped, not refused.
      root.fabrikSection0MaxBend = 400;
      expect(root.fabrikSection0MaxBend).toBe(359);
    } finally {
      loaded.engine.dispose();
    }
  });
});
