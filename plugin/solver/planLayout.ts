import { joinCarriedChains, type CarriedChains } from "./carriedChains.js";
import { FabrikError, describeJoint } from "./errors.js";
import type { PlanChain, SolvePlan } from "./plan.js";
import type { PlanEffectors } from "./planEffectors.js";
import type { Rig } from "./rig.js";

/**
 * Everything about a plan that only its rig, effectors, pins and passive joints decide: how its joints split
 * into components, which of them rotate, which follow passively, and each effector's path (see SolvePlan for
 * what each table holds).
 */
export interface PlanLayout extends Pick<SolvePlan, LayoutTable> {
  /** Index in rotatingJoints per joint, or -1. */
  readonly rotatingIndex: Int32Array;
  /** The carried chains joined into other chains' components (`effectors.movable` is edited to match). */
  readonly carried: CarriedChains;
}

/** The plan's tables that its layout decides. */
type LayoutTable =
  | "activeJoints"
  | "bases"
  | "subBases"
  | "chains"
  | "componentCount"
  | "componentStart"
  | "componentBase"
  | "componentEffectorStart"
  | "componentEffectors"
  | "componentIsPath"
  | "componentParent"
  | "rotatingStart"
  | "rotatingJoints"
  | "activeChildStart"
  | "activeChildren"
  | "passiveStart"
  | "passiveJoints"
  | "effectorPathStart"
  | "effectorPath"
  | "effectorChainStart"
  | "activeIndex"
  | "subtreeEnd";

/**
 * Lays out a plan from its effectors. Throws a {@link FabrikError} when a pinned joint hangs below a joint
 * that an effector moves or turns.
 */
export function compileLayout(
  rig: Rig,
  effectors: PlanEffectors,
  pinned: Uint8Array,
  passiveMode: "all" | "carriers",
): PlanLayout {
  const n = rig.jointCount;
  const { parents, names } = rig;
  const { effectorJoints, effectorOf, movable } = effectors;
  const m = effectorJoints.length;
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

  return {
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
    rotatingIndex,
    carried,
  };
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
