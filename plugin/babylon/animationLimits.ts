import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import { Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import { FabrikError } from "../solver/errors.js";
import { fitJointLimit, type LimitFitOptions } from "../solver/limitFitting.js";
import type { JointLimits } from "../solver/limits.js";
import { foldAxis, foldRotation } from "./scaleFold.js";
import type { SkeletonRig } from "./skeletonRig.js";

/** What {@link fitLimitsToAnimations} read and changed. */
export interface AnimationLimitFit {
  /** Joints whose limits were widened, ascending. */
  readonly widened: number[];
  /** Rotation keys read (of animations targeting the rig's joints). */
  readonly keys: number;
  /** Keys that were no rotation (non-finite or zero) and were left out. */
  readonly skipped: number;
}

/**
 * Widens `limits` (built for `rig`) until every rotation key of the given animation groups that drives one
 * of the rig's joints lies inside them (see `fitJointLimit`): a character's own clips then never fight the
 * limits, so a target that moves does not drag a knee or a hip away from its animation.
 *
 * Reads the keys directly (`animation.getKeys()`), as local rotations relative to the parent, which is what
 * glTF and Babylon animate; nothing is played or seeked. `rotationQuaternion` keys are used as they are;
 * `rotation` (Euler) keys are converted as Babylon converts them (`Quaternion.FromEulerAngles`). Keys in
 * between are not sampled: interpolating between two rotations inside a swing cone can leave it only by
 * the sliver the cone's curved boundary allows. Animations of other nodes or properties are ignored, and
 * so are keys that are no rotation (counted in `skipped`): one broken key should not cost the character
 * its fitting.
 */
export function fitLimitsToAnimations(
  rig: SkeletonRig,
  limits: JointLimits,
  groups: readonly AnimationGroup[],
  options: LimitFitOptions = {},
): AnimationLimitFit {
  if (rig === null || typeof rig !== "object" || typeof rig.indexOf !== "function") {
    throw new FabrikError("fitLimitsToAnimations: rig must be a SkeletonRig", undefined, "rig");
  }
  if (limits === null || typeof limits !== "object" || limits.rig?.jointCount !== rig.jointCount) {
    throw new FabrikError(
      "fitLimitsToAnimations: limits must be the JointLimits of this rig (same joint count)",
      undefined,
      "limits",
    );
  }
  if (!Array.isArray(groups) || !groups.every((g) => Array.isArray(g?.targetedAnimations))) {
    throw new FabrikError(
      "fitLimitsToAnimations: groups must be an array of AnimationGroups",
      undefined,
      "groups",
    );
  }
  // Gather every joint's keys first, then fit joint by joint: the result does not depend on how clips
  // interleave their channels.
  const perJoint = new Map<number, number[]>();
  let keys = 0,
    skipped = 0;
  const q = new Quaternion();
  for (const group of groups) {
    for (const { target, animation } of group.targetedAnimations) {
      if (target === null || typeof target !== "object") continue;
      const property = animation.targetProperty;
      if (property !== "rotationQuaternion" && property !== "rotation") continue;
      // A name is not a target: only the joint's own node or bone counts.
      const j = typeof target === "string" ? -1 : rig.indexOf(target as never);
      if (j < 0) continue;
      let values = perJoint.get(j);
      if (values === undefined) perJoint.set(j, (values = []));
      for (const key of animation.getKeys()) {
        keys++;
        const v = key.value as { x?: unknown; y?: unknown; z?: unknown; w?: unknown } | null;
        if (v === null || typeof v !== "object") {
          skipped++;
          continue;
        }
        if (property === "rotation") {
          Quaternion.FromEulerAnglesToRef(Number(v.x), Number(v.y), Number(v.z), q);
        } else {
          q.set(Number(v.x), Number(v.y), Number(v.z), Number(v.w));
        }
        const length = Math.hypot(q.x, q.y, q.z, q.w);
        if (!Number.isFinite(length) || !(length > 1e-12)) {
          skipped++;
          continue;
        }
        values.push(q.x, q.y, q.z, q.w);
      }
    }
  }
  // A joint scaled with signs that differ is solved with the half turn they hold folded into its rotation
  // (scaleFold.ts): its keys are measured against its limits the same way.
  for (const [j, values] of perJoint) {
    const source = rig.nodes[j] ?? rig.bones[j][0];
    const sc = source.scaling;
    const axis = foldAxis([sc.x, sc.y, sc.z], 0);
    for (let k = 0; k < values.length; k += 4) foldRotation(axis, values, k);
  }
  const widened: number[] = [];
  for (const j of [...perJoint.keys()].sort((a, b) => a - b)) {
    if (fitJointLimit(limits, j, perJoint.get(j)!, options)) widened.push(j);
  }
  return { widened, keys, skipped };
}
