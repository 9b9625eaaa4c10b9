// Engine-free character knowledge (humanoid roles and joint names, the limit preset, the body frame, the
// joint tree, forward kinematics and leg geometry), robot arms from DH tables and parallel mechanisms:
// re-exports only. The layers above import the rig from here.
export {
  HUMANOID_ROLES,
  type HumanoidRole,
  type HumanoidRoleInput,
  type HumanoidRoles,
} from "./humanoidRoles.js";
export { findHumanoidRoles } from "./findHumanoidRoles.js";
export {
  parseJointName,
  splitJointName,
  type BodyPart,
  type JointNameParts,
  type Side,
} from "./jointNames.js";
export { isAncestor, jointChildren, jointDepths, lowestCommonAncestor } from "./jointTree.js";
export { humanoidLimitPreset, type HumanoidLimitPresetOptions } from "./humanoidLimits.js";
export { RANGES as HUMANOID_RANGES } from "./humanoidRanges.js";
export { findBodyFrame, type BodyFrame } from "./bodyFrame.js";
export { forwardKinematics, toJointSpace } from "./forwardKinematics.js";
export { controlFootShin, footShin, type FootShinRig, type LegPose } from "./footShin.js";
export {
  animatedKnee,
  KNEE_ANIMATED,
  KNEE_BEND,
  KNEE_END,
  KNEE_FOOT_LOCAL,
  KNEE_GOAL,
  KNEE_HINGE,
  KNEE_HIP,
  KNEE_MAX,
  KNEE_MIN,
  KNEE_OUT,
  KNEE_REACH,
  KNEE_SHIN,
  KNEE_SHIN_OUT,
  KNEE_SLOTS,
  kneeReach,
  placeKnee,
  restBendAxis,
} from "./shinEnd.js";
export {
  copy,
  normalize3,
  quatAxisAngle,
  quatConjugateMultiply,
  quatFromUnitVectors,
  quatMultiply,
  quatMultiplyConjugate,
  quatRotate,
  quatRotateInverse,
  quaternionToRows,
  quatScaleAngle,
  rowsToQuaternion,
  slerpDirection,
  transformDirection,
  transformPoint,
} from "./arrayMath.js";
export { type DHConvention, type DHJointType, type DHOptions, type DHRow, type DHTable } from "./dhTable.js";
export { createRigFromDH, DH_SEPARATION, type DHArm } from "./dhRig.js";
export type { DHLayout } from "./dhFrames.js";
export { dhEffectors, dhForwardKinematics, dhTargets, readDHJointValues } from "./dhJoints.js";
export { createPlatformPose, type PlatformPose } from "./platformPose.js";
export {
  PLATFORM_MAX_ITERATIONS,
  PLATFORM_TOLERANCE,
  type PlatformSolveOptions,
  type PlatformSolveReport,
} from "./platformPasses.js";
export {
  createStewartPlatform,
  STEWART_LEGS,
  type StewartPlatform,
  type StewartPlatformOptions,
} from "./stewartPlatform.js";
export {
  stewartForwardKinematics,
  stewartInverseKinematics,
  stewartNearestReachable,
} from "./stewartKinematics.js";
export { createDeltaRobot, type DeltaRobot, type DeltaRobotOptions } from "./deltaRobot.js";
export { deltaForwardKinematics, deltaInverseKinematics } from "./deltaKinematics.js";
