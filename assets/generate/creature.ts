import type { Document } from "@gltf-transform/core";
import { sampleClip, type Pose } from "./animation.js";
import { buildCharacter } from "./character.js";
import { X, Y, addScaled, cross, degrees, smoothstep, sub, type Vec3 } from "./math.js";
import { SkeletonBuilder, type Skeleton } from "./skeleton.js";
import { SkinnedMeshBuilder } from "./skinnedMesh.js";

/**
 * A six-legged creature about 1.15 m long, facing +Z: a body, a head, a four-joint tail and six legs that
 * splay out and down to the ground. Leg joints are named `Leg.<side><n>.<part>`: side `L` (+X) or `R`,
 * `n` 1 (front) to 3 (back), part `Hip`, `Knee`, `Ankle` and `Foot` (the tip, on the ground).
 */

const SIDES = [
  { side: "L", s: 1 },
  { side: "R", s: -1 },
] as const;

/** Per leg pair: where the hip sits along the body, and how far the leg turns forward from straight out. */
const PAIRS = [
  { n: 1, z: 0.12, yaw: degrees(40) },
  { n: 2, z: 0, yaw: degrees(5) },
  { n: 3, z: -0.12, yaw: degrees(-35) },
] as const;

/** The tripods of the gait: front and back legs of one side with the middle leg of the other. */
const TRIPOD_A = new Set(["L1", "R2", "L3"]);

interface Leg {
  readonly id: string;
  readonly s: number;
  /** Unit horizontal direction from the body out along the leg. */
  readonly out: Vec3;
  readonly hip: Vec3;
  readonly knee: Vec3;
  readonly ankle: Vec3;
  readonly foot: Vec3;
}

const LEGS: readonly Leg[] = SIDES.flatMap(({ side, s }) =>
  PAIRS.map(({ n, z, yaw }) => {
    const out: Vec3 = [s * Math.cos(yaw), 0, Math.sin(yaw)];
    const hip: Vec3 = [s * 0.09, 0.34, z];
    const knee = addScaled(addScaled(hip, out, 0.2), Y, 0.13);
    const ankle = addScaled(addScaled(knee, out, 0.16), Y, -0.32);
    const foot = addScaled(addScaled(ankle, out, 0.05), Y, -0.138);
    return { id: `${side}${n}`, s, out, hip, knee, ankle, foot };
  }),
);

const TAIL: readonly Vec3[] = [
  [0, 0.36, -0.18],
  [0, 0.35, -0.38],
  [0, 0.31, -0.56],
  [0, 0.26, -0.7],
];
const TAIL_NAMES = ["Tail.1", "Tail.2", "Tail.3", "Tail.End"];

export function creatureSkeleton(): Skeleton {
  const b = new SkeletonBuilder()
    .add("Body", null, [0, 0.36, 0], "Head")
    .add("Head", "Body", [0, 0.38, 0.22])
    .add("Head.End", "Head", [0, 0.37, 0.43]);
  TAIL.forEach((p, i) => b.add(TAIL_NAMES[i], i === 0 ? "Body" : TAIL_NAMES[i - 1], p));
  for (const leg of LEGS) {
    const name = (part: string) => `Leg.${leg.id}.${part}`;
    b.add(name("Hip"), "Body", leg.hip)
      .add(name("Knee"), name("Hip"), leg.knee)
      .add(name("Ankle"), name("Knee"), leg.ankle)
      .add(name("Foot"), name("Ankle"), leg.foot);
  }
  return b.build();
}

function creatureMesh(sk: Skeleton) {
  const j = (name: string) => sk.index(name);
  const mesh = new SkinnedMeshBuilder();
  // Tail tip to head tip in one tube: abdomen, thorax and head blend into each other.
  mesh.addTube({
    stations: [
      { at: TAIL[3], radius: 0.03, bone: j("Tail.3") },
      { at: TAIL[2], radius: 0.06, bone: j("Tail.2") },
      { at: TAIL[1], radius: [0.1, 0.085], bone: j("Tail.1") },
      { at: TAIL[0], radius: [0.1, 0.085], bone: j("Body") },
      { at: [0, 0.36, -0.06], radius: [0.13, 0.1], bone: j("Body") },
      { at: [0, 0.37, 0.1], radius: [0.12, 0.095], bone: j("Body") },
      { at: [0, 0.38, 0.22], radius: [0.06, 0.055], bone: j("Head") },
      { at: [0, 0.38, 0.3], radius: [0.09, 0.075], bone: j("Head") },
      { at: [0, 0.37, 0.38], radius: [0.07, 0.06], bone: j("Head") },
    ],
    sides: 18,
    side: X,
    startCap: 0.03,
    endCap: 0.05,
  });
  for (const leg of LEGS) {
    const bone = (part: string) => j(`Leg.${leg.id}.${part}`);
    mesh.addTube({
      stations: [
        { at: addScaled(leg.hip, leg.out, -0.05), radius: 0.035, bone: j("Body") },
        { at: leg.hip, radius: 0.034, bone: bone("Hip") },
        { at: leg.knee, radius: 0.028, bone: bone("Knee") },
        { at: addScaled(leg.knee, sub(leg.ankle, leg.knee), 0.4), radius: 0.024, bone: bone("Knee") },
        { at: leg.ankle, radius: 0.018, bone: bone("Ankle") },
        { at: leg.foot, radius: 0.01, bone: bone("Ankle") },
      ],
      sides: 10,
      side: cross(leg.out, Y),
      endCap: 0.01,
    });
  }
  return mesh.build();
}

/** Each leg's own phase in the gait: tripod A starts its swing at 0, tripod B half a cycle later. */
function legPhase(leg: Leg, phase: number): number {
  const u = phase + (TRIPOD_A.has(leg.id) ? 0 : 0.5);
  return u - Math.floor(u);
}

/**
 * Tripod gait in place, 1 s: each tripod swings forward (lifted, eased) for half the cycle and pushes
 * back on the ground for the other half at constant speed, so three feet always stand.
 */
function walk(phase: number, p: Pose): void {
  for (const leg of LEGS) {
    const u = legPhase(leg, phase);
    const stride = degrees(14);
    const forward =
      u < 0.5 ? -stride + 2 * stride * smoothstep(u / 0.5) : stride - 2 * stride * ((u - 0.5) / 0.5);
    const lift = u < 0.5 ? Math.sin(Math.PI * (u / 0.5)) : 0;
    // Lift first about the leg's own horizontal axis, then swing about the vertical through the hip.
    const raise = cross(leg.out, Y);
    const name = (part: string) => `Leg.${leg.id}.${part}`;
    p.rotate(name("Hip"), raise, degrees(18) * lift).rotate(name("Hip"), Y, -leg.s * forward);
    p.rotate(name("Knee"), raise, -degrees(12) * lift);
    p.rotate(name("Ankle"), raise, -degrees(8) * lift);
  }
  const a = 2 * Math.PI * phase;
  p.rotate("Head", Y, degrees(4) * Math.sin(a));
  wagTail(p, a, degrees(6));
}

/** Slow tail sway, a look around and a little breathing: a 2 s loop with the feet kept still. */
function idle(phase: number, p: Pose): void {
  const a = 2 * Math.PI * phase;
  p.rotate("Body", X, degrees(0.8) * Math.sin(a));
  p.rotate("Head", Y, degrees(10) * Math.sin(a)).rotate("Head", X, degrees(3) * Math.sin(2 * a));
  wagTail(p, a, degrees(8));
}

/** The tail sways side to side with each joint lagging its parent, so the motion travels to the tip. */
function wagTail(p: Pose, a: number, amplitude: number): void {
  TAIL_NAMES.slice(0, 3).forEach((name, i) => {
    p.rotate(name, Y, amplitude * Math.sin(a - 0.7 * (i + 1)));
  });
}

export function buildCreature(): Document {
  const skeleton = creatureSkeleton();
  return buildCharacter({
    name: "Creature",
    skeleton,
    mesh: creatureMesh(skeleton),
    color: [0.3, 0.42, 0.18, 1],
    roughness: 0.5,
    clips: [
      sampleClip(skeleton, "Idle", { duration: 2 }, idle),
      sampleClip(skeleton, "Walk", { duration: 1 }, walk),
    ],
  });
}
