// The public API of babylon-fabrik: re-exports only.
export * from "./solver/index.js";
export {
  FabrikBehavior,
  type FabrikBehaviorOptions,
  type FabrikJoint,
  type FabrikLimitPreset,
  type FabrikSolvedEvent,
  type FabrikStage,
  type FabrikTargetOptions,
  type TargetSource,
  humanoidLimitPreset,
  buildSkeletonRig,
  buildSkeletonRigs,
  discoverEndEffectors,
  findHumanoidRoles,
  HUMANOID_ROLES,
  PoseReader,
  type EndEffectorInfo,
  type HumanoidRole,
  type HumanoidRoles,
  type SkeletonRig,
  type SkeletonRigOptions,
} from "./babylon/index.js";
