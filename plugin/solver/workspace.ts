import { FabrikError } from "./errors.js";
import { packTypedArrays } from "./packArrays.js";

/**
 * The arrays a solve works in: measured from its input, or holding candidate poses and temporaries. A solve
 * fills each one before it reads it and leaves nothing in them that a later solve needs, so plans of one
 * rig that are solved one after another can share a workspace (`PlanOptions.workspace`).
 *
 * Why share: a crowd's plans are solved back to back, and each plan's own workspace, last touched a frame
 * ago, comes from memory again every frame. One workspace for a hundred copies of a character stays in
 * cache, and a crowd's frame is bound by memory (docs/performance.md).
 *
 * Between solves the contents mean nothing; read a solve's results from the pose and the plan's report.
 */
export interface SolveWorkspace {
  /** The rig size the workspace is for: only plans of rigs with this many joints can use it. */
  readonly jointCount: number;
  /** Bone length to the parent, measured from the input pose at the start of each solve. */
  readonly boneLength: Float64Array;
  /** Unit bone direction (parent to joint) of the input pose: the fallback when a direction degenerates. */
  readonly inputDirection: Float64Array;
  /** Offset of each joint in its parent's frame, and its local rotation, from the input pose. */
  readonly localOffset: Float64Array;
  readonly inputLocal: Float64Array;
  /** Local rotations of the moment, for carrying a subtree along after one joint turns. */
  readonly currentLocal: Float64Array;
  /** Position, orientation and on-limit copies of the best pose, for the lock escape to fall back on. */
  readonly savedPositions: Float64Array;
  readonly savedOrientations: Float64Array;
  readonly savedOnLimit: Uint8Array;
  /** The kind of limit each joint has in this solve: its limit set's, or fixed for a plan's held joints. */
  readonly flags: Uint8Array;
  /**
   * Carried chains (see carriedChains.ts): each carried base's offset in its carrier's frame and its chain's
   * reach (inner, outer), per solve; where it asks to be and how firmly, per pass.
   */
  readonly carriedOffset: Float64Array;
  readonly carriedReach: Float64Array;
  readonly carriedGoal: Float64Array;
  readonly carriedWeight: Float64Array;
  // What the solver's steps hand one another within a solve, one named field each. Numbers travel in
  // one-element arrays rather than as arguments or return values: a double passed to or returned from a call
  // V8 does not inline is boxed, which allocates.
  /** The solve's tolerance (settings.tolerance). */
  readonly tolerance: Float64Array;
  /** 1 while a tracked solve pulls answers far from its input back toward it (settings.holdConfiguration). */
  readonly holdConfiguration: Uint8Array;
  /** 1 while a tracked solve follows one that ended short of its targets (settings.fellShort). */
  readonly fellShort: Uint8Array;
  /** The largest and the summed residual of the effectors measured last (see residuals.ts). */
  readonly maxResidual: Float64Array;
  readonly residualSum: Float64Array;
  /** Lock escapes in a row that found nothing better: each one doubles the next one's step (lockEscape.ts). */
  readonly escapeAttempt: Float64Array;
  /** The current escape's largest turn per joint (radians), and how far it overshoots the aiming turn. */
  readonly escapeStep: Float64Array;
  readonly escapeRelaxation: Float64Array;
  /**
   * Folding a straight chain (straightFold.ts, hingeFold.ts): the chain's line, the side its first hinge lets
   * it fold to, then the fold itself: the distance to the target, the unit direction toward it, and the
   * side across it.
   */
  readonly foldLine: Float64Array;
  readonly foldSide: Float64Array;
  readonly foldDistance: Float64Array;
  readonly foldDirection: Float64Array;
  /**
   * The oriented passes: a rotating joint's candidate orientation (aimed at its children, rolled for a hinge
   * below it, then held to its limits), and a branching joint's fitted position.
   */
  readonly candidate: Float64Array;
  readonly fitted: Float64Array;
}

/** Each array: its type and its length, per joint or fixed. */
const ARRAYS = {
  boneLength: [Float64Array, 1, 0],
  inputDirection: [Float64Array, 3, 0],
  localOffset: [Float64Array, 3, 0],
  inputLocal: [Float64Array, 4, 0],
  currentLocal: [Float64Array, 4, 0],
  savedPositions: [Float64Array, 3, 0],
  savedOrientations: [Float64Array, 4, 0],
  savedOnLimit: [Uint8Array, 1, 0],
  flags: [Uint8Array, 1, 0],
  carriedOffset: [Float64Array, 3, 0],
  carriedReach: [Float64Array, 2, 0],
  carriedGoal: [Float64Array, 3, 0],
  carriedWeight: [Float64Array, 1, 0],
  tolerance: [Float64Array, 0, 1],
  holdConfiguration: [Uint8Array, 0, 1],
  fellShort: [Uint8Array, 0, 1],
  maxResidual: [Float64Array, 0, 1],
  residualSum: [Float64Array, 0, 1],
  escapeAttempt: [Float64Array, 0, 1],
  escapeStep: [Float64Array, 0, 1],
  escapeRelaxation: [Float64Array, 0, 1],
  foldLine: [Float64Array, 0, 3],
  foldSide: [Float64Array, 0, 3],
  foldDistance: [Float64Array, 0, 1],
  foldDirection: [Float64Array, 0, 3],
  candidate: [Float64Array, 0, 4],
  fitted: [Float64Array, 0, 3],
} as const;

/** A workspace for plans of rigs with `jointCount` joints, its arrays in one block. */
export function createSolveWorkspace(jointCount: number): SolveWorkspace {
  if (!Number.isInteger(jointCount) || jointCount < 1) {
    throw new FabrikError(
      `createSolveWorkspace: jointCount must be a whole number >= 1, got ${String(jointCount)}`,
      undefined,
      "jointCount",
    );
  }
  const n = jointCount;
  const length = (key: keyof typeof ARRAYS): number => ARRAYS[key][1] * n + ARRAYS[key][2];
  // One literal, so every workspace has the same shape.
  const workspace: SolveWorkspace = {
    jointCount: n,
    boneLength: new Float64Array(length("boneLength")),
    inputDirection: new Float64Array(length("inputDirection")),
    localOffset: new Float64Array(length("localOffset")),
    inputLocal: new Float64Array(length("inputLocal")),
    currentLocal: new Float64Array(length("currentLocal")),
    savedPositions: new Float64Array(length("savedPositions")),
    savedOrientations: new Float64Array(length("savedOrientations")),
    savedOnLimit: new Uint8Array(length("savedOnLimit")),
    flags: new Uint8Array(length("flags")),
    carriedOffset: new Float64Array(length("carriedOffset")),
    carriedReach: new Float64Array(length("carriedReach")),
    carriedGoal: new Float64Array(length("carriedGoal")),
    carriedWeight: new Float64Array(length("carriedWeight")),
    tolerance: new Float64Array(length("tolerance")),
    holdConfiguration: new Uint8Array(length("holdConfiguration")),
    fellShort: new Uint8Array(length("fellShort")),
    maxResidual: new Float64Array(length("maxResidual")),
    residualSum: new Float64Array(length("residualSum")),
    escapeAttempt: new Float64Array(length("escapeAttempt")),
    escapeStep: new Float64Array(length("escapeStep")),
    escapeRelaxation: new Float64Array(length("escapeRelaxation")),
    foldLine: new Float64Array(length("foldLine")),
    foldSide: new Float64Array(length("foldSide")),
    foldDistance: new Float64Array(length("foldDistance")),
    foldDirection: new Float64Array(length("foldDirection")),
    candidate: new Float64Array(length("candidate")),
    fitted: new Float64Array(length("fitted")),
  };
  packTypedArrays(workspace);
  return workspace;
}

/** Throws a {@link FabrikError} naming `workspace` unless it is a workspace for rigs of `jointCount` joints. */
export function checkWorkspace(workspace: SolveWorkspace, jointCount: number): void {
  const w = workspace as unknown as Record<string, unknown> | null;
  if (w == null || typeof w !== "object" || typeof w.jointCount !== "number") {
    throw new FabrikError("plan: `workspace` must come from createSolveWorkspace", undefined, "workspace");
  }
  if (w.jointCount !== jointCount) {
    throw new FabrikError(
      `plan: \`workspace\` was made for rigs of ${String(w.jointCount)} joints, this rig has ${jointCount}`,
      undefined,
      "workspace",
    );
  }
  for (const key of Object.keys(ARRAYS) as (keyof typeof ARRAYS)[]) {
    const [Kind, perJoint, fixed] = ARRAYS[key];
    const value = w[key];
    if (!(value instanceof Kind) || value.length !== perJoint * jointCount + fixed) {
      throw new FabrikError(
        `plan: \`workspace.${key}\` must be a ${Kind.name} of ${perJoint * jointCount + fixed} numbers ` +
          "(make workspaces with createSolveWorkspace)",
        undefined,
        "workspace",
      );
    }
  }
}
