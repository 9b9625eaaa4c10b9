import type { Buffer, Document, Node } from "@gltf-transform/core";
import {
  add,
  conjugate,
  mulQuat,
  normalizeQuat,
  quatFromAxisAngle,
  rotate,
  type Quat,
  type Vec3,
} from "./math.js";
import type { Skeleton } from "./skeleton.js";

/**
 * One key's pose, authored as offsets from the rest pose. Axes and offsets are model-space directions
 * *as they are in the rest pose*; each is carried into the joint's parent frame, so a knee's axis stays
 * fixed to the thigh however the thigh moves, which is how a hinge behaves.
 */
export class Pose {
  private readonly rotations = new Map<number, Quat>();
  private readonly translations = new Map<number, Vec3>();

  constructor(private readonly skeleton: Skeleton) {}

  /** Turns a joint by `angle` (radians, right-handed) about `axis`; calls on one joint compose in order. */
  rotate(joint: string, axis: Vec3, angle: number): this {
    const j = this.skeleton.index(joint);
    const local = rotate(conjugate(this.skeleton.parentRotation(j)), axis);
    this.rotations.set(j, normalizeQuat(mulQuat(quatFromAxisAngle(local, angle), this.rotation(j))));
    return this;
  }

  /** Moves a joint by a model-space offset from its rest position. */
  translate(joint: string, offset: Vec3): this {
    const j = this.skeleton.index(joint);
    const local = rotate(conjugate(this.skeleton.parentRotation(j)), offset);
    this.translations.set(j, add(this.translation(j), local));
    return this;
  }

  rotation(j: number): Quat {
    return this.rotations.get(j) ?? this.skeleton.locals[j].rotation;
  }

  translation(j: number): Vec3 {
    return this.translations.get(j) ?? this.skeleton.locals[j].translation;
  }

  rotatedJoints(): Iterable<number> {
    return this.rotations.keys();
  }

  translatedJoints(): Iterable<number> {
    return this.translations.keys();
  }
}

/** A clip sampled at fixed times: local rotations and translations per animated joint. */
export interface Clip {
  readonly name: string;
  readonly times: readonly number[];
  readonly rotations: ReadonlyMap<number, readonly Quat[]>;
  readonly translations: ReadonlyMap<number, readonly Vec3[]>;
}

export interface ClipTiming {
  /** Seconds. */
  readonly duration: number;
  /** Keys per second. */
  readonly fps?: number;
}

/**
 * Samples `pose(phase, pose)` over one loop. `phase` runs from 0 to 1; the last key is a copy of the
 * first, so the clip loops without a seam. Only joints the function touches get channels: the rest stay
 * unanimated, as in most real clips.
 */
export function sampleClip(
  skeleton: Skeleton,
  name: string,
  timing: ClipTiming,
  pose: (phase: number, p: Pose) => void,
): Clip {
  const keys = Math.round(timing.duration * (timing.fps ?? 30));
  const poses: Pose[] = [];
  const times: number[] = [];
  for (let i = 0; i < keys; i++) {
    const p = new Pose(skeleton);
    pose(i / keys, p);
    poses.push(p);
    times.push((timing.duration * i) / keys);
  }
  poses.push(poses[0]);
  times.push(timing.duration);

  const rotated = new Set<number>();
  const translated = new Set<number>();
  for (const p of poses) {
    for (const j of p.rotatedJoints()) rotated.add(j);
    for (const j of p.translatedJoints()) translated.add(j);
  }
  const rotations = new Map<number, Quat[]>();
  for (const j of [...rotated].sort((a, b) => a - b)) {
    const track: Quat[] = [];
    for (const p of poses) {
      const q = p.rotation(j);
      // Keep neighbouring keys in one hemisphere so interpolation takes the short way round.
      const previous = track[track.length - 1];
      track.push(previous !== undefined && dot4(previous, q) < 0 ? [-q[0], -q[1], -q[2], -q[3]] : q);
    }
    rotations.set(j, track);
  }
  const translations = new Map<number, Vec3[]>();
  for (const j of [...translated].sort((a, b) => a - b)) {
    translations.set(
      j,
      poses.map((p) => p.translation(j)),
    );
  }
  return { name, times, rotations, translations };
}

/** Writes a clip as a glTF animation: linear samplers sharing one time accessor. */
export function writeClip(doc: Document, buffer: Buffer, joints: readonly Node[], clip: Clip): void {
  const animation = doc.createAnimation(clip.name);
  const input = doc
    .createAccessor(`${clip.name}.time`, buffer)
    .setType("SCALAR")
    .setArray(Float32Array.from(clip.times));
  const channel = (
    joint: number,
    path: "rotation" | "translation",
    values: number[],
    type: "VEC3" | "VEC4",
  ) => {
    const node = joints[joint];
    const output = doc
      .createAccessor(`${clip.name}.${node.getName()}.${path}`, buffer)
      .setType(type)
      .setArray(Float32Array.from(values));
    const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation("LINEAR");
    animation.addSampler(sampler);
    animation.addChannel(
      doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler),
    );
  };
  for (const [joint, track] of clip.translations) channel(joint, "translation", track.flat(), "VEC3");
  for (const [joint, track] of clip.rotations) channel(joint, "rotation", track.flat(), "VEC4");
}

function dot4(a: Quat, b: Quat): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}
