// One frame of a character reads each joint once and writes it once, however many passes shape it: the
// behavior's pipeline reads the pose once, FootPlacement (and any pass) works on that pose, and the solve's
// rotations and the passes' changes go to the joints in one write, put back in one restore after rendering.
import type { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it } from "vitest";
import type { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { FootPlacement } from "../../plugin/helpers/footPlacement.js";
import { LookAt } from "../../plugin/helpers/lookAt.js";
import {
  OWN_CHARACTERS,
  characterNamed,
  loadCharacter,
  noteIfMissing,
  type Loaded,
} from "../babylon/characters.js";
import { attach } from "../babylon/fabrikHarness.js";
import { FrameDriver, createSlope, createStep } from "./helperHarness.js";

/** Reads and writes of one joint's local transform in one phase of a frame. */
interface Counts {
  positionReads: number;
  positionWrites: number;
  rotationReads: number;
  rotationWrites: number;
  scalingReads: number;
}

const fresh = (): Counts => ({
  positionReads: 0,
  positionWrites: 0,
  rotationReads: 0,
  rotationWrites: 0,
  scalingReads: 0,
});

const WATCHED = Symbol("watched");

/**
 * Counts, per joint node, every read and write of the numbers of its position, rotation and scaling, while
 * `phase` is set: each read of a joint's pose reads their x once, each write stores their x once (Babylon's
 * vectors keep it in `_x`, whichever accessor or helper is used). The vectors are watched afresh each
 * frame: an animation may hand a node a new quaternion.
 */
class JointWatch {
  phase: "frame" | "restore" | null = null;
  readonly frame: Counts[];
  readonly restore: Counts[];

  constructor(
    private readonly _nodes: readonly (TransformNode | null)[],
    scene: Scene,
  ) {
    this.frame = _nodes.map(fresh);
    this.restore = _nodes.map(fresh);
    // Around the behavior's frame: after the animation (inserted first), after the FabrikSystem's observer
    // (added after the behaviors and helpers were made); around its restore likewise.
    scene.onBeforeRenderObservable.add(() => this._start("frame"), undefined, true);
    scene.onBeforeRenderObservable.add(() => (this.phase = null));
    scene.onAfterRenderObservable.add(() => this._start("restore"), undefined, true);
    scene.onAfterRenderObservable.add(() => (this.phase = null));
  }

  reset(): void {
    for (const c of [...this.frame, ...this.restore]) Object.assign(c, fresh());
  }

  private _start(phase: "frame" | "restore"): void {
    this._nodes.forEach((node, j) => {
      if (node === null) return;
      this._watch(node.position, j, "position");
      if (node.rotationQuaternion !== null) this._watch(node.rotationQuaternion, j, "rotation");
      this._watch(node.scaling, j, "scaling");
    });
    this.phase = phase;
  }

  private _watch(v: Vector3 | Quaternion, j: number, kind: "position" | "rotation" | "scaling"): void {
    const holder = v as unknown as { _x: number; [WATCHED]?: boolean };
    if (holder[WATCHED]) return;
    let x = holder._x;
    Object.defineProperty(holder, "_x", {
      configurable: true,
      get: () => {
        if (this.phase !== null) this[this.phase][j][`${kind}Reads` as "positionReads"]++;
        return x;
      },
      set: (value: number) => {
        if (this.phase !== null && kind !== "scaling")
          this[this.phase][j][`${kind}Writes` as "positionWrites"]++;
        x = value;
      },
    });
    holder[WATCHED] = true;
  }
}

const scenes: Loaded[] = [];
afterEach(() => {
  for (const loaded of scenes.splice(0)) loaded.engine.dispose();
});

/**
 * Runs `frames` frames after a warm-up and checks, frame by frame, that no joint was read or written more
 * than once, in the frame or in the restore; returns the counts of the last frame.
 */
function countFrames(driver: FrameDriver, ik: FabrikBehavior, helpers: { update(dt: number): void }[]) {
  driver.run(helpers, driver.time + 0.5);
  const watch = new JointWatch(ik.rig!.nodes, driver.loaded.scene);
  const names = ik.rig!.names;
  for (let f = 0; f < 3; f++) {
    watch.reset();
    driver.frame(helpers);
    for (const phase of ["frame", "restore"] as const) {
      watch[phase].forEach((c, j) => {
        const at = `${names[j]} (${phase})`;
        expect(c.positionReads, `${at}: position reads`).toBeLessThanOrEqual(1);
        expect(c.rotationReads, `${at}: rotation reads`).toBeLessThanOrEqual(1);
        expect(c.scalingReads, `${at}: scaling reads`).toBeLessThanOrEqual(1);
        expect(c.positionWrites, `${at}: position writes`).toBeLessThanOrEqual(1);
        expect(c.rotationWrites, `${at}: rotation writes`).toBeLessThanOrEqual(1);
      });
    }
  }
  return watch;
}

describe("one frame reads each joint once and writes it once", () => {
  it("the mannequin with FootPlacement on a step (the hips lowered) and LookAt", async () => {
    const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;
    const loaded = await loadCharacter(mannequin);
    scenes.push(loaded);
    const ik = attach(loaded);
    createStep(loaded.scene, "upper", 0, 0.01, 1);
    createStep(loaded.scene, "lower", -0.12, -1, -0.01);
    const feet = new FootPlacement(ik, { autoUpdate: false });
    const look = new LookAt(ik, { autoUpdate: false, smoothing: 0 });
    look.target = { x: 1, y: 1.6, z: 1 };
    const driver = new FrameDriver(loaded, loaded.scene.getAnimationGroupByName("Idle"), 60);
    const watch = countFrames(driver, ik, [feet, look]);
    expect(feet.hipsOffset).toBeGreaterThan(0.1);

    const j = (name: string) => ik.jointIndex(name);
    const { frame, restore } = watch;
    // Every joint the legs, the hips and the look use was read, once.
    for (const name of ["Hips", "LeftUpLeg", "LeftLeg", "LeftFoot", "RightFoot", "Neck", "Head"]) {
      expect(frame[j(name)], name).toMatchObject({ positionReads: 1, rotationReads: 1, scalingReads: 1 });
    }
    // The hips' lowering and the solve's leg and neck rotations were written once, and put back once.
    expect(frame[j("Hips")].positionWrites).toBe(1);
    expect(restore[j("Hips")].positionWrites).toBe(1);
    for (const name of ["LeftUpLeg", "LeftLeg", "RightUpLeg", "RightLeg", "Neck"]) {
      expect(frame[j(name)].rotationWrites, name).toBe(1);
      expect(restore[j(name)].rotationWrites, name).toBe(1);
    }
    // Fingers and face are neither read nor written.
    expect(frame[j("LeftHandIndex4")]).toEqual(fresh());
  });

  it.skipIf(noteIfMissing(characterNamed("RobotExpressive")))(
    "RobotExpressive with FootPlacement on a slope (its feet moved after the solve, where the shins end)",
    async () => {
      const loaded = await loadCharacter(characterNamed("RobotExpressive"));
      scenes.push(loaded);
      const ik = attach(loaded);
      createSlope(loaded.scene, 12);
      const feet = new FootPlacement(ik, { autoUpdate: false });
      const driver = new FrameDriver(loaded, loaded.scene.getAnimationGroupByName("Idle"), 60);
      const watch = countFrames(driver, ik, [feet]);
      expect(feet.legs.every((leg) => leg.shin >= 0 && leg.weight === 1)).toBe(true);
      for (const leg of feet.legs) {
        const { frame, restore } = watch;
        // The foot: read once before the solve, moved and turned once after it, put back once.
        expect(frame[leg.foot]).toMatchObject({ positionReads: 1, rotationReads: 1, positionWrites: 1 });
        expect(frame[leg.foot].rotationWrites).toBe(1);
        expect(restore[leg.foot]).toMatchObject({ positionWrites: 1, rotationWrites: 1 });
        // Thigh and shin: read once, turned once.
        for (const joint of [leg.base, leg.shin]) {
          expect(frame[joint]).toMatchObject({ positionReads: 1, rotationReads: 1, rotationWrites: 1 });
        }
      }
    },
  );
});
