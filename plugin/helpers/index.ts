// Game-level helpers built on the public FabrikBehavior API: re-exports only.
export {
  FootPlacement,
  type FootPlacementLeg,
  type FootPlacementLegInfo,
  type FootPlacementOptions,
} from "./footPlacement.js";
export type { FootSettings } from "./footPlacementOptions.js";
export { Reach, ReachHandle, type ReachOptions, type ReachOutcome, type ReachPhase } from "./reach.js";
export { LookAt } from "./lookAt.js";
export type { LookAtOptions } from "./lookAtOptions.js";
export { TwoHandGrip, type GripHandle, type TwoHandGripOptions } from "./twoHandGrip.js";
export { TrackedBody } from "./trackedBody.js";
export type { TrackedBodyOptions, TrackedBodySettings } from "./trackedBodyOptions.js";
export { TrackedPoint, type TrackedPointName } from "./trackedPoint.js";
export { TrackedHint, type TrackedHintName } from "./trackedHint.js";
export type { TrackedBodyRig, TrackedSide } from "./trackedBodyRig.js";
export type { FloorMeasures } from "./trackedFloor.js";
