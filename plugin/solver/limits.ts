import { FabrikError, describeJoint } from "./errors.js";
import { quatConjugateMultiply, quatRotate, quatRotateInverse, vecNormalize } from "./quaternion.js";
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

/** The bone from the parent to this joint may change length within [min, max] (model units): a prismatic unit. */
export interface StretchLimitSpec {
  min: number;
  max: number;
}

/**
 * The limits of one joint. They constrain the joint's local rotation (relative to its parent, measured from
 * the rest pose), which is what moves its child bones. `hinge` excludes `swing` and `twist`; `fixed` keeps the
 * joint's input local rotation and excludes every other rotation limit.
 */
export interface JointLimitSpec {
  swing?: SwingLimitSpec;
  twist?: TwistLimitSpec;
  hinge?: HingeLimitSpec;
  fixed?: boolean;
  stretch?: StretchLimitSpec;
}

export const LIMIT_SWING = 1;
export const LIMIT_TWIST = 2;
export const LIMIT_HINGE = 4;
export const LIMIT_FIXED = 8;
export const LIMIT_STRETCH = 16;
/** Any limit on the joint's rotation. */
export const LIMIT_ROTATION = LIMIT_SWING | LIMIT_TWIST | LIMIT_HINGE | LIMIT_FIXED;

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
  /** up, right, down, left per joint. */
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
  const { swing, twist, hinge, fixed, stretch } = spec;
  if (fixed !== undefined && typeof fixed !== "boolean") {
    throw new FabrikError(`${who}: fixed must be true or false`, joint, "fixed");
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
      const a = parentFrameBoneAxis(limits, joint);
      const along = up[0] * a[0] + up[1] * a[1] + up[2] * a[2];
      if (Math.abs(along) > 1 - 1e-6) {
        throw new FabrikError(
          `${who}: swing.upAxis is parallel to the bone, so it defines no "up"`,
          joint,
          "swing.upAxis",
        );
      }
    }
  }
  if (twist !== undefined) checkRange(twist, -Math.PI, Math.PI, `${who}: twist`, joint);
  let hingeAxis: [number, number, number] | undefined;
  if (hinge !== undefined) {
    checkRange(hinge, -Math.PI, Math.PI, `${who}: hinge`, joint);
    hingeAxis = checkAxis(hinge.axis, `${who}: hinge.axis`, joint);
  }
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
    limits.twist[j2] = twist.min;
    limits.twist[j2 + 1] = twist.max;
    limits.twistHalf[j4] = Math.cos(twist.min / 2);
    limits.twistHalf[j4 + 1] = Math.sin(twist.min / 2);
    limits.twistHalf[j4 + 2] = Math.cos(twist.max / 2);
    limits.twistHalf[j4 + 3] = Math.sin(twist.max / 2);
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
  if (fixed) flags |= LIMIT_FIXED;
  if (stretch !== undefined) {
    flags |= LIMIT_STRETCH;
    limits.stretch[j2] = stretch.min;
    limits.stretch[j2 + 1] = stretch.max;
  }
  limits.flags[joint] = flags;
  limits.specs[joint] = structuredClone(spec);
}

function checkAngle(value: unknown, min: number, max: number, what: string, joint: number): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw new FabrikError(
      `${what} must be an angle in [${fmt(min)}, ${fmt(max)}] radians, got ${String(value)}`,
      joint,
      what,
    );
  }
}

function checkRange(
  range: { min: number; max: number },
  lo: number,
  hi: number,
  what: string,
  joint: number,
): void {
  if (range === null || typeof range !== "object")
    throw new FabrikError(`${what} must be { min, max }`, joint, what);
  for (const key of ["min", "max"] as const) {
    const v = range[key];
    if (typeof v !== "number" || !Number.isFinite(v) || v < lo || v > hi) {
      throw new FabrikError(
        `${what}.${key} must be a number in [${fmt(lo)}, ${fmt(hi)}], got ${String(v)}`,
        joint,
        what,
      );
    }
  }
  if (range.min > range.max) {
    throw new FabrikError(`${what} is inverted: min ${range.min} > max ${range.max}`, joint, what);
  }
}

function checkAxis(axis: unknown, what: string, joint: number): [number, number, number] {
  if (
    !Array.isArray(axis) ||
    axis.length !== 3 ||
    !axis.every((v) => typeof v === "number" && Number.isFinite(v))
  ) {
    throw new FabrikError(`${what} must be three finite numbers`, joint, what);
  }
  const len = Math.hypot(axis[0], axis[1], axis[2]);
  if (!(len > 1e-12)) throw new FabrikError(`${what} has zero length`, joint, what);
  return [axis[0] / len, axis[1] / len, axis[2] / len];
}

function fmt(v: number): string {
  if (v === Math.PI) return "π";
  if (v === -Math.PI) return "-π";
  return String(v);
}

/** Rest local rotations and bone axes, from the rig's rest pose. */
function computeRestFrames(limits: JointLimits): void {
  const { rig, restLocal, boneAxis } = limits;
  const { parents, restOrientations, restPositions, childStart, children } = rig;
  const n = rig.jointCount;
  const descendants = new Int32Array(n);
  for (let j = n - 1; j > 0; j--) if (parents[j] >= 0) descendants[parents[j]] += descendants[j] + 1;
  const v = new Float64Array(3);
  for (let j = 0; j < n; j++) {
    const p = parents[j];
    if (p >= 0) quatConjugateMultiply(restLocal, 4 * j, restOrientations, 4 * p, restOrientations, 4 * j);
    else restLocal.set(restOrientations.subarray(4 * j, 4 * j + 4), 4 * j);

    // The bone axis: toward the main child, the one that best continues the bone coming in (a chest's neck
    // rather than a clavicle, a hand's middle finger rather than its thumb); for a root, the child with the
    // most descendants. A leaf continues its parent's bone.
    let main = -1;
    let best = -Infinity;
    for (let k = childStart[j]; k < childStart[j + 1]; k++) {
      const c = children[k];
      if (!(distanceSquared(restPositions, c, j) > 0)) continue;
      let score: number;
      if (p >= 0 && distanceSquared(restPositions, j, p) > 0) {
        const ix = restPositions[3 * j] - restPositions[3 * p],
          iy = restPositions[3 * j + 1] - restPositions[3 * p + 1],
          iz = restPositions[3 * j + 2] - restPositions[3 * p + 2];
        const ox = restPositions[3 * c] - restPositions[3 * j],
          oy = restPositions[3 * c + 1] - restPositions[3 * j + 1],
          oz = restPositions[3 * c + 2] - restPositions[3 * j + 2];
        score =
          (ix * ox + iy * oy + iz * oz) /
          Math.sqrt((ix * ix + iy * iy + iz * iz) * (ox * ox + oy * oy + oz * oz));
      } else {
        score = descendants[c];
      }
      if (score > best) {
        best = score;
        main = c;
      }
    }
    let ok = false;
    if (main >= 0) {
      v[0] = restPositions[3 * main] - restPositions[3 * j];
      v[1] = restPositions[3 * main + 1] - restPositions[3 * j + 1];
      v[2] = restPositions[3 * main + 2] - restPositions[3 * j + 2];
      ok = vecNormalize(v, 0);
    } else if (p >= 0) {
      v[0] = restPositions[3 * j] - restPositions[3 * p];
      v[1] = restPositions[3 * j + 1] - restPositions[3 * p + 1];
      v[2] = restPositions[3 * j + 2] - restPositions[3 * p + 2];
      ok = vecNormalize(v, 0);
    }
    if (!ok) {
      // No direction in the rest pose at all: the joint's own +Y.
      v[0] = 0;
      v[1] = 1;
      v[2] = 0;
      quatRotate(v, 0, restOrientations, 4 * j, v, 0);
    }
    // Into the joint's own rest frame.
    quatRotateInverse(boneAxis, 3 * j, restOrientations, 4 * j, v, 0);
    vecNormalize(boneAxis, 3 * j);
    setSwingFrame(limits, j, undefined);
  }
}

function distanceSquared(p: Float64Array, a: number, b: number): number {
  const dx = p[3 * a] - p[3 * b],
    dy = p[3 * a + 1] - p[3 * b + 1],
    dz = p[3 * a + 2] - p[3 * b + 2];
  return dx * dx + dy * dy + dz * dz;
}

/** The bone axis expressed in the parent's frame (what users give axes in). */
function parentFrameBoneAxis(limits: JointLimits, joint: number): [number, number, number] {
  const v = new Float64Array(3);
  quatRotate(v, 0, limits.restLocal, 4 * joint, limits.boneAxis, 3 * joint);
  return [v[0], v[1], v[2]];
}

/** Up and right axes of the swing cone in the joint's rest frame; `upParent` is in the parent frame. */
function setSwingFrame(limits: JointLimits, joint: number, upParent: Vector3Tuple | undefined): void {
  const j3 = 3 * joint;
  const a = limits.boneAxis;
  const ax = a[j3],
    ay = a[j3 + 1],
    az = a[j3 + 2];
  const up = new Float64Array(3);
  if (upParent !== undefined) {
    up[0] = upParent[0];
    up[1] = upParent[1];
    up[2] = upParent[2];
    quatRotateInverse(up, 0, limits.restLocal, 4 * joint, up, 0);
  } else {
    // The parent-frame axis least aligned with the bone, brought into the joint frame.
    const inParent = parentFrameBoneAxis(limits, joint).map(Math.abs);
    const k =
      inParent[0] <= inParent[1] && inParent[0] <= inParent[2] ? 0 : inParent[1] <= inParent[2] ? 1 : 2;
    up[k] = 1;
    quatRotateInverse(up, 0, limits.restLocal, 4 * joint, up, 0);
  }
  const d = up[0] * ax + up[1] * ay + up[2] * az;
  up[0] -= d * ax;
  up[1] -= d * ay;
  up[2] -= d * az;
  vecNormalize(up, 0);
  limits.upAxis[j3] = up[0];
  limits.upAxis[j3 + 1] = up[1];
  limits.upAxis[j3 + 2] = up[2];
  limits.rightAxis[j3] = ay * up[2] - az * up[1];
  limits.rightAxis[j3 + 1] = az * up[0] - ax * up[2];
  limits.rightAxis[j3 + 2] = ax * up[1] - ay * up[0];
}
