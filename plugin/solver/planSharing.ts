import type { PlanScratch, SolvePlan } from "./plan.js";

/** The layout tables a plan keeps in its scratch (see PlanScratch), shared along with the plan's own. */
export type LayoutScratchKey =
  "effectorOf" | "movable" | "rotatingIndex" | "held" | "carriedTip" | "carriedBelow" | "carriedBases";

/** The plan's arrays that only its rig, effectors, pins and passive joints decide (see `shareLayoutWith`). */
export const LAYOUT_FIELDS = [
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

export function sameLayout(
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
