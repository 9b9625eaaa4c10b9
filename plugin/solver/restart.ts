import {
  LIMIT_FIXED,
  LIMIT_HINGE,
  LIMIT_ROTATION,
  LIMIT_SWING,
  LIMIT_TWIST,
  LIMIT_UNIVERSAL,
} from "./limits.js";
import { clearOnLimit } from "./componentPose.js";
import { takesDampedSteps } from "./dampedSteps.js";
import type { SolvePlan } from "./plan.js";
import { quatMultiply, quatNormalize, quatRotate } from "./quaternion.js";

// This file's temporaries: a bone direction, the local rotation being built, a swing and a twist, and the
// base of a hinge chain's sequence (0: the component is not a hinge chain) and where its joints start.
const temp = new Float64Array(30);
const V = 4;
const L = 16;
const S = 20;
const T = 24;
const SPREAD = 28;
const FIRST = 29; // the component's first index in rotatingJoints

/*
 * When escapes stop paying, the solver starts the component again elsewhere and keeps the best pose seen
 * (a planar arm whose joints sit at +90° and -90° is a minimum no small step leaves; another start is on
 * the other side of it). The first restart puts every limited joint at the middle of its range; the later
 * ones scatter the limited joints over their ranges by a fixed hash of the restart and the joint, so a
 * solve is still a pure function of its input. Free and fixed joints keep their input rotations.
 *
 * A chain of hinges only (a robot arm) takes its angles from a low-discrepancy sequence over its joints
 * instead (Roberts' R_d: restart k puts the i-th joint at the fraction frac(1/2 + k / g^(i+1)) of its range,
 * g the root of x^(d+1) = x + 1 for the d joints of the chain). Hashed angles are independent per joint, so
 * a few restarts can leave whole sign patterns untried: the same few starts served every two-hinge arm, none
 * with the first hinge forward and the second back, and arms whose goal lay that way were never solved. The
 * sequence fills the box of the hinges' ranges evenly from the first restarts on; its restart 0 is mid-range.
 */

/** Starts component c again from restart number `k` (0: mid-range; from 1: scattered within the limits). */
export function restartComponent(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  k: number,
): void {
  const { activeJoints } = plan;
  const parents = plan.rig.parents;
  const { localOffset, boneLength, inputLocal, rotatingIndex } = plan.scratch;
  const b = plan.componentBase[c];
  // Every start is inside every limit.
  clearOnLimit(plan, c);
  temp[FIRST] = plan.rotatingStart[c];
  temp[SPREAD] = 0;
  if (takesDampedSteps(plan, c)) sequenceBase(plan.rotatingStart[c + 1] - plan.rotatingStart[c]);
  startLocal(plan, b, k, temp);
  const p = parents[b];
  if (p >= 0) quatMultiply(orientations, 4 * b, orientations, 4 * p, temp, L);
  else for (let i = 0; i < 4; i++) orientations[4 * b + i] = temp[L + i];
  quatNormalize(orientations, 4 * b);
  for (let i = plan.componentStart[c]; i < plan.componentStart[c + 1]; i++) {
    const j = activeJoints[i];
    const q = parents[j];
    const j3 = 3 * j,
      q4 = 4 * q;
    quatRotate(temp, V, orientations, q4, localOffset, j3);
    const len = boneLength[j];
    positions[j3] = positions[3 * q] + len * temp[V];
    positions[j3 + 1] = positions[3 * q + 1] + len * temp[V + 1];
    positions[j3 + 2] = positions[3 * q + 2] + len * temp[V + 2];
    if (rotatingIndex[j] >= 0 && plan.scratch.flags[j] & LIMIT_ROTATION) {
      startLocal(plan, j, k, temp);
      quatMultiply(orientations, 4 * j, orientations, q4, temp, L);
    } else {
      quatMultiply(orientations, 4 * j, orientations, q4, inputLocal, 4 * j);
    }
    quatNormalize(orientations, 4 * j);
  }
}

/** temp[L..] = joint j's local rotation for restart k (its input rotation when free or fixed). */
function startLocal(plan: SolvePlan, j: number, k: number, temp: Float64Array): void {
  const limits = plan.limits;
  const flags = plan.scratch.flags[j];
  if ((flags & LIMIT_ROTATION) === 0 || flags & LIMIT_FIXED) {
    for (let i = 0; i < 4; i++) temp[L + i] = plan.scratch.inputLocal[4 * j + i];
    return;
  }
  const j3 = 3 * j;
  // Δ = swing · twist relative to the rest rotation; at mid-range the swing is none.
  temp[S] = 0;
  temp[S + 1] = 0;
  temp[S + 2] = 0;
  temp[S + 3] = 1;
  let angle = 0;
  let axis = limits.boneAxis;
  if (flags & LIMIT_HINGE) {
    const min = limits.hinge[2 * j],
      max = limits.hinge[2 * j + 1];
    angle = min + (temp[SPREAD] > 0 ? spread(plan, j, k) : k === 0 ? 0.5 : hash(k, j, 0)) * (max - min);
    axis = limits.hingeAxis;
  } else if (flags & LIMIT_UNIVERSAL) {
    // Ru(α) · Rv(β), each angle at mid-range or hashed within it.
    const r = limits.swing;
    const alpha = r[4 * j] + (k === 0 ? 0.5 : hash(k, j, 1)) * (r[4 * j + 1] - r[4 * j]);
    const s = Math.sin(0.5 * alpha);
    for (let i = 0; i < 3; i++) temp[S + i] = limits.upAxis[j3 + i] * s;
    temp[S + 3] = Math.cos(0.5 * alpha);
    angle = r[4 * j + 2] + (k === 0 ? 0.5 : hash(k, j, 0)) * (r[4 * j + 3] - r[4 * j + 2]);
    axis = limits.rightAxis;
  } else {
    if (flags & LIMIT_TWIST) {
      const min = limits.twist[2 * j],
        max = limits.twist[2 * j + 1];
      angle = min + (k === 0 ? 0.5 : hash(k, j, 0)) * (max - min);
    }
    if (flags & LIMIT_SWING && k > 0) scatterSwing(plan, j, k, temp);
  }
  const s = Math.sin(0.5 * angle);
  temp[T] = axis[j3] * s;
  temp[T + 1] = axis[j3 + 1] * s;
  temp[T + 2] = axis[j3 + 2] * s;
  temp[T + 3] = Math.cos(0.5 * angle);
  quatMultiply(temp, L, temp, S, temp, T);
  quatMultiply(temp, L, limits.restLocal, 4 * j, temp, L);
}

/**
 * temp[S..] = a swing of joint j toward a hashed direction, by a hashed fraction of how far its elliptical
 * cone reaches that way (each quadrant of the cone is a quarter-ellipse of its two side angles).
 */
function scatterSwing(plan: SolvePlan, j: number, k: number, temp: Float64Array): void {
  const limits = plan.limits;
  const j3 = 3 * j,
    j4 = 4 * j;
  const phi = 2 * Math.PI * hash(k, j, 1);
  const cx = Math.cos(phi),
    cy = Math.sin(phi);
  const rx = cx >= 0 ? limits.swing[j4 + 1] : limits.swing[j4 + 3];
  const ry = cy >= 0 ? limits.swing[j4] : limits.swing[j4 + 2];
  const ex = cx / rx,
    ey = cy / ry;
  const reach = rx > 0 && ry > 0 ? 1 / Math.sqrt(ex * ex + ey * ey) : 0;
  const theta = hash(k, j, 2) * Math.min(reach, Math.PI);
  if (!(theta > 0)) return;
  const a = limits.boneAxis,
    up = limits.upAxis,
    right = limits.rightAxis;
  // Toward u = cos φ · right + sin φ · up, about a × u.
  const ux = cx * right[j3] + cy * up[j3],
    uy = cx * right[j3 + 1] + cy * up[j3 + 1],
    uz = cx * right[j3 + 2] + cy * up[j3 + 2];
  const s = Math.sin(0.5 * theta);
  temp[S] = (a[j3 + 1] * uz - a[j3 + 2] * uy) * s;
  temp[S + 1] = (a[j3 + 2] * ux - a[j3] * uz) * s;
  temp[S + 2] = (a[j3] * uy - a[j3 + 1] * ux) * s;
  temp[S + 3] = Math.cos(0.5 * theta);
}

/** g, the root of x^(d+1) = x + 1 above 1, for d joints (the golden ratio for one, the plastic number for two). */
function sequenceBase(d: number): void {
  // Into temp, not returned: a double returned from a call V8 did not inline is boxed.
  let g = 1.5;
  for (let i = 0; i < 32; i++) g = Math.pow(1 + g, 1 / (d + 1));
  temp[SPREAD] = g;
}

/** Restart k's fraction of the range of joint j, the i-th rotating joint of its hinge chain: frac(1/2 + k / g^(i+1)). */
function spread(plan: SolvePlan, j: number, k: number): number {
  const i = plan.scratch.rotatingIndex[j] - temp[FIRST];
  const x = 0.5 + k * Math.pow(temp[SPREAD], -(i + 1));
  return x - Math.floor(x);
}

/** A number in [0, 1) fixed by (k, j, d): an integer hash, so restarts are reproducible everywhere. */
function hash(k: number, j: number, d: number): number {
  let h = (Math.imul(k, 0x9e3779b1) ^ Math.imul(j + 1, 0x85ebca77) ^ Math.imul(d + 1, 0xc2b2ae3d)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}
