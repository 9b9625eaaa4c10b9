import type { Document } from "@gltf-transform/core";
import { sampleClip, type Pose } from "./animation.js";
import { buildCharacter } from "./character.js";
import { X, Z, addScaled, degrees, quatFromAxisAngle, rotate, type Vec3 } from "./math.js";
import { SkeletonBuilder, type Skeleton } from "./skeleton.js";
import { SkinnedMeshBuilder, type Station } from "./skinnedMesh.js";

/**
 * A tentacle of 24 bones rising about 1.45 m from the ground, curling gently toward +Z. Joints are
 * `Tentacle.00` (the root, on the ground) to `Tentacle.24` (the tip); bones shorten and the flesh tapers
 * toward the tip.
 */

export const TENTACLE_BONES = 24;
const FIRST_BONE = 0.1;
const SHORTENING = 0.955;
/** Rest curl per joint, which also tells a solver which way the chain prefers to bend. */
const CURL = degrees(1.2);

const jointName = (i: number) => `Tentacle.${String(i).padStart(2, "0")}`;

function jointPositions(): Vec3[] {
  const points: Vec3[] = [[0, 0, 0]];
  for (let i = 0; i < TENTACLE_BONES; i++) {
    const direction = rotate(quatFromAxisAngle(X, CURL * i), [0, 1, 0]);
    points.push(addScaled(points[i], direction, FIRST_BONE * SHORTENING ** i));
  }
  return points;
}

export function tentacleSkeleton(): Skeleton {
  const b = new SkeletonBuilder();
  jointPositions().forEach((p, i) => b.add(jointName(i), i === 0 ? null : jointName(i - 1), p));
  return b.build();
}

function tentacleMesh(sk: Skeleton) {
  const points = jointPositions();
  const total = points.length - 1;
  const radius = (i: number) => {
    const f = i / total;
    return 0.01 + 0.09 * (1 - f) * (1 - 0.35 * f);
  };
  // A flared foot where it meets the ground, closed flat.
  const stations: Station[] = [
    { at: points[0], radius: 0.135, bone: 0 },
    { at: [0, 0.03, 0], radius: 0.105, bone: 0 },
  ];
  points.slice(1).forEach((p, k) => {
    const i = k + 1;
    stations.push({ at: p, radius: radius(i), bone: sk.index(jointName(Math.min(i, total - 1))) });
  });
  return new SkinnedMeshBuilder()
    .addTube({ stations, sides: 16, side: X, spacing: 0.02, startCap: 0, endCap: radius(total) })
    .build();
}

/** A wave travelling from base to tip, swirling a little sideways as it goes, growing toward the tip. */
function idle(phase: number, p: Pose): void {
  const a = 2 * Math.PI * phase;
  for (let i = 0; i < TENTACLE_BONES; i++) {
    const amplitude = degrees(2 + (5 * i) / (TENTACLE_BONES - 1));
    const wave = a - 0.5 * i;
    p.rotate(jointName(i), X, amplitude * Math.sin(wave)).rotate(
      jointName(i),
      Z,
      0.6 * amplitude * Math.cos(wave),
    );
  }
}

export function buildTentacle(): Document {
  const skeleton = tentacleSkeleton();
  return buildCharacter({
    name: "Tentacle",
    skeleton,
    mesh: tentacleMesh(skeleton),
    color: [0.55, 0.22, 0.45, 1],
    roughness: 0.35,
    clips: [sampleClip(skeleton, "Idle", { duration: 3 }, idle)],
  });
}
