import { FabrikError, describeJoint } from "./errors.js";
import type { EffectorSpec } from "./plan.js";
import { findJoint, type Rig } from "./rig.js";

/** A plan's effectors as compiled from their specs, and the joints their chains move. */
export interface PlanEffectors {
  readonly effectorJoints: Int32Array;
  readonly chainLengths: Int32Array;
  readonly effectorWeights: Float64Array;
  readonly effectorHasPole: Uint8Array;
  /** Effector index per joint, or -1. */
  readonly effectorOf: Int32Array;
  /** 1 for the joints some effector's chain moves. */
  readonly movable: Uint8Array;
}

/**
 * Checks each effector spec and walks its chain up from the effector, one bone at a time, to where it stops:
 * its chain length, a root, or a pinned joint. Throws a {@link FabrikError} naming the effector at fault.
 */
export function compileEffectors(
  rig: Rig,
  effectors: readonly EffectorSpec[],
  pinned: Uint8Array,
): PlanEffectors {
  const n = rig.jointCount;
  const { parents, names } = rig;
  const m = effectors.length;
  const effectorJoints = new Int32Array(m);
  const chainLengths = new Int32Array(m);
  const effectorWeights = new Float64Array(m);
  const effectorHasPole = new Uint8Array(m);
  const effectorOf = new Int32Array(n).fill(-1);
  const movable = new Uint8Array(n);

  for (let e = 0; e < m; e++) {
    const spec = effectors[e];
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
  return { effectorJoints, chainLengths, effectorWeights, effectorHasPole, effectorOf, movable };
}
