import { FabrikError, describeJoint } from "./errors.js";
import { createJointLimits, type JointLimits } from "./limits.js";
import { joinCarriedChains } from "./carriedChains.js";
import { packTypedArrays } from "./packArrays.js";
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

type LayoutScratchKey =
  "effectorOf" | "movable" | "rotatingIndex" | "held" | "carriedTip" | "carriedBelow" | "carriedBases";

/** Compiles the plan for a set of effectors. Throws a {@link FabrikError} naming the effector or joint at fault. */
export function compilePlan(rig: Rig, options: PlanOptions): SolvePlan {
  const n = rig.jointCount;
  const { parents, names } = rig;
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

  const m = options.effectors.length;
  const effectorJoints = new Int32Array(m);
  const chainLengths = new Int32Array(m);
  const effectorWeights = new Float64Array(m);
  const effectorHasPole = new Uint8Array(m);
  const effectorOf = new Int32Array(n).fill(-1);
  const movable = new Uint8Array(n);

  for (let e = 0; e < m; e++) {
    const spec = options.effectors[e];
    if (spec == null || typeof spec !== "object") {
      throw new FabrikError(
        `effector ${e}: must be an object { joint, chainLength?, weight?, pole? }`,
        undefined,
        "effectors",
      );
    }
    const j = findJoint(rig, spec.joint, `effector ${e}`);
    const who = `effector ${e} (${describeJoint(j, names)})`;
    if (effectorOf[j] >= 0)
      throw new FabrikError(`${who}: the joint is already effector ${effectorOf[j]}`, j, "joint");
    if (pinned[j])
      throw new FabrikError(`${who}: the joint is pinned, so it cannot move toward a target`, j, "joint");
    if (parents[j] < 0) throw new FabrikError(`${who}: the joint is a root, which never moves`, j, "joint");

    const requested = spec.chainLength ?? Infinity;
    if (requested !== Infinity && (!Number.isInteger(requested) || requested < 1)) {
      throw new FabrikError(
        `${who}: chainLength must be a whole number >= 1, got ${String(requested)}`,
        j,
        "chainLength",
      );
    }
    const weight = spec.weight ?? 1;
    if (typeof weight !== "number" || !Number.isFinite(weight) || weight <= 0) {
      throw new FabrikError(`${who}: weight must be a finite number > 0, got ${String(weight)}`, j, "weight");
    }
    if (spec.pole !== undefined && typeof spec.pole !== "boolean") {
      throw new FabrikError(`${who}: pole must be true or false`, j, "pole");
    }

    // Walk up one bone at a time; the joint where the walk stops is this chain's fixed base.
    let joint = j;
    let bones = 0;
    while (bones < requested && parents[joint] >= 0 && !pinned[joint]) {
      movable[joint] = 1;
      bones++;
      joint = parents[joint];
    }
    effectorJoints[e] = j;
    chainLengths[e] = bones;
    effectorWeights[e] = weight;
    effectorHasPole[e] = spec.pole ? 1 : 0;
    effectorOf[j] = e;
  }

  const carried = joinCarriedChains(parents, movable, pinned, effectorOf);
  const { held, carriedTip } = carried;
  const movableChildren = new Int32Array(n);
  for (let j = 0; j < n; j++) if (movable[j]) movableChildren[parents[j]]++;

  // A pinned joint under a joint that moves or turns (every chain turns its base) would be carried along,
  // so it could not stay put; refuse it instead of silently breaking the pin.
  for (let p = 0; p < n; p++) {
    if (!pinned[p]) continue;
    for (let a = parents[p]; a >= 0; a = parents[a]) {
      if (movable[a] || movableChildren[a] > 0) {
        throw new FabrikError(
          `pinned: ${describeJoint(p, names)} lies below ${describeJoint(a, names)}, which an effector ` +
            `${movable[a] ? "moves" : "turns"}; shorten that effector's chainLength or pin an ancestor instead`,
          p,
          "pinned",
        );
      }
    }
  }

  const isMovable = (j: number) => j >= 0 && movable[j] === 1;

  // Components: one per base (a fixed joint with movable children), since a base's rotation is shared by
  // every chain hanging from it. Each is laid out in depth-first preorder: contiguous and parents first.
  let activeCount = 0;
  for (let j = 0; j < n; j++) activeCount += movable[j];
  const activeJoints = new Int32Array(activeCount);
  const componentStartList: number[] = [];
  const componentBaseList: number[] = [];
  const stack: number[] = [];
  let cursor = 0;
  for (let b = 0; b < n; b++) {
    if (movable[b] || movableChildren[b] === 0) continue;
    componentStartList.push(cursor);
    componentBaseList.push(b);
    for (let c = rig.childStart[b + 1] - 1; c >= rig.childStart[b]; c--)
      if (movable[rig.children[c]]) stack.push(rig.children[c]);
    while (stack.length > 0) {
      const k = stack.pop()!;
      activeJoints[cursor++] = k;
      for (let c = rig.childStart[k + 1] - 1; c >= rig.childStart[k]; c--)
        if (movable[rig.children[c]]) stack.push(rig.children[c]);
    }
  }
  componentStartList.push(cursor);
  const componentCount = componentBaseList.length;
  const componentStart = Int32Array.from(componentStartList);
  const componentBase = Int32Array.from(componentBaseList);

  const componentOf = new Int32Array(n).fill(-1);
  for (let c = 0; c < componentCount; c++) {
    componentOf[componentBase[c]] = c;
    for (let k = componentStart[c]; k < componentStart[c + 1]; k++) componentOf[activeJoints[k]] = c;
  }

  const componentEffectorStart = new Int32Array(componentCount + 1);
  for (let e = 0; e < m; e++) componentEffectorStart[componentOf[effectorJoints[e]] + 1]++;
  for (let c = 0; c < componentCount; c++) componentEffectorStart[c + 1] += componentEffectorStart[c];
  const componentEffectors = new Int32Array(m);
  const effectorFill = componentEffectorStart.slice(0, componentCount);
  for (let e = 0; e < m; e++) componentEffectors[effectorFill[componentOf[effectorJoints[e]]]++] = e;

  const componentIsPath = new Uint8Array(componentCount);
  for (let c = 0; c < componentCount; c++) {
    const last = activeJoints[componentStart[c + 1] - 1];
    let path =
      movableChildren[componentBase[c]] === 1 &&
      componentEffectorStart[c + 1] - componentEffectorStart[c] === 1 &&
      effectorOf[last] >= 0;
    for (let k = componentStart[c]; path && k < componentStart[c + 1]; k++)
      if (movableChildren[activeJoints[k]] > 1) path = false;
    componentIsPath[c] = path ? 1 : 0;
  }

  // Rotating joints: the base, then every movable joint with movable children, parents first.
  const rotatingStart = new Int32Array(componentCount + 1);
  const rotatingList: number[] = [];
  const childStartList: number[] = [0];
  const childList: number[] = [];
  const rotatingIndex = new Int32Array(n).fill(-1);
  const addRotating = (r: number) => {
    rotatingIndex[r] = rotatingList.length;
    rotatingList.push(r);
    for (let k = rig.childStart[r]; k < rig.childStart[r + 1]; k++)
      if (movable[rig.children[k]]) childList.push(rig.children[k]);
    childStartList.push(childList.length);
  };
  for (let c = 0; c < componentCount; c++) {
    rotatingStart[c] = rotatingList.length;
    addRotating(componentBase[c]);
    for (let k = componentStart[c]; k < componentStart[c + 1]; k++)
      if (movableChildren[activeJoints[k]] > 0) addRotating(activeJoints[k]);
  }
  rotatingStart[componentCount] = rotatingList.length;

  // Passive joints: not movable, but below a base or a movable joint; they follow rigidly. A base can be
  // passive too, when it hangs below another component: that component moves it, and its own component
  // then starts from where it was carried.
  const passiveOf = new Int32Array(n).fill(-1);
  for (let j = 0; j < n; j++) {
    const p = parents[j];
    if (movable[j] || p < 0) continue;
    if (movable[p] || movableChildren[p] > 0) passiveOf[j] = componentOf[p];
    else passiveOf[j] = passiveOf[p];
  }
  const componentParent = new Int32Array(componentCount);
  for (let c = 0; c < componentCount; c++) componentParent[c] = passiveOf[componentBase[c]];
  if (passiveMode === "carriers") {
    // Keep a passive joint only when a carried base hangs at or below it (a bottom-up sweep marks them).
    const carries = new Uint8Array(n);
    for (let c = 0; c < componentCount; c++) if (componentParent[c] >= 0) carries[componentBase[c]] = 1;
    for (let j = n - 1; j >= 0; j--) if (carries[j] && parents[j] >= 0) carries[parents[j]] = 1;
    for (let j = 0; j < n; j++) if (!carries[j]) passiveOf[j] = -1;
  }
  const passiveStart = new Int32Array(componentCount + 1);
  for (let j = 0; j < n; j++) if (passiveOf[j] >= 0) passiveStart[passiveOf[j] + 1]++;
  for (let c = 0; c < componentCount; c++) passiveStart[c + 1] += passiveStart[c];
  const passiveJoints = new Int32Array(passiveStart[componentCount]);
  const passiveFill = passiveStart.slice(0, componentCount);
  for (let j = 0; j < n; j++) if (passiveOf[j] >= 0) passiveJoints[passiveFill[passiveOf[j]]++] = j;

  const effectorPathStart = new Int32Array(m + 1);
  for (let e = 0; e < m; e++) {
    let depth = 0;
    for (let j = effectorJoints[e]; isMovable(j); j = parents[j]) depth++;
    effectorPathStart[e + 1] = effectorPathStart[e] + depth;
  }
  const effectorPath = new Int32Array(effectorPathStart[m]);
  for (let e = 0; e < m; e++) {
    let k = effectorPathStart[e + 1] - 1;
    for (let j = effectorJoints[e]; isMovable(j); j = parents[j]) effectorPath[k--] = j;
  }

  // Where each effector's own chain starts on its path: just below the last sub-base above it.
  const effectorChainStart = new Int32Array(m);
  for (let e = 0; e < m; e++) {
    let k = effectorPathStart[e];
    for (let i = effectorPathStart[e]; i < effectorPathStart[e + 1] - 1; i++) {
      const j = effectorPath[i];
      if (movableChildren[j] > 1 || effectorOf[j] >= 0 || held[j] || carriedTip[j] >= 0) k = i + 1;
    }
    effectorChainStart[e] = k;
  }

  const activeIndex = new Int32Array(n).fill(-1);
  for (let k = 0; k < activeCount; k++) activeIndex[activeJoints[k]] = k;
  const subtreeEnd = new Int32Array(activeCount);
  for (let k = activeCount - 1; k >= 0; k--) {
    let end = k + 1;
    while (end < activeCount && isDescendant(activeJoints[end], activeJoints[k], parents))
      end = subtreeEnd[end];
    subtreeEnd[k] = end;
  }

  const subBaseList: number[] = [];
  for (let k = 0; k < activeCount; k++)
    if (movableChildren[activeJoints[k]] > 1) subBaseList.push(activeJoints[k]);

  const plan: SolvePlan = {
    rig,
    limits,
    effectorCount: m,
    effectorJoints,
    chainLengths,
    effectorWeights,
    effectorHasPole,
    pinned,
    activeJoints,
    bases: Int32Array.from(componentBaseList),
    subBases: Int32Array.from(subBaseList),
    chains: buildChains(activeJoints, parents, movable, movableChildren, effectorOf),
    componentCount,
    componentStart,
    componentBase,
    componentEffectorStart,
    componentEffectors,
    componentIsPath,
    componentParent,
    rotatingStart,
    rotatingJoints: Int32Array.from(rotatingList),
    activeChildStart: Int32Array.from(childStartList),
    activeChildren: Int32Array.from(childList),
    passiveStart,
    passiveJoints,
    effectorPathStart,
    effectorPath,
    effectorChainStart,
    activeIndex,
    subtreeEnd,
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

/** The plan's arrays that only its rig, effectors, pins and passive joints decide (see `shareLayoutWith`). */
const LAYOUT_FIELDS = [
  "effectorJoints",
  "chainLengths",
  "effectorHasPole",
  "pinned",
  "activeJoints",
  "bases",
  "subBases",
  "componentStart",
  "componentBase",
  "componentEffectorStart",
  "componentEffectors",
  "componentIsPath",
  "componentParent",
  "rotatingStart",
  "rotatingJoints",
  "activeChildStart",
  "activeChildren",
  "passiveStart",
  "passiveJoints",
  "effectorPathStart",
  "effectorPath",
  "effectorChainStart",
  "activeIndex",
  "subtreeEnd",
] as const satisfies readonly (keyof SolvePlan)[];

function sameLayout(
  plan: SolvePlan,
  scratch: Pick<PlanScratch, LayoutScratchKey>,
  other: SolvePlan,
): boolean {
  if (plan.effectorCount !== other.effectorCount || plan.componentCount !== other.componentCount)
    return false;
  for (const key of LAYOUT_FIELDS) if (!sameNumbers(plan[key], other[key])) return false;
  if (
    !sameNumbers(scratch.effectorOf, other.scratch.effectorOf) ||
    !sameNumbers(scratch.movable, other.scratch.movable) ||
    !sameNumbers(scratch.rotatingIndex, other.scratch.rotatingIndex) ||
    !sameNumbers(scratch.held, other.scratch.held) ||
    !sameNumbers(scratch.carriedBelow, other.scratch.carriedBelow) ||
    plan.chains.length !== other.chains.length
  )
    return false;
  return plan.chains.every(
    (chain, k) =>
      chain.start === other.chains[k].start &&
      chain.end === other.chains[k].end &&
      sameNumbers(chain.joints, other.chains[k].joints),
  );
}

function sameNumbers(a: Int32Array | Uint8Array, b: Int32Array | Uint8Array): boolean {
  if (a.constructor !== b.constructor || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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

function isDescendant(j: number, ancestor: number, parents: Int32Array): boolean {
  for (let a = parents[j]; a >= 0; a = parents[a]) if (a === ancestor) return true;
  return false;
}

function buildChains(
  activeJoints: Int32Array,
  parents: Int32Array,
  movable: Uint8Array,
  movableChildren: Int32Array,
  effectorOf: Int32Array,
): PlanChain[] {
  // A chain ends at every effector and every sub-base; it starts just below a fixed base or a sub-base.
  const isEnd = (j: number) => effectorOf[j] >= 0 || movableChildren[j] > 1;
  const chains: PlanChain[] = [];
  for (let k = 0; k < activeJoints.length; k++) {
    const end = activeJoints[k];
    if (!isEnd(end)) continue;
    const joints: number[] = [end];
    let j = parents[end];
    while (movable[j] && !isEnd(j)) {
      joints.push(j);
      j = parents[j];
    }
    chains.push({ start: j, end, joints: Int32Array.from(joints.reverse()) });
  }
  return chains;
}
