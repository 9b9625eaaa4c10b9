// The Babylon adapter's discovery and pose-reading layer: re-exports only.
export {
  buildSkeletonRig,
  buildSkeletonRigs,
  type SkeletonRig,
  type SkeletonRigOptions,
} from "./skeletonRig.js";
export {
  findSkeletonGroups,
  findSkinnedMeshes,
  type GroupJoint,
  type SkeletonGroup,
} from "./skeletonGroups.js";
export {
  discoverEndEffectors,
  findEndEffectors,
  findEndSite,
  jointDepths,
  type EndEffectorInfo,
} from "./endEffectors.js";
export {
  findHumanoidRoles,
  HUMANOID_ROLES,
  type HumanoidRole,
  type HumanoidRoleInput,
  type HumanoidRoles,
} from "./humanoidRoles.js";
export {
  parseJointName,
  splitJointName,
  type BodyPart,
  type JointNameParts,
  type Side,
} from "./jointNames.js";
export { isAncestor, jointChildren, lowestCommonAncestor } from "./jointTree.js";
export { PoseReader, type Vector3Like, type WritableVector3 } from "./poseReader.js";
export { forwardKinematics } from "./forwardKinematics.js";
export { invertAffineMatrix, setIdentityMatrix, transformPoint } from "./affineMatrix.js";
export { composeWorldMatrix } from "./worldMatrix.js";
export { WorldMatrixCache } from "./worldMatrixCache.js";
export { fitLimitsToAnimations, type AnimationLimitFit } from "./animationLimits.js";
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
} from "./fabrikBehavior.js";
export type { FabrikFrame, FabrikPass, FabrikPassOptions } from "./fabrikBehavior.js";
export type { FabrikFrameOf, FabrikPassOf, FabrikSolvedEventOf } from "./fabrikFrame.js";
export { FabrikSystem } from "./fabrikSystem.js";
export { FabrikModel, FabrikModelCache } from "./modelCache.js";
export {
  FABRIK_DEBUG_COLORS,
  FabrikDebugView,
  type FabrikDebugStats,
  type FabrikDebugViewOptions,
} from "./debugView.js";
export { inspectorPrefix } from "./inspectorProperties.js";
export { getSelectedJoint, setSelectedJoint } from "./jointSelection.js";
export type { QuaternionLike, TargetSource } from "./targetBinding.js";
export { humanoidLimitPreset } from "./humanoidLimits.js";
