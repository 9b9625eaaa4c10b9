// Serial revolute arms (every joint a hinge), planar and with twisted axes as in Denavit–Hartenberg tables,
// and reachable targets for them from random joint values through forward kinematics.
import {
  createJointLimits,
  createRig,
  setJointLimit,
  type JointLimits,
  type Pose,
  type Rig,
} from "../../../plugin/index.js";
import { random } from "../fixtures.js";
import { axisAngle } from "../limitChecks.js";
import { forwardKinematics, point, type Vec3 } from "./kinematics.js";
import type { IkCase } from "./ikCase.js";

/** Relative tolerance of the arm tables: a solve counts as solved within 1e-3 of the arm's reach. */
export const ARM_TOLERANCE = 1e-3;

export interface RevoluteArm {
  readonly rig: Rig;
  readonly limits: JointLimits;
  /** Hinge axis of each moving joint (all but the tip), in model space at rest. */
  readonly axes: readonly Vec3[];
  /** Each hinge turns within [-range, range] from the straight rest pose. */
  readonly range: number;
  readonly reach: number;
}

/**
 * An arm of `lengths.length` links, straight along +X at rest (all joint values 0), joint i turning link i
 * about its axis. As in a DH table with zero offsets, link i's twist α_i turns the next joint's axis about
 * the link (X): joint 0's axis is +Z, joint i's is +Z turned by α_0 + … + α_(i-1) about X. All twists 0
 * give a planar arm.
 */
export function revoluteArm(
  lengths: readonly number[],
  twists: readonly number[],
  range: number,
): RevoluteArm {
  const n = lengths.length;
  const parents: number[] = [];
  const positions: number[] = [];
  let x = 0;
  for (let i = 0; i <= n; i++) {
    parents.push(i - 1);
    positions.push(x, 0, 0);
    if (i < n) x += lengths[i];
  }
  const rig = createRig({ parents, restPositions: positions, names: parents.map((_, i) => `joint${i}`) });
  const limits = createJointLimits(rig);
  const axes: Vec3[] = [];
  let beta = 0;
  for (let i = 0; i < n; i++) {
    const axis: Vec3 = [0, -Math.sin(beta), Math.cos(beta)];
    axes.push(axis);
    setJointLimit(limits, i, { hinge: { axis, min: -range, max: range } });
    beta += twists[i] ?? 0;
  }
  return { rig, limits, axes, range, reach: x };
}

/** A planar arm: every axis +Z. */
export function planarArm(lengths: readonly number[], range = Math.PI / 2): RevoluteArm {
  return revoluteArm(lengths, [], range);
}

/** Links 0.5–1.5 long, twists uniform in [-π/2, π/2] (α and α + π give the same arm up to joint signs). */
export function randomTwistedArm(rand: () => number, links: number, range: number): RevoluteArm {
  const lengths: number[] = [];
  const twists: number[] = [];
  for (let i = 0; i < links; i++) {
    lengths.push(0.5 + rand());
    twists.push(Math.PI * (rand() - 0.5));
  }
  return revoluteArm(lengths, twists, range);
}

/** Random lengths 0.5–1.5, all axes parallel. */
export function randomPlanarArm(rand: () => number, hinges: number, range = Math.PI / 2): RevoluteArm {
  const lengths: number[] = [];
  for (let i = 0; i < hinges; i++) lengths.push(0.5 + rand());
  return planarArm(lengths, range);
}

/** The arm's pose for the given joint values. */
export function armPose(arm: RevoluteArm, angles: readonly number[]): Pose {
  return forwardKinematics(
    arm.rig,
    arm.axes.map((axis, i) => axisAngle(axis, angles[i])),
  );
}

/** A pose at joint values drawn uniformly within each hinge's range: its tip is a reachable target. */
export function randomArmPose(arm: RevoluteArm, rand: () => number): Pose {
  return armPose(
    arm,
    arm.axes.map(() => arm.range * (2 * rand() - 1)),
  );
}

/**
 * A solve of the arm's tip toward `target`, or toward the tip of the pose `witness`, from the straight rest
 * pose, to 1e-3 of its reach.
 */
export function armCase(arm: RevoluteArm, to: Float64Array | Pose, label: string): IkCase {
  const tip = arm.axes.length;
  const witness = to instanceof Float64Array ? undefined : to;
  const target = witness === undefined ? (to as Float64Array) : point(witness, tip);
  return {
    label,
    witness,
    rig: arm.rig,
    limits: arm.limits,
    effector: tip,
    start: forwardKinematics(arm.rig, []),
    target,
    settings: { tolerance: ARM_TOLERANCE * arm.reach },
    scale: arm.reach,
  };
}

/** `count` targets of one fixed planar arm (the 3-hinge arm: links 4, 4, 4, ±90°). */
export function fixedPlanarArmCases(lengths: readonly number[], count: number, seed: number): IkCase[] {
  const arm = planarArm(lengths);
  const rand = random(seed);
  return Array.from({ length: count }, (_, i) =>
    armCase(arm, randomArmPose(arm, rand), `planar ${lengths.join(",")} #${i}`),
  );
}

/** `count` planar arms of `hinges` hinges with random link lengths, one reachable target each. */
export function randomPlanarArmCases(hinges: number, count: number, seed: number): IkCase[] {
  const rand = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const arm = randomPlanarArm(rand, hinges);
    return armCase(arm, randomArmPose(arm, rand), `planar ${hinges}-hinge seed ${seed} #${i}`);
  });
}

/** `count` arms of `links` links with random twists and lengths, hinges within ±range, one target each. */
export function twistedArmCases(links: number, range: number, count: number, seed: number): IkCase[] {
  const rand = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const arm = randomTwistedArm(rand, links, range);
    return armCase(
      arm,
      randomArmPose(arm, rand),
      `twisted ${links}-link ±${range.toFixed(2)} seed ${seed} #${i}`,
    );
  });
}
