// Shared pieces for the TrackedBody tests (not a test file): the mannequin standing in its rest pose, trackers
// written per frame, frames run by hand, and measurements of the pose solved in the frame.
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { TrackedBody } from "../../plugin/helpers/trackedBody.js";
import type { TrackedBodyOptions } from "../../plugin/helpers/trackedBodyOptions.js";
import { OWN_CHARACTERS, loadCharacter, type Character, type Loaded } from "../babylon/characters.js";
import { attach } from "../babylon/fabrikHarness.js";
import { ballOf } from "../bench/trackedClips.js";

export const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;

/** Tracker poses for one frame. Left is world −X on the mannequin (glTF's mirrored root), forward +Z. */
export interface Pose3 {
  head: Vector3;
  headRotation?: Quaternion;
  left: Vector3;
  right: Vector3;
  leftRotation?: Quaternion;
  rightRotation?: Quaternion;
}

export interface Measured {
  /** World positions of every joint in the solved frame. */
  readonly world: Vector3[];
  /** World positions of the balls of the feet (left, right): where a planted foot stays as its heel lifts. */
  readonly balls: [Vector3, Vector3];
  readonly stepping: [boolean, boolean];
}

export class TrackedRig {
  readonly reader: PoseReader;
  readonly j: Record<string, number>;
  private constructor(
    readonly loaded: Loaded,
    readonly ik: FabrikBehavior,
    readonly body: TrackedBody,
  ) {
    this.reader = new PoseReader(ik.rig!);
    const roles = ik.roles as Record<string, number>;
    this.j = { ...roles };
  }

  static async create(options: TrackedBodyOptions = {}, animated = false): Promise<TrackedRig> {
    const loaded = await loadCharacter(mannequin);
    const ik = attach(loaded);
    for (const g of loaded.scene.animationGroups) g.stop();
    if (animated) loaded.scene.getAnimationGroupByName("Idle")!.start(true);
    loaded.scene.render();
    const body = new TrackedBody(ik, { autoUpdate: false, ...options });
    return new TrackedRig(loaded, ik, body);
  }

  /** World positions of every joint as the nodes are now. */
  positions(): Vector3[] {
    this.reader.read();
    const out: Vector3[] = [];
    for (let j = 0; j < this.ik.rig!.jointCount; j++)
      out.push(this.reader.getWorldPositionToRef(j, new Vector3()));
    return out;
  }

  set(p: Pose3): void {
    const b = this.body;
    b.head.position.copyFrom(p.head);
    b.head.rotation.copyFrom(p.headRotation ?? Quaternion.Identity());
    b.leftHand.position.copyFrom(p.left);
    b.rightHand.position.copyFrom(p.right);
    b.leftHand.rotation.copyFrom(p.leftRotation ?? p.headRotation ?? Quaternion.Identity());
    b.rightHand.rotation.copyFrom(p.rightRotation ?? p.headRotation ?? Quaternion.Identity());
  }

  /**
   * Runs `frames` frames at 60 fps; `pose(t)` gives the trackers at time t (s, from this call). `measure` sees
   * each solved frame (before the behavior puts the animation back).
   */
  run(frames: number, pose: (t: number) => Pose3, measure?: (m: Measured, t: number) => void): Measured {
    const scene = this.loaded.scene;
    let last: Measured | undefined;
    for (let i = 1; i <= frames; i++) {
      const t = i / 60;
      this.set(pose(t));
      this.body.update(1 / 60);
      scene.onBeforeRenderObservable.notifyObservers(scene);
      const world = this.positions();
      last = {
        world,
        balls: ballsOf(this.body, this.reader),
        stepping: [this.body.isStepping(0), this.body.isStepping(1)],
      };
      measure?.(last, t);
      scene.onAfterRenderObservable.notifyObservers(scene);
    }
    return last!;
  }

  /**
   * How far the knee of `side` sits behind the hip–ankle line, along the body's forward `forward` (world):
   * positive means inverted. Zero when the leg is straight within 1 cm.
   */
  kneeInversion(world: Vector3[], side: "left" | "right", forward: Vector3): number {
    const hip = world[this.j[`${side}UpperLeg`]],
      knee = world[this.j[`${side}LowerLeg`]],
      ankle = world[this.j[`${side}Foot`]];
    const axis = ankle.subtract(hip).normalize();
    const off = knee.subtract(hip);
    const perp = off.subtract(axis.scale(Vector3.Dot(off, axis)));
    if (perp.length() < 0.01) return 0;
    return -Vector3.Dot(perp, forward);
  }

  dispose(): void {
    this.loaded.engine.dispose();
  }
}

/**
 * `character` loaded with the behavior at default settings, its animations stopped (the rest pose is the
 * animated pose) and a TrackedBody updated by hand. Dispose `loaded.engine` when done.
 */
export async function trackedCharacter(
  character: Character | (() => Loaded),
): Promise<{ loaded: Loaded; ik: FabrikBehavior; body: TrackedBody }> {
  const loaded = typeof character === "function" ? character() : await loadCharacter(character);
  const ik = new FabrikBehavior();
  loaded.root.addBehavior(ik, true);
  for (const g of loaded.scene.animationGroups) g.stop();
  loaded.scene.render();
  return { loaded, ik, body: new TrackedBody(ik, { autoUpdate: false }) };
}

export function finite(world: Vector3[]): boolean {
  return world.every((p) => Number.isFinite(p.x) && Number.isFinite(p.y) && Number.isFinite(p.z));
}

/** The balls of the feet in world space, from the reader's last read (see `ballOf`). */
export function ballsOf(body: TrackedBody, reader: PoseReader): [Vector3, Vector3] {
  return [ballOf(body.body, reader, 0), ballOf(body.body, reader, 1)];
}

export const yaw = (a: number): Quaternion => Quaternion.RotationAxis(Vector3.Up(), a);
export const pitch = (a: number): Quaternion => Quaternion.RotationAxis(Vector3.Right(), a);

/**
 * The body's rest frame (forward, up, left) in world space, through the model-to-world matrix `m` (Babylon's
 * layout): where the trackers of a body standing as at rest face.
 */
export function bodyDirections(
  body: TrackedBody,
  m: Float64Array,
): { forward: Vector3; up: Vector3; left: Vector3 } {
  const f = body.body.frame;
  const dir = (o: number) =>
    new Vector3(
      f[o] * m[0] + f[o + 1] * m[4] + f[o + 2] * m[8],
      f[o] * m[1] + f[o + 1] * m[5] + f[o + 2] * m[9],
      f[o] * m[2] + f[o + 1] * m[6] + f[o + 2] * m[10],
    ).normalize();
  return { forward: dir(0), up: dir(3), left: dir(6) };
}
