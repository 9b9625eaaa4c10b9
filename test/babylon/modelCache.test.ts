import { readFileSync } from "node:fs";
import { ImportMeshAsync } from "@babylonjs/core/Loading/sceneLoader.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it } from "vitest";
import type { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { FabrikSystem } from "../../plugin/babylon/fabrikSystem.js";
import { FabrikError } from "../../plugin/solver/errors.js";
import { setJointLimit } from "../../plugin/solver/limits.js";
import { OWN_CHARACTERS, loadCharacter, type Loaded } from "./characters.js";
import { attach, captureLocals, limitViolation, playFirstAnimation } from "./fabrikHarness.js";

const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;
const DEG = Math.PI / 180;
const TIGHT = { swing: { up: 2 * DEG, right: 2 * DEG, down: 2 * DEG, left: 2 * DEG } };

const scenes: Loaded[] = [];
afterEach(() => {
  for (const loaded of scenes.splice(0)) loaded.engine.dispose();
});

/**
 * A copy of the mannequin, playing its first clip, with a behavior attached: the first in a scene of its
 * own, the next ones in the scene of the first (one scene, one FabrikSystem, one model cache).
 */
async function copy(options = {}, animated = true): Promise<{ loaded: Loaded; ik: FabrikBehavior }> {
  let loaded: Loaded;
  if (scenes.length === 0) {
    loaded = await loadCharacter(mannequin);
    scenes.push(loaded);
  } else {
    const first = scenes[0];
    const result = await ImportMeshAsync(new Uint8Array(readFileSync(mannequin.path)), first.scene, {
      pluginExtension: ".glb",
    });
    loaded = { engine: first.engine, scene: first.scene, root: result.meshes[0] };
  }
  if (animated) playFirstAnimation(loaded.scene);
  else for (const group of loaded.scene.animationGroups) group.stop();
  loaded.scene.render();
  return { loaded, ik: attach(loaded, options) };
}

/** Renders a frame; returns the local rotations as written, read before they are put back. */
function solvedLocals(loaded: Loaded, ik: FabrikBehavior): Float64Array {
  let written: Float64Array = new Float64Array(0);
  const observer = ik.onSolvedObservable.add(() => (written = captureLocals(ik.rig!.nodes)));
  loaded.scene.render();
  observer.remove();
  return written;
}

describe("copies of one model in a scene share their solver rig and limits", () => {
  it("two copies share one rig and one limit set; a copy with other limits shares only the rig", async () => {
    const a = await copy(),
      b = await copy(),
      free = await copy({ limits: "none" });
    expect(b.ik.solverRig).toBe(a.ik.solverRig);
    expect(b.ik.limits).toBe(a.ik.limits);
    expect(free.ik.solverRig).toBe(a.ik.solverRig);
    expect(free.ik.limits).not.toBe(a.ik.limits);
    expect(free.ik.limits!.specs.every((s) => s === undefined)).toBe(true);
  });

  it("copies solve in one workspace and share a layout, each as it would alone; another model has its own", async () => {
    // Standing still (every clip stopped), so every frame of a copy solves the same problem and writes the same.
    const a = await copy({}, false),
      b = await copy({ limits: "none" }, false);
    // Every frame from the animation, so a copy's frames solve one problem, bit for bit.
    a.ik.continuity = false;
    b.ik.continuity = false;
    a.ik.setTarget("leftHand", new Vector3(0.3, 1.6, 0.4));
    b.ik.setTarget("leftHand", new Vector3(-0.4, 0.9, 0.3));
    b.ik.setTarget("rightFoot", new Vector3(-0.1, 0.2, 0.3));
    expect(b.ik.plan!.scratch.boneLength).toBe(a.ik.plan!.scratch.boneLength);
    // Other effectors, another layout; the same effectors, one layout.
    expect(b.ik.plan!.activeJoints).not.toBe(a.ik.plan!.activeJoints);
    const c = await copy({}, false);
    c.ik.setTarget("leftHand", new Vector3(0.1, 1.1, 0.4));
    expect(c.ik.plan!.activeJoints).toBe(a.ik.plan!.activeJoints);
    expect(c.ik.plan!.effectorWeights).not.toBe(a.ik.plan!.effectorWeights);
    const alone = solvedLocals(a.loaded, a.ik);
    const other = solvedLocals(b.loaded, b.ik);
    expect(solvedLocals(a.loaded, a.ik)).toEqual(alone);
    expect(solvedLocals(b.loaded, b.ik)).toEqual(other);
    expect(other).not.toEqual(alone);

    const creature = await loadCharacter(OWN_CHARACTERS.find((c) => c.folder === "creature")!);
    scenes.push(creature);
    const ik = attach(creature, {});
    ik.setTarget(ik.effectors[0].joint, new Vector3(0, 1, 0));
    expect(ik.plan!.scratch.boneLength).not.toBe(a.ik.plan!.scratch.boneLength);
    expect(ik.plan!.activeJoints).not.toBe(a.ik.plan!.activeJoints);
  });

  it("a shared set refuses direct edits, naming the joint, and changes nothing", async () => {
    const { ik } = await copy();
    const arm = ik.jointIndex("leftUpperArm");
    const before = ik.getLimit(arm);
    let error: unknown;
    try {
      setJointLimit(ik.limits!, arm, TIGHT);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FabrikError);
    expect((error as FabrikError).message).toMatch(/limits of .*shared by characters with identical limits/);
    expect((error as FabrikError).joint).toBe(arm);
    expect(ik.getLimit(arm)).toEqual(before);
  });

  it("setLimit gives one copy limits of its own: it keeps to them, the other copy keeps the old ones", async () => {
    const a = await copy(),
      b = await copy();
    const arm = a.ik.jointIndex("leftUpperArm");
    const preset = b.ik.getLimit(arm);
    // A point well away from the hand, so the arm has to turn beyond a 2° cone to follow it.
    for (const { ik } of [a, b]) ik.setTarget("leftHand", new Vector3(0.3, 1.6, 0.4));
    const shared = a.ik.limits!;
    a.ik.setLimit("leftUpperArm", TIGHT);
    expect(a.ik.limits).not.toBe(shared);
    expect(a.ik.plan!.limits).toBe(a.ik.limits);
    expect(b.ik.limits).toBe(shared);
    expect(b.ik.getLimit(arm)).toEqual(preset);
    expect(a.ik.getLimit(arm)!.swing).toMatchObject({ up: 2 * DEG, left: 2 * DEG });

    const local = (written: Float64Array) => written.slice(10 * arm, 10 * arm + 4);
    expect(limitViolation(a.ik.limits!, arm, local(solvedLocals(a.loaded, a.ik)))).toBeLessThan(1e-6);
    // The other copy's arm goes where its own (wider) limits let it, outside the 2° cone.
    expect(limitViolation(a.ik.limits!, arm, local(solvedLocals(b.loaded, b.ik)))).toBeGreaterThan(0.05);
    // A second edit stays on the copy: no new copy, the other still untouched.
    const own = a.ik.limits;
    a.ik.setLimit("leftUpperArm", undefined);
    expect(a.ik.limits).toBe(own);
    expect(b.ik.getLimit(arm)).toEqual(preset);
  });

  it("a bad spec is refused and leaves both copies on the shared set", async () => {
    const a = await copy(),
      b = await copy();
    const shared = a.ik.limits;
    expect(() => a.ik.setLimit("leftUpperArm", { swing: { up: -1, right: 1, down: 1, left: 1 } })).toThrow(
      FabrikError,
    );
    expect(a.ik.limits).toBe(shared);
    expect(b.ik.limits).toBe(shared);
  });
});

describe("the scene's model cache", () => {
  it("is the scene's FabrikSystem's, counts its users, and lets go of what its last user drops", async () => {
    const a = await copy({}, false),
      b = await copy({}, false);
    const models = FabrikSystem.of(a.loaded.scene).models;
    expect(models.size).toBe(1);
    const model = models.models[0];
    expect(model.rig).toBe(a.ik.solverRig);
    expect(model.limitSetCount).toBe(1);
    a.ik.setTarget("leftHand", new Vector3(0.3, 1.6, 0.4));
    b.ik.setTarget("leftHand", new Vector3(0.2, 1.5, 0.4));
    expect(model.layoutCount).toBe(1);
    b.ik.setTarget("rightHand", new Vector3(-0.2, 1.5, 0.4));
    expect(model.layoutCount).toBe(2);
    b.ik.setLimit("leftUpperArm", TIGHT);
    // b's own copy of the limits is not shared: the set in the cache is a's alone now.
    expect(model.limitSetCount).toBe(1);
    b.loaded.root.removeBehavior(b.ik);
    expect(model.layoutCount).toBe(1);
    expect(models.size).toBe(1);
    a.ik.clearTargets();
    expect(model.layoutCount).toBe(0);
    a.loaded.root.removeBehavior(a.ik);
    expect(model.limitSetCount).toBe(0);
    expect(models.size).toBe(0);
    // Another scene has a system and a cache of its own.
    const other = await loadCharacter(mannequin);
    scenes.push(other);
    attach(other);
    expect(FabrikSystem.of(other.scene)).not.toBe(FabrikSystem.of(a.loaded.scene));
    expect(FabrikSystem.of(other.scene).models.size).toBe(1);
  });
});
