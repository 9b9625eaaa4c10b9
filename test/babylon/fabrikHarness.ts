// Shared helpers for the FabrikBehavior tests (not a test file).
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { FabrikBehavior, type FabrikBehaviorOptions } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { projectRotation } from "../../plugin/solver/jointLimitProjection.js";
import type { JointLimits } from "../../plugin/solver/limits.js";
import type { Loaded } from "./characters.js";

/** A target to set: a joint (bone name or role) and an optional chain length. */
export interface Pick {
  readonly joint: string;
  readonly chainLength?: number;
}

/** Raw local transforms of every joint node: rotation (4), position (3), scaling (3) per joint. */
export function captureLocals(nodes: readonly (TransformNode | null)[]): Float64Array {
  const out = new Float64Array(10 * nodes.length);
  nodes.forEach((node, j) => {
    const q = node!.rotationQuaternion!;
    out.set([q.x, q.y, q.z, q.w], 10 * j);
    out.set([node!.position.x, node!.position.y, node!.position.z], 10 * j + 4);
    out.set([node!.scaling.x, node!.scaling.y, node!.scaling.z], 10 * j + 7);
  });
  return out;
}

/** World positions of every joint node, computed by Babylon afresh (no same-frame cache). */
export function babylonWorldPositions(scene: Scene, nodes: readonly (TransformNode | null)[]): Vector3[] {
  scene.incrementRenderId();
  return nodes.map((node) => node!.computeWorldMatrix(true).getTranslation());
}

/** A small deterministic generator (mulberry32), so target directions are the same on every run. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Joint j's Δ = rest⁻¹ · local (normalised) and its projection onto the limits. */
export function projectedDelta(
  limits: JointLimits,
  j: number,
  local: ArrayLike<number>,
): { delta: Float64Array; projected: Float64Array } {
  const r = limits.restLocal;
  const [ax, ay, az, aw] = [-r[4 * j], -r[4 * j + 1], -r[4 * j + 2], r[4 * j + 3]];
  const [bx, by, bz, bw] = [local[0], local[1], local[2], local[3]];
  const len = Math.hypot(bx, by, bz, bw);
  const delta = Float64Array.of(
    (aw * bx + ax * bw + ay * bz - az * by) / len,
    (aw * by - ax * bz + ay * bw + az * bx) / len,
    (aw * bz + ax * by - ay * bx + az * bw) / len,
    (aw * bw - ax * bx - ay * by - az * bz) / len,
  );
  const projected = delta.slice();
  projectRotation(limits, j, projected, 0, new Float64Array(16), 0);
  return { delta, projected };
}

/** How far (radians) joint j's local rotation `local` lies outside its limits. */
export function limitViolation(limits: JointLimits, j: number, local: ArrayLike<number>): number {
  const { delta, projected } = projectedDelta(limits, j, local);
  const d = Math.abs(
    delta[0] * projected[0] + delta[1] * projected[1] + delta[2] * projected[2] + delta[3] * projected[3],
  );
  return 2 * Math.acos(Math.min(1, d));
}

/**
 * Drives targets that stay reachable while the animation plays: each frame, before the behavior solves,
 * each effector's animated position is turned about its chain's base by the angle that moves it by
 * `fraction` of the chain's length, about a fixed random axis. The base keeps its place and the distance
 * to it is unchanged, so the point is reachable whatever the chain's current bend.
 */
export class ReachableTargets {
  readonly points: Vector3[];
  readonly bases: number[] = [];
  readonly joints: number[] = [];
  private readonly _axes: Vector3[];
  private readonly _reader: PoseReader;
  private _observer: Observer<Scene> | null;

  constructor(
    readonly scene: Scene,
    readonly ik: FabrikBehavior,
    picks: readonly Pick[],
    readonly fraction = 0.1,
    seed = 1,
  ) {
    const rig = ik.rig!;
    this._reader = new PoseReader(rig);
    const rnd = random(seed);
    this._axes = picks.map(() => new Vector3(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize());
    this.points = picks.map(() => new Vector3());
    for (const pick of picks) {
      const j = ik.jointIndex(pick.joint);
      this.joints.push(j);
    }
    // Targets must exist before the first solve: set them to the current pose, then set the behavior's.
    this._update();
    picks.forEach((pick, i) =>
      ik.setTarget(
        pick.joint,
        this.points[i],
        pick.chainLength === undefined ? {} : { chainLength: pick.chainLength },
      ),
    );
    for (let e = 0; e < picks.length; e++) this.bases.push(chainBase(ik, e));
    this._update();
    // insertFirst: before the behavior's own observer, whatever the order of attaching.
    this._observer = scene.onBeforeRenderObservable.add(() => this._update(), undefined, true);
  }

  dispose(): void {
    this._observer?.remove();
    this._observer = null;
  }

  private _update(): void {
    const reader = this._reader;
    reader.read();
    const rig = this.ik.rig!;
    const pe = new Vector3(),
      pb = new Vector3(),
      pj = new Vector3(),
      pp = new Vector3();
    this.joints.forEach((j, i) => {
      reader.getWorldPositionToRef(j, pe);
      const base = this.bases[i] ?? rig.parents[j];
      reader.getWorldPositionToRef(base, pb);
      let length = 0;
      let bones = 0;
      for (let k = j; k !== base && k >= 0; k = rig.parents[k]) {
        bones++;
        length += Vector3.Distance(
          reader.getWorldPositionToRef(k, pj),
          reader.getWorldPositionToRef(rig.parents[k], pp),
        );
      }
      const arm = pe.subtract(pb);
      const r = arm.length();
      const u = arm.scale(1 / r);
      const d = this._axes[i].subtract(u.scale(Vector3.Dot(this._axes[i], u))).normalize();
      const step = this.fraction * length;
      const theta = 2 * Math.asin(Math.min(1, step / (2 * r)));
      // A chain of several bones stretched nearly straight by the animation is pulled in to 97 % of its
      // reach: FABRIK crawls in the last percent of reach (every variant does), which is not under test here.
      const radius = bones > 1 ? Math.min(r, 0.97 * length) : r;
      this.points[i].copyFrom(
        pb.add(u.scale(radius * Math.cos(theta)).add(d.scale(radius * Math.sin(theta)))),
      );
    });
  }
}

/** The joint effector `e`'s chain hangs from: its plan's chain length above the effector. */
export function chainBase(ik: FabrikBehavior, e: number): number {
  const plan = ik.plan!;
  let b = plan.effectorJoints[e];
  for (let k = 0; k < plan.chainLengths[e]; k++) b = ik.rig!.parents[b];
  return b;
}

/** Scale of the model root's world matrix (uniform part): world length per model length. */
export function worldScale(reader: PoseReader): number {
  const m = reader.modelToWorld;
  const det =
    m[0] * (m[5] * m[10] - m[6] * m[9]) -
    m[1] * (m[4] * m[10] - m[6] * m[8]) +
    m[2] * (m[4] * m[9] - m[5] * m[8]);
  return Math.cbrt(Math.abs(det));
}

/** Attaches a behavior to the glTF root with the options, after disposing any left by an earlier test. */
export function attach(loaded: Loaded, options: FabrikBehaviorOptions = {}): FabrikBehavior {
  const ik = new FabrikBehavior(options);
  loaded.root.addBehavior(ik, true);
  return ik;
}

/** Stops every animation group but the first, which plays from its start, looping. */
export function playFirstAnimation(scene: Scene): void {
  scene.useConstantAnimationDeltaTime = true;
  for (const group of scene.animationGroups) group.stop();
  scene.animationGroups[0]?.start(true);
}

/**
 * Heap bytes `work` leaves per call, the least of up to eight runs of 10,000 calls after a collection (a
 * collection during a run only lowers it; one allocation per call would leave at least 16 bytes). Warm the
 * code up first: V8 boxes numbers in code it has not optimised yet.
 */
export function leastBytesPerCall(work: () => void): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  let best = Infinity;
  for (let run = 0; run < 8 && best > 0.1; run++) {
    gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 10_000; i++) work();
    best = Math.min(best, (process.memoryUsage().heapUsed - before) / 10_000);
  }
  return best;
}
