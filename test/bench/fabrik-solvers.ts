import {
  compilePlan,
  copyPose,
  createPose,
  solvePlan,
  type Rig,
  type SolveSettings,
} from "../../plugin/index.js";
import { straightChain } from "../solver/fixtures.js";
import type { WholeSolver } from "./harness.js";

/** babylon-fabrik on any rig with one effector: the same reset/solve shape as the peers. */
export interface FabrikBenchSolver extends WholeSolver {
  /** Rest pose and target `index` of `from`, copied without passing any double through a call. */
  aim(from: Float64Array, index: number): void;
  /** Solves with the settings of the last `solve` call. */
  solveOnce(): void;
}

export function fabrikSolver(rig: Rig, effector: number): FabrikBenchSolver {
  const plan = compilePlan(rig, { effectors: [{ joint: effector }] });
  const rest = createPose(rig);
  const pose = createPose(rig);
  const target = new Float64Array(3);
  const settings: SolveSettings = { tolerance: 0, maxIterations: 1 };
  const result = { iterations: 0, residual: 0 };
  return {
    name: "babylon-fabrik",
    reset(x, y, z) {
      copyPose(rest, pose);
      target[0] = x;
      target[1] = y;
      target[2] = z;
    },
    solve(tolerance, cap) {
      settings.tolerance = tolerance;
      settings.maxIterations = cap;
      const report = solvePlan(plan, pose, target, settings);
      result.iterations = report.iterations;
      result.residual = report.maxResidual;
      return result;
    },
    aim(from, index) {
      copyPose(rest, pose);
      target[0] = from[3 * index];
      target[1] = from[3 * index + 1];
      target[2] = from[3 * index + 2];
    },
    solveOnce() {
      solvePlan(plan, pose, target, settings);
    },
  };
}

export function fabrikChain(bones: number, boneLength: number) {
  return fabrikSolver(straightChain(bones, boneLength), bones);
}
