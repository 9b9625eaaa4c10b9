import { clampToQuarterEllipse } from "./ellipticalSwingLimit.js";
import { FabrikError, describeJoint } from "./errors.js";
import { clampAngle } from "./angleRange.js";
import { measureHingeAngle } from "./hingeJoint.js";
import { measureSwingTwist } from "./jointLimitProjection.js";
import {
  LIMIT_FIXED,
  LIMIT_HINGE,
  LIMIT_SWING,
  LIMIT_TWIST,
  setJointLimit,
  type JointLimitSpec,
  type JointLimits,
  type SwingLimitSpec,
  type Vector3Tuple,
} from "./limits.js";
import { quatConjugateMultiply, quatRotate } from "./quaternion.js";
import { measureUniversalAngles } from "./universalJoint.js";

/**
 * Widening joint limits until they contain given local rotations (an animation's keys): limits that are
 * tighter than the character's own animation make the solver drag those joints back the moment a target
 * moves, and the limb jumps away from its animation. Runs once per key at setup, so clarity wins over speed.
 *
 * Every test here reproduces the measurement of `projectRotation` (jointLimitProjection.ts) — the same
 * swing/twist split, the same hinge angle, the same `clampToQuarterEllipse` and `clampAngle` — so "contained"
 * means exactly "the solver leaves it alone".
 */

export interface LimitFitOptions {
  /**
   * How far (radians, the angle of the rotation between a sample and its nearest turn about the hinge axis)
   * a sample may leave a hinge while the joint stays a hinge, its range widened. A sample further off makes
   * the joint a swing cone + twist that contains the hinge's range and every sample. Default 1e-3 (0.06°):
   * far above the rounding of float32 keys turning about the hinge's own axis, far below a clip that really
   * turns the joint off it. A hinge snaps any off-axis part away, so keeping one for such a clip would move
   * the animation (a knee 3° off on a 45 cm shin puts the foot 2.4 cm off), which is what fitting is there
   * to prevent. Give a few degrees to keep hinges and accept that snap.
   */
  hingeTolerance?: number;
}

/** A widened angle gets this much room (relative), so a sample on the new boundary is inside after rounding. */
const MARGIN = 1e-12;
/** Default {@link LimitFitOptions.hingeTolerance}. */
const HINGE_TOLERANCE = 1e-3;
/** The hinge arc is carried into a new cone through points this far apart (radians). */
const ARC_STEP = Math.PI / 360;
const angleScratch = new Float64Array(1);
const pairScratch = new Float64Array(2);
const splitScratch = new Float64Array(12);

/**
 * Widens joint `joint`'s rotation limits just enough to contain one local rotation `rotation` (x y z w,
 * relative to the parent, as animation keys are; any length, it is normalised). Returns true when the limits
 * changed.
 *
 * - Swing cone: the quadrant semi-axes on the sample's side grow by the least total angle that puts its
 *   swing on the quarter ellipse (when one of them alone cannot shrink, the other one grows); the cone keeps
 *   its `upAxis`.
 * - Twist: the range grows to the sample's twist.
 * - Hinge: a sample on the axis (within {@link LimitFitOptions.hingeTolerance}) widens the range. One
 *   further off turns the joint into a swing cone + twist holding the hinge's whole range (its "up" is the
 *   direction the hinge bends the bone) and the sample. A re-fitted hinge axis was not chosen: keyed data
 *   (float32 keys, a knee that also rolls or spreads a little) never turns about one axis exactly, so a
 *   re-fitted hinge would still snap it, while a cone fitted to near-planar motion stays as narrow sideways
 *   as the motion is.
 * - Universal and pivot joints: their ranges grow to the sample's angles and they keep their kind.
 * - Stretch, fixed joints and free joints are left as they are; every angle stays within π.
 *
 * Goes through `setJointLimit`, so the result is validated like any spec. Bad input (a joint outside the
 * rig, a rotation that is not four finite numbers or has zero length, a bad option) throws a FabrikError
 * naming the joint and the option, and changes nothing.
 */
export function widenJointLimit(
  limits: JointLimits,
  joint: number,
  rotation: ArrayLike<number>,
  options: LimitFitOptions = {},
): boolean {
  return fitJointLimit(limits, joint, rotation, options);
}

/**
 * {@link widenJointLimit} for many samples at once: `rotations` holds 4 numbers (x y z w) per sample. Every
 * sample is validated before anything is written, so a bad one leaves the limits as they were. Samples are
 * taken in order (the result is deterministic). Returns true when the limits changed.
 */
export function fitJointLimit(
  limits: JointLimits,
  joint: number,
  rotations: ArrayLike<number>,
  options: LimitFitOptions = {},
): boolean {
  const rig = limits.rig;
  if (!Number.isInteger(joint) || joint < 0 || joint >= rig.jointCount) {
    throw new FabrikError(
      `limit fitting: joint index ${String(joint)} is outside the rig (0..${rig.jointCount - 1})`,
      undefined,
      "joint",
    );
  }
  const who = `limit fitting of ${describeJoint(joint, rig.names)}`;
  if (options === null || typeof options !== "object") {
    throw new FabrikError(`${who}: options must be an object`, joint, "options");
  }
  const tolerance = options.hingeTolerance ?? HINGE_TOLERANCE;
  if (typeof tolerance !== "number" || !(tolerance >= 0 && tolerance <= Math.PI)) {
    throw new FabrikError(
      `${who}: hingeTolerance must be an angle in [0, π] radians, got ${String(tolerance)}`,
      joint,
      "hingeTolerance",
    );
  }
  if (
    rotations === null ||
    typeof rotations !== "object" ||
    typeof rotations.length !== "number" ||
    rotations.length % 4 !== 0
  ) {
    throw new FabrikError(`${who}: rotation must be 4 numbers (x y z w) per sample`, joint, "rotation");
  }
  const count = rotations.length / 4;
  const samples = new Float64Array(rotations.length);
  for (let s = 0; s < count; s++) {
    let norm = 0;
    for (let k = 0; k < 4; k++) {
      const v = rotations[4 * s + k];
      if (typeof v !== "number" || !Number.isFinite(v)) {
        throw new FabrikError(
          `${who}: rotation${count > 1 ? ` ${s}` : ""} must be four finite numbers, got ${describe(rotations, s)}`,
          joint,
          "rotation",
        );
      }
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    if (!(norm > 1e-12)) {
      throw new FabrikError(
        `${who}: rotation${count > 1 ? ` ${s}` : ""} has zero length, it is no rotation`,
        joint,
        "rotation",
      );
    }
    for (let k = 0; k < 4; k++) samples[4 * s + k] = rotations[4 * s + k] / norm;
  }

  let changed = false;
  const delta = new Float64Array(4);
  for (let s = 0; s < count; s++) {
    // Δ = restLocal⁻¹ · local: what the limits measure.
    quatConjugateMultiply(delta, 0, limits.restLocal, 4 * joint, samples, 4 * s);
    normalize(delta);
    if (widenOne(limits, joint, delta, tolerance)) changed = true;
  }
  return changed;
}

function describe(rotations: ArrayLike<number>, s: number): string {
  const values: string[] = [];
  for (let k = 0; k < 4; k++) values.push(String(rotations[4 * s + k]));
  return `[${values.join(", ")}]`;
}

function normalize(q: Float64Array): void {
  const l = Math.hypot(q[0], q[1], q[2], q[3]);
  for (let k = 0; k < 4; k++) q[k] /= l;
}

function widenOne(limits: JointLimits, j: number, delta: Float64Array, tolerance: number): boolean {
  const flags = limits.flags[j];
  const spec = limits.specs[j];
  // A fixed joint keeps whatever rotation it is given: nothing to contain. A free one contains everything.
  if (spec === undefined || flags & LIMIT_FIXED) return false;
  if (flags & LIMIT_HINGE && spec.hinge !== undefined) {
    const { angle, offAxis } = measureHinge(limits, j, delta);
    if (offAxis <= tolerance) {
      const range = widenRange(spec.hinge.min, spec.hinge.max, angle);
      if (range === undefined) return false;
      setJointLimit(limits, j, { ...spec, hinge: { ...spec.hinge, ...range } });
      return true;
    }
    setJointLimit(limits, j, hingeAsCone(limits, j, spec));
  } else if (spec.universal !== undefined || spec.pivot !== undefined) {
    return widenJointKind(limits, j, delta, spec);
  } else if ((flags & (LIMIT_SWING | LIMIT_TWIST)) === 0) {
    return false;
  }
  // Swing and twist, from the spec now in force (the converted one after a hinge).
  const current = limits.specs[j]!;
  const d = decompose(limits, j, delta);
  let next: JointLimitSpec = current;
  if (current.twist !== undefined) {
    const range = widenRange(current.twist.min, current.twist.max, d.twist);
    if (range !== undefined) next = { ...next, twist: range };
  }
  if (current.swing !== undefined) {
    const swing = widenSwing(current.swing, d.x, d.y);
    if (swing !== undefined) next = { ...next, swing };
  }
  if (next === current) return current !== spec;
  setJointLimit(limits, j, next);
  return true;
}

/**
 * A universal joint's two ranges, or a pivot's roll range, grown to hold the sample's angles. The joint keeps
 * its kind: the roll a universal joint cannot make, or the swing a pivot cannot, stays out (the solver drops it).
 */
function widenJointKind(limits: JointLimits, j: number, delta: Float64Array, spec: JointLimitSpec): boolean {
  if (spec.pivot !== undefined) {
    const range = widenRange(spec.pivot.min, spec.pivot.max, decompose(limits, j, delta).twist);
    if (range === undefined) return false;
    setJointLimit(limits, j, { ...spec, pivot: range });
    return true;
  }
  const universal = spec.universal!;
  measureUniversalAngles(limits, j, delta, 0, pairScratch, 0);
  const first = widenRange(universal.first.min, universal.first.max, pairScratch[0]);
  const second = widenRange(universal.second.min, universal.second.max, pairScratch[1]);
  if (first === undefined && second === undefined) return false;
  if (second !== undefined) {
    second.min = Math.max(second.min, -Math.PI / 2);
    second.max = Math.min(second.max, Math.PI / 2);
  }
  const next = { ...universal, first: first ?? universal.first, second: second ?? universal.second };
  setJointLimit(limits, j, { ...spec, universal: next });
  return true;
}

/** [min, max] grown to hold `angle` (with a hair of margin), or undefined when it already does. */
function widenRange(min: number, max: number, angle: number): { min: number; max: number } | undefined {
  const s = Float64Array.of(angle, min, max);
  if (!clampAngle(s, 0)) return undefined;
  // Ranges do not wrap around ±π, so the only way to hold the angle is to move the end on its side.
  if (angle < min) return { min: Math.max(-Math.PI, angle - MARGIN * Math.max(1, Math.abs(angle))), max };
  return { min, max: Math.min(Math.PI, angle + MARGIN * Math.max(1, Math.abs(angle))) };
}

/**
 * The cone grown to hold the swing point (x, y) (radians along right and up), or undefined when it already
 * does. Only the two semi-axes of the point's quadrant change.
 */
function widenSwing(swing: SwingLimitSpec, x: number, y: number): SwingLimitSpec | undefined {
  const X = Math.abs(x),
    Y = Math.abs(y);
  const horizontal = x >= 0 ? "right" : "left";
  const vertical = y >= 0 ? "up" : "down";
  const A = swing[horizontal],
    B = swing[vertical];
  if (!clampToQuarterEllipse(Float64Array.of(X, Y, A, B), 0)) return undefined;
  let a: number, b: number;
  if (Y === 0) {
    a = Math.max(A, X);
    b = B;
  } else if (X === 0) {
    a = A;
    b = Math.max(B, Y);
  } else {
    // The least total growth (a − A) + (b − B) with X²/a² + Y²/b² = 1: the gradients of the constraint
    // match when a/b = (X/Y)^(2/3). When that optimum would shrink one side, that side stays and the other
    // grows alone to the ellipse through the point.
    const x3 = Math.cbrt(X * X),
      y3 = Math.cbrt(Y * Y);
    const s = Math.sqrt(x3 + y3);
    a = x3 * s;
    b = y3 * s;
    // 1 − (X/A)² as (A − X)(A + X)/A²: X can be close to A, where the plain form loses digits.
    if (a < A) {
      a = A;
      b = (Y * A) / Math.sqrt((A - X) * (A + X));
    } else if (b < B) {
      b = B;
      a = (X * B) / Math.sqrt((B - Y) * (B + Y));
    }
  }
  // The margin goes only on a side that grows: one that holds stays exactly as it was.
  a = a > A ? a * (1 + MARGIN) : A;
  b = b > B ? b * (1 + MARGIN) : B;
  // No side beyond π: the point's swing θ = hypot(X, Y) <= π, so a side capped at π still lets the other
  // side reach the point.
  if (a > Math.PI) {
    a = Math.PI;
    const r = X / Math.PI;
    b = Math.max(B, r < 1 ? (Y / Math.sqrt(1 - r * r)) * (1 + MARGIN) : B);
  }
  if (b > Math.PI) {
    b = Math.PI;
    const r = Y / Math.PI;
    a = Math.max(A, Math.min(Math.PI, r < 1 ? (X / Math.sqrt(1 - r * r)) * (1 + MARGIN) : A));
  }
  // Rounding can still leave the point a hair outside: grow by doubling slivers until the clamp agrees.
  const check = new Float64Array(4);
  for (let k = 0; k < 60; k++) {
    check[0] = X;
    check[1] = Y;
    check[2] = a;
    check[3] = b;
    // A side under 1e-12 of the other counts as closed in the clamp; the point then moves by less than
    // 1e-12 rad, which is no reason to open the cone.
    if (!clampToQuarterEllipse(check, 0) || Math.hypot(check[0] - X, check[1] - Y) <= 1e-12) break;
    const grow = 1 + MARGIN * 2 ** k;
    a = Math.min(Math.PI, Math.max(a * grow, X > 0 ? 1e-15 : 0));
    b = Math.min(Math.PI, Math.max(b * grow, Y > 0 ? 1e-15 : 0));
  }
  return { ...swing, [horizontal]: a, [vertical]: b };
}

/**
 * A hinge's spec turned into a swing cone + twist holding its whole range: the arc it allows, walked in
 * small steps, widens a cone that starts closed. Its "up" is where the hinge bends the bone (hinge × bone),
 * so for the usual hinge across the bone the arc lies on the up/down line and right/left stay closed.
 */
function hingeAsCone(limits: JointLimits, j: number, spec: JointLimitSpec): JointLimitSpec {
  const hinge = spec.hinge!;
  const j3 = 3 * j;
  const h = limits.hingeAxis,
    a = limits.boneAxis;
  const bend = Float64Array.of(
    h[j3 + 1] * a[j3 + 2] - h[j3 + 2] * a[j3 + 1],
    h[j3 + 2] * a[j3] - h[j3] * a[j3 + 2],
    h[j3] * a[j3 + 1] - h[j3 + 1] * a[j3],
  );
  let upAxis: Vector3Tuple | undefined;
  if (Math.hypot(bend[0], bend[1], bend[2]) > 1e-3) {
    // Given in the parent's frame, as specs are.
    quatRotate(bend, 0, limits.restLocal, 4 * j, bend, 0);
    upAxis = [bend[0], bend[1], bend[2]];
  }
  const cone: JointLimitSpec = {
    swing: { up: 0, right: 0, down: 0, left: 0, ...(upAxis ? { upAxis } : {}) },
    twist: { min: 0, max: 0 },
    ...(spec.stretch ? { stretch: spec.stretch } : {}),
  };
  // The cone's frame only exists once set: set it closed, then widen by the arc.
  setJointLimit(limits, j, cone);
  const steps = Math.max(1, Math.ceil((hinge.max - hinge.min) / ARC_STEP));
  const turn = new Float64Array(4);
  let swing = cone.swing!,
    twist = cone.twist!;
  for (let i = 0; i <= steps; i++) {
    const angle = hinge.min + ((hinge.max - hinge.min) * i) / steps;
    const s = Math.sin(angle / 2);
    turn[0] = h[j3] * s;
    turn[1] = h[j3 + 1] * s;
    turn[2] = h[j3 + 2] * s;
    turn[3] = Math.cos(angle / 2);
    const d = decompose(limits, j, turn);
    twist = widenRange(twist.min, twist.max, d.twist) ?? twist;
    swing = widenSwing(swing, d.x, d.y) ?? swing;
  }
  return { ...cone, swing, twist };
}

/**
 * Δ's twist angle about the bone axis and its swing as a point (x, y) of swing space (radians toward right
 * and up), split exactly as `projectRotation` splits it.
 */
function decompose(limits: JointLimits, j: number, q: Float64Array): { twist: number; x: number; y: number } {
  measureSwingTwist(limits, j, q, 0, splitScratch, 0);
  return { twist: splitScratch[8], x: splitScratch[10], y: splitScratch[11] };
}

/**
 * The hinge angle `projectRotation` measures for Δ (where Δ takes the bone, in the hinge plane; Δ's own turn
 * about the axis for a bone along it) and how far Δ is from that turn (radians).
 */
function measureHinge(limits: JointLimits, j: number, q: Float64Array): { angle: number; offAxis: number } {
  const j3 = 3 * j;
  const h = limits.hingeAxis;
  const hx = h[j3],
    hy = h[j3 + 1],
    hz = h[j3 + 2];
  measureHingeAngle(limits, j, q, 0, angleScratch, 0);
  const angle = angleScratch[0];
  // The rotation between Δ and the pure turn by that angle, from the chord (q and −q are one rotation):
  // chord = 2 sin(φ/4), precise where acos of a dot product near 1 is not.
  const s = Math.sin(angle / 2);
  const n = [hx * s, hy * s, hz * s, Math.cos(angle / 2)];
  let plus = 0,
    minus = 0;
  for (let k = 0; k < 4; k++) {
    plus += (n[k] - q[k]) ** 2;
    minus += (n[k] + q[k]) ** 2;
  }
  const chord = Math.sqrt(Math.min(plus, minus));
  return { angle, offAxis: 4 * Math.asin(Math.min(1, chord / 2)) };
}
