// Straight limbs at a hinge limit (issue 18, item 4): the T-pose arm and the leg with lowered hips, exactly as
// the issue gives them, and random reachable targets of that arm from limit-respecting joint values.
import {
  createJointLimits,
  createRig,
  projectRotation,
  setJointLimit,
  type JointLimits,
  type Pose,
  type Rig,
} from "../../../plugin/index.js";
import { random } from "../fixtures.js";
import { axisAngle, mul } from "../limitChecks.js";
import { forwardKinematics, point, type Quat, type Vec3 } from "./kinematics.js";
import type { IkCase } from "./ikCase.js";

export interface Limb {
  readonly rig: Rig;
  readonly limits: JointLimits;
  /** The effector (hand, foot), moved with a chain of 2 bones. */
  readonly effector: number;
  readonly reach: number;
}

const ELBOW_AXIS: Vec3 = [0, -1, 0];
const ELBOW_MAX = 2.618;

/** The T-pose arm along +X (character facing +Z): chest, upperArm, forearm, hand; the elbow straight at 0. */
export function tPoseArm(): Limb {
  const rig = createRig({
    parents: [-1, 0, 1, 2],
    restPositions: [0, 0, 0, 0.15, 0, 0, 0.4, 0, 0, 0.62, 0, 0],
    names: ["chest", "upperArm", "forearm", "hand"],
  });
  const limits = createJointLimits(rig);
  setJointLimit(limits, 1, {
    swing: { up: 2.12, right: 1.97, down: 0.76, left: 1.69, upAxis: [0, 0, 1] },
    twist: { min: -1.396, max: 1.396 },
  });
  setJointLimit(limits, 2, { hinge: { axis: ELBOW_AXIS, min: 0, max: ELBOW_MAX } });
  return { rig, limits, effector: 3, reach: 0.47 };
}

/** The arm's pose for an upperArm rotation Δ and an elbow angle. */
export function armPose(arm: Limb, upperArm: Quat, elbow: number): Pose {
  return forwardKinematics(arm.rig, [undefined, upperArm, axisAngle(ELBOW_AXIS, elbow)]);
}

/** The reproducer: reachable (upperArm turned by the quaternion below, elbow 0.8256), tolerance 1e-4. */
export function tPoseArmReproducer(): IkCase {
  const arm = tPoseArm();
  return {
    label: "T-pose arm, target (0.58002, -0.02352, -0.00518)",
    rig: arm.rig,
    limits: arm.limits,
    effector: arm.effector,
    chainLength: 2,
    start: forwardKinematics(arm.rig, []),
    target: Float64Array.of(0.58002, -0.02352, -0.00518),
    settings: { tolerance: 1e-4, maxIterations: 200 },
    scale: arm.reach,
  };
}

/** The upperArm rotation and elbow angle the issue gives for the reproducer's target. */
export const T_POSE_ARM_SOLUTION = {
  upperArm: [-0.11501, 0.19886, -0.04928, 0.97201] as Quat,
  elbow: 0.8256,
};

/**
 * A random upperArm rotation within its limits: a swing toward a uniform direction up to the cone's widest
 * side times a twist about the bone, kept only when the limits leave it unchanged (rejection sampling, so the
 * interior is covered and not only the boundary a projection would pile samples on).
 */
function randomShoulder(limits: JointLimits, rand: () => number): Quat {
  const scratch = new Float64Array(16);
  const q = new Float64Array(4);
  for (;;) {
    const swingAngle = Math.acos(1 - (1 - Math.cos(2.12)) * rand());
    const azimuth = 2 * Math.PI * rand();
    // The bone is +X: a swing axis perpendicular to it.
    const swing = axisAngle([0, Math.cos(azimuth), Math.sin(azimuth)], swingAngle);
    const twist = axisAngle([1, 0, 0], 1.396 * (2 * rand() - 1));
    const delta = mul(swing, twist);
    q.set(delta);
    if (!projectRotation(limits, 1, q, 0, scratch, 0)) return delta;
  }
}

/**
 * `count` reachable targets of the T-pose arm from random limit-respecting upperArm swing/twist and elbow
 * angles (bending the anatomical way, 0 to 2.618), each solved from the T-pose at default settings.
 */
export function tPoseArmCases(count: number, seed: number): IkCase[] {
  const arm = tPoseArm();
  const rand = random(seed);
  const start = forwardKinematics(arm.rig, []);
  return Array.from({ length: count }, (_, i) => {
    const witness = armPose(arm, randomShoulder(arm.limits, rand), ELBOW_MAX * rand());
    return {
      label: `T-pose arm seed ${seed} #${i}`,
      rig: arm.rig,
      limits: arm.limits,
      effector: arm.effector,
      chainLength: 2,
      start,
      target: point(witness, arm.effector),
      settings: {},
      scale: arm.reach,
      witness,
    };
  });
}

const SPLAY = (3 * Math.PI) / 180;
const KNEE_AXIS: Vec3 = [1, 0, 0];

/**
 * A left leg under a pelvis at (0, 1, 0): hip, knee, foot; thigh 0.45 and shin 0.42, straight and splayed 3°
 * sideways (+X); hip cone 1.2 rad, twist ±0.7; the knee folds the shin backward (-Z, the character faces +Z).
 */
export function splayedLeg(): Limb {
  const dx = Math.sin(SPLAY),
    dy = -Math.cos(SPLAY);
  const hip: Vec3 = [0.1, 0.95, 0];
  const knee: Vec3 = [hip[0] + 0.45 * dx, hip[1] + 0.45 * dy, 0];
  const foot: Vec3 = [knee[0] + 0.42 * dx, knee[1] + 0.42 * dy, 0];
  const rig = createRig({
    parents: [-1, 0, 1, 2],
    restPositions: [0, 1, 0, ...hip, ...knee, ...foot],
    names: ["pelvis", "hip", "knee", "foot"],
  });
  const limits = createJointLimits(rig);
  setJointLimit(limits, 1, {
    swing: { up: 1.2, right: 1.2, down: 1.2, left: 1.2 },
    twist: { min: -0.7, max: 0.7 },
  });
  setJointLimit(limits, 2, { hinge: { axis: KNEE_AXIS, min: 0, max: 2.618 } });
  return { rig, limits, effector: 3, reach: 0.87 };
}

/**
 * The leg: hips lowered 10 cm with the foot kept in place (the target is the foot's rest position),
 * starting straight (`kneeDegrees` 0) or with the knee bent; default settings.
 */
export function loweredHipsLeg(kneeDegrees: number): IkCase {
  const leg = splayedLeg();
  const bent = forwardKinematics(leg.rig, [
    undefined,
    undefined,
    axisAngle(KNEE_AXIS, (kneeDegrees * Math.PI) / 180),
  ]);
  for (let j = 0; j < leg.rig.jointCount; j++) bent.positions[3 * j + 1] -= 0.1;
  return {
    label: `leg, hips lowered 10 cm, knee bent ${kneeDegrees}°`,
    rig: leg.rig,
    limits: leg.limits,
    effector: leg.effector,
    chainLength: 2,
    start: bent,
    target: leg.rig.restPositions.slice(9, 12),
    settings: {},
    scale: leg.reach,
  };
}
