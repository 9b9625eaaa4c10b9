import { FabrikError } from "../solver/errors.js";
import type { TargetEntry } from "./compiledTargets.js";
import { describeValue, isQuaternionLike, type QuaternionLike, type TargetSource } from "./targetBinding.js";

export interface FabrikTargetOptions {
  /**
   * How much of the IK pose to show for this effector, 0..1 (default 1): the chain's joints are slerped from
   * their animated rotations by `weight × behavior.weight`. Where chains share joints, a shared joint takes
   * the largest weight of the effectors turning it. Also sets the effector's pull where branches meet.
   */
  weight?: number;
  /**
   * How many bones above the effector may move; the joint that many levels up keeps its place but turns.
   * A joint with a recognised humanoid role (named by role or by bone name) gets its limb by default, so a
   * reaching hand never bends the spine:
   * - hand: up to the upper arm (2 on most rigs: shoulder and elbow turn); lower arm: 1;
   * - foot, toes, lower leg: up to the upper leg (hip and knee turn);
   * - head, neck: up to the upper chest (or chest, or spine), which turns with the neck and carries the
   *   arms along; give `chainLength: 1` to turn the neck alone;
   * - shoulder: up to the chest; upper arm: up to the shoulder; spine joints: up to the spine or hips.
   * Any other joint: every bone up to the root. A foot role that sits where its shin ends instead of
   * below its leg (Blender-IK rigs keep feet under the root) is placed through its leg, see
   * `FabrikBehavior.setTarget`; any other role whose limb root does not lie above it has no default,
   * and setTarget says so.
   */
  chainLength?: number;
  /**
   * The effector also takes the target's world rotation (hands holding a handle, feet flat on a slope):
   * the target node's, or `rotation`'s. Needs a TransformNode target or the `rotation` option. The rotation
   * is kept within the effector's own limits. Babylon's convention under a mirrored glTF root is used: the
   * effector's `absoluteRotationQuaternion` becomes the target's.
   */
  matchOrientation?: boolean;
  /** A world rotation for the effector to take (read live, like a Vector3 target). Implies `matchOrientation`. */
  rotation?: QuaternionLike;
  /** A bend hint: the chain's inner joints (elbow, knee) bend toward this point. Same kinds as a target. */
  pole?: TargetSource;
}

/** A target as set, for tools and inspectors (see `FabrikBehavior.targets`). */
export interface FabrikTargetInfo {
  readonly joint: number;
  /** How the user named the joint. */
  readonly label: string;
  readonly source: TargetSource;
  readonly weight: number;
  /**
   * As given or defaulted by role; undefined: up to the root; 1 for a foot at its shin's end (the shin's
   * chain, see `FabrikBehavior.shinOf`). `plan.chainLengths` has the resolved value.
   */
  readonly chainLength: number | undefined;
  readonly matchOrientation: boolean;
  readonly rotation: QuaternionLike | null;
  readonly pole: TargetSource | null;
}

const TARGET_OPTION_KEYS = ["weight", "chainLength", "matchOrientation", "rotation", "pole"];

/**
 * Checks `setTarget`'s options (`who` names the call, `j` the joint in errors); throws a {@link FabrikError}
 * naming the first bad one. Returns them with the weight defaulted.
 */
export function checkTargetOptions(
  options: FabrikTargetOptions,
  who: string,
  j: number,
): FabrikTargetOptions & { weight: number } {
  if (options === null || typeof options !== "object") {
    throw new FabrikError(`${who}: options must be an object, got ${describeValue(options)}`, j, "options");
  }
  for (const key of Object.keys(options)) {
    if (!TARGET_OPTION_KEYS.includes(key)) {
      throw new FabrikError(
        `${who}: unknown option "${key}" (options are ${TARGET_OPTION_KEYS.join(", ")})`,
        j,
        key,
      );
    }
  }
  const weight = options.weight ?? 1;
  if (typeof weight !== "number" || !(weight >= 0 && weight <= 1)) {
    throw new FabrikError(`${who}: weight must be a number in [0, 1], got ${String(weight)}`, j, "weight");
  }
  const { chainLength, rotation, matchOrientation } = options;
  if (chainLength !== undefined && (!Number.isInteger(chainLength) || chainLength < 1)) {
    throw new FabrikError(
      `${who}: chainLength must be a whole number >= 1, got ${String(chainLength)}`,
      j,
      "chainLength",
    );
  }
  if (matchOrientation !== undefined && typeof matchOrientation !== "boolean") {
    throw new FabrikError(`${who}: matchOrientation must be true or false`, j, "matchOrientation");
  }
  if (rotation !== undefined) {
    if (!isQuaternionLike(rotation)) {
      throw new FabrikError(
        `${who}: rotation must be a Quaternion, got ${describeValue(rotation)}`,
        j,
        "rotation",
      );
    }
    const len = Math.hypot(rotation.x, rotation.y, rotation.z, rotation.w);
    if (!Number.isFinite(len) || len < 1e-6) {
      throw new FabrikError(
        `${who}: rotation is not a usable quaternion (${rotation.x}, ${rotation.y}, ${rotation.z}, ${rotation.w})`,
        j,
        "rotation",
      );
    }
  }
  return { ...options, weight };
}

/** A snapshot of a target as set, for tools. */
export function targetInfo(e: TargetEntry): FabrikTargetInfo {
  return {
    joint: e.joint,
    label: e.label,
    source: e.binding.source,
    weight: e.weight,
    chainLength: e.chainLength,
    matchOrientation: e.matchOrientation,
    rotation: e.rotation,
    pole: e.pole?.source ?? null,
  };
}
