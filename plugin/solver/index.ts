export { FabrikError } from "./errors.js";
export { createRig, findJoint, type Rig, type RigDescription } from "./rig.js";
export { createPose, copyPose, type Pose } from "./pose.js";
export {
  copyJointLimits,
  createJointLimits,
  isJointLimitsShared,
  markJointLimitsShared,
  setJointLimit,
  type HingeLimitSpec,
  type JointLimitSpec,
  type JointLimits,
  type PivotLimitSpec,
  type StretchLimitSpec,
  type SwingLimitSpec,
  type TwistLimitSpec,
  type UniversalLimitSpec,
  type Vector3Tuple,
} from "./limits.js";
export { projectRotation } from "./jointLimitProjection.js";
export { fitJointLimit, widenJointLimit, type LimitFitOptions } from "./limitFitting.js";
export {
  compilePlan,
  setEffectorWeight,
  setPlanLimits,
  type EffectorSpec,
  type PlanChain,
  type PlanOptions,
  type SolvePlan,
  type SolveReport,
} from "./plan.js";
export type { ContinuumSectionSpec } from "./continuumSections.js";
export { createSolveWorkspace, type SolveWorkspace } from "./workspace.js";
export { solvePlan } from "./fabrik.js";
export { DEFAULT_MAX_ITERATIONS, DEFAULT_TOLERANCE, type SolveSettings } from "./solveSettings.js";
