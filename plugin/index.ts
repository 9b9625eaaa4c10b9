// The public API of babylon-fabrik: re-exports only.
export * from "./solver/index.js";
export {
  humanoidLimitPreset,
  type HumanoidLimitPresetOptions,
  findHumanoidRoles,
  HUMANOID_ROLES,
  type HumanoidRole,
  type HumanoidRoleInput,
  type HumanoidRoles,
} from "./rig/index.js";
export {
  FabrikBehavior,
  type FabrikBehaviorOptions,
  type FabrikJoint,
  type FabrikLimitPreset,
  type FabrikBeforeSolveEvent,
  type FabrikSolvedEvent,
  type FabrikStage,
  type FabrikTargetInfo,
  type FabrikTargetOptions,
  type TargetSource,
  type QuaternionLike,
  type Vector3Like,
  type WritableVector3,
  fitLimitsToAnimations,
  type AnimationLimitFit,
  buildSkeletonRig,
  buildSkeletonRigs,
  discoverEndEffectors,
  PoseReader,
  type EndEffectorInfo,
  type SkeletonRig,
  type SkeletonRigOptions,
} from "./babylon/index.js";
export {
  FabrikDebugView,
  FABRIK_DEBUG_COLORS,
  type FabrikDebugViewOptions,
  type FabrikDebugStats,
  inspectorPrefix,
  installFabrikInspector,
  getSelectedJoint,
  setSelectedJoint,
} from "./tools/index.js";
export * from "./helpers/index.js";
