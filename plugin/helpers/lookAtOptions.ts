import type { FabrikBehavior, FabrikJoint, Vector3Like } from "../babylon/index.js";
import { isAncestor } from "../rig/index.js";
import { FabrikError } from "../solver/index.js";

export interface LookAtOptions {
  /**
   * The joints that turn, parents first; the last one is the head, whose forward is the gaze. Default: the
   * `neck` and `head` roles (a root joint is never turned: on some creatures the "neck" is the body).
   */
  joints?: readonly FabrikJoint[];
  /** Also turn the chest (the `upperChest` or `chest` role) below the default neck and head. Default false. */
  chest?: boolean;
  /**
   * How the turn is shared, one number per joint (any scale). Default: equal, the chest taking half a share.
   * Each joint takes its share of what is left to turn, and is kept within its limits; the head then turns
   * the rest (within its own), so the gaze lands on the point whenever the limits allow.
   */
  shares?: readonly number[];
  /** The largest turn away from the animated gaze, in radians; farther points are looked at as far as this. Default 100°. */
  maxAngle?: number;
  /** Time constant (seconds) with which the gaze follows the target. Default 0.12. */
  smoothing?: number;
  /** Seconds to fade in when a target is set, and out when it is cleared. Default 0.3. */
  fadeTime?: number;
  /**
   * The gaze in model space at rest. Default: the front of the character (+Z of the node the behavior is
   * attached to, glTF's "forward"), brought into model space.
   */
  forward?: Vector3Like;
  /**
   * Update every frame by itself, with the animation clock's time step (default). With false, call
   * {@link LookAt.update} with your time step each frame before the behavior solves: the look then runs in
   * that frame with it (and not in frames without a call).
   */
  autoUpdate?: boolean;
}

/** The options LookAt knows: any other key is refused, so a typo does not pass silently. */
const LOOK_AT_OPTION_KEYS = [
  "joints",
  "chest",
  "shares",
  "maxAngle",
  "smoothing",
  "fadeTime",
  "forward",
  "autoUpdate",
];

/** Refuses options LookAt does not know, naming them. */
export function checkLookAtOptionNames(options: LookAtOptions, who: string): void {
  for (const key of Object.keys(options)) {
    if (!LOOK_AT_OPTION_KEYS.includes(key)) {
      throw new FabrikError(
        `${who}: unknown option "${key}" (options are ${LOOK_AT_OPTION_KEYS.join(", ")})`,
      );
    }
  }
}

/** The look joints: given, or neck and head by role (with the chest when asked), roots left out. */
export function lookJoints(ik: FabrikBehavior, options: LookAtOptions, who: string): number[] {
  const rig = ik.rig!;
  const parents = rig.parents;
  let joints: number[];
  if (options.joints !== undefined) {
    if (options.joints.length === 0)
      throw new FabrikError(`${who}: joints must not be empty`, undefined, "joints");
    joints = options.joints.map((joint) => {
      const j = ik.jointIndex(joint);
      if (j < 0) {
        const name = typeof joint === "string" ? joint : ((joint as { name?: string }).name ?? String(joint));
        throw new FabrikError(`${who}: no joint "${name}" in the rig`, undefined, "joints");
      }
      return j;
    });
  } else {
    const roles = ik.roles;
    if (roles.head === undefined) {
      throw new FabrikError(
        `${who}: no head role on this rig; name the joints: { joints: ["Neck", "Head"] }`,
        undefined,
        "joints",
      );
    }
    const wanted = [
      options.chest === true ? (roles.upperChest ?? roles.chest) : undefined,
      roles.neck,
      roles.head,
    ];
    joints = wanted.filter((j): j is number => j !== undefined && parents[j] >= 0);
    joints = joints.filter(
      (j, i) => i === joints.length - 1 || isAncestor(parents, j, joints[joints.length - 1]),
    );
  }
  for (let i = 1; i < joints.length; i++) {
    if (!isAncestor(parents, joints[i - 1], joints[i])) {
      throw new FabrikError(
        `${who}: joints must run from parent to child: "${rig.names[joints[i - 1]]}" is not above "${rig.names[joints[i]]}"`,
        joints[i],
        "joints",
      );
    }
  }
  if (parents[joints[joints.length - 1]] < 0) {
    throw new FabrikError(
      `${who}: the head "${rig.names[joints[joints.length - 1]]}" is a root joint`,
      undefined,
      "joints",
    );
  }
  return joints;
}

/** A number option that must be >= 0 (seconds, an angle). */
export function nonNegative(value: unknown, option: string, who: string): number {
  if (typeof value !== "number" || !(value >= 0) || Number.isNaN(value)) {
    throw new FabrikError(`${who}: ${option} must be a number >= 0, got ${String(value)}`, undefined, option);
  }
  return value;
}
