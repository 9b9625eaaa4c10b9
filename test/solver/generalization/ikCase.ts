// One solve of the generalization suite, as the generators describe it.
import type { JointLimits, Pose, Rig, SolveSettings } from "../../../plugin/index.js";

/**
 * One solve to measure: a rig (with limits, or free), the effector and its chain, the pose it starts from (a
 * copy is solved, this one is never changed), the target, the settings, and the length relative measures use.
 */
export interface IkCase {
  readonly label: string;
  readonly rig: Rig;
  readonly limits?: JointLimits;
  readonly effector: number;
  readonly chainLength?: number;
  readonly start: Pose;
  readonly target: Float64Array;
  readonly settings: SolveSettings;
  /** The case's unit of length (an arm's reach, a chain's length): errors are reported as fractions of it. */
  readonly scale: number;
  /** The least residual any pose reaches: 0 for a reachable target, else how far out of reach it lies. */
  readonly floor?: number;
  /** A pose within the limits that puts the effector on the target, when the target was made from one. */
  readonly witness?: Pose;
}
