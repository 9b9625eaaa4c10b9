// Solves generated cases with the public solver API and measures each outcome: residual, iterations, the
// invariants of invariants.ts and whether the solve's report tells the truth about it.
import {
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_TOLERANCE,
  compilePlan,
  solvePlan,
  type Pose,
  type SolvePlan,
} from "../../../plugin/index.js";
import { clonePose } from "../fixtures.js";
import { poseErrors, type PoseErrors } from "./invariants.js";
import type { IkCase } from "./ikCase.js";
import { plainFabrik, type PlainResult } from "./plainFabrik.js";

export interface Outcome {
  readonly case: IkCase;
  readonly pose: Pose;
  readonly residual: number;
  /** How much further than it must the effector ended (residual − floor), as a fraction of the case's scale. */
  readonly relative: number;
  readonly tolerance: number;
  readonly iterations: number;
  readonly converged: boolean;
  readonly escapes: number;
  readonly errors: PoseErrors;
  /** What the report gets wrong about this solve ("" when nothing). */
  readonly reportProblem: string;
  readonly microseconds: number;
}

const plans = new WeakMap<object, Map<string, SolvePlan>>();

/** One plan per rig, limit set and effector chain, compiled once and reused like a caller would. */
export function planFor(c: IkCase): SolvePlan {
  const key = c.limits ?? c.rig;
  let byChain = plans.get(key);
  if (byChain === undefined) plans.set(key, (byChain = new Map()));
  const name = `${c.effector}/${c.chainLength ?? "all"}`;
  let plan = byChain.get(name);
  if (plan === undefined) {
    plan = compilePlan(c.rig, {
      effectors: [{ joint: c.effector, chainLength: c.chainLength }],
      limits: c.limits,
    });
    byChain.set(name, plan);
  }
  return plan;
}

export function runCase(c: IkCase): Outcome {
  const plan = planFor(c);
  const pose = clonePose(c.start);
  const t0 = performance.now();
  const report = solvePlan(plan, pose, c.target, c.settings);
  const microseconds = 1000 * (performance.now() - t0);
  const tolerance = c.settings.tolerance ?? DEFAULT_TOLERANCE;
  const e = 3 * c.effector;
  const residual = Math.hypot(
    pose.positions[e] - c.target[0],
    pose.positions[e + 1] - c.target[1],
    pose.positions[e + 2] - c.target[2],
  );
  return {
    case: c,
    pose,
    residual,
    relative: (residual - (c.floor ?? 0)) / c.scale,
    tolerance,
    iterations: report.iterations,
    converged: report.converged,
    escapes: report.escapes,
    errors: poseErrors(c.rig, c.limits, c.start, pose),
    reportProblem: checkReport(c, pose, residual, tolerance, plan),
    microseconds,
  };
}

function checkReport(c: IkCase, pose: Pose, residual: number, tolerance: number, plan: SolvePlan): string {
  const r = plan.report;
  const cap = c.settings.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  if (!Number.isInteger(r.iterations) || r.iterations < 0 || r.iterations > cap)
    return `iterations ${r.iterations} outside 0..${cap}`;
  if (!(Math.abs(r.residuals[0] - residual) <= 1e-12 * Math.max(c.scale, residual)))
    return `residual reported ${r.residuals[0]}, measured ${residual}`;
  if (r.maxResidual !== r.residuals[0])
    return `maxResidual ${r.maxResidual} is not the one residual ${r.residuals[0]}`;
  if (r.converged !== r.maxResidual <= tolerance)
    return `converged ${r.converged} with residual ${r.maxResidual}, tolerance ${tolerance}`;
  if (!Number.isInteger(r.escapes) || r.escapes < 0) return `escapes ${r.escapes}`;
  if (r.iterations === 0) {
    const s = c.start.positions;
    const e = 3 * c.effector;
    const startResidual = Math.hypot(s[e] - c.target[0], s[e + 1] - c.target[1], s[e + 2] - c.target[2]);
    if (startResidual > tolerance) return `0 iterations reported, but the start was ${startResidual} away`;
    for (let i = 0; i < s.length; i++)
      if (pose.positions[i] !== s[i]) return "0 iterations reported, but the pose moved";
  }
  return "";
}

/** Plain FABRIK on the case's chain (effector up to its chain's base), from the same start pose. */
export function runPlain(c: IkCase, maxIterations: number): PlainResult {
  const path: number[] = [];
  const bones = c.chainLength ?? Infinity;
  for (let j = c.effector, k = 0; j >= 0 && k <= bones; j = c.rig.parents[j], k++) path.push(j);
  path.reverse();
  const positions = new Float64Array(3 * path.length);
  path.forEach((j, i) => positions.set(c.start.positions.subarray(3 * j, 3 * j + 3), 3 * i));
  return plainFabrik(positions, c.target, c.settings.tolerance ?? DEFAULT_TOLERANCE, maxIterations);
}

/** Within tolerance of the target, or of the nearest point in reach for a target out of reach. */
export function solved(o: Outcome): boolean {
  return o.residual <= (o.case.floor ?? 0) + o.tolerance;
}

export interface Summary {
  readonly name: string;
  readonly count: number;
  /** Solves that ended within their tolerance (see {@link solved}). */
  readonly solved: number;
  /** Mean final residual beyond the case's floor, as a fraction of its scale. */
  readonly meanError: number;
  readonly worstError: number;
  readonly meanIterations: number;
  readonly meanEscapes: number;
  readonly microsecondsPerSolve: number;
  readonly worstLength: number;
  readonly worstLimit: number;
  readonly worstOrientation: number;
  readonly nan: number;
  readonly reportProblems: number;
}

export function summarize(name: string, outcomes: readonly Outcome[]): Summary {
  const n = outcomes.length;
  const sum = (f: (o: Outcome) => number) => outcomes.reduce((s, o) => s + f(o), 0);
  const worst = (f: (o: Outcome) => number) => outcomes.reduce((m, o) => Math.max(m, f(o)), 0);
  return {
    name,
    count: n,
    solved: outcomes.filter(solved).length,
    meanError: sum((o) => o.relative) / n,
    worstError: worst((o) => o.relative),
    meanIterations: sum((o) => o.iterations) / n,
    meanEscapes: sum((o) => o.escapes) / n,
    microsecondsPerSolve: sum((o) => o.microseconds) / n,
    worstLength: worst((o) => o.errors.length),
    worstLimit: worst((o) => o.errors.limit),
    worstOrientation: worst((o) => o.errors.orientation),
    nan: outcomes.filter((o) => o.errors.nan).length,
    reportProblems: outcomes.filter((o) => o.reportProblem !== "").length,
  };
}
