import {
  compileContinuumSections,
  type ContinuumSectionSpec,
  type ContinuumSections,
} from "./continuumSections.js";
import { FabrikError, describeJoint } from "./errors.js";
import { createJointLimits, type JointLimits } from "./limits.js";
import { packTypedArrays } from "./packArrays.js";
import { compileEffectors } from "./planEffectors.js";
import { compileLayout } from "./planLayout.js";
import { LAYOUT_FIELDS, sameLayout, type LayoutScratchKey } from "./planSharing.js";
import { findJoint, type Rig } from "./rig.js";
import { checkWorkspace, createSolveWorkspace, type SolveWorkspace } from "./workspace.js";

/** One end effector: a joint that is pulled toward a target. */
export interface EffectorSpec {
  /** The joint, by index or name. Any joint but a root or a pinned one. */
  joint: number | string;
  /**
   * How many bones above the effector may move. By default every bone up to the root or to the nearest
   * pinned joint; a larger number is clamped the same way.
   */
  chainLength?: number;
  /** Pull in a sub-base centroid, relative to the other effectors meeting there. Default 1; must be > 0. */
  weight?: number;
  /**
   * The chain bends toward a pole point (knees, elbows) given per solve in `settings.poles`. It also decides
   * which way a straight chain folds.
   */
  pole?: boolean;
}

export interface PlanOptions {
  effectors: readonly EffectorSpec[];
  /** Joints that never move. A chain walking up from an effector stops at the first pinned joint. */
  pinned?: readonly (number | string)[];
  /** Per-joint limits, applied inside both passes. Shared and editable at any time; free joints by default. */
  limits?: JointLimits;
  /**
   * Which joints below the solved chains follow them: `"all"` (default) carries every one rigidly, so the
   * output pose is complete; `"carriers"` only those on the way to another component's base (which must
   * move for that component to start in the right place). The rest keep their input values, untouched and
   * unread. For callers that write local rotations back, such as the Babylon behavior: a hand's fingers
   * keep their local rotations anyway, and carrying them was a third of the solve on a humanoid.
   */
  passiveJoints?: "all" | "carriers";
  /**
   * Where solves of this plan do their work: by default a workspace of its own. Plans of rigs with the same
   * joint count that are solved one after another (never one inside another) can share one, made by
   * `createSolveWorkspace`; a crowd of one character then keeps a single workspace in cache.
   */
  workspace?: SolveWorkspace;
  /**
   * A plan compiled earlier for the same rig. When this plan's effectors, pins and passive joints give the
   * same layout (every array derived from them, which no solve and no weight change touches), the new plan
   * uses that plan's arrays instead of equal copies of its own, and keeps only its weights and report apart.
   * A crowd of one character with the same effectors then reads one layout; a different layout is simply
   * not shared.
   */
  shareLayoutWith?: SolvePlan;
  /**
   * Runs of bones that bend as one constant-curvature arc each (a tentacle's sections, a tail), with a
   * bend limit per section; see docs/continuum.md. Their joints' own rotation limits are not used.
   */
  continuumSections?: readonly ContinuumSectionSpec[];
}

/** A path of active joints between two structural points (a base or sub-base, and an effector or sub-base). */
export interface PlanChain {
  /** The fixed base or sub-base the chain hangs from (not moved by this chain). */
  readonly start: number;
  /** The effector or sub-base the chain ends at. */
  readonly end: number;
  /** Joints from just below `start` down to `end`, parents first. */
  readonly joints: Int32Array;
}

/**
 * A compiled solve plan for one set of effectors. Everything the solver needs per solve is allocated
 * when it is compiled: in the plan, in its workspace, or in what it shares through the `workspace` and
 * `shareLayoutWith` options. Compile again only when the effector set (joints, chain lengths, pins, poles)
 * changes.
 *
 * Vocabulary: *movable* joints change position; *rotating* joints change their local rotation (every
 * base, and every movable joint with movable children); *passive* joints hang below rotating joints without
 * being solved and are carried along rigidly at the end of a solve.
 */
export interface SolvePlan {
  readonly rig: Rig;
  readonly limits: JointLimits;
  readonly effectorCount: number;
  /** The joint of each effector, in the order the effectors were given. */
  readonly effectorJoints: Int32Array;
  /** Resolved chain length (bones) of each effector. */
  readonly chainLengths: Int32Array;
  /** Effector weights; change them with {@link setEffectorWeight}. */
  readonly effectorWeights: Float64Array;
  /** 1 for effectors whose chain bends toward a pole. */
  readonly effectorHasPole: Uint8Array;
  readonly pinned: Uint8Array;
  /** The movable joints, grouped by component, each group in depth-first (parents-first) order. */
  readonly activeJoints: Int32Array;
  /** Fixed-position joints the active chains hang from (roots, pinned joints, or the top of a chain length). */
  readonly bases: Int32Array;
  /** Active joints where two or more active branches meet; they take the weighted centroid of their branches. */
  readonly subBases: Int32Array;
  readonly chains: readonly PlanChain[];
  /**
   * Independent sub-problems, one per base: component `c` moves `activeJoints[componentStart[c] ..
   * componentStart[c + 1])` below the fixed joint `componentBase[c]`.
   */
  readonly componentCount: number;
  readonly componentStart: Int32Array;
  readonly componentBase: Int32Array;
  readonly componentEffectorStart: Int32Array;
  readonly componentEffectors: Int32Array;
  /** 1 when the component is one unbranched chain whose only effector is its tip. */
  readonly componentIsPath: Uint8Array;
  /** The earlier component whose motion carries this component's base along, or -1. */
  readonly componentParent: Int32Array;
  /** Rotating joints of component `c`: `rotatingJoints[rotatingStart[c] ..]`, the base first, parents first. */
  readonly rotatingStart: Int32Array;
  readonly rotatingJoints: Int32Array;
  /** Movable children of rotating joint `r` (by its index in rotatingJoints): `activeChildren[activeChildStart[r] ..]`. */
  readonly activeChildStart: Int32Array;
  readonly activeChildren: Int32Array;
  /** Passive joints of component `c`, parents first: `passiveJoints[passiveStart[c] ..]`. */
  readonly passiveStart: Int32Array;
  readonly passiveJoints: Int32Array;
  /** Joints on the path from each effector's component base down to the effector (base excluded). */
  readonly effectorPathStart: Int32Array;
  readonly effectorPath: Int32Array;
  /** Index into effectorPath where each effector's own chain starts (below its last sub-base or effector). */
  readonly effectorChainStart: Int32Array;
  /** Index in activeJoints per joint, or -1; and where each active joint's subtree ends in activeJoints. */
  readonly activeIndex: Int32Array;
  readonly subtreeEnd: Int32Array;
  /** @internal The continuum sections, compiled (none unless the `continuumSections` option gave some). */
  readonly continuum: ContinuumSections;

  /** @internal per-joint data and scratch, sized to the rig; owned by the solver. */
  readonly scratch: PlanScratch;
  /** The report of the last solve, reused so solving allocates nothing. */
  readonly report: SolveReport;
}

/** What a solve did. The same object is refilled by every solve of its plan. */
export interface SolveReport {
  /** Iterations used (the most any component needed; 0 when every effector started within tolerance). */
  iterations: number;
  /** Every effector ended within tolerance of its target. */
  converged: boolean;
  /** Distance from each effector to its target after the solve, in effector order. */
  readonly residuals: Float64Array;
  /** The largest residual. */
  maxResidual: number;
  /** Times the lock escape perturbed a joint blocked on its limit. */
  escapes: number;
  /**
   * 1 for each joint the solve left on the boundary of one of its limits: clamped there by the pass, escape
   * or restored best pose it returns. A joint the solve did not need to move reports 0.
   */
  readonly onLimit: Uint8Array;
}

/**
 * What the solver keeps per plan: joint tables of its layout (effectorOf, movable, rotatingIndex; shared
 * with the plan given as `shareLayoutWith`), its weights' branch sums, the components' state of the last
 * solve, and the workspace it solves in (every other field; shared when the `workspace` option was given).
 */
export interface PlanScratch extends SolveWorkspace {
  /** Effector index per joint, or -1. */
  readonly effectorOf: Int32Array;
  /** 1 for joints the solver moves. */
  readonly movable: Uint8Array;
  /** Index in rotatingJoints per joint, or -1. */
  readonly rotatingIndex: Int32Array;
  /** Chains carried by another chain's joints, joined into its component (see carriedChains.ts). */
  readonly held: Uint8Array;
  readonly carriedTip: Int32Array;
  readonly carriedBelow: Int32Array;
  readonly carriedBases: Int32Array;
  /** Sum of effector weights in each active joint's subtree: its pull in a parent's centroid. */
  readonly branchWeight: Float64Array;
  /** 1 for components that moved in this solve (their passive joints follow). */
  readonly componentMoved: Uint8Array;
  /** 1 for components solved with the oriented passes this solve (limits or branches). */
  readonly componentOriented: Uint8Array;
}

/** Compiles the plan for a set of effectors. Throws a {@link FabrikError} naming the effector or joint at fault. */
export function compilePlan(rig: Rig, options: PlanOptions): SolvePlan {
  const n = rig.jointCount;
  if (options == null || !Array.isArray(options.effectors)) {
    throw new FabrikError("plan: `effectors` must be an array", undefined, "effectors");
  }
  const limits = options.limits ?? createJointLimits(rig);
  checkLimitsRig(limits, rig);
  if (options.workspace !== undefined) checkWorkspace(options.workspace, n);
  const layoutSource = options.shareLayoutWith;
  if (layoutSource !== undefined && (layoutSource === null || layoutSource.rig !== rig)) {
    throw new FabrikError(
      "plan: `shareLayoutWith` must be a plan compiled for the same rig",
      undefined,
      "shareLayoutWith",
    );
  }
  const pinned = new Uint8Array(n);
  const pinnedList = options.pinned ?? [];
  if (!Array.isArray(pinnedList))
    throw new FabrikError("plan: `pinned` must be an array", undefined, "pinned");
  for (const p of pinnedList) pinned[findJoint(rig, p, "pinned")] = 1;
  const passiveMode = options.passiveJoints ?? "all";
  if (passiveMode !== "all" && passiveMode !== "carriers") {
    throw new FabrikError(
      `plan: passiveJoints must be "all" or "carriers", got ${JSON.stringify(passiveMode) ?? String(passiveMode)}`,
      undefined,
      "passiveJoints",
    );
  }

  const effectors = compileEffectors(rig, options.effectors, pinned);
  const { effectorJoints, chainLengths, effectorWeights, effectorHasPole, effectorOf, movable } = effectors;
  const m = effectorJoints.length;
  const layout = compileLayout(rig, effectors, pinned, passiveMode);
  const { rotatingIndex, carried, ...tables } = layout;
  const { componentCount } = layout;
  const continuum = compileContinuumSections(rig, options.continuumSections, effectors, layout);

  const plan: SolvePlan = {
    rig,
    limits,
    effectorCount: m,
    effectorJoints,
    chainLengths,
    effectorWeights,
    effectorHasPole,
    pinned,
    ...tables,
    continuum,
    // Set below, once the plan's own arrays are packed: the workspace's must not be moved into its block.
    scratch: null as unknown as PlanScratch,
    report: {
      iterations: 0,
      converged: true,
      residuals: new Float64Array(m),
      maxResidual: 0,
      escapes: 0,
      onLimit: new Uint8Array(n),
    },
  };
  const own = {
    branchWeight: new Float64Array(n),
    componentMoved: new Uint8Array(componentCount),
    componentOriented: new Uint8Array(componentCount),
  };
  const derived = { effectorOf, movable, rotatingIndex, ...carried };
  const shared = layoutSource !== undefined && sameLayout(plan, derived, layoutSource) ? layoutSource : null;
  const layoutScratch: Pick<PlanScratch, LayoutScratchKey> = shared !== null ? shared.scratch : derived;
  if (shared !== null) {
    const fields = plan as unknown as Record<string, unknown>;
    for (const key of LAYOUT_FIELDS) fields[key] = shared[key];
    fields.chains = shared.chains;
    // Only what is the plan's own goes into its block.
    const weights = { effectorWeights: plan.effectorWeights };
    packTypedArrays(weights, own, plan.report);
    fields.effectorWeights = weights.effectorWeights;
  } else {
    packTypedArrays(plan, derived, own, plan.report, ...plan.chains);
  }
  const workspace = options.workspace ?? createSolveWorkspace(n);
  (plan as { scratch: PlanScratch }).scratch = {
    effectorOf: layoutScratch.effectorOf,
    movable: layoutScratch.movable,
    rotatingIndex: layoutScratch.rotatingIndex,
    held: layoutScratch.held,
    carriedTip: layoutScratch.carriedTip,
    carriedBelow: layoutScratch.carriedBelow,
    carriedBases: layoutScratch.carriedBases,
    ...own,
    ...workspace,
  };
  updateBranchWeights(plan);
  return plan;
}

/**
 * Gives a plan another limit set for the same rig, without recompiling: limits are read only while solving.
 * Throws a {@link FabrikError} when the set belongs to another rig.
 */
export function setPlanLimits(plan: SolvePlan, limits: JointLimits): void {
  checkLimitsRig(limits, plan.rig);
  (plan as { limits: JointLimits }).limits = limits;
}

function checkLimitsRig(limits: JointLimits, rig: Rig): void {
  if (limits?.rig !== rig)
    throw new FabrikError("plan: `limits` were created for another rig", undefined, "limits");
}

/** Changes one effector's weight without recompiling. */
export function setEffectorWeight(plan: SolvePlan, effector: number, weight: number): void {
  if (!Number.isInteger(effector) || effector < 0 || effector >= plan.effectorCount) {
    throw new FabrikError(
      `setEffectorWeight: no effector ${effector} (plan has ${plan.effectorCount})`,
      undefined,
      "effector",
    );
  }
  if (typeof weight !== "number" || !Number.isFinite(weight) || weight <= 0) {
    const joint = plan.effectorJoints[effector];
    throw new FabrikError(
      `effector ${effector} (${describeJoint(joint, plan.rig.names)}): weight must be a finite number > 0, got ${String(weight)}`,
      joint,
      "weight",
    );
  }
  plan.effectorWeights[effector] = weight;
  updateBranchWeights(plan);
}

function updateBranchWeights(plan: SolvePlan): void {
  const { activeJoints, effectorWeights } = plan;
  const { branchWeight, effectorOf, movable } = plan.scratch;
  const parents = plan.rig.parents;
  for (let k = 0; k < activeJoints.length; k++) branchWeight[activeJoints[k]] = 0;
  for (let k = activeJoints.length - 1; k >= 0; k--) {
    const j = activeJoints[k];
    if (effectorOf[j] >= 0) branchWeight[j] += effectorWeights[effectorOf[j]];
    if (movable[parents[j]]) branchWeight[parents[j]] += branchWeight[j];
  }
}
