import { FabrikError, describeJoint } from "./errors.js";
import type { SolvePlan, SolveReport } from "./plan.js";

export interface SolveSettings {
  /** An effector within this distance of its target counts as reached (model units). Default 1e-3. */
  tolerance?: number;
  /** Iteration cap per solve (one forward plus one backward pass each). Default 20. */
  maxIterations?: number;
}

export const DEFAULT_TOLERANCE = 1e-3;
export const DEFAULT_MAX_ITERATIONS = 20;

/**
 * An iteration that lowers the summed residual by less than this fraction of the tolerance counts as a stall:
 * at that rate reaching the tolerance would take more than a thousand further iterations.
 */
const STALL_FRACTION = 1e-3;

/** Points closer than this (relative to the chain's size) are treated as coincident or collinear. */
const DEGENERATE_EPSILON = 1e-9;

/**
 * How far a fully collinear chain is bent before iterating, as a fraction of its length. FABRIK moves joints
 * only along the lines between them, so a straight chain whose target lies on its own line never leaves
 * that line; the paper's remedy is a small perturbation off it.
 */
const COLLINEAR_BEND = 0.05;

const EMPTY_SETTINGS: SolveSettings = {};
const TOLERANCE_SLOT = 0;
const MAX_RESIDUAL_SLOT = 1;
const RESIDUAL_SUM_SLOT = 2;

/**
 * Multi-end-effector FABRIK (Aristidou & Lasenby 2011). Moves the plan's active joints in `positions`
 * (model space, `x y z` per rig joint) so each effector approaches its target (`x y z` per effector, in
 * effector order). Bone lengths are those of the input pose; bases, pinned joints and every inactive
 * joint keep their input position. Allocates nothing; returns `plan.report`, refilled each solve.
 */
export function solvePlan(
  plan: SolvePlan,
  positions: Float64Array,
  targets: Float64Array,
  settings: SolveSettings = EMPTY_SETTINGS,
): SolveReport {
  validateSolveInput(plan, positions, targets, settings);
  const tolerance = settings.tolerance ?? DEFAULT_TOLERANCE;
  const maxIterations = settings.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  // Doubles passed as arguments to calls V8 does not inline get boxed, which allocates; the tolerance
  // therefore travels to the helpers through the plan's scratch instead.
  plan.scratch.numbers[TOLERANCE_SLOT] = tolerance;

  measureBones(plan, positions);
  const report = plan.report;
  let iterations = 0;
  for (let c = 0; c < plan.componentCount; c++) {
    const used = solveComponent(plan, c, positions, targets, maxIterations);
    if (used > iterations) iterations = used;
  }

  measureResiduals(plan, 0, plan.effectorCount, positions, targets);
  const maxResidual = plan.scratch.numbers[MAX_RESIDUAL_SLOT];
  report.iterations = iterations;
  report.maxResidual = maxResidual;
  report.converged = maxResidual <= tolerance;
  return report;
}

/** Checks everything a solve reads before it writes anything, so a bad call leaves `positions` untouched. */
export function validateSolveInput(
  plan: SolvePlan,
  positions: Float64Array,
  targets: Float64Array,
  settings: SolveSettings = EMPTY_SETTINGS,
): void {
  const tolerance = settings.tolerance ?? DEFAULT_TOLERANCE;
  const maxIterations = settings.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  const names = plan.rig.names;
  if (!(positions instanceof Float64Array) || positions.length !== 3 * plan.rig.jointCount) {
    throw new FabrikError(
      `solve: positions must be a Float64Array of 3 numbers per joint (${3 * plan.rig.jointCount})`,
      undefined,
      "positions",
    );
  }
  if (!(targets instanceof Float64Array) || targets.length < 3 * plan.effectorCount) {
    throw new FabrikError(
      `solve: targets must be a Float64Array of 3 numbers per effector (${3 * plan.effectorCount})`,
      undefined,
      "targets",
    );
  }
  if (typeof tolerance !== "number" || !(tolerance >= 0) || !Number.isFinite(tolerance)) {
    throw new FabrikError(
      `solve: tolerance must be a finite number >= 0, got ${String(tolerance)}`,
      undefined,
      "tolerance",
    );
  }
  if (!Number.isInteger(maxIterations) || maxIterations < 1) {
    throw new FabrikError(
      `solve: maxIterations must be a whole number >= 1, got ${String(maxIterations)}`,
      undefined,
      "maxIterations",
    );
  }
  for (let e = 0; e < plan.effectorCount; e++) {
    if (
      !Number.isFinite(targets[3 * e]) ||
      !Number.isFinite(targets[3 * e + 1]) ||
      !Number.isFinite(targets[3 * e + 2])
    ) {
      const j = plan.effectorJoints[e];
      throw new FabrikError(
        `solve: target of effector ${e} (${describeJoint(j, names)}) is not finite ` +
          `(${targets[3 * e]}, ${targets[3 * e + 1]}, ${targets[3 * e + 2]})`,
        j,
        "targets",
      );
    }
  }
  const active = plan.activeJoints;
  const parents = plan.rig.parents;
  for (let k = 0; k < active.length; k++) {
    const j = active[k];
    checkFinitePosition(positions, j, names);
    checkFinitePosition(positions, parents[j], names);
  }
}

function checkFinitePosition(positions: Float64Array, j: number, names: readonly string[] | undefined): void {
  const x = positions[3 * j],
    y = positions[3 * j + 1],
    z = positions[3 * j + 2];
  if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) {
    throw new FabrikError(
      `solve: position of ${describeJoint(j, names)} is not finite (${x}, ${y}, ${z})`,
      j,
      "positions",
    );
  }
}

/** Bone lengths and directions of the input pose: lengths are what every pass preserves. */
function measureBones(plan: SolvePlan, positions: Float64Array): void {
  const { activeJoints } = plan;
  const { parents, restPositions } = plan.rig;
  const { boneLength, inputDirection } = plan.scratch;
  for (let k = 0; k < activeJoints.length; k++) {
    const j = activeJoints[k];
    const p = parents[j];
    let dx = positions[3 * j] - positions[3 * p];
    let dy = positions[3 * j + 1] - positions[3 * p + 1];
    let dz = positions[3 * j + 2] - positions[3 * p + 2];
    let len = Math.sqrt(dx * dx + dy * dy + dz * dz);
    boneLength[j] = len;
    if (len <= 0) {
      // A zero-length bone has no direction of its own; borrow the rest pose's, or "up" as a last resort.
      dx = restPositions[3 * j] - restPositions[3 * p];
      dy = restPositions[3 * j + 1] - restPositions[3 * p + 1];
      dz = restPositions[3 * j + 2] - restPositions[3 * p + 2];
      len = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (len <= 0) {
        dx = 0;
        dy = 1;
        dz = 0;
        len = 1;
      }
    }
    inputDirection[3 * j] = dx / len;
    inputDirection[3 * j + 1] = dy / len;
    inputDirection[3 * j + 2] = dz / len;
  }
}

/**
 * Residuals of the effectors `componentEffectors[from .. to)` into `report.residuals`, their maximum and sum
 * into the scratch numbers.
 */
function measureResiduals(
  plan: SolvePlan,
  from: number,
  to: number,
  positions: Float64Array,
  targets: Float64Array,
): void {
  const { componentEffectors, effectorJoints } = plan;
  const residuals = plan.report.residuals;
  let max = 0,
    sum = 0;
  for (let k = from; k < to; k++) {
    const e = componentEffectors[k];
    const j3 = 3 * effectorJoints[e],
      e3 = 3 * e;
    const dx = positions[j3] - targets[e3],
      dy = positions[j3 + 1] - targets[e3 + 1],
      dz = positions[j3 + 2] - targets[e3 + 2];
    const r = Math.sqrt(dx * dx + dy * dy + dz * dz);
    residuals[e] = r;
    sum += r;
    if (r > max) max = r;
  }
  const numbers = plan.scratch.numbers;
  numbers[MAX_RESIDUAL_SLOT] = max;
  numbers[RESIDUAL_SUM_SLOT] = sum;
}

/** Returns the iterations used by one independent component. */
function solveComponent(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
  maxIterations: number,
): number {
  const numbers = plan.scratch.numbers;
  const tolerance = numbers[TOLERANCE_SLOT];
  const firstEffector = plan.componentEffectorStart[c],
    lastEffector = plan.componentEffectorStart[c + 1];
  measureResiduals(plan, firstEffector, lastEffector, positions, targets);
  if (numbers[MAX_RESIDUAL_SLOT] <= tolerance) return 0;
  const simpleChain = plan.componentIsSimpleChain[c] === 1;
  if (simpleChain && straightenIfOutOfReach(plan, c, positions, targets)) return 1;
  bendCollinearChains(plan, c, positions, targets);

  const stall = STALL_FRACTION * tolerance;
  let previous = Infinity;
  let iteration = 0;
  while (iteration < maxIterations) {
    iteration++;
    if (simpleChain) {
      forwardPassChain(plan, c, positions, targets);
      backwardPassChain(plan, c, positions);
    } else {
      forwardPass(plan, c, positions, targets);
      backwardPass(plan, c, positions);
    }
    measureResiduals(plan, firstEffector, lastEffector, positions, targets);
    const sum = numbers[RESIDUAL_SUM_SLOT];
    if (numbers[MAX_RESIDUAL_SLOT] <= tolerance || previous - sum <= stall) break;
    previous = sum;
  }
  return iteration;
}

/**
 * The forward pass specialised for one unbranched chain whose tip is the effector: no centroids, and the
 * joint just placed stays in registers for the next.
 */
function forwardPassChain(plan: SolvePlan, c: number, positions: Float64Array, targets: Float64Array): void {
  const { activeJoints } = plan;
  const { boneLength, inputDirection } = plan.scratch;
  const start = plan.componentStart[c];
  let k = plan.componentStart[c + 1] - 1;
  const e3 = 3 * plan.componentEffectors[plan.componentEffectorStart[c]];
  let j = activeJoints[k];
  let x = targets[e3],
    y = targets[e3 + 1],
    z = targets[e3 + 2];
  positions[3 * j] = x;
  positions[3 * j + 1] = y;
  positions[3 * j + 2] = z;
  for (k--; k >= start; k--) {
    const p = activeJoints[k];
    const p3 = 3 * p;
    const dx = positions[p3] - x,
      dy = positions[p3 + 1] - y,
      dz = positions[p3 + 2] - z;
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const len = boneLength[j];
    if (d > DEGENERATE_EPSILON * (len + d)) {
      const s = len / d;
      x += dx * s;
      y += dy * s;
      z += dz * s;
    } else {
      x -= len * inputDirection[3 * j];
      y -= len * inputDirection[3 * j + 1];
      z -= len * inputDirection[3 * j + 2];
    }
    positions[p3] = x;
    positions[p3 + 1] = y;
    positions[p3 + 2] = z;
    j = p;
  }
}

/** The backward pass specialised for one unbranched chain, from its fixed base to its tip. */
function backwardPassChain(plan: SolvePlan, c: number, positions: Float64Array): void {
  const { activeJoints } = plan;
  const { boneLength, inputDirection } = plan.scratch;
  const b3 = 3 * plan.componentBase[c];
  let x = positions[b3],
    y = positions[b3 + 1],
    z = positions[b3 + 2];
  const end = plan.componentStart[c + 1];
  for (let k = plan.componentStart[c]; k < end; k++) {
    const j = activeJoints[k];
    const j3 = 3 * j;
    const dx = positions[j3] - x,
      dy = positions[j3 + 1] - y,
      dz = positions[j3 + 2] - z;
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const len = boneLength[j];
    if (d > DEGENERATE_EPSILON * (len + d)) {
      const s = len / d;
      x += dx * s;
      y += dy * s;
      z += dz * s;
    } else {
      x += len * inputDirection[j3];
      y += len * inputDirection[j3 + 1];
      z += len * inputDirection[j3 + 2];
    }
    positions[j3] = x;
    positions[j3 + 1] = y;
    positions[j3 + 2] = z;
  }
}

/**
 * Forward reaching, children first. Each joint takes the weighted centroid of what its active children
 * propose (each child puts it back at bone length along the line toward its current position) and, for an
 * effector, its target. For a plain chain that is the classic pass; at a sub-base it is the centroid rule.
 */
function forwardPass(plan: SolvePlan, c: number, positions: Float64Array, targets: Float64Array): void {
  const { activeJoints, effectorWeights } = plan;
  const parents = plan.rig.parents;
  const { effectorOf, movable, branchWeight, boneLength, inputDirection, proposalSum, proposalWeight } =
    plan.scratch;
  const start = plan.componentStart[c];
  for (let k = plan.componentStart[c + 1] - 1; k >= start; k--) {
    const j = activeJoints[k];
    const j3 = 3 * j;
    let sx = proposalSum[j3],
      sy = proposalSum[j3 + 1],
      sz = proposalSum[j3 + 2],
      sw = proposalWeight[j];
    const e = effectorOf[j];
    if (e >= 0) {
      const w = effectorWeights[e];
      sx += w * targets[3 * e];
      sy += w * targets[3 * e + 1];
      sz += w * targets[3 * e + 2];
      sw += w;
    }
    const x = sx / sw,
      y = sy / sw,
      z = sz / sw;
    positions[j3] = x;
    positions[j3 + 1] = y;
    positions[j3 + 2] = z;
    proposalSum[j3] = 0;
    proposalSum[j3 + 1] = 0;
    proposalSum[j3 + 2] = 0;
    proposalWeight[j] = 0;

    const p = parents[j];
    if (!movable[p]) continue;
    const p3 = 3 * p;
    let dx = positions[p3] - x,
      dy = positions[p3 + 1] - y,
      dz = positions[p3 + 2] - z;
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const len = boneLength[j];
    if (d > DEGENERATE_EPSILON * (len + d)) {
      const s = len / d;
      dx *= s;
      dy *= s;
      dz *= s;
    } else {
      dx = -len * inputDirection[j3];
      dy = -len * inputDirection[j3 + 1];
      dz = -len * inputDirection[j3 + 2];
    }
    const w = branchWeight[j];
    proposalSum[p3] += w * (x + dx);
    proposalSum[p3 + 1] += w * (y + dy);
    proposalSum[p3 + 2] += w * (z + dz);
    proposalWeight[p] += w;
  }
}

/** Backward reaching, parents first from the fixed base: each joint goes back to bone length from its parent. */
function backwardPass(plan: SolvePlan, c: number, positions: Float64Array): void {
  const { activeJoints } = plan;
  const parents = plan.rig.parents;
  const { boneLength, inputDirection } = plan.scratch;
  const end = plan.componentStart[c + 1];
  for (let k = plan.componentStart[c]; k < end; k++) {
    const j = activeJoints[k];
    const j3 = 3 * j;
    const p3 = 3 * parents[j];
    const px = positions[p3],
      py = positions[p3 + 1],
      pz = positions[p3 + 2];
    let dx = positions[j3] - px,
      dy = positions[j3 + 1] - py,
      dz = positions[j3 + 2] - pz;
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const len = boneLength[j];
    if (d > DEGENERATE_EPSILON * (len + d)) {
      const s = len / d;
      dx *= s;
      dy *= s;
      dz *= s;
    } else {
      dx = len * inputDirection[j3];
      dy = len * inputDirection[j3 + 1];
      dz = len * inputDirection[j3 + 2];
    }
    positions[j3] = px + dx;
    positions[j3 + 1] = py + dy;
    positions[j3 + 2] = pz + dz;
  }
}

/**
 * The reach check of single-chain FABRIK: a target beyond the chain's total length is unreachable, and the
 * best the chain can do is point straight at it, which takes one step instead of iterations. A target within
 * tolerance of full reach is met by the same straight chain, where iterating would converge slowly.
 */
function straightenIfOutOfReach(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
): boolean {
  const tolerance = plan.scratch.numbers[TOLERANCE_SLOT];
  const { activeJoints } = plan;
  const parents = plan.rig.parents;
  const boneLength = plan.scratch.boneLength;
  const e = plan.componentEffectors[plan.componentEffectorStart[c]];
  const b3 = 3 * plan.componentBase[c];
  const start = plan.componentStart[c],
    end = plan.componentStart[c + 1];
  let reach = 0;
  for (let k = start; k < end; k++) reach += boneLength[activeJoints[k]];
  let dx = targets[3 * e] - positions[b3],
    dy = targets[3 * e + 1] - positions[b3 + 1],
    dz = targets[3 * e + 2] - positions[b3 + 2];
  const distance = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (distance < reach - tolerance || distance <= 0) return false;
  dx /= distance;
  dy /= distance;
  dz /= distance;
  for (let k = start; k < end; k++) {
    const j = activeJoints[k];
    const p3 = 3 * parents[j];
    const len = boneLength[j];
    positions[3 * j] = positions[p3] + len * dx;
    positions[3 * j + 1] = positions[p3 + 1] + len * dy;
    positions[3 * j + 2] = positions[p3 + 2] + len * dz;
  }
  return true;
}

/**
 * A straight chain whose target lies on its own line cannot leave that line under FABRIK's passes
 * (Aristidou et al. 2016 perturb it). Bend it slightly, as a half sine arc perpendicular to the line, so the
 * passes have a direction to fold in. The perpendicular is fixed by the line's direction alone, so the
 * same input always bends the same way.
 */
function bendCollinearChains(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
): void {
  const tolerance = plan.scratch.numbers[TOLERANCE_SLOT];
  const { effectorPath, effectorPathStart } = plan;
  const boneLength = plan.scratch.boneLength;
  const b3 = 3 * plan.componentBase[c];
  const bx = positions[b3],
    by = positions[b3 + 1],
    bz = positions[b3 + 2];
  for (let k = plan.componentEffectorStart[c]; k < plan.componentEffectorStart[c + 1]; k++) {
    const e = plan.componentEffectors[k];
    const first = effectorPathStart[e],
      last = effectorPathStart[e + 1];
    if (last - first < 2) continue; // a single bone has nothing to bend
    if (plan.report.residuals[e] <= tolerance) continue; // measured just before

    let length = 0;
    for (let i = first; i < last; i++) length += boneLength[effectorPath[i]];
    if (length <= 0) continue;
    // The chain's line: from the base through the farthest joint of the path.
    let ux = 0,
      uy = 0,
      uz = 0,
      far = 0;
    for (let i = first; i < last; i++) {
      const j3 = 3 * effectorPath[i];
      const dx = positions[j3] - bx,
        dy = positions[j3 + 1] - by,
        dz = positions[j3 + 2] - bz;
      const d = dx * dx + dy * dy + dz * dz;
      if (d > far) {
        far = d;
        ux = dx;
        uy = dy;
        uz = dz;
      }
    }
    if (far <= 0) {
      // Every joint sits on the base: a fully folded, zero-extent chain. Use the first bone's input direction.
      const j3 = 3 * effectorPath[first];
      ux = plan.scratch.inputDirection[j3];
      uy = plan.scratch.inputDirection[j3 + 1];
      uz = plan.scratch.inputDirection[j3 + 2];
    } else {
      const inv = 1 / Math.sqrt(far);
      ux *= inv;
      uy *= inv;
      uz *= inv;
    }
    const slack = 1e-6 * length;
    // Collinear when the target (i = first - 1) and every path joint lie within `slack` of the line.
    let collinear = true;
    for (let i = first - 1; collinear && i < last; i++) {
      const source = i < first ? targets : positions;
      const o3 = i < first ? 3 * e : 3 * effectorPath[i];
      const x = source[o3] - bx,
        y = source[o3 + 1] - by,
        z = source[o3 + 2] - bz;
      const t = x * ux + y * uy + z * uz;
      const rx = x - t * ux,
        ry = y - t * uy,
        rz = z - t * uz;
      collinear = rx * rx + ry * ry + rz * rz <= slack * slack;
    }
    if (!collinear) continue;

    // Perpendicular: cross the line with the world axis least aligned with it.
    const ax = Math.abs(ux),
      ay = Math.abs(uy),
      az = Math.abs(uz);
    let px: number, py: number, pz: number;
    if (ax <= ay && ax <= az) {
      px = 0;
      py = uz;
      pz = -uy;
    } else if (ay <= az) {
      px = -uz;
      py = 0;
      pz = ux;
    } else {
      px = uy;
      py = -ux;
      pz = 0;
    }
    const pl = Math.sqrt(px * px + py * py + pz * pz);
    const amplitude = (COLLINEAR_BEND * length) / pl;
    const count = last - first;
    for (let i = first; i < last; i++) {
      const s = amplitude * Math.sin((Math.PI * (i - first + 1)) / (count + 1));
      const j3 = 3 * effectorPath[i];
      positions[j3] += s * px;
      positions[j3 + 1] += s * py;
      positions[j3 + 2] += s * pz;
    }
  }
}
