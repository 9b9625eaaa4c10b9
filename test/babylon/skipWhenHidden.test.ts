// skipWhenHidden: a character no camera drew last frame costs nothing, as its IK could not be seen.
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import "@babylonjs/core/Materials/standardMaterial.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { OWN_CHARACTERS, loadCharacter, type Loaded } from "./characters.js";
import { buildJointCharacter } from "./codeCharacters.js";
import { attach, leastBytesPerCall, playFirstAnimation } from "./fabrikHarness.js";

const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;

let loaded: Loaded;
let camera: FreeCamera;
beforeEach(async () => {
  loaded = await loadCharacter(mannequin);
  camera = loaded.scene.activeCamera as FreeCamera;
  playFirstAnimation(loaded.scene);
  loaded.scene.render();
});
afterEach(() => loaded?.engine.dispose());

/** The behavior's own frame and restore, as the scene's system runs them. */
const hooks = (ik: FabrikBehavior) =>
  ik as unknown as { readonly _onStage: () => void; readonly _onAfterRender: () => void };

const skinned = () => loaded.scene.meshes.filter((m) => m.skeleton !== null) as Mesh[];
const watchers = () => skinned().reduce((n, m) => n + m.onBeforeRenderObservable.observers.length, 0);

/** The behavior with a left-hand target a few centimetres off the animated hand, and a count of its solves. */
function reaching(skip: boolean): { ik: FabrikBehavior; solves: () => number } {
  const ik = attach(loaded);
  ik.skipWhenHidden = skip;
  const hand = new PoseReader(ik.rig!).getWorldPositionToRef(ik.jointIndex("leftHand"), new Vector3());
  ik.setTarget("leftHand", hand.add(new Vector3(0.05, 0.08, 0.05)));
  let solves = 0;
  ik.onSolvedObservable.add(() => solves++);
  return { ik, solves: () => solves };
}

/** Renders `frames` frames, returning how many of them the behavior solved. */
function render(frames: number, solves: () => number): number {
  const before = solves();
  for (let i = 0; i < frames; i++) loaded.scene.render();
  return solves() - before;
}

describe("skipWhenHidden", () => {
  it("off (the default): the character solves every frame, seen or not", () => {
    const { ik, solves } = reaching(false);
    expect(ik.skipWhenHidden).toBe(false);
    camera.rotation.y = Math.PI; // looking away
    expect(render(5, solves)).toBe(5);
    expect(watchers()).toBe(0);
  });

  it("on: solves while drawn; out of view, every frame after the first unseen one is skipped, and back in view it solves from the frame after it was drawn", () => {
    const { solves } = reaching(true);
    expect(render(3, solves)).toBe(3);
    camera.rotation.y = Math.PI;
    // The frame the camera turned still solved (the character was drawn the frame before); none after it.
    expect(render(1, solves)).toBe(1);
    expect(render(4, solves)).toBe(0);
    camera.rotation.y = 0;
    expect(render(1, solves)).toBe(0);
    expect(render(3, solves)).toBe(3);
  });

  it("a skipped frame writes nothing: its joints hold the animation, as with the behavior disabled", () => {
    loaded.scene.animationGroups[0]?.pause();
    const { ik, solves } = reaching(true);
    const lower = ik.rig!.nodes[ik.jointIndex("leftLowerArm")]!;
    // Seen in the middle of each frame, after the stage: what the frame draws.
    let seen: number[] = [];
    const probe = loaded.scene.onBeforeRenderObservable.add(() => {
      seen = lower.rotationQuaternion!.asArray();
    });
    render(2, solves);
    const solved = seen;
    ik.enabled = false;
    render(1, solves);
    const animated = seen;
    ik.enabled = true;
    expect(solved).not.toEqual(animated);
    camera.rotation.y = Math.PI;
    render(2, solves);
    expect(seen).toEqual(animated);
    probe.remove();
  });

  it("hidden, disabled or empty meshes are not drawn; a prop held in the hand is", () => {
    const { ik, solves } = reaching(true);
    for (const m of skinned()) m.isVisible = false;
    render(1, solves);
    expect(render(3, solves)).toBe(0);
    for (const m of skinned()) m.isVisible = true;
    for (const m of skinned()) m.setEnabled(false);
    render(1, solves);
    expect(render(3, solves)).toBe(0);
    // A sword in the hand: seen, so the hand's IK is, though the body is not (the meshes are gathered when
    // the watch starts: at the first frame with skipWhenHidden on).
    ik.skipWhenHidden = false;
    render(1, solves);
    const sword = CreateBox("sword", { size: 0.1 }, loaded.scene);
    sword.parent = ik.rig!.nodes[ik.jointIndex("leftHand")];
    ik.skipWhenHidden = true;
    render(1, solves);
    expect(render(3, solves)).toBe(3);
  });

  it("a mesh Babylon never culls (alwaysSelectAsActiveMesh) is drawn out of view too: never skipped", () => {
    const { solves } = reaching(true);
    for (const m of skinned()) m.alwaysSelectAsActiveMesh = true;
    camera.rotation.y = Math.PI;
    expect(render(4, solves)).toBe(4);
  });

  it("adds one observer per drawn mesh while on, and takes them away when turned off or detached", () => {
    const before = watchers();
    const { ik, solves } = reaching(true);
    render(1, solves);
    expect(watchers()).toBe(before + skinned().filter((m) => m.getTotalVertices() > 0).length);
    ik.skipWhenHidden = false;
    render(1, solves);
    expect(watchers()).toBe(before);
    ik.skipWhenHidden = true;
    render(1, solves);
    expect(watchers()).toBeGreaterThan(before);
    loaded.root.removeBehavior(ik);
    expect(watchers()).toBe(before);
  });

  it("allocates nothing per frame, drawn or skipped", () => {
    const { ik } = reaching(true);
    const { _onStage, _onAfterRender } = hooks(ik);
    const mesh = skinned().find((m) => m.getTotalVertices() > 0)!;
    const drawn = [true];
    // A frame as the scene runs it, the mesh's draw (or none) standing in for the render between stages.
    const frame = () => {
      if (drawn[0]) mesh.onBeforeRenderObservable.notifyObservers(mesh);
      _onStage();
      _onAfterRender();
    };
    for (const seen of [true, false]) {
      drawn[0] = seen;
      for (let i = 0; i < 50_000; i++) frame();
      expect(leastBytesPerCall(frame), seen ? "drawn" : "skipped").toBeLessThan(2);
    }
  }, 60_000);

  it("a rig with no mesh that Babylon draws is never skipped: there is nothing to tell", () => {
    const engine = new NullEngine();
    const scene = new Scene(engine);
    const eye = new FreeCamera("camera", new Vector3(0, 1, -5), scene);
    eye.rotation.y = Math.PI;
    const { model, nodes } = buildJointCharacter(scene, [
      ["a", null, [0, 0, 0]],
      ["b", "a", [0, 1, 0]],
      ["c", "b", [0, 2, 0]],
    ]);
    const ik = new FabrikBehavior();
    model.addBehavior(ik, true);
    ik.skipWhenHidden = true;
    ik.setTarget("c", new Vector3(0.5, 1.5, 0));
    let solves = 0;
    ik.onSolvedObservable.add(() => solves++);
    for (let i = 0; i < 3; i++) scene.render();
    expect(solves).toBe(3);
    expect(nodes.size).toBe(3);
    engine.dispose();
  });
});
