import { projectRotation } from "./jointLimitProjection.js";
import { LIMIT_FIXED, LIMIT_HINGE, LIMIT_STRETCH } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import { quatConjugateMultiply, quatMultiply, quatNormalize, quatRotate } from "./quaternion.js";
import { measureResiduals } from "./residuals.js";

/*
 * The lock escape of a component whose joints all turn about one axis each (a robot arm: hinges, and fixed
 * joints between them): damped least-squares steps on the hinge angles (Levenberg–Marquardt), instead of
 * the coordinate sweeps. FABRIK moves one joint at a time along lines to the target; when consecutive axes
 * are skewed, the hinges hold each other back and the passes crawl or stop short, and sweeps turning one
 * joint at a time crawl the same way. A damped step turns every hinge at once by what moves the effectors
 * toward their targets together, so it converges from where FABRIK stalled, at the rate Newton's method
 * has near a solution. Each step is held to the limits (a clamped hinge keeps what its range allows) and
 * kept only when it lowers the error; the damping rises after a step that did not, and falls after one
 * that did.
 */

/** Effectors of a component the damped steps handle: three rows of the 3m × 3m system each. */
const MAX_EFFECTORS = 4;
const SIZE = 3 * MAX_EFFECTORS;
/** Steps per escape, and the largest turn of any hinge in one step (radians). */
const MAX_STEPS = 40;
const MAX_TURN = 0.5;
/** Damping, as a fraction of the chain's reach: its starting value, and where the steps give up. */
const DAMPING = 0.05;
const MAX_DAMPING = 10;

const system = new Float64Array(SIZE * SIZE + 2 * SIZE);
const RHS = SIZE * SIZE;
const Y = RHS + SIZE;
const temp = new Float64Array(24);
const U = 0; // a hinge axis in model space
const C = 3; // two columns of the Jacobian (3 each)
const D = 9; // a local rotation / Δ
const LIMIT = 13; // projectRotation scratch (8)
/** Each joint's turn in the step being taken; grows with the largest rig seen (never per solve after that). */
let turns = new Float64Array(64);

/**
 * Runs damped steps on component c when every one of its rotating joints is a hinge or fixed (and none
 * stretches) and it has at most {@link MAX_EFFECTORS} effectors; returns false, changing nothing, otherwise.
 * Starts from the pose given, keeps every limit, and leaves the pose with the lowest error it reached.
 */
export function dampedHingeSteps(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
): boolean {
  if (!takesDampedSteps(plan, c)) return false;
  const n = plan.rig.jointCount;
  if (turns.length < n) turns = new Float64Array(n);
  const { activeJoints, rotatingJoints, componentEffectors, effectorJoints } = plan;
  const { boneLength, residualSum, maxResidual } = plan.scratch;
  const first = plan.componentEffectorStart[c],
    last = plan.componentEffectorStart[c + 1];
  const rows = 3 * (last - first);
  let reach = 0;
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
    reach += boneLength[activeJoints[k]];
  if (!(reach > 0)) return true;
  // The accepted pose lives in currentLocal: every active joint's (and the base's) local rotation.
  const base = plan.componentBase[c];
  storeLocal(plan, base, orientations);
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
    storeLocal(plan, activeJoints[k], orientations);
  measureResiduals(plan, first, last, positions, targets);
  let error = residualSum[0];
  const tolerance = plan.scratch.tolerance[0];
  let damping = DAMPING * reach;
  for (let step = 0; step < MAX_STEPS && maxResidual[0] > tolerance; step++) {
    // (J Jᵀ + λ² I) y = r, then each hinge turns by its column · y.
    system.fill(0, 0, RHS + rows);
    for (let i = 0; i < rows; i++) system[i * SIZE + i] = damping * damping;
    for (let k = first; k < last; k++) {
      const e = componentEffectors[k];
      const row = 3 * (k - first),
        j3 = 3 * effectorJoints[e];
      for (let i = 0; i < 3; i++) system[RHS + row + i] = targets[3 * e + i] - positions[j3 + i];
    }
    for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
      const r = rotatingJoints[ri];
      if (!(plan.scratch.flags[r] & LIMIT_HINGE)) continue;
      quatRotate(temp, U, orientations, 4 * r, plan.limits.hingeAxis, 3 * r);
      for (let k1 = first; k1 < last; k1++) {
        if (!moves(plan, r, effectorJoints[componentEffectors[k1]])) continue;
        column(positions, r, effectorJoints[componentEffectors[k1]], 0);
        for (let k2 = first; k2 < last; k2++) {
          if (!moves(plan, r, effectorJoints[componentEffectors[k2]])) continue;
          column(positions, r, effectorJoints[componentEffectors[k2]], 3);
          const o = 3 * (k1 - first) * SIZE + 3 * (k2 - first);
          for (let a = 0; a < 3; a++)
            for (let b = 0; b < 3; b++) system[o + a * SIZE + b] += temp[C + a] * temp[C + 3 + b];
        }
      }
    }
    solve(rows);
    let largest = 0;
    for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
      const r = rotatingJoints[ri];
      turns[r] = 0;
      if (!(plan.scratch.flags[r] & LIMIT_HINGE)) continue;
      quatRotate(temp, U, orientations, 4 * r, plan.limits.hingeAxis, 3 * r);
      let turn = 0;
      for (let k = first; k < last; k++) {
        if (!moves(plan, r, effectorJoints[componentEffectors[k]])) continue;
        column(positions, r, effectorJoints[componentEffectors[k]], 0);
        const row = Y + 3 * (k - first);
        turn += temp[C] * system[row] + temp[C + 1] * system[row + 1] + temp[C + 2] * system[row + 2];
      }
      turns[r] = turn;
      if (Math.abs(turn) > largest) largest = Math.abs(turn);
    }
    const scale = largest > MAX_TURN ? MAX_TURN / largest : 1;
    place(plan, c, positions, orientations, scale);
    measureResiduals(plan, first, last, positions, targets);
    if (residualSum[0] < error) {
      error = residualSum[0];
      storeLocal(plan, base, orientations);
      for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
        storeLocal(plan, activeJoints[k], orientations);
      damping *= 0.5;
    } else {
      place(plan, c, positions, orientations, 0);
      damping *= 4;
      if (damping > MAX_DAMPING * reach) break;
    }
  }
  // The accepted pose, measured (a rejected last step was already taken back).
  measureResiduals(plan, first, last, positions, targets);
  return true;
}

/** True for a component the damped steps handle (see {@link dampedHingeSteps}). */
export function takesDampedSteps(plan: SolvePlan, c: number): boolean {
  if (plan.componentEffectorStart[c + 1] - plan.componentEffectorStart[c] > MAX_EFFECTORS) return false;
  const flags = plan.scratch.flags;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const f = flags[plan.rotatingJoints[ri]];
    if (!(f & (LIMIT_HINGE | LIMIT_FIXED)) || f & LIMIT_STRETCH) return false;
  }
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
    if (flags[plan.activeJoints[k]] & LIMIT_STRETCH) return false;
  return true;
}

/** True when turning joint r moves joint j (j lies in r's subtree; every active joint lies in the base's). */
function moves(plan: SolvePlan, r: number, j: number): boolean {
  const index = plan.activeIndex[r];
  if (index < 0) return true;
  const k = plan.activeIndex[j];
  return k > index && k < plan.subtreeEnd[index];
}

/** temp[C + o ..] = u × (p_j − p_r): how joint j moves per radian of hinge r (axis temp[U..]). */
function column(positions: Float64Array, r: number, j: number, o: number): void {
  const x = positions[3 * j] - positions[3 * r],
    y = positions[3 * j + 1] - positions[3 * r + 1],
    z = positions[3 * j + 2] - positions[3 * r + 2];
  const ux = temp[U],
    uy = temp[U + 1],
    uz = temp[U + 2];
  temp[C + o] = uy * z - uz * y;
  temp[C + o + 1] = uz * x - ux * z;
  temp[C + o + 2] = ux * y - uy * x;
}

/** Gaussian elimination with partial pivoting on the symmetric positive definite system: y into system[Y..]. */
function solve(rows: number): void {
  for (let col = 0; col < rows; col++) {
    let pivot = col;
    for (let r = col + 1; r < rows; r++)
      if (Math.abs(system[r * SIZE + col]) > Math.abs(system[pivot * SIZE + col])) pivot = r;
    if (pivot !== col) {
      for (let k = 0; k < rows; k++) {
        const t = system[col * SIZE + k];
        system[col * SIZE + k] = system[pivot * SIZE + k];
        system[pivot * SIZE + k] = t;
      }
      const t = system[RHS + col];
      system[RHS + col] = system[RHS + pivot];
      system[RHS + pivot] = t;
    }
    const p = system[col * SIZE + col];
    for (let r = col + 1; r < rows; r++) {
      const f = system[r * SIZE + col] / p;
      if (f === 0) continue;
      for (let k = col; k < rows; k++) system[r * SIZE + k] -= f * system[col * SIZE + k];
      system[RHS + r] -= f * system[RHS + col];
    }
  }
  for (let r = rows - 1; r >= 0; r--) {
    let s = system[RHS + r];
    for (let k = r + 1; k < rows; k++) s -= system[r * SIZE + k] * system[Y + k];
    system[Y + r] = s / system[r * SIZE + r];
  }
}

function storeLocal(plan: SolvePlan, j: number, orientations: Float64Array): void {
  const p = plan.rig.parents[j];
  if (p >= 0)
    quatConjugateMultiply(plan.scratch.currentLocal, 4 * j, orientations, 4 * p, orientations, 4 * j);
  else for (let i = 0; i < 4; i++) plan.scratch.currentLocal[4 * j + i] = orientations[4 * j + i];
}

/**
 * Poses the component from the accepted local rotations, each hinge turned by `scale` times its step's turn
 * and held to its limits, parents first.
 */
function place(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  scale: number,
): void {
  const activeJoints = plan.activeJoints;
  const parents = plan.rig.parents;
  const { boneLength, localOffset } = plan.scratch;
  const base = plan.componentBase[c];
  orient(plan, base, orientations, scale);
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
    const j = activeJoints[k];
    const p = parents[j];
    quatRotate(temp, U, orientations, 4 * p, localOffset, 3 * j);
    const len = boneLength[j];
    for (let i = 0; i < 3; i++) positions[3 * j + i] = positions[3 * p + i] + len * temp[U + i];
    orient(plan, j, orientations, scale);
  }
}

/** orientation of j = parent's · (accepted local, turned about j's hinge by scale · turns[j], within its limit). */
function orient(plan: SolvePlan, j: number, orientations: Float64Array, scale: number): void {
  const { currentLocal, flags } = plan.scratch;
  const limits = plan.limits;
  const p = plan.rig.parents[j];
  const j4 = 4 * j;
  for (let i = 0; i < 4; i++) temp[D + i] = currentLocal[j4 + i];
  // Only the plan's rotating joints turn: `turns` holds stale values for every other joint.
  const turning =
    plan.scratch.rotatingIndex[j] >= 0 && (flags[j] & (LIMIT_HINGE | LIMIT_FIXED)) === LIMIT_HINGE;
  if (turning && scale !== 0 && turns[j] !== 0) {
    const half = 0.5 * scale * turns[j];
    const s = Math.sin(half);
    temp[LIMIT] = limits.hingeAxis[3 * j] * s;
    temp[LIMIT + 1] = limits.hingeAxis[3 * j + 1] * s;
    temp[LIMIT + 2] = limits.hingeAxis[3 * j + 2] * s;
    temp[LIMIT + 3] = Math.cos(half);
    quatMultiply(temp, D, temp, D, temp, LIMIT);
    // Δ = rest⁻¹ · local, held to the hinge's range, and back.
    quatConjugateMultiply(temp, D, limits.restLocal, j4, temp, D);
    projectRotation(limits, j, temp, D, temp, LIMIT);
    plan.report.onLimit[j] = temp[LIMIT + 7];
    quatMultiply(temp, D, limits.restLocal, j4, temp, D);
  }
  if (p >= 0) quatMultiply(orientations, j4, orientations, 4 * p, temp, D);
  else for (let i = 0; i < 4; i++) orientations[j4 + i] = temp[D + i];
  quatNormalize(orientations, j4);
}
