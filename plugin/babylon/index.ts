// The Babylon glue (the behavior, skeleton discovery, pose reading and writing, target binding): re-exports
// only. The layers above (tools/, helpers/) import it from here.
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
export { discoverEndEffectors, findEndEffectors, findEndSite, type EndEffectorInfo } from "./endEffectors.js";
export { deformingJoints } from "./characterHeight.js";
export { PoseReader, type Vector3Like, type WritableVector3 } from "./poseReader.js";
export { invertAffineMatrix, setIdentityMatrix, transformPoint } from "./affineMatrix.js";
export { composeWorldMatrix } from "./worldMatrix.js";
export { WorldMatrixCache } from "./worldMatrixCache.js";
export { quaternionFromArray, vectorFromArray } from "./arrayToBabylon.js";
export { markModelTarget, nodeRotationToModel } from "./targetOrientation.js";
export { fitLimitsToAnimations, type AnimationLimitFit } from "./animationLimits.js";
export { FabrikBehavior } from "./fabrikBehavior.js";
export type { FabrikBeforeSolveEvent, FabrikFrame, FabrikPass, FabrikSolvedEvent } from "./behaviorEvents.js";
export type { FabrikBehaviorOptions, FabrikLimitPreset, FabrikStage } from "./behaviorOptions.js";
export type { FabrikContinuumSection, FabrikContinuumSectionInfo } from "./continuumOptions.js";
export type { FabrikJoint } from "./jointLookup.js";
export type { FabrikTargetInfo, FabrikTargetOptions } from "./targetOptions.js";
export type { FabrikFrameOf, FabrikPassOf, FabrikPassOptions, FabrikSolvedEventOf } from "./fabrikFrame.js";
export { FabrikSystem } from "./fabrikSystem.js";
export { FabrikModel, FabrikModelCache } from "./modelCache.js";
export { TargetBinding, type QuaternionLike, type TargetSource } from "./targetBinding.js";
