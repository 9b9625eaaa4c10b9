import { FabrikError, describeJoint } from "./errors.js";
import { checkAcrossBone, checkAngle, checkAxis, checkRange } from "./limitChecks.js";
import { computeRestFrames, setSwingFrame } from "./limitFrames.js";
import { quatRotateInverse, vecNormalize } from "./quaternion.js";
import { packTypedArrays } from "./packArrays.js";
import type { Rig } from "./rig.js";

export type Vector3Tuple = readonly [number, number, number];

/**
 * An elliptical swing cone: how far (radians, 0..π) the bone may swing from its rest direction toward each
 * of four sides. Each quadrant between two sides is bounded by a quarter ellipse. Four equal angles give a
 * circular cone; angles past π/2 give cones wider than a hemisphere (shoulders).
 */
export interface SwingLimitSpec {
  up: number;
  right: number;
  down: number;
  left: number;
  /**
   * What "up" means, as a direction in the parent's frame; it is made perpendicular to the rest bone
   * direction. Default: the parent-frame axis (X, Y or Z) least aligned with the bone. "Right" is
   * bone × up.
   */
  upAxis?: Vector3Tuple;
}

/** Roll of the bone about its own axis, relative to rest, in radians within [-π, π]. */
export interface TwistLimitSpec {
  min: number;
  max: number;
}

/** A revolute joint: rotation only about `axis` (in the parent's frame), by an angle in [min, max] (radians, within [-π, π]). */
export interface HingeLimitSpec {
  axis: Vector3Tuple;
  min: number;
  max: number;
}

/**
 * A universal (Cardan, Hooke) joint: two revolute axes and no roll. The bone first turns about `axis`, fixed
 * in the parent, then about a second axis carried by that turn, perpendicular to the first and to the bone
 * (bone × axis at rest). Ranges in radians: `first` within [-π, π], `second` within [-π/2, π/2].
 */
export interface UniversalLimitSpec {
  /**
   * The first axis, as a direction in the parent's frame, made perpendicular to the rest bone direction.
   * Default: the parent-frame axis (X, Y or Z) least aligned with the bone.
   */
  axis?: Vector3Tuple;
  first: { min: number; max: number };
  second: { min: number; max: number };
}

/** A pivot (roll) joint: the bone only rolls about its own axis, by an angle in [min, max] (radians, within [-π, π]). */
export interface PivotLimitSpec {
  min: number;
  max: number;
}

/** The bone from the parent to this joint may change length within [min, max] (model units): a prismatic unit. */
export interface StretchLimitSpec {
  min: number;
  max: number;
}

/**
 * The limits of one joint. They constrain the joint's local rotation (relative to its parent, measured from
 * the rest pose), which is what moves its child bones. `hinge` excludes `swing` and `twist`; `fixed` keeps the
 * joint's input local rotation and excludes every other rotation limit. `universal` and `pivot` are joint kinds
 * of their own and exclude the other rotation limits too.
 */
export interface JointLimitSpec {
  swing?: SwingLimitSpec;
  twist?: TwistLimitSpec;
  hinge?: HingeLimitSpec;
  universal?: UniversalLimitSpec;
  pivot?: PivotLimitSpec;
  fixed?: boolean;
  stretch?: StretchLimitSpec;
}

export const LIMIT_SWING = 1;
export const LIMIT_TWIST = 2;
export const LIMIT_HINGE = 4;
export const LIMIT_FIXED = 8;
export const LIMIT_STRETCH = 16;
/** A universal joint; its ranges are in `swing` (first min, max, second min, max), its axes `upAxis`, `rightAxis`. */
export const LIMIT_UNIVERSAL = 32;
/** Any limit on the joint's rotation. A pivot is stored as a swing cone of zero size with a twist range. */
export const LIMIT_ROTATION = LIMIT_SWING | LIMIT_TWIST | LIMIT_HINGE | LIMIT_FIXED | LIMIT_UNIVERSAL;

/**
 * Compiled limits for every joint of a rig, as flat arrays the solver reads. All frames are the joint's rest
 * local frame: a joint's local rotation L is compared with its rest local rotation R through Δ = R⁻¹ L.
 * Shared by any number of plans and editable at any time with {@link setJointLimit}.
 */
export interface JointLimits {
  readonly rig: Rig;
  /** Bit set of LIMIT_* per joint. */
  readonly flags: Uint8Array;
  /** The spec each joint was given (undefined: free), for tools and inspectors. */
  readonly specs: (JointLimitSpec | undefined)[];
  /** Rest local rotation per joint (4 per joint): the parent-relative rotation the limits measure from. */
  readonly restLocal: Float64Array;
  /**
   * Bone axis per joint in its rest frame: toward its main child (the one best continuing the incoming bone;
   * for a root, the one with most descendants), else along its parent's bone.
   */
  readonly boneAxis: Float64Array;
  /** Swing-cone reference axes in the rest frame, perpendicular to the bone axis (right = bone × up). */
  readonly upAxis: Float64Array;
  readonly rightAxis: Float64Array;
  /** up, right, down, left per joint (a universal joint: first min, max, second min, max). */
  readonly swing: Float64Array;
  /** Cosine of the smallest of the four swing angles: a swing within it is inside the cone for sure. */
  readonly swingCosMin: Float64Array;
  /** cos and sin of half the twist min, then of half the twist max, per joint (4 per joint). */
  readonly twistHalf: Float64Array;
  /** min, max per joint (twist, hinge angle, stretch length). */
  readonly twist: Float64Array;
  readonly hinge: Float64Array;
  readonly stretch: Float64Array;
  /** Hinge axis per joint in its rest frame. */
  readonly hingeAxis: Float64Array;
}

/** Limits for a rig with every joint free. */
export function createJointLimits(rig: Rig): JointLimits {
  const n = rig.jointCount;
  const limits: JointLimits = {
    rig,
    flags: new Uint8Array(n),
    specs: new Array<JointLimitSpec | undefined>(n).fill(undefined),
    restLocal: new Float64Array(4 * n),
    boneAxis: new Float64Array(3 * n),
    upAxis: new Float64Array(3 * n),
    rightAxis: new Float64Array(3 * n),
    swing: new Float64Array(4 * n),
    swingCosMin: new Float64Array(n),
    twistHalf: new Float64Array(4 * n),
    twist: new Float64Array(2 * n),
    hinge: new Float64Array(2 * n),
    stretch: new Float64Array(2 * n),
    hingeAxis: new Float64Array(3 * n),
  };
  computeRestFrames(limits);
  packTypedArrays(limits);
  return limits;
}

/** Limit sets that several users rely on at once (see {@link markJointLimitsShared}). */
const sharedSets = new WeakSet<JointLimits>();

/**
 * Marks a limit set as shared by several users (characters with identical limits share one set, see
 * `FabrikBehavior`): from then on {@link setJointLimit}, and the fitting that goes through it, refuse to change
 * it, since a change would reach all of them. Edit a copy ({@link copyJointLimits}) instead.
 */
export function markJointLimitsShared(limits: JointLimits): void {
  sharedSets.add(limits);
}

/** True for a set marked with {@link markJointLimitsShared}: edit a copy of it. */
export function isJointLimitsShared(limits: JointLimits): boolean {
  return sharedSets.has(limits);
}

/** A copy of a limit set, for the same rig, that shares nothing with it (and is not marked shared). */
export function copyJointLimits(limits: JointLimits): JointLimits {
  const copy = createJointLimits(limits.rig);
  const from = limits as unknown as Record<string, unknown>,
    to = copy as unknown as Record<string, unknown>;
  for (const key of Object.keys(from)) {
    const value = from[key];
    if (ArrayBuffer.isView(value)) (to[key] as Float64Array).set(value as Float64Array);
  }
  for (let j = 0; j < limits.specs.length; j++) {
    const spec = limits.specs[j];
    copy.specs[j] = spec === undefined ? undefined : structuredClone(spec);
  }
  return copy;
}

/** Sets (or, with `undefined`, clears) the limits of one joint. Validates first: a bad spec changes nothing. */
export function setJointLimit(limits: JointLimits, joint: number, spec: JointLimitSpec | undefined): void {
  const rig = limits.rig;
  if (sharedSets.has(limits)) {
    throw new FabrikError(
      `limits of ${describeJoint(joint, rig.names)}: this limit set is shared by characters with identical ` +
        "limits and cannot be edited; use FabrikBehavior.setLimit, or edit a copy (copyJointLimits)",
      Number.isInteger(joint) ? joint : undefined,
      "limits",
    );
  }
  if (!Number.isInteger(joint) || joint < 0 || joint >= rig.jointCount) {
    throw new FabrikError(
      `limits: joint index ${joint} is outside the rig (0..${rig.jointCount - 1})`,
      undefined,
      "joint",
    );
  }
  const who = `limits of ${describeJoint(joint, rig.names)}`;
  if (spec === undefined) {
    limits.flags[joint] = 0;
    limits.specs[joint] = undefined;
    return;
  }
  if (spec === null || typeof spec !== "object")
    throw new FabrikError(`${who}: must be an object`, joint, "limits");
  const { swing, twist, hinge, fixed, stretch, universal, pivot } = spec;
  if (fixed !== undefined && typeof fixed !== "boolean") {
    throw new FabrikError(`${who}: fixed must be true or false`, joint, "fixed");
  }
  const kinds = [swing || twist ? "swing/twist" : "", hinge ? "hinge" : "", universal ? "universal" : ""]
    .concat(pivot ? "pivot" : "", fixed ? "fixed" : "")
    .filter((k) => k !== "");
  if (kinds.length > 1 && (universal || pivot)) {
    throw new FabrikError(
      `${who}: a joint is one kind of joint; got ${kinds.join(" and ")} (a universal or pivot joint takes no other rotation limit)`,
      joint,
      universal ? "universal" : "pivot",
    );
  }
  if (fixed && (swing || twist || hinge)) {
    throw new FabrikError(
      `${who}: a fixed joint cannot also have swing, twist or hinge limits`,
      joint,
      "fixed",
    );
  }
  if (hinge && (swing || twist)) {
    throw new FabrikError(
      `${who}: a hinge already fixes swing and twist; give either hinge or swing/twist`,
      joint,
      "hinge",
    );
  }
  let up: [number, number, number] | undefined;
  if (swing !== undefined) {
    for (const side of ["up", "right", "down", "left"] as const)
      checkAngle(swing[side], 0, Math.PI, `${who}: swing.${side}`, joint);
    if (swing.upAxis !== undefined) {
      up = checkAxis(swing.upAxis, `${who}: swing.upAxis`, joint);
      checkAcrossBone(limits, joint, up, who, "swing.upAxis", 'it defines no "up"');
    }
  }
  if (twist !== undefined) checkRange(twist, -Math.PI, Math.PI, `${who}: twist`, joint);
  let hingeAxis: [number, number, number] | undefined;
  if (hinge !== undefined) {
    checkRange(hinge, -Math.PI, Math.PI, `${who}: hinge`, joint);
    hingeAxis = checkAxis(hinge.axis, `${who}: hinge.axis`, joint);
  }
  let universalAxis: [number, number, number] | undefined;
  if (universal !== undefined) {
    if (universal === null || typeof universal !== "object")
      throw new FabrikError(`${who}: universal must be { axis?, first, second }`, joint, "universal");
    checkRange(universal.first, -Math.PI, Math.PI, `${who}: universal.first`, joint);
    checkRange(universal.second, -Math.PI / 2, Math.PI / 2, `${who}: universal.second`, joint);
    if (universal.axis !== undefined) {
      universalAxis = checkAxis(universal.axis, `${who}: universal.axis`, joint);
      checkAcrossBone(limits, joint, universalAxis, who, "universal.axis", "it cannot swing the bone");
    }
  }
  if (pivot !== undefined) checkRange(pivot, -Math.PI, Math.PI, `${who}: pivot`, joint);
  if (stretch !== undefined) {
    checkRange(stretch, 0, Infinity, `${who}: stretch`, joint);
    if (rig.parents[joint] < 0)
      throw new FabrikError(`${who}: a root has no bone to stretch`, joint, "stretch");
  }

  // Valid: write.
  const j2 = 2 * joint,
    j3 = 3 * joint,
    j4 = 4 * joint;
  let flags = 0;
  if (swing !== undefined) {
    flags |= LIMIT_SWING;
    limits.swing[j4] = swing.up;
    limits.swing[j4 + 1] = swing.right;
    limits.swing[j4 + 2] = swing.down;
    limits.swing[j4 + 3] = swing.left;
    limits.swingCosMin[joint] = Math.cos(Math.min(swing.up, swing.right, swing.down, swing.left));
    setSwingFrame(limits, joint, up);
  }
  if (twist !== undefined) {
    flags |= LIMIT_TWIST;
    setTwist(limits, joint, twist);
  }
  if (hinge !== undefined && hingeAxis !== undefined) {
    flags |= LIMIT_HINGE;
    limits.hinge[j2] = hinge.min;
    limits.hinge[j2 + 1] = hinge.max;
    // Given in the parent frame; stored in the joint's rest frame, where Δ lives.
    const scratch = Float64Array.of(hingeAxis[0], hingeAxis[1], hingeAxis[2]);
    quatRotateInverse(scratch, 0, limits.restLocal, j4, scratch, 0);
    vecNormalize(scratch, 0);
    limits.hingeAxis[j3] = scratch[0];
    limits.hingeAxis[j3 + 1] = scratch[1];
    limits.hingeAxis[j3 + 2] = scratch[2];
  }
  if (universal !== undefined) {
    flags |= LIMIT_UNIVERSAL;
    limits.swing[j4] = universal.first.min;
    limits.swing[j4 + 1] = universal.first.max;
    limits.swing[j4 + 2] = universal.second.min;
    limits.swing[j4 + 3] = universal.second.max;
    setSwingFrame(limits, joint, universalAxis);
  }
  if (pivot !== undefined) {
    // No swing at all, a twist range: the swing and twist projection then only rolls the bone.
    flags |= LIMIT_SWING | LIMIT_TWIST;
    limits.swing.fill(0, j4, j4 + 4);
    limits.swingCosMin[joint] = 1;
    setTwist(limits, joint, pivot);
  }
  if (fixed) flags |= LIMIT_FIXED;
  if (stretch !== undefined) {
    flags |= LIMIT_STRETCH;
    limits.stretch[j2] = stretch.min;
    limits.stretch[j2 + 1] = stretch.max;
  }
  limits.flags[joint] = flags;
  limits.specs[joint] = structuredClone(spec);
}

function setTwist(limits: JointLimits, joint: number, range: { min: number; max: number }): void {
  limits.twist[2 * joint] = range.min;
  limits.twist[2 * joint + 1] = range.max;
  const j4 = 4 * joint;
  limits.twistHalf[j4] = Math.cos(range.min / 2);
  limits.twistHalf[j4 + 1] = Math.sin(range.min / 2);
  limits.twistHalf[j4 + 2] = Math.cos(range.max / 2);
  limits.twistHalf[j4 + 3] = Math.sin(range.max / 2);
}
