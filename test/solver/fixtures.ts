import {
  createJointLimits,
  createRig,
  setJointLimit,
  type JointLimits,
  type Pose,
  type Rig,
  type SolvePlan,
} from "../../plugin/index.js";

/** A straight chain of `bones` bones of length `boneLength` along +Y from the origin. */
export function straightChain(bones: number, boneLength = 1): Rig {
  const parents: number[] = [];
  const positions: number[] = [];
  for (let i = 0; i <= bones; i++) {
    parents.push(i - 1);
    positions.push(0, i * boneLength, 0);
  }
  return createRig({ parents, restPositions: positions, names: parents.map((_, i) => `j${i}`) });
}

/** A chain that zig-zags a little in the XY plane, so it starts bent (the common case for real limbs). */
export function bentChain(bones: number, boneLength = 1, angle = 0.2): Rig {
  const parents: number[] = [-1];
  const positions: number[] = [0, 0, 0];
  let x = 0,
    y = 0;
  for (let i = 1; i <= bones; i++) {
    const a = i % 2 === 0 ? angle : -angle;
    x += boneLength * Math.sin(a);
    y += boneLength * Math.cos(a);
    parents.push(i - 1);
    positions.push(x, y, 0);
  }
  return createRig({ parents, restPositions: positions });
}

/**
 * A Y-shaped body as in the FABRIK paper: a trunk of `trunk` bones up from the root, then two arms of
 * `arm` bones each, spreading left and right from the top of the trunk (the sub-base).
 */
export function yTree(trunk = 4, arm = 3): Rig {
  const parents: number[] = [];
  const positions: number[] = [];
  const names: string[] = [];
  for (let i = 0; i <= trunk; i++) {
    parents.push(i - 1);
    positions.push(0, i, 0);
    names.push(`trunk${i}`);
  }
  const top = trunk;
  for (const side of [-1, 1]) {
    let parent = top;
    for (let i = 1; i <= arm; i++) {
      parents.push(parent);
      positions.push(side * i * 0.8, trunk + i * 0.6, 0);
      names.push(`${side < 0 ? "left" : "right"}${i}`);
      parent = parents.length - 1;
    }
  }
  return createRig({ parents, restPositions: positions, names });
}

/**
 * A hand: forearm root, wrist, a palm joint, then five fingers of three bones each (metacarpal base plus
 * three phalanges), fanned out in the XY plane. Fingertips are named `thumb3`, `index3`, ...
 */
export function hand(): Rig {
  const parents = [-1, 0, 1];
  const positions = [0, 0, 0, 0, 2, 0, 0, 2.8, 0];
  const names = ["forearm", "wrist", "palm"];
  const fingers = ["thumb", "index", "middle", "ring", "pinky"];
  fingers.forEach((finger, f) => {
    const spread = (f - 2) * 0.35;
    const dx = Math.sin(spread),
      dy = Math.cos(spread);
    let parent = 2;
    for (let s = 1; s <= 3; s++) {
      parents.push(parent);
      const r = 0.4 + s * 0.35;
      positions.push(dx * r, 2.8 + dy * r, 0.05 * s);
      names.push(`${finger}${s}`);
      parent = parents.length - 1;
    }
  });
  return createRig({ parents, restPositions: positions, names });
}

export function distance(p: Float64Array, i: number, q: ArrayLike<number>, j: number): number {
  return Math.hypot(p[3 * i] - q[3 * j], p[3 * i + 1] - q[3 * j + 1], p[3 * i + 2] - q[3 * j + 2]);
}

export function boneLengths(rig: Rig, positions: Float64Array): Float64Array {
  const out = new Float64Array(rig.jointCount);
  for (let i = 0; i < rig.jointCount; i++) {
    const p = rig.parents[i];
    if (p >= 0) out[i] = distance(positions, i, positions, p);
  }
  return out;
}

export function chainReach(rig: Rig, tip: number, bones = Infinity): number {
  let reach = 0;
  for (let j = tip, k = 0; rig.parents[j] >= 0 && k < bones; j = rig.parents[j], k++)
    reach += rig.restLengths[j];
  return reach;
}

/** Deterministic PRNG (mulberry32) so generated cases are reproducible. */
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

/** A uniformly random point inside a ball. */
export function randomInBall(rand: () => number, radius: number, out: Float64Array, offset = 0): void {
  for (;;) {
    const x = 2 * rand() - 1,
      y = 2 * rand() - 1,
      z = 2 * rand() - 1;
    if (x * x + y * y + z * z > 1) continue;
    out[offset] = x * radius;
    out[offset + 1] = y * radius;
    out[offset + 2] = z * radius;
    return;
  }
}

/** A pose around existing positions, with the rig's rest orientations (any unit orientations are consistent). */
export function poseFrom(plan: SolvePlan, positions: Float64Array): Pose {
  return { positions, orientations: plan.rig.restOrientations.slice() };
}

type Quat = [number, number, number, number];
function qmul(a: Quat, b: Quat): Quat {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}
function qconj(a: Quat): Quat {
  return [-a[0], -a[1], -a[2], a[3]];
}
function qrot(q: Quat, v: [number, number, number]): [number, number, number] {
  const r = qmul(qmul(q, [v[0], v[1], v[2], 0]), qconj(q));
  return [r[0], r[1], r[2]];
}

/**
 * Forward kinematics of the rig's rest pose with every joint's local rotation turned by a random rotation
 * of up to `maxAngle` radians: a pose the rig can really take, whose joint positions are reachable targets.
 */
export function randomPose(rig: Rig, seed: number, maxAngle: number): Pose {
  const rand = random(seed);
  const n = rig.jointCount;
  const positions = new Float64Array(3 * n);
  const orientations = new Float64Array(4 * n);
  const q = (j: number): Quat => [
    rig.restOrientations[4 * j],
    rig.restOrientations[4 * j + 1],
    rig.restOrientations[4 * j + 2],
    rig.restOrientations[4 * j + 3],
  ];
  const out: Quat[] = [];
  for (let j = 0; j < n; j++) {
    let axis: [number, number, number];
    do axis = [2 * rand() - 1, 2 * rand() - 1, 2 * rand() - 1];
    while (Math.hypot(...axis) < 0.1 || Math.hypot(...axis) > 1);
    const l = Math.hypot(...axis),
      angle = maxAngle * rand();
    const turn: Quat = [
      (axis[0] / l) * Math.sin(angle / 2),
      (axis[1] / l) * Math.sin(angle / 2),
      (axis[2] / l) * Math.sin(angle / 2),
      Math.cos(angle / 2),
    ];
    const p = rig.parents[j];
    if (p < 0) {
      out.push(q(j));
      positions.set(rig.restPositions.subarray(3 * j, 3 * j + 3), 3 * j);
    } else {
      const restLocal = qmul(qconj(q(p)), q(j));
      out.push(qmul(out[p], qmul(restLocal, turn)));
      const offset = qrot(qconj(q(p)), [
        rig.restPositions[3 * j] - rig.restPositions[3 * p],
        rig.restPositions[3 * j + 1] - rig.restPositions[3 * p + 1],
        rig.restPositions[3 * j + 2] - rig.restPositions[3 * p + 2],
      ]);
      const w = qrot(out[p], offset);
      positions[3 * j] = positions[3 * p] + w[0];
      positions[3 * j + 1] = positions[3 * p + 1] + w[1];
      positions[3 * j + 2] = positions[3 * p + 2] + w[2];
    }
    orientations.set(out[j], 4 * j);
  }
  return { positions, orientations };
}

/**
 * The humanoid arm of the limit tests: shoulder cone, elbow hinge, wrist cone, in a T-pose along +X (the
 * character faces +Z, "up" is +Y). Joints: upperArm, lowerArm, hand, palm, fingertips.
 */
export function limitedHumanoidArm(): { rig: Rig; limits: JointLimits } {
  const rig = createRig({
    parents: [-1, 0, 1, 2, 3],
    restPositions: [0.18, 1.45, 0, 0.46, 1.45, 0, 0.72, 1.45, 0, 0.8, 1.45, 0, 0.88, 1.45, 0],
    names: ["upperArm", "lowerArm", "hand", "palm", "fingertips"],
  });
  const limits = createJointLimits(rig);
  setJointLimit(limits, 0, {
    swing: { up: 1.5, right: 1.6, down: 1.4, left: 0.6, upAxis: [0, 1, 0] },
    twist: { min: -1.2, max: 1.2 },
  });
  // The elbow folds the forearm forward (+X toward +Z): a rotation about -Y, never backward.
  setJointLimit(limits, 1, { hinge: { axis: [0, -1, 0], min: 0, max: 2.5 } });
  setJointLimit(limits, 2, {
    swing: { up: 0.5, right: 1, down: 0.5, left: 1, upAxis: [0, 1, 0] },
    twist: { min: -0.3, max: 0.3 },
  });
  return { rig, limits };
}

/** A pose of its own with the same numbers (a solve works in place). */
export function clonePose(pose: Pose): Pose {
  return { positions: pose.positions.slice(), orientations: pose.orientations.slice() };
}
