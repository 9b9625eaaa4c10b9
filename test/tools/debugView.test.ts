import { VertexBuffer } from "@babylonjs/core/Buffers/buffer.js";
import { Color4 } from "@babylonjs/core/Maths/math.color.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { UtilityLayerRenderer } from "@babylonjs/core/Rendering/utilityLayerRenderer.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FABRIK_DEBUG_COLORS, FabrikDebugView } from "../../plugin/tools/index.js";
import { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { FabrikError } from "../../plugin/solver/errors.js";
import { OWN_CHARACTERS, loadCharacter, type Loaded } from "../babylon/characters.js";
import {
  attach,
  babylonWorldPositions,
  leastBytesPerCall,
  playFirstAnimation,
} from "../babylon/fabrikHarness.js";

const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;

/** The view's layout (its DebugLines), for checking what it drew. */
interface Internals {
  lines: Vector3[][];
  colors: Color4[][];
  boneJoints: Int32Array;
  targetStart: number;
  slotStart: number;
  slotOf: Int32Array;
}
const internals = (view: FabrikDebugView) => (view as unknown as { _lines: Internals })._lines;

interface FrameHooks {
  _onStage(): void;
  _onAfterRender(): void;
}

const DEG = Math.PI / 180;

function angle(a: Vector3, b: Vector3): number {
  return Math.acos(Math.min(1, Math.max(-1, Vector3.Dot(a.normalizeToNew(), b.normalizeToNew()))));
}

function sameColor(a: Color4 | null, b: Color4): boolean {
  return a !== null && a.r === b.r && a.g === b.g && a.b === b.b && a.a === b.a;
}

describe.skipIf(!mannequin.present)("FabrikDebugView (mannequin)", () => {
  let loaded: Loaded;
  beforeEach(async () => {
    loaded = await loadCharacter(mannequin);
    playFirstAnimation(loaded.scene);
    for (let i = 0; i < 3; i++) loaded.scene.render();
  });
  afterEach(() => loaded?.engine.dispose());

  it("needs an attached behavior and sane options", () => {
    expect(() => new FabrikDebugView(new FabrikBehavior())).toThrow(FabrikError);
    const ik = attach(loaded);
    expect(() => new FabrikDebugView(ik, { coneSegments: 2 })).toThrow(/coneSegments must be/);
    expect(() => new FabrikDebugView(ik, { markerSize: Number.NaN })).toThrow(/markerSize must be/);
    expect(FabrikDebugView.of(ik)).toBeNull();
  });

  it("builds one line system in a utility layer, laid out from the plan", () => {
    const ik = attach(loaded);
    // Chains long enough to meet at the chest: a sub-base.
    ik.setTarget("leftHand", new Vector3(0.4, 1.3, 0.3), { chainLength: 6 });
    ik.setTarget("rightHand", new Vector3(-0.4, 1.3, 0.3), { chainLength: 6 });
    const view = new FabrikDebugView(ik);
    expect(FabrikDebugView.of(ik)).toBe(view);
    loaded.scene.render();
    const mesh = view.mesh!;
    expect(view.utilityLayer.utilityLayerScene.meshes).toContain(mesh);
    expect(loaded.scene.meshes).not.toContain(mesh);
    expect(mesh.isPickable).toBe(false);
    const plan = ik.plan!;
    const rig = ik.rig!;
    const bones = Array.from(rig.parents).filter((p) => p >= 0).length;
    const markers = plan.bases.length + plan.subBases.length + plan.effectorCount;
    const slots = plan.rotatingJoints.length + 1;
    expect(plan.subBases.length).toBeGreaterThan(0); // the chest, where both arms meet
    expect(view.lineCount).toBe(bones + 3 * markers + 4 * plan.effectorCount + 4 * slots);
    const vertices = 2 * bones + 6 * markers + 17 * plan.effectorCount + slots * (33 + 9 + 17 + 2);
    expect(mesh.getTotalVertices()).toBe(vertices);
    expect(view.stats).toMatchObject({ solved: true, iterations: plan.report.iterations });
    expect(view.reportText).toMatch(
      /^FABRIK IK: \d+ iterations?, max residual .* (not )?converged, \d+ joints? on limits$/,
    );
  });

  /**
   * What the view drew and where Babylon put the joints, taken as the layer draws: after the scene rendered
   * the IK pose, before the behavior puts the animation back. (Checked afterwards, outside the render.)
   */
  function capture(view: FabrikDebugView, ik: FabrikBehavior) {
    const frames: { lines: Vector3[][]; world: Vector3[]; positions: Float32Array }[] = [];
    view.onUpdatedObservable.add(() => {
      frames.push({
        lines: internals(view).lines.map((line) => line.map((p) => p.clone())),
        world: babylonWorldPositions(loaded.scene, ik.rig!.nodes),
        positions: Float32Array.from(view.mesh!.getVerticesData(VertexBuffer.PositionKind)!),
      });
    });
    return frames;
  }

  /** The slot lines of a joint: cone outline, spokes, arc, indicator. */
  function slotLines(view: FabrikDebugView, lines: Vector3[][], joint: number): Vector3[][] {
    const v = internals(view);
    const slot = v.slotOf[joint];
    expect(slot, "the joint has a slot").toBeGreaterThanOrEqual(0);
    return lines.slice(v.slotStart + 4 * slot, v.slotStart + 4 * slot + 4);
  }

  it("draws the rendered pose in world space, under a moved, turned and scaled root", () => {
    const ik = attach(loaded);
    const target = new Vector3(0.5, 2.2, 0.6);
    ik.setTarget("leftHand", target);
    loaded.root.position.set(1, -2, 3);
    loaded.root.rotationQuaternion = Quaternion.RotationAxis(new Vector3(1, 2, 3).normalize(), 0.7).multiply(
      loaded.root.rotationQuaternion!,
    );
    loaded.root.scaling.scaleInPlace(2);
    const view = new FabrikDebugView(ik);
    const frames = capture(view, ik);
    for (let i = 0; i < 3; i++) loaded.scene.render();
    expect(frames.length).toBe(3);
    const v = internals(view);
    const parents = ik.rig!.parents;
    for (const { lines, world, positions } of frames) {
      // Babylon's world matrices are float32: agreement to 1e-5 of a character scaled ×2.
      v.boneJoints.forEach((j, b) => {
        expect(Vector3.Distance(lines[b][1], world[j])).toBeLessThan(1e-5);
        expect(Vector3.Distance(lines[b][0], world[parents[j]])).toBeLessThan(1e-5);
      });
      // The residual line runs from the effector to the target.
      const residual = lines[v.targetStart + 3];
      expect(Vector3.Distance(residual[0], world[ik.jointIndex("leftHand")])).toBeLessThan(1e-5);
      expect(Vector3.Distance(residual[1], target)).toBeLessThan(1e-9);
      // The mesh holds what the lines say.
      expect(positions[3]).toBeCloseTo(lines[0][1].x, 5);
      expect(positions[5]).toBeCloseTo(lines[0][1].z, 5);
    }
  });

  it("draws each limited joint's cone and twist arc in the joint's frame, around its bone", () => {
    const ik = attach(loaded);
    const arm = ik.jointIndex("leftUpperArm");
    const elbow = ik.jointIndex("leftLowerArm");
    const cone = 30 * DEG;
    ik.setLimit("leftUpperArm", {
      swing: { up: cone, right: cone, down: cone, left: cone },
      twist: { min: -20 * DEG, max: 40 * DEG },
    });
    // Far behind the back: the upper arm ends on its cone.
    ik.setTarget("leftHand", new Vector3(2, 0.5, -2));
    const view = new FabrikDebugView(ik);
    const frames = capture(view, ik);
    loaded.scene.render();
    expect(ik.plan!.report.onLimit[arm]).toBe(1);
    const { lines, world } = frames[0];
    const [outline, spokes, arc, indicator] = slotLines(view, lines, arm);
    const joint = world[arm];
    const dirs = outline.map((p) => p.subtract(joint));
    const axis = dirs.slice(0, -1).reduce((a, d) => a.add(d.normalizeToNew()), Vector3.Zero());
    for (const d of dirs) expect(angle(d, axis)).toBeCloseTo(cone, 6);
    expect(Vector3.Distance(outline[0], outline[outline.length - 1])).toBeLessThan(1e-9);
    expect(angle(dirs[0], dirs[16])).toBeCloseTo(2 * cone, 6);
    // Spokes: joint, side, joint, side…
    for (let i = 0; i < 9; i += 2) expect(Vector3.Distance(spokes[i], joint)).toBeLessThan(1e-5);
    for (let i = 1; i < 9; i += 2) expect(angle(spokes[i].subtract(joint), axis)).toBeCloseTo(cone, 6);
    // The bone the limit turns stays inside the drawn cone, here on its rim.
    const bone = world[elbow].subtract(joint);
    expect(angle(bone, axis)).toBeLessThan(cone + 1e-4);
    expect(angle(bone, axis)).toBeGreaterThan(cone - 1e-3);
    // The twist arc spans max - min around the bone, and the indicator lies within it.
    const centre = indicator[0];
    const first = arc[0].subtract(centre),
      last = arc[arc.length - 1].subtract(centre);
    expect(angle(first, last)).toBeCloseTo(60 * DEG, 6);
    expect(Math.abs(Vector3.Dot(first.normalizeToNew(), bone.normalizeToNew()))).toBeLessThan(1e-4);
    const now = indicator[1].subtract(centre);
    expect(angle(first, now) + angle(now, last)).toBeCloseTo(60 * DEG, 5);
  });

  it("draws a hinge's allowed arc about its axis", () => {
    const ik = attach(loaded);
    const elbow = ik.jointIndex("leftLowerArm");
    const hinge = ik.getLimit("leftLowerArm")!.hinge!;
    ik.setTarget("leftHand", new Vector3(0.4, 1.3, 0.3));
    const view = new FabrikDebugView(ik);
    const frames = capture(view, ik);
    loaded.scene.render();
    const { lines, world } = frames[0];
    const [outline, spokes, arc, indicator] = slotLines(view, lines, elbow);
    const joint = world[elbow];
    for (const p of outline) expect(Vector3.Distance(p, joint)).toBeLessThan(1e-5);
    const axis = spokes[1].subtract(spokes[0]).normalize();
    const flat = (v: Vector3) => v.subtract(axis.scale(Vector3.Dot(v, axis)));
    const first = flat(arc[0].subtract(joint)),
      last = flat(arc[arc.length - 1].subtract(joint));
    // The allowed directions turn about the hinge axis by max - min.
    expect(angle(first, last)).toBeCloseTo(hinge.max - hinge.min, 5);
    // The forearm points along the indicator, inside the arc.
    const forearm = world[ik.jointIndex("leftHand")].subtract(joint);
    expect(angle(indicator[1].subtract(indicator[0]), forearm)).toBeLessThan(1e-4);
    const now = flat(forearm);
    expect(angle(first, now) + angle(now, last)).toBeCloseTo(hinge.max - hinge.min, 4);
  });

  it("draws a universal joint's two ranges as the outline of its directions, and a pivot's roll arc alone", () => {
    const ik = attach(loaded);
    const arm = ik.jointIndex("leftUpperArm");
    const elbow = ik.jointIndex("leftLowerArm");
    const first = { min: -20 * DEG, max: 50 * DEG },
      second = { min: -30 * DEG, max: 10 * DEG };
    ik.setLimit("leftUpperArm", { universal: { first, second } });
    ik.setTarget("leftHand", new Vector3(2, 0.5, -2));
    const view = new FabrikDebugView(ik);
    const frames = capture(view, ik);
    loaded.scene.render();
    const { lines, world } = frames[0];
    const [outline, spokes, arc] = slotLines(view, lines, arm);
    const joint = world[arm];
    // The outline's corners are the rectangle's: the corner directions span first.max − first.min about
    // the first axis (at β = second.min, the start of the last edge) and, at α = first.min, the second range.
    const quarter = (outline.length - 1) / 4;
    const corner = (k: number) => outline[k * quarter].subtract(joint);
    expect(angle(corner(0), corner(1))).toBeCloseTo(second.max - second.min, 6);
    expect(angle(corner(3), corner(0))).toBeCloseTo(
      2 * Math.asin(Math.cos(second.min) * Math.sin((first.max - first.min) / 2)),
      6,
    );
    expect(Vector3.Distance(outline[0], outline[outline.length - 1])).toBeLessThan(1e-9);
    for (let i = 0; i < 9; i += 2) expect(Vector3.Distance(spokes[i], joint)).toBeLessThan(1e-5);
    // No roll, so no arc.
    for (const p of arc) expect(Vector3.Distance(p, joint)).toBeLessThan(1e-5);
    // Far behind the back, the arm ends on the edge of its ranges: on the drawn outline.
    expect(ik.plan!.report.onLimit[arm]).toBe(1);
    const bone = world[elbow].subtract(joint);
    const nearest = Math.min(...outline.map((p) => angle(p.subtract(joint), bone)));
    expect(nearest).toBeLessThan(2 * DEG);

    ik.setLimit("leftUpperArm", { pivot: { min: -20 * DEG, max: 40 * DEG } });
    loaded.scene.render();
    const [pivotOutline, pivotSpokes, pivotArc, pivotIndicator] = slotLines(view, frames[1].lines, arm);
    const pivotJoint = frames[1].world[arm];
    for (const p of [...pivotOutline, ...pivotSpokes])
      expect(Vector3.Distance(p, pivotJoint)).toBeLessThan(1e-5);
    const centre = pivotIndicator[0];
    const ends = [pivotArc[0], pivotArc[pivotArc.length - 1]].map((p) => p.subtract(centre));
    expect(angle(ends[0], ends[1])).toBeCloseTo(60 * DEG, 6);
  });

  it("turns a joint red while it sits on its limit", () => {
    const ik = attach(loaded);
    const arm = ik.jointIndex("leftUpperArm");
    const elbow = ik.jointIndex("leftLowerArm");
    ik.setLimit("leftUpperArm", { swing: { up: 2 * DEG, right: 2 * DEG, down: 2 * DEG, left: 2 * DEG } });
    const target = new Vector3(2, 0.5, -2);
    ik.setTarget("leftHand", target);
    const view = new FabrikDebugView(ik);
    view.selectedJoint = -1;
    loaded.scene.render();
    expect(ik.plan!.report.onLimit[arm]).toBe(1);
    const red = FABRIK_DEBUG_COLORS.onLimit;
    expect(sameColor(view.limitColor(arm), red)).toBe(true);
    // The bone the joint turns, too; and the vertex colours on the mesh say the same.
    const v = internals(view);
    const bone = Array.from(v.boneJoints).indexOf(elbow);
    expect(sameColor(v.colors[bone][0], red)).toBe(true);
    const colors = view.mesh!.getVerticesData(VertexBuffer.ColorKind)!;
    expect(Array.from(colors).slice(8 * bone, 8 * bone + 4)).toEqual(
      Array.from(Float32Array.of(red.r, red.g, red.b, red.a)),
    );

    // Free again: no longer on a limit, drawn in its ordinary colour.
    ik.setLimit("leftUpperArm", undefined);
    ik.setLimit("leftShoulder", undefined);
    target.set(0.4, 1.3, 0.3);
    loaded.scene.render();
    expect(ik.plan!.report.onLimit[arm]).toBe(0);
    expect(sameColor(view.limitColor(arm), red)).toBe(false);
    expect(sameColor(v.colors[bone][0], red)).toBe(false);
    // Not solving: nothing is red.
    ik.setLimit("leftUpperArm", { swing: { up: 2 * DEG, right: 2 * DEG, down: 2 * DEG, left: 2 * DEG } });
    target.set(2, 0.5, -2);
    loaded.scene.render();
    expect(sameColor(view.limitColor(arm), red)).toBe(true);
    ik.enabled = false;
    loaded.scene.render();
    expect(view.stats.solved).toBe(false);
    expect(sameColor(view.limitColor(arm), red)).toBe(false);
    expect(view.reportText).toMatch(/not solving/);
  });

  it("draws the selected joint even when no target turns it", () => {
    const ik = attach(loaded);
    const view = new FabrikDebugView(ik);
    const head = ik.jointIndex("head");
    view.selectedJoint = head;
    loaded.scene.render();
    expect(ik.plan).toBeNull();
    expect(sameColor(view.limitColor(head), FABRIK_DEBUG_COLORS.selected)).toBe(true);
    const v = internals(view);
    const outline = v.lines[v.slotStart];
    expect(Vector3.Distance(outline[0], outline[8])).toBeGreaterThan(0.01);
  });

  it("keeps one mesh and one line count while animating and editing; relays out only when targets change", () => {
    const ik = attach(loaded);
    ik.setTarget("leftHand", new Vector3(0.4, 1.3, 0.3));
    ik.setTarget("rightFoot", new Vector3(-0.2, 0.3, 0.3));
    const view = new FabrikDebugView(ik);
    loaded.scene.render();
    const mesh = view.mesh!;
    const lines = view.lineCount;
    const vertices = mesh.getTotalVertices();
    for (let i = 0; i < 40; i++) {
      if (i === 10) ik.setLimit("leftUpperArm", undefined);
      if (i === 15) ik.setLimit("rightUpperLeg", { hinge: { axis: [1, 0, 0], min: -1, max: 1 } });
      if (i === 20) view.selectedJoint = ik.jointIndex("head");
      if (i === 25) view.selectedJoint = ik.jointIndex("leftLowerArm");
      if (i === 30) ik.weight = 0.3;
      loaded.scene.render();
      expect(view.mesh).toBe(mesh);
      expect(view.lineCount).toBe(lines);
      expect(mesh.getTotalVertices()).toBe(vertices);
    }
    ik.setTarget("head", new Vector3(0, 2, 1));
    loaded.scene.render();
    expect(mesh.isDisposed()).toBe(true);
    expect(view.lineCount).toBeGreaterThan(lines);
  });

  it("allocates nothing per frame in steady state", () => {
    const ik = attach(loaded);
    ik.setTarget("leftHand", new Vector3(0.4, 1.3, 0.3));
    ik.setTarget("rightFoot", new Vector3(-0.2, 0.3, 0.3));
    ik.setLimit("leftUpperArm", {
      swing: { up: 0.3, right: 0.3, down: 0.3, left: 0.3 },
      twist: { min: -0.2, max: 0.2 },
    });
    const view = new FabrikDebugView(ik);
    view.selectedJoint = ik.jointIndex("head");
    loaded.scene.render();
    const { _onStage, _onAfterRender } = ik as unknown as FrameHooks;
    const draw = () => view.update();
    const frame = () => {
      _onStage();
      draw();
      _onAfterRender();
    };
    // Warm up on whole frames, then measure the view's share alone (the behavior has its own test).
    for (let i = 0; i < 20_000; i++) frame();
    const start = performance.now();
    for (let i = 0; i < 20_000; i++) draw();
    const microseconds = ((performance.now() - start) / 20_000) * 1000;
    const best = leastBytesPerCall(draw);
    console.log(
      `[fabrik tests] debug view, ${view.lineCount} lines: ${microseconds.toFixed(1)} µs and ${best.toFixed(3)} bytes per frame`,
    );
    expect(view.stats.solved).toBe(true);
    expect(best).toBeLessThan(2);
  }, 60_000);

  it("hides when disabled or detached, and disposes everything it made", async () => {
    const ik = attach(loaded);
    ik.setTarget("leftHand", new Vector3(0.4, 1.3, 0.3));
    const solvedObservers = ik.onSolvedObservable.observers.length;
    const afterCamera = loaded.scene.onAfterRenderCameraObservable.observers.length;
    const view = new FabrikDebugView(ik);
    loaded.scene.render();
    const mesh = view.mesh!;
    expect(mesh.isEnabled()).toBe(true);
    view.enabled = false;
    loaded.scene.render();
    expect(mesh.isEnabled()).toBe(false);
    view.enabled = true;
    loaded.scene.render();
    expect(mesh.isEnabled()).toBe(true);
    loaded.root.removeBehavior(ik);
    loaded.scene.render();
    expect(mesh.isEnabled()).toBe(false);
    loaded.root.addBehavior(ik, true);
    ik.setTarget("rightHand", new Vector3(-0.4, 1.3, 0.3));
    loaded.scene.render();
    expect(view.mesh!.isEnabled()).toBe(true);

    const layerScene = view.utilityLayer.utilityLayerScene;
    view.dispose();
    view.dispose();
    expect(view.isDisposed).toBe(true);
    expect(mesh.isDisposed()).toBe(true);
    expect(layerScene.isDisposed).toBe(true);
    expect(FabrikDebugView.of(ik)).toBeNull();
    // Observable removals are deferred to the next tick.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(ik.onSolvedObservable.observers.length).toBe(solvedObservers);
    expect(loaded.scene.onAfterRenderCameraObservable.observers.length).toBe(afterCamera);
    loaded.scene.render();

    // A layer given to it stays.
    const layer = new UtilityLayerRenderer(loaded.scene, false);
    const shared = new FabrikDebugView(ik, { utilityLayer: layer });
    loaded.scene.render();
    expect(layer.utilityLayerScene.meshes).toContain(shared.mesh);
    shared.dispose();
    expect(layer.utilityLayerScene.isDisposed).toBe(false);
    expect(layer.utilityLayerScene.meshes.length).toBe(0);
    layer.dispose();
  });
});
