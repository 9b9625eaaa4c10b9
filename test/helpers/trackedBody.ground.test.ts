import { Ray } from "@babylonjs/core/Culling/ray.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createSlope, createStep } from "./helperHarness.js";
import { finite, TrackedRig, type Measured, type Pose3 } from "./trackedBodyHarness.js";

/*
 * TrackedBody on uneven ground: the mannequin walks (its head and hands driven) over a 15 cm step and up and
 * down a 20° slope. Every planted foot stands its rest height above the ground under it (measured square to
 * the ground), toes never under the ground, knees forward, one foot in the air at most, nothing NaN. On flat
 * ground the pose is the one the plane through the model origin gives.
 */

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[tracked body on uneven ground, mannequin]\n  ${notes.join("\n  ")}`);
});

const DOWN = new Vector3(0, -1, 0);
const cm = (v: number): string => (100 * v).toFixed(1);

/** Head and hands of a player standing at (0, z) on ground `height` high, hands ahead at the waist. */
function standingAt(z: number, height: number): Pose3 {
  return {
    head: new Vector3(0, 1.6 + height, z + 0.01),
    left: new Vector3(-0.22, 1.05 + height, z + 0.35),
    right: new Vector3(0.22, 1.05 + height, z + 0.35),
  };
}

/** The ground's height and normal under (x, z): the meshes named in `names`, else null. */
function groundUnder(
  scene: Scene,
  names: Set<string>,
  x: number,
  z: number,
): { y: number; n: Vector3 } | null {
  const pick = scene.pickWithRay(new Ray(new Vector3(x, 10, z), DOWN, 20), (m) => names.has(m.name));
  if (pick === null || !pick.hit || pick.pickedPoint === null) return null;
  const n = pick.getNormal(true, false) ?? Vector3.Up();
  return { y: pick.pickedPoint.y, n: n.y < 0 ? n.negate() : n };
}

interface Walked {
  /**
   * The worst planted foot's distance from its rest height above the ground (square to it), world m, at its
   * ball (the toe joint): the point it stands on when its heel lifts behind the body.
   */
  planted: number;
  /** How far a planted ankle went below its rest height above the ground (world m; its heel may only lift). */
  heelUnder: number;
  /** How far the lowest toe went under the ground under it (world m; 0 when never). */
  toesUnder: number;
  /**
   * The worst planted toe's distance from its rest height above the ground, square to it, where the toe and
   * the ankle stand on one plane (the sole turned to the slope), world m.
   */
  sole: number;
  /** The head's largest distance from its tracker, world m. */
  head: number;
  both: number;
  knee: number;
  steps: number;
  finite: boolean;
  frames: Measured[];
}

describe("TrackedBody on uneven ground (mannequin)", () => {
  let rig: TrackedRig;
  afterEach(() => rig?.dispose());

  /**
   * Walks the path `height(z)` from z = 0 to `to` at `speed` m/s (head and hands follow the ground), with the
   * ground meshes `names`, measuring each solved frame.
   */
  function walk(names: Set<string>, height: (z: number) => number, to: number, speed: number): Walked {
    const scene = rig.loaded.scene;
    const j = rig.j;
    const rest = rig.positions();
    const restHeight = [rest[j.leftFoot].y, rest[j.rightFoot].y];
    const toeJoints = [j.leftToes, j.rightToes];
    const toeHeight = [rest[j.leftToes].y, rest[j.rightToes].y];
    const at = (t: number): Pose3 => {
      const z = Math.max(0, Math.min(to, (t - 0.5) * speed));
      return standingAt(z, height(z));
    };
    rig.run(30, at);
    const out: Walked = {
      planted: 0,
      heelUnder: -Infinity,
      toesUnder: -Infinity,
      sole: 0,
      head: 0,
      both: 0,
      knee: -Infinity,
      steps: 0,
      finite: true,
      frames: [],
    };
    const start = rig.body.steps;
    const duration = 0.5 + to / speed + 1.5;
    rig.run(Math.round(duration * 60), at, (f, t) => {
      out.frames.push(f);
      out.head = Math.max(out.head, f.world[j.head].subtract(at(t).head).length());
      if (!finite(f.world)) out.finite = false;
      if (f.stepping[0] && f.stepping[1]) out.both++;
      for (const [i, side] of (["left", "right"] as const).entries()) {
        out.knee = Math.max(out.knee, rig.kneeInversion(f.world, side, new Vector3(0, 0, 1)));
        const toe = f.world[toeJoints[i]];
        const gToe = groundUnder(scene, names, toe.x, toe.z);
        if (gToe !== null) out.toesUnder = Math.max(out.toesUnder, gToe.y - toe.y);
        if (f.stepping[i]) continue;
        const foot = f.world[j[`${side}Foot`]];
        const g = groundUnder(scene, names, foot.x, foot.z);
        if (g === null) continue;
        // The rest height measured square to the ground: straight above it, that is height / cos(slope).
        out.heelUnder = Math.max(out.heelUnder, g.y + restHeight[i] / g.n.y - foot.y);
        // The ankle's ground plane, met at the toe: the toe stands on the same plane.
        const planeAtToe = g.y - (g.n.x * (toe.x - foot.x) + g.n.z * (toe.z - foot.z)) / g.n.y;
        const onePlane = gToe !== null && Math.abs(planeAtToe - gToe.y) < 0.001;
        // Where the toe stands on the ground (not over a step's edge): its height above it.
        if (onePlane) out.planted = Math.max(out.planted, Math.abs(toe.y - gToe.y - toeHeight[i] / gToe.n.y));
        if (onePlane) {
          out.sole = Math.max(out.sole, Math.abs((toe.y - gToe.y) * g.n.y - toeHeight[i]));
        }
      }
    });
    out.steps = rig.body.steps - start;
    return out;
  }

  function expectGood(w: Walked, scale: number): void {
    expect(w.finite).toBe(true);
    expect(w.both).toBe(0);
    expect(w.steps).toBeGreaterThanOrEqual(4);
    expect(w.planted * scale).toBeLessThan(0.01);
    expect(w.heelUnder * scale).toBeLessThan(0.01);
    expect(w.sole * scale).toBeLessThan(0.01);
    expect(w.toesUnder * scale).toBeLessThan(0.005);
    expect(w.knee).toBeLessThanOrEqual(0);
  }

  it("up a 15 cm step: planted feet on the ground under them, toes above it", async () => {
    rig = await TrackedRig.create();
    const scene = rig.loaded.scene;
    flatGround(scene);
    createStep(scene, "step", 0.15, -2, 2, 1.2, 4);
    const scale = 1.75 / rig.body.height;
    const names = new Set(["flat", "step"]);
    // The head rises with the ground over the step's edge, over 30 cm.
    const up = walk(names, (z) => 0.15 * Math.min(1, Math.max(0, (z - 1.05) / 0.3)), 2.2, 0.8);
    expectGood(up, scale);
    const onStep = up.frames.at(-1)!.world;
    expect(Math.min(onStep[rig.j.leftFoot].y, onStep[rig.j.rightFoot].y)).toBeGreaterThan(0.15);
    notes.push(summary("up a 15 cm step", up, scale));
  });

  it("down a 15 cm step", async () => {
    rig = await TrackedRig.create();
    const scene = rig.loaded.scene;
    // The mannequin starts on the step (its origin 15 cm under the step's top) and walks off its edge.
    flatGround(scene).position.y = -0.15;
    createStep(scene, "step", 0, -2, 2, -2, 1.2).computeWorldMatrix(true);
    scene.getMeshByName("flat")!.computeWorldMatrix(true);
    const scale = 1.75 / rig.body.height;
    const names = new Set(["flat", "step"]);
    const down = walk(names, (z) => -0.15 * Math.min(1, Math.max(0, (z - 1.2) / 0.3)), 2.2, 0.8);
    expectGood(down, scale);
    const below = down.frames.at(-1)!.world;
    expect(Math.max(below[rig.j.leftFoot].y, below[rig.j.rightFoot].y)).toBeLessThan(0);
    notes.push(summary("down a 15 cm step", down, scale));
  });

  it("up a 20° slope: feet on the slope, soles turned to it", async () => {
    rig = await TrackedRig.create();
    const scene = rig.loaded.scene;
    const slope = createSlope(scene, 20, Vector3.Zero(), 12);
    const scale = 1.75 / rig.body.height;
    const names = new Set([slope.mesh.name]);
    const up = walk(names, (z) => slope.heightAt(0, z), 2, 0.8);
    expectGood(up, scale);
    // The head rises ahead of the feet: a foot left below steps before its leg holds the hips down (22.4 cm
    // off before it did).
    expect(up.head * scale).toBeLessThan(0.17);
    notes.push(summary("up a 20° slope (73 cm in 2 m)", up, scale));
  });

  it("down a 20° slope", async () => {
    rig = await TrackedRig.create();
    const scene = rig.loaded.scene;
    // Falling toward +Z: the mannequin walks down it.
    const slope = createSlope(scene, -20, Vector3.Zero(), 12);
    const scale = 1.75 / rig.body.height;
    const down = walk(new Set([slope.mesh.name]), (z) => slope.heightAt(0, z), 2, 0.8);
    expectGood(down, scale);
    notes.push(summary("down a 20° slope", down, scale));
  });

  it("starting on a 30 cm box, then teleported 5 m onto a 1 m one: the feet stand on each at once", async () => {
    rig = await TrackedRig.create();
    const scene = rig.loaded.scene;
    createStep(scene, "low", 0.3, -1, 1, -1, 1);
    createStep(scene, "high", 1, -1, 1, 4, 6);
    const j = rig.j;
    const rest = rig.positions()[j.leftFoot].y;
    // 30 frames: the trackers fade in over the first quarter second.
    const onLow = rig.run(30, () => standingAt(0, 0.3));
    const onHigh = rig.run(30, () => standingAt(5, 1));
    const off = (m: Measured, top: number): number =>
      Math.max(Math.abs(m.world[j.leftFoot].y - top - rest), Math.abs(m.world[j.rightFoot].y - top - rest));
    expect(off(onLow, 0.3)).toBeLessThan(0.01);
    expect(off(onHigh, 1)).toBeLessThan(0.01);
    expect(onHigh.world[j.leftFoot].z).toBeGreaterThan(4.5);
    notes.push(
      `start on a 30 cm box, teleport 5 m onto a 1 m one: feet ${cm(off(onLow, 0.3))} / ` +
        `${cm(off(onHigh, 1))} cm from their rest height above each`,
    );
  });

  it("teleported 3 m straight up onto a platform over the head: the feet stand on it at once", async () => {
    rig = await TrackedRig.create();
    createStep(rig.loaded.scene, "platform", 3, -1, 1, -1, 1);
    const j = rig.j;
    const rest = rig.positions()[j.leftFoot].y;
    const below = rig.run(30, () => standingAt(0, 0));
    let air = 0;
    const above = rig.run(
      30,
      () => standingAt(0, 3),
      (m) => {
        if (m.stepping[0] || m.stepping[1]) air++;
      },
    );
    const off = (m: Measured, top: number): number =>
      Math.max(Math.abs(m.world[j.leftFoot].y - top - rest), Math.abs(m.world[j.rightFoot].y - top - rest));
    notes.push(
      `teleport 3 m up onto a platform: feet ${cm(off(below, 0))} / ${cm(off(above, 3))} cm from their rest ` +
        `height above the floor and the platform, ${air} frames with a foot in the air`,
    );
    expect(off(below, 0)).toBeLessThan(0.01);
    expect(off(above, 3)).toBeLessThan(0.01);
    expect(air).toBe(0);
  });

  it("on flat ground: the pose is the one the plane through the model origin gives", async () => {
    const run = async (withGround: boolean): Promise<Measured[]> => {
      rig = await TrackedRig.create();
      if (withGround) flatGround(rig.loaded.scene);
      const walked = walk(new Set(["flat"]), () => 0, 2, 0.8);
      if (withGround) notes.push(summary("flat ground", walked, 1.75 / rig.body.height));
      rig.dispose();
      return walked.frames;
    };
    const plane = await run(false);
    const cast = await run(true);
    let most = 0;
    for (let f = 0; f < plane.length; f++) {
      for (let j = 0; j < plane[f].world.length; j++) {
        most = Math.max(most, plane[f].world[j].subtract(cast[f].world[j]).length());
      }
    }
    expect(most).toBeLessThan(1e-4);
    notes.push(`flat ground cast against the plane: joints ${(most * 1000).toFixed(4)} mm apart at most`);
  });
});

/** A walk's numbers for the log, in cm scaled to a 1.75 m human. */
function summary(name: string, w: Walked, scale: number): string {
  return (
    `${name}: ${w.steps} steps; planted feet within ${cm(w.planted * scale)} cm of their height above the ` +
    `ground, soles ${cm(w.sole * scale)} cm; toes at least ${cm(-w.toesUnder * scale)} cm above the ground; ` +
    `head ${cm(w.head * scale)} cm off its tracker at most`
  );
}

function flatGround(scene: Scene): AbstractMesh {
  const mesh = CreateGround("flat", { width: 12, height: 12 }, scene);
  // Picking falls back to bounding boxes (no picked point) on meshes without a material.
  mesh.material = new StandardMaterial("flat material", scene);
  mesh.computeWorldMatrix(true);
  return mesh;
}
