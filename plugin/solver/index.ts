export { FabrikError } from "./errors.js";
export { createRig, findJoint, type Rig, type RigDescription } from "./rig.js";
export {
  compilePlan,
  setEffectorWeight,
  type EffectorSpec,
  type PlanChain,
  type PlanOptions,
  type SolvePlan,
  type SolveReport,
} from "./plan.js";
export { solvePlan, DEFAULT_MAX_ITERATIONS, DEFAULT_TOLERANCE, type SolveSettings } from "./fabrik.js";
