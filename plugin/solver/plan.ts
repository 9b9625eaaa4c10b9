import { FabrikError, describeJoint } from "./errors.js";
import { findJoint, type Rig } from "./rig.js";

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
}

export interface PlanOptions {
  effectors: readonly EffectorSpec[];
  /** Joints that never move. A chain walking up from an effector stops at the first pinned joint. */
  pinned?: readonly (number | string)[];
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
 * here, once; compile again only when the effector set (joints, chain lengths, pins) changes.
 */
export interface SolvePlan {
  readonly rig: Rig;
  readonly effectorCount: number;
  /** The joint of each effector, in the order the effectors were given. */
  readonly effectorJoints: Int32Array;
  /** Resolved chain length (bones) of each effector. */
  readonly chainLengths: Int32Array;
  /** Effector weights; change them with {@link setEffectorWeight}. */
  readonly effectorWeights: Float64Array;
  readonly pinned: Uint8Array;
  /**
   * The joints the solver moves, in pass order: the backward pass walks it front to back (parents first),
   * the forward pass back to front (children first). Grouped by component.
   */
  readonly activeJoints: Int32Array;
  /** Fixed joints the active chains hang from (roots, pinned joints, or the top of a chain length). */
  readonly bases: Int32Array;
  /** Active joints where two or more active branches meet; they take the weighted centroid of their branches. */
  readonly subBases: Int32Array;
  readonly chains: readonly PlanChain[];
  /**
   * Independent sub-problems: component `c` is `activeJoints[componentStart[c] .. componentStart[c + 1])`,
   * hanging from the fixed joint `componentBase[c]`, with effectors `componentEffectors[componentEffectorStart[c] ..]`.
   */
  readonly componentCount: number;
  readonly componentStart: Int32Array;
  readonly componentBase: Int32Array;
  readonly componentEffectorStart: Int32Array;
  readonly componentEffectors: Int32Array;
  /** 1 when the component is one unbranched chain whose only effector is its tip (the reach check applies). */
  readonly componentIsSimpleChain: Uint8Array;
  /** Joints on the path from each effector's component base down to the effector (base excluded). */
  readonly effectorPathStart: Int32Array;
  readonly effectorPath: Int32Array;

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
}

export interface PlanScratch {
  /** Effector index per joint, or -1. */
  readonly effectorOf: Int32Array;
  /** 1 for joints the solver moves. */
  readonly movable: Uint8Array;
  /** Sum of effector weights in each active joint's subtree: its pull in a parent's centroid. */
  readonly branchWeight: Float64Array;
  /** Bone length to the parent, measured from the input pose at the start of each solve. */
  readonly boneLength: Float64Array;
  /** Unit bone direction (parent to joint) of the input pose: the fallback when a direction degenerates. */
  readonly inputDirection: Float64Array;
  /** Forward-pass centroid accumulators. */
  readonly proposalSum: Float64Array;
  readonly proposalWeight: Float64Array;
  /** Per-solve numbers (tolerance, residual max and sum), kept here so they are never boxed on the way to helpers. */
  readonly numbers: Float64Array;
}

/** Compiles the plan for a set of effectors. Throws a {@link FabrikError} naming the effector or joint at fault. */
export function compilePlan(rig: Rig, options: PlanOptions): SolvePlan {
  const n = rig.jointCount;
  const { parents, names } = rig;
  if (options == null || !Array.isArray(options.effectors)) {
    throw new FabrikError("plan: `effectors` must be an array", undefined, "effectors");
  }
  const pinned = new Uint8Array(n);
  const pinnedList = options.pinned ?? [];
  if (!Array.isArray(pinnedList))
    throw new FabrikError("plan: `pinned` must be an array", undefined, "pinned");
  for (const p of pinnedList) pinned[findJoint(rig, p, "pinned")] = 1;

  const m = options.effectors.length;
  const effectorJoints = new Int32Array(m);
  const chainLengths = new Int32Array(m);
  const effectorWeights = new Float64Array(m);
  const effectorOf = new Int32Array(n).fill(-1);
  const movable = new Uint8Array(n);

  for (let e = 0; e < m; e++) {
    const spec = options.effectors[e];
    if (spec == null || typeof spec !== "object") {
      throw new FabrikError(
        `effector ${e}: must be an object { joint, chainLength?, weight? }`,
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
    effectorOf[j] = e;
  }

  // A pinned joint under a moving joint would be dragged along by the rotations written back, so it could not
  // stay put; refuse it instead of silently breaking the pin.
  for (let p = 0; p < n; p++) {
    if (!pinned[p]) continue;
    for (let a = parents[p]; a >= 0; a = parents[a]) {
      if (movable[a]) {
        throw new FabrikError(
          `pinned: ${describeJoint(p, names)} lies below ${describeJoint(a, names)}, which an effector moves; ` +
            "shorten that effector's chainLength or pin an ancestor instead",
          p,
          "pinned",
        );
      }
    }
  }

  // Components: maximal active subtrees, each hanging from one fixed joint, laid out in depth-first preorder
  // so each is a contiguous, parents-first range of activeJoints.
  let activeCount = 0;
  for (let j = 0; j < n; j++) activeCount += movable[j];
  const activeJoints = new Int32Array(activeCount);
  const componentStartList: number[] = [];
  const componentBaseList: number[] = [];
  const stack: number[] = [];
  let cursor = 0;
  for (let j = 0; j < n; j++) {
    if (!movable[j] || movable[parents[j]]) continue;
    componentStartList.push(cursor);
    componentBaseList.push(parents[j]);
    stack.push(j);
    while (stack.length > 0) {
      const k = stack.pop()!;
      activeJoints[cursor++] = k;
      for (let c = rig.childStart[k + 1] - 1; c >= rig.childStart[k]; c--) {
        const child = rig.children[c];
        if (movable[child]) stack.push(child);
      }
    }
  }
  componentStartList.push(cursor);
  const componentCount = componentBaseList.length;
  const componentStart = Int32Array.from(componentStartList);
  const componentBase = Int32Array.from(componentBaseList);

  const componentOf = new Int32Array(n).fill(-1);
  for (let c = 0; c < componentCount; c++) {
    for (let k = componentStart[c]; k < componentStart[c + 1]; k++) componentOf[activeJoints[k]] = c;
  }

  const movableChildren = new Int32Array(n);
  for (let k = 0; k < activeCount; k++) {
    const j = activeJoints[k];
    if (movable[parents[j]]) movableChildren[parents[j]]++;
  }

  const componentEffectorStart = new Int32Array(componentCount + 1);
  for (let e = 0; e < m; e++) componentEffectorStart[componentOf[effectorJoints[e]] + 1]++;
  for (let c = 0; c < componentCount; c++) componentEffectorStart[c + 1] += componentEffectorStart[c];
  const componentEffectors = new Int32Array(m);
  const effectorFill = componentEffectorStart.slice(0, componentCount);
  for (let e = 0; e < m; e++) componentEffectors[effectorFill[componentOf[effectorJoints[e]]]++] = e;

  const componentIsSimpleChain = new Uint8Array(componentCount);
  for (let c = 0; c < componentCount; c++) {
    const last = activeJoints[componentStart[c + 1] - 1];
    let simple = componentEffectorStart[c + 1] - componentEffectorStart[c] === 1 && effectorOf[last] >= 0;
    for (let k = componentStart[c]; simple && k < componentStart[c + 1]; k++) {
      if (movableChildren[activeJoints[k]] > 1) simple = false;
    }
    componentIsSimpleChain[c] = simple ? 1 : 0;
  }

  const effectorPathStart = new Int32Array(m + 1);
  for (let e = 0; e < m; e++) {
    let depth = 0;
    for (let j = effectorJoints[e]; movable[j]; j = parents[j]) depth++;
    effectorPathStart[e + 1] = effectorPathStart[e] + depth;
  }
  const effectorPath = new Int32Array(effectorPathStart[m]);
  for (let e = 0; e < m; e++) {
    let k = effectorPathStart[e + 1] - 1;
    for (let j = effectorJoints[e]; movable[j]; j = parents[j]) effectorPath[k--] = j;
  }

  const subBaseList: number[] = [];
  for (let k = 0; k < activeCount; k++)
    if (movableChildren[activeJoints[k]] > 1) subBaseList.push(activeJoints[k]);
  const bases = Int32Array.from(new Set(componentBaseList)).sort();

  const plan: SolvePlan = {
    rig,
    effectorCount: m,
    effectorJoints,
    chainLengths,
    effectorWeights,
    pinned,
    activeJoints,
    bases,
    subBases: Int32Array.from(subBaseList),
    chains: buildChains(activeJoints, parents, movable, movableChildren, effectorOf),
    componentCount,
    componentStart,
    componentBase,
    componentEffectorStart,
    componentEffectors,
    componentIsSimpleChain,
    effectorPathStart,
    effectorPath,
    scratch: {
      effectorOf,
      movable,
      branchWeight: new Float64Array(n),
      boneLength: new Float64Array(n),
      inputDirection: new Float64Array(3 * n),
      proposalSum: new Float64Array(3 * n),
      proposalWeight: new Float64Array(n),
      numbers: new Float64Array(3),
    },
    report: { iterations: 0, converged: true, residuals: new Float64Array(m), maxResidual: 0 },
  };
  updateBranchWeights(plan);
  return plan;
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
