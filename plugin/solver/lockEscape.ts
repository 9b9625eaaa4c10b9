import { dampedSteps, takesDampedSteps } from "./dampedSteps.js";
import { projectRotation } from "./jointLimitProjection.js";
import { LIMIT_FIXED, LIMIT_HINGE, LIMIT_ROTATION } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import {
  quatConjugateMultiply,
  quatFromUnitVectors,
  quatMultiply,
  quatNormalize,
  quatRotate,
} from "./quaternion.js";
import { measureResiduals } from "./residuals.js";

/*
 * FABRIK under limits can stall above tolerance: each pass pushes a joint past its limit, the projection pulls
 * it back, and the two passes undo each other (the "lock condition" of the modified-FABRIK literature). When
 * the error stalls while a joint sits on its limit, the solver takes one damped step of a different kind: a
 * cyclic-coordinate sweep that turns each joint on the effector's path, from the tip inward, toward the
 * target, within its limits (sweep after sweep while they pay). Turning one joint at a time slides blocked
 * joints along their limit boundary, which the position passes cannot do. The step angle shrinks with the
 * remaining error (of the best pose, which the escape starts from). The sweeps keep every limit, so the solver
 * weighs what they reach like any pass's result: it may be the answer, or the best pose the next escape starts
 * from.
 */

const MIN_STEP = 0.01;
const MAX_STEP = 0.8;
/** Step angle per unit of (summed residual / chain reach); each retry of a failed escape doubles it. */
const STEP_GAIN = 10;
/**
 * Sweeps per escape: at least MIN_SWEEPS, then more while each still takes at least SWEEP_GAIN off the
 * summed error, up to MAX_SWEEPS. A fixed three left locked arms winning some 15 % per escape, and a locked
 * arm spent its whole iteration budget that way (a pass that only confirms the lock, then three sweeps);
 * sweeping on while it pays converged 96 % of the characters bench's solves instead of 93 %, in 1.67
 * iterations per solve instead of 2.63, for the same time.
 */
const MIN_SWEEPS = 2;
const MAX_SWEEPS = 24;
/** Damped steps per escape of a robot arm (at most; each counts as an iteration): it has no sweeps to fall back on. */
const DAMPED_ESCAPE_STEPS = 40;
const SWEEP_GAIN = 0.01;
/**
 * Each joint of a sweep turns this many times the angle that would aim the effector at the target (within
 * the step). Two joints sliding along their limit boundaries each undo part of the other's turn, so plain
 * sweeps crawl (a locked RobotExpressive arm lost some 5 % of its error per sweep, for 14 sweeps per escape);
 * over-relaxation, as in SOR for coordinate descent, overshoots by what the other joint will take back. On the
 * characters bench it cut the turns per solve by two thirds and the escapes by half, and more solves converged.
 */
const OVER_RELAXATION = 1.5;
/**
 * A target farther from the base than this fraction of its chain's length is out of reach, or at its very
 * edge, whatever the limits. The sweeps then only settle the arm toward its closest pose, and overshooting
 * along the boundary there made the answer jump between frames (the stability tests' out-of-reach arms), so
 * they turn by the plain angle.
 */
const REACH_FRACTION = 0.99;

/** This file's temporaries: a candidate orientation, two directions, a turn, a local rotation, identity. */
const temp = new Float64Array(40);
const Q = 0;
const V = 4;
const W = 8;
const R = 12;
const L = 16;
const ID = 20;
const A = 24;
const LIMIT = 32;

/**
 * One escape of component c from the pose given: sweeps, or a robot arm's damped steps (at most `remaining`;
 * with `untilSlow`, only while they gain, when a restart is there to spend the rest on). Returns the iterations
 * it used: the damped steps it took (the sweeps are not counted).
 */
export function escapeLock(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  remaining: number,
  untilSlow: boolean,
): number {
  const { effectorPath, effectorPathStart, effectorJoints, componentEffectors, activeJoints } = plan;
  const { boneLength, residualSum, maxResidual, escapeStep, escapeRelaxation } = plan.scratch;
  let reach = 0;
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
    reach += boneLength[activeJoints[k]];
  if (!(reach > 0)) return 0;
  let step = ((STEP_GAIN * residualSum[0]) / reach) * 2 ** plan.scratch.escapeAttempt[0];
  step = step < MIN_STEP ? MIN_STEP : step > MAX_STEP ? MAX_STEP : step;
  escapeStep[0] = step;
  escapeRelaxation[0] = targetsWithinLength(plan, c, positions, targets, 0) ? OVER_RELAXATION : 1;

  // A robot arm (hinges only) takes damped steps instead of the sweeps: see dampedSteps.ts.
  if (takesDampedSteps(plan, c)) {
    const steps = Math.min(DAMPED_ESCAPE_STEPS, remaining);
    return dampedSteps(plan, c, positions, orientations, targets, steps, untilSlow);
  }
  const first = plan.componentEffectorStart[c],
    last = plan.componentEffectorStart[c + 1];
  let before = residualSum[0];
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    for (let k = first; k < last; k++) {
      const e = componentEffectors[k];
      const effector = effectorJoints[e];
      // From the effector's parent inward, ending with the base.
      for (let i = effectorPathStart[e + 1] - 2; i >= effectorPathStart[e] - 1; i--) {
        const r = i >= effectorPathStart[e] ? effectorPath[i] : plan.componentBase[c];
        if (plan.scratch.rotatingIndex[r] < 0) continue;
        turnToward(plan, c, r, effector, e, positions, orientations, targets);
      }
    }
    if (sweep + 1 < MIN_SWEEPS) continue;
    // The caller measures the result again; the residuals are free once the step is set.
    measureResiduals(plan, first, last, positions, targets);
    const after = residualSum[0];
    if (maxResidual[0] <= plan.scratch.tolerance[0] || !(after < before * (1 - SWEEP_GAIN))) break;
    before = after;
  }
  return 0;
}

/**
 * True when every effector of component c has its target within its chain's length of the component's base:
 * times {@link REACH_FRACTION} (`atEdge` 0: the limits, not the lengths, are what may keep it from reaching,
 * and overshooting sweeps are safe), or plus the tolerance (`atEdge` 1: the lengths alone could meet it).
 */
export function targetsWithinLength(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
  atEdge: number,
): boolean {
  const { effectorPath, effectorPathStart, componentEffectors } = plan;
  const boneLength = plan.scratch.boneLength;
  const tolerance = plan.scratch.tolerance[0];
  const b3 = 3 * plan.componentBase[c];
  for (let k = plan.componentEffectorStart[c]; k < plan.componentEffectorStart[c + 1]; k++) {
    const e = componentEffectors[k];
    let length = 0;
    for (let i = effectorPathStart[e]; i < effectorPathStart[e + 1]; i++)
      length += boneLength[effectorPath[i]];
    const dx = targets[3 * e] - positions[b3],
      dy = targets[3 * e + 1] - positions[b3 + 1],
      dz = targets[3 * e + 2] - positions[b3 + 2];
    const reach = atEdge === 1 ? length + tolerance : REACH_FRACTION * length;
    if (dx * dx + dy * dy + dz * dz >= reach * reach) return false;
  }
  return true;
}

/**
 * Turns joint r toward aiming the effector at its target, by {@link OVER_RELAXATION} times that angle (or the
 * plain angle: escapeRelaxation) and at most escapeStep radians; carries r's subtree.
 */
function turnToward(
  plan: SolvePlan,
  c: number,
  r: number,
  effector: number,
  e: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
): void {
  const { activeJoints, limits } = plan;
  const parents = plan.rig.parents;
  const { currentLocal, localOffset, boneLength, inputLocal, escapeStep, escapeRelaxation } = plan.scratch;
  const r3 = 3 * r,
    r4 = 4 * r;
  temp[V] = positions[3 * effector] - positions[r3];
  temp[V + 1] = positions[3 * effector + 1] - positions[r3 + 1];
  temp[V + 2] = positions[3 * effector + 2] - positions[r3 + 2];
  temp[W] = targets[3 * e] - positions[r3];
  temp[W + 1] = targets[3 * e + 1] - positions[r3 + 1];
  temp[W + 2] = targets[3 * e + 2] - positions[r3 + 2];
  const lv = Math.sqrt(temp[V] * temp[V] + temp[V + 1] * temp[V + 1] + temp[V + 2] * temp[V + 2]);
  const lw = Math.sqrt(temp[W] * temp[W] + temp[W + 1] * temp[W + 1] + temp[W + 2] * temp[W + 2]);
  if (!(lv > 1e-12) || !(lw > 1e-12)) return;
  for (let i = 0; i < 3; i++) {
    temp[V + i] /= lv;
    temp[W + i] /= lw;
  }
  const step = escapeStep[0];
  if ((plan.scratch.flags[r] & (LIMIT_HINGE | LIMIT_FIXED)) === LIMIT_HINGE) {
    aimAboutHinge(plan, r, orientations);
  } else {
    quatFromUnitVectors(temp, R, temp, V, temp, W);
    const half = Math.acos(Math.min(1, Math.abs(temp[R + 3])));
    let angle = 2 * half * escapeRelaxation[0];
    if (angle > step) angle = step;
    if (half > 1e-12 && angle !== 2 * half) {
      const s = Math.sin(0.5 * angle) / Math.sin(half);
      const sign = temp[R + 3] < 0 ? -1 : 1;
      temp[R] *= s * sign;
      temp[R + 1] *= s * sign;
      temp[R + 2] *= s * sign;
      temp[R + 3] = Math.cos(0.5 * angle);
    }
  }

  // The subtree of r, in activeJoints: the whole component for its base.
  const index = plan.activeIndex[r];
  const from = index >= 0 ? index + 1 : plan.componentStart[c];
  const to = index >= 0 ? plan.subtreeEnd[index] : plan.componentStart[c + 1];
  for (let k = from; k < to; k++) {
    const j = activeJoints[k];
    quatConjugateMultiply(currentLocal, 4 * j, orientations, 4 * parents[j], orientations, 4 * j);
  }

  quatMultiply(temp, Q, temp, R, orientations, r4);
  const p = parents[r];
  temp[ID] = 0;
  temp[ID + 1] = 0;
  temp[ID + 2] = 0;
  temp[ID + 3] = 1;
  const parentArray = p >= 0 ? orientations : temp;
  const po = p >= 0 ? 4 * p : ID;
  const flags = plan.scratch.flags[r];
  if (flags & LIMIT_FIXED) {
    quatMultiply(temp, Q, parentArray, po, inputLocal, r4);
  } else if (flags & LIMIT_ROTATION) {
    quatConjugateMultiply(temp, L, parentArray, po, temp, Q);
    quatConjugateMultiply(temp, L, limits.restLocal, r4, temp, L);
    projectRotation(limits, r, temp, L, temp, LIMIT);
    plan.report.onLimit[r] = temp[LIMIT + 7];
    quatMultiply(temp, L, limits.restLocal, r4, temp, L);
    quatMultiply(temp, Q, parentArray, po, temp, L);
  }
  for (let i = 0; i < 4; i++) orientations[r4 + i] = temp[Q + i];
  quatNormalize(orientations, r4);

  for (let k = from; k < to; k++) {
    const j = activeJoints[k];
    const q = parents[j];
    const j3 = 3 * j,
      q4 = 4 * q;
    quatRotate(temp, V, orientations, q4, localOffset, j3);
    const len = boneLength[j];
    positions[j3] = positions[3 * q] + len * temp[V];
    positions[j3 + 1] = positions[3 * q + 1] + len * temp[V + 1];
    positions[j3 + 2] = positions[3 * q + 2] + len * temp[V + 2];
    quatMultiply(orientations, 4 * j, orientations, q4, currentLocal, 4 * j);
    // Each turn re-derives the subtree's locals from its orientations, so any norm error would be squared
    // down the chain on every turn (a 100-joint tail reached Infinity); keep them unit.
    quatNormalize(orientations, 4 * j);
  }
}

/**
 * temp[R..] = the turn of hinge r about its axis that best aims the effector (direction temp[V..]) at the
 * target (temp[W..]): the angle between the two directions seen along the axis, as hinge CCD takes it. The
 * shortest turn between them, held to the hinge afterwards, keeps only its part about the axis, which is
 * smaller by the cosine of how far the two directions leave the hinge's plane: on a twisted arm, whose
 * directions leave it far, the sweeps then crawled.
 */
function aimAboutHinge(plan: SolvePlan, r: number, orientations: Float64Array): void {
  // The step and relaxation are read here, not handed over: a double passed to a call V8 did not inline is
  // boxed (an escape's code is cold, and often not inlined).
  const step = plan.scratch.escapeStep[0],
    relaxation = plan.scratch.escapeRelaxation[0];
  quatRotate(temp, A, orientations, 4 * r, plan.limits.hingeAxis, 3 * r);
  const ax = temp[A],
    ay = temp[A + 1],
    az = temp[A + 2];
  const vu = temp[V] * ax + temp[V + 1] * ay + temp[V + 2] * az;
  const wu = temp[W] * ax + temp[W + 1] * ay + temp[W + 2] * az;
  const vx = temp[V] - vu * ax,
    vy = temp[V + 1] - vu * ay,
    vz = temp[V + 2] - vu * az;
  const wx = temp[W] - wu * ax,
    wy = temp[W + 1] - wu * ay,
    wz = temp[W + 2] - wu * az;
  const sin = ax * (vy * wz - vz * wy) + ay * (vz * wx - vx * wz) + az * (vx * wy - vy * wx);
  const cos = vx * wx + vy * wy + vz * wz;
  let angle = sin * sin + cos * cos > 1e-24 ? relaxation * Math.atan2(sin, cos) : 0;
  angle = angle > step ? step : angle < -step ? -step : angle;
  const s = Math.sin(0.5 * angle);
  temp[R] = ax * s;
  temp[R + 1] = ay * s;
  temp[R + 2] = az * s;
  temp[R + 3] = Math.cos(0.5 * angle);
}
