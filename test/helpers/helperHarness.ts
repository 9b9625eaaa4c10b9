// Shared pieces for the helper tests (not a test file): ground meshes, a frame driver with explicit time
// steps, and measurements of the pose the behavior wrote.
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import type { Loaded } from "../babylon/characters.js";

const DEG = Math.PI / 180;

/** Picking falls back to bounding boxes (no picked point) on meshes without a material. */
function withMaterial(mesh: Mesh, scene: Scene): Mesh {
  mesh.material = new StandardMaterial(`${mesh.name} material`, scene);
  return mesh;
}

/** A plane through `origin` rising by `degrees` toward +Z (world), and the signed distance to it. */
export function createSlope(scene: Scene, degrees: number, origin = Vector3.Zero(), size = 8) {
  const mesh = withMaterial(CreateGround("slope", { width: size, height: size }, scene), scene);
  mesh.position.copyFrom(origin);
  mesh.rotation.x = -degrees * DEG;
  // Picking uses the cached world matrix, which within the current render id predates these changes.
  mesh.computeWorldMatrix(true);
  const normal = new Vector3(0, Math.cos(degrees * DEG), -Math.sin(degrees * DEG));
  return {
    mesh,
    normal,
    /** Signed distance of a world point above the plane. */
    distance: (p: Vector3) => Vector3.Dot(p.subtract(origin), normal),
    /** Height of the plane at (x, z). */
    heightAt: (x: number, z: number) => origin.y + (z - origin.z) * Math.tan(degrees * DEG),
  };
}

/** A box whose top face is at `top`, spanning x in [x0, x1] and z in [z0, z1], 1 m deep. */
export function createStep(
  scene: Scene,
  name: string,
  top: number,
  x0: number,
  x1: number,
  z0 = -2,
  z1 = 2,
): Mesh {
  const mesh = withMaterial(CreateBox(name, { width: x1 - x0, height: 1, depth: z1 - z0 }, scene), scene);
  mesh.position.set((x0 + x1) / 2, top - 0.5, (z0 + z1) / 2);
  mesh.computeWorldMatrix(true);
  return mesh;
}

/** Anything advanced with an explicit time step. */
export interface Updatable {
  update(dt: number): void;
}

/**
 * Drives frames at a fixed rate: the animation is sampled at the frame's time (`goToFrame` on a paused
 * group, so it does not also advance by Babylon's clock), then the helpers update with the same step,
 * then the scene renders (the behavior solves in it).
 */
export class FrameDriver {
  time = 0;
  private readonly _fps: number;
  private readonly _length: number;

  constructor(
    readonly loaded: Loaded,
    readonly group: AnimationGroup | null,
    readonly rate: number,
  ) {
    for (const g of loaded.scene.animationGroups) g.stop();
    if (group !== null) {
      group.start(true);
      group.pause();
      this._fps = group.targetedAnimations[0]?.animation.framePerSecond ?? 60;
      this._length = group.to - group.from;
    } else {
      this._fps = 60;
      this._length = 0;
    }
    this.sample();
  }

  /** Puts the animation at the current time. */
  sample(): void {
    const group = this.group;
    if (group === null) return;
    const frame = this._length > 0 ? (this.time * this._fps) % this._length : 0;
    group.goToFrame(group.from + frame);
  }

  /** One frame: advance time, sample the animation, `before` (measure the animated pose), update, render. */
  frame(helpers: readonly Updatable[], before?: () => void): void {
    const dt = 1 / this.rate;
    this.time += dt;
    this.sample();
    before?.();
    for (const h of helpers) h.update(dt);
    this.loaded.scene.render();
  }

  /** Frames until `time` reaches `until` (to the nearest frame). */
  run(helpers: readonly Updatable[], until: number, before?: () => void): void {
    const frames = Math.round((until - this.time) * this.rate);
    for (let i = 0; i < frames; i++) this.frame(helpers, before);
  }
}

/** World position of every joint, and model-space orientations, read fresh from the nodes. */
export interface PoseSample {
  readonly world: Vector3[];
  readonly orientations: Quaternion[];
  /** Raw local rotations (x y z w) of every joint node. */
  readonly locals: number[][];
  /** Model-space direction of world up. */
  readonly upModel: Vector3;
  readonly worldToModel: Float64Array;
}

export function samplePose(ik: FabrikBehavior, reader = new PoseReader(ik.rig!)): PoseSample {
  reader.read();
  const rig = ik.rig!;
  const world: Vector3[] = [];
  const orientations: Quaternion[] = [];
  const locals: number[][] = [];
  for (let j = 0; j < rig.jointCount; j++) {
    world.push(reader.getWorldPositionToRef(j, new Vector3()));
    const o = reader.orientations;
    orientations.push(new Quaternion(o[4 * j], o[4 * j + 1], o[4 * j + 2], o[4 * j + 3]));
    const q = rig.nodes[j]?.rotationQuaternion ?? rig.bones[j][0].rotationQuaternion;
    locals.push([q.x, q.y, q.z, q.w]);
  }
  const w = reader.worldToModel;
  return {
    world,
    orientations,
    locals,
    upModel: new Vector3(w[4], w[5], w[6]).normalize(),
    worldToModel: Float64Array.from(w),
  };
}

/** A world direction in model space (unit). */
export function toModelDirection(sample: PoseSample, v: Vector3): Vector3 {
  const w = sample.worldToModel;
  return new Vector3(
    v.x * w[0] + v.y * w[4] + v.z * w[8],
    v.x * w[1] + v.y * w[5] + v.z * w[9],
    v.x * w[2] + v.y * w[6] + v.z * w[10],
  ).normalize();
}

/**
 * How a joint turned from the animated pose to the solved one, as a model-space rotation applied to world
 * up (in model space): for a foot aligned to a slope, that is the slope's normal.
 */
export function turnedUp(animated: PoseSample, solved: PoseSample, j: number): Vector3 {
  const delta = solved.orientations[j].multiply(Quaternion.Inverse(animated.orientations[j]));
  return animated.upModel.applyRotationQuaternion(delta);
}

export function angleBetween(a: Vector3, b: Vector3): number {
  return Math.acos(Math.max(-1, Math.min(1, Vector3.Dot(a.normalizeToNew(), b.normalizeToNew()))));
}

export const DEGREES = DEG;

/**
 * Measures, in the frame being rendered (after the solve, before the behavior puts the animation back),
 * by an observer inserted first in `onAfterRenderObservable`.
 */
export function onSolvedFrame(scene: Scene, callback: () => void): () => void {
  const observer = scene.onAfterRenderObservable.add(callback, undefined, true)!;
  return () => observer.remove();
}

/**
 * The surface of a foot: every skinned vertex whose strongest joint is the foot or a joint below it (toes),
 * on every mesh of the rig, and every vertex of a plain mesh hung below the foot's node (a robot's rigid
 * foot). `sample()` gives their world positions as the joint nodes are now: skinned on the CPU with
 * Babylon's own matrices, refreshed without touching the frame's render id.
 */
export function footSurface(ik: FabrikBehavior, foot: number): { count: number; sample(): Vector3[] } {
  const rig = ik.rig!;
  const below = new Set<number>([foot]);
  for (let j = 0; j < rig.jointCount; j++) if (below.has(rig.parents[j])) below.add(j);
  const nodes = new Set([...below].map((j) => rig.nodes[j]).filter((n) => n !== null));
  const skinned = rig.meshes.flatMap((mesh) => {
    const skeleton = mesh.skeleton;
    const indices = mesh.getVerticesData("matricesIndices");
    const weights = mesh.getVerticesData("matricesWeights");
    if (skeleton === null || indices === null || weights === null) return [];
    const ours = skeleton.bones.map((bone) => nodes.has(bone.getTransformNode()!));
    const picked: number[] = [];
    for (let v = 0; v < weights.length / 4; v++) {
      let best = 0;
      for (let k = 1; k < 4; k++) if (weights[4 * v + k] > weights[4 * v + best]) best = k;
      if (weights[4 * v + best] > 0 && ours[indices[4 * v + best]]) picked.push(v);
    }
    return picked.length > 0 ? [{ mesh, picked }] : [];
  });
  const footNode = rig.nodes[foot];
  const rigid = (footNode?.getChildMeshes(false) ?? []).filter(
    (m) => m.skeleton === null && m.getTotalVertices() > 0,
  );
  return {
    count:
      skinned.reduce((n, p) => n + p.picked.length, 0) + rigid.reduce((n, m) => n + m.getTotalVertices(), 0),
    sample() {
      const out: Vector3[] = [];
      for (const { mesh, picked } of skinned) {
        mesh.skeleton!.prepare(true);
        const data = mesh.getPositionData(true, false)!;
        const world = mesh.computeWorldMatrix(true);
        for (const v of picked) {
          const p = new Vector3(data[3 * v], data[3 * v + 1], data[3 * v + 2]);
          out.push(Vector3.TransformCoordinates(p, world));
        }
      }
      // A plain mesh's world matrix comes through its parents' cached ones: have them recomputed.
      if (rigid.length > 0) rigid[0].getScene().incrementRenderId();
      for (const mesh of rigid) {
        const data = mesh.getPositionData(false, false)!;
        const world = mesh.computeWorldMatrix(true);
        for (let v = 0; v < data.length; v += 3) {
          out.push(Vector3.TransformCoordinates(new Vector3(data[v], data[v + 1], data[v + 2]), world));
        }
      }
      return out;
    },
  };
}
