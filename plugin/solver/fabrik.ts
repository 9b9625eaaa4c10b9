import {
  backwardPassChain,
  forwardPassChain,
  orientChainFromPositions,
  straightenIfOutOfReach,
} from "./chainPasses.js";
import { FabrikError, describeJoint } from "./errors.js";
import { LIMIT_FIXED, LIMIT_HINGE, LIMIT_ROTATION, LIMIT_STRETCH } from "./limits.js";
import { projectRotation } from "./jointLimitProjection.js";
import { clearOnLimit, escapeLock, targetsWithinLength, restorePose, savePose } from "./lockEscape.js";
import { restartComponent } from "./restart.js";
import { placeTwoBoneLimb } from "./twoBoneLimb.js";
import { measureCarriedChains } from "./carriedChains.js";
import { backwardPassOriented, forwardPassOriented } from "./orientedPasses.js";
import type { SolvePlan, SolveReport } from "./plan.js";
import { applyPoles } from "./poles.js";
import { foldChains, foldSwivelled } from "./straightFold.js";
import type { Pose } from "./pose.js";
import { measureResiduals } from "./residuals.js";
import { seedTwoBoneChain } from "./twoBoneSeed.js";
import {
  quatConjugateMultiply,
  quatMultiply,
  quatNormalize,
  quatRotate,
  quatRotateInverse,
} from "./quaternion.js";

// Local copies: a constant imported from another module is read through a getter under test transforms.
const MAX_RESIDUAL_SLOT = 1;
const RESIDUAL_SUM_SLOT = 2;
const TOLERANCE_SLOT = 0;

export interface SolveSettings {
  /** An effector within this distance of its target counts as reached (model units). Default 1e-3. */
  tolerance?: number;
  /** Iteration cap per solve (one forward plus one backward pass each). Default 100: easy targets end long before. */
  maxIterations?: number;
  /** Pole points, x y z per effector (only read for effectors compiled with `pole: true`). */
  poles?: Float64Array;
}

export const DEFAULT_TOLERANCE = 1e-3;
export const DEFAULT_MAX_ITERATIONS = 100;

/**
 * Out of reach, an iteration that lowers the summed residual by less than this fraction of the tolerance
 * means the pose has settled: at that rate it would take a thousand more iterations to move by a tolerance.
 */
const STALL_FRACTION = 1e-3;
/** Retries of a lock escape that found nothing better (escapes themselves are bounded by the iteration cap). */
const MAX_ATTEMPTS = 3;
/** A target nearer than this fraction of its chain's length to its effector makes the solve a small step. */
const STEP_FRACTION = 0.1;
/** Restarts in a row that find nothing better before the solve settles for its best pose. */
const MAX_FRUITLESS_RESTARTS = 3;
/** An iteration that removes less than this fraction of the error, with a joint on its limit, is a lock. */
const SLUGGISH_FRACTION = 0.03;
const ESCAPE_ATTEMPT_SLOT = 5;
/**
 * A pose counts as keeping its limits when projecting each joint onto them moves it by at most this angle
 * (radians): far below the 1e-6 rad the solver promises, far above the rounding of a pose that was solved
 * onto a limit boundary and read back (a hinge's off-axis noise, a cone's boundary crossed by 1e-16).
 */
const LIMIT_SLACK = 1e-9;

const EMPTY_SETTINGS: SolveSettings = {};
const NO_POLES = new Float64Array(0);

/**
 * Multi-end-effector FABRIK (Aristidou & Lasenby 2011) with joint limits inside both passes. Moves the
 * plan's active joints in `pose` (model space) so each effector approaches its target (`x y z` per effector,
 * in effector order), and turns the joints that carry them; joints hanging below follow rigidly. Bone
 * lengths are those of the input pose; bases and pinned joints keep their positions. Allocates nothing;
 * returns `plan.report`, refilled by each solve.
 */
export function solvePlan(
  plan: SolvePlan,
  pose: Pose,
  targets: Float64Array,
  settings: SolveSettings = EMPTY_SETTINGS,
): SolveReport {
  validateSolveInput(plan, pose, targets, settings);
  // The limits may have been edited since the last solve; held joints are fixed whatever their limits say.
  const { flags, held } = plan.scratch;
  const limitFlags = plan.limits.flags;
  for (let j = 0; j < flags.length; j++)
    flags[j] = held[j] === 1 ? limitFlags[j] | LIMIT_FIXED : limitFlags[j];
  const { positions, orientations } = pose;
  const maxIterations = settings.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  // Doubles passed as arguments to calls V8 does not inline get boxed, which allocates; the tolerance
  // therefore travels to the helpers through the plan's scratch instead.
  plan.scratch.numbers[TOLERANCE_SLOT] = settings.tolerance ?? DEFAULT_TOLERANCE;
  const poles = settings.poles ?? NO_POLES;

  const oriented = plan.scratch.componentOriented;
  for (let c = 0; c < plan.componentCount; c++) oriented[c] = needsOrientedPasses(plan, c) ? 1 : 0;
  measurePose(plan, positions, orientations);
  if (plan.scratch.carriedBases.length > 0) measureCarriedChains(plan);
  const report = plan.report;
  const moved = plan.scratch.componentMoved;
  report.escapes = 0;
  let iterations = 0;
  for (let c = 0; c < plan.componentCount; c++) {
    moved[c] = 0;
    const upstream = plan.componentParent[c];
    if (upstream >= 0 && moved[upstream]) {
      followBase(plan, c, positions, orientations);
      moved[c] = 1;
    }
    const used = solveComponent(plan, c, positions, orientations, targets, maxIterations, poles);
    if (used > iterations) iterations = used;
    if (used > 0) moved[c] = 1;
    if (moved[c]) carryPassives(plan, c, positions, orientations);
  }

  measureResiduals(plan, 0, plan.effectorCount, positions, targets);
  const maxResidual = plan.scratch.numbers[MAX_RESIDUAL_SLOT];
  report.iterations = iterations;
  report.maxResidual = maxResidual;
  report.converged = maxResidual <= plan.scratch.numbers[TOLERANCE_SLOT];
  return report;
}

/** Checks everything a solve reads before it writes anything, so a bad call leaves the pose untouched. */
export function validateSolveInput(
  plan: SolvePlan,
  pose: Pose,
  targets: Float64Array,
  settings: SolveSettings = EMPTY_SETTINGS,
): void {
  const n = plan.rig.jointCount;
  const names = plan.rig.names;
  const tolerance = settings.tolerance ?? DEFAULT_TOLERANCE;
  const maxIterations = settings.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  if (pose == null || typeof pose !== "object") {
    throw new FabrikError("solve: pose must be { positions, orientations }", undefined, "pose");
  }
  const { positions, orientations } = pose;
  if (!(positions instanceof Float64Array) || positions.length !== 3 * n) {
    throw new FabrikError(
      `solve: positions must be a Float64Array of 3 numbers per joint (${3 * n})`,
      undefined,
      "positions",
    );
  }
  if (!(orientations instanceof Float64Array) || orientations.length !== 4 * n) {
    throw new FabrikError(
      `solve: orientations must be a Float64Array of 4 numbers per joint (${4 * n})`,
      undefined,
      "orientations",
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
    if (!finite3(targets, 3 * e)) {
      const j = plan.effectorJoints[e];
      throw new FabrikError(
        `solve: target of effector ${e} (${describeJoint(j, names)}) is not finite ` +
          `(${targets[3 * e]}, ${targets[3 * e + 1]}, ${targets[3 * e + 2]})`,
        j,
        "targets",
      );
    }
    if (plan.effectorHasPole[e]) {
      const poles = settings.poles;
      if (
        !(poles instanceof Float64Array) ||
        poles.length < 3 * plan.effectorCount ||
        !finite3(poles, 3 * e)
      ) {
        const j = plan.effectorJoints[e];
        throw new FabrikError(
          `solve: effector ${e} (${describeJoint(j, names)}) has a pole, so settings.poles must hold a finite ` +
            "x y z for it (3 numbers per effector)",
          j,
          "poles",
        );
      }
    }
  }
  const parents = plan.rig.parents;
  for (let c = 0; c < plan.componentCount; c++) {
    const b = plan.componentBase[c];
    checkJoint(plan, pose, b);
    if (parents[b] >= 0) checkJoint(plan, pose, parents[b]);
    for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
      checkJoint(plan, pose, plan.activeJoints[k]);
    for (let k = plan.passiveStart[c]; k < plan.passiveStart[c + 1]; k++)
      checkJoint(plan, pose, plan.passiveJoints[k]);
  }
}

function checkJoint(plan: SolvePlan, pose: Pose, j: number): void {
  const { positions, orientations } = pose;
  if (!finite3(positions, 3 * j)) {
    throw new FabrikError(
      `solve: position of ${describeJoint(j, plan.rig.names)} is not finite ` +
        `(${positions[3 * j]}, ${positions[3 * j + 1]}, ${positions[3 * j + 2]})`,
      j,
      "positions",
    );
  }
  const x = orientations[4 * j],
    y = orientations[4 * j + 1],
    z = orientations[4 * j + 2],
    w = orientations[4 * j + 3];
  const len = x * x + y * y + z * z + w * w;
  if (!(len > 0.998 && len < 1.002)) {
    throw new FabrikError(
      `solve: orientation of ${describeJoint(j, plan.rig.names)} is not a unit quaternion (${x}, ${y}, ${z}, ${w})`,
      j,
      "orientations",
    );
  }
}

function finite3(a: Float64Array, o: number): boolean {
  return Number.isFinite(a[o]) && Number.isFinite(a[o + 1]) && Number.isFinite(a[o + 2]);
}

/**
 * What every pass preserves, read from the input pose: each joint's bone length, its offset direction in
 * its parent's frame, and its local rotation.
 */
function measurePose(plan: SolvePlan, positions: Float64Array, orientations: Float64Array): void {
  const parents = plan.rig.parents;
  const { inputLocal, componentOriented } = plan.scratch;
  for (let c = 0; c < plan.componentCount; c++) {
    const b = plan.componentBase[c];
    const p = parents[b];
    if (p >= 0) quatConjugateMultiply(inputLocal, 4 * b, orientations, 4 * p, orientations, 4 * b);
    else for (let i = 0; i < 4; i++) inputLocal[4 * b + i] = orientations[4 * b + i];
    // The fast path needs only lengths and directions for the joints it solves (see orientChainFromPositions).
    const full = componentOriented[c] === 1 || plan.componentParent[c] >= 0;
    for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
      measureJoint(plan, plan.activeJoints[k], positions, orientations, full);
    }
    for (let k = plan.passiveStart[c]; k < plan.passiveStart[c + 1]; k++) {
      measureJoint(plan, plan.passiveJoints[k], positions, orientations, true);
    }
  }
}

function measureJoint(
  plan: SolvePlan,
  j: number,
  positions: Float64Array,
  orientations: Float64Array,
  full: boolean,
): void {
  const p = plan.rig.parents[j];
  const { restPositions, restOrientations } = plan.rig;
  const { boneLength, inputDirection, localOffset, inputLocal } = plan.scratch;
  const j3 = 3 * j,
    p3 = 3 * p;
  const dx = positions[j3] - positions[p3],
    dy = positions[j3 + 1] - positions[p3 + 1],
    dz = positions[j3 + 2] - positions[p3 + 2];
  const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
  boneLength[j] = len;
  if (len > 0) {
    inputDirection[j3] = dx / len;
    inputDirection[j3 + 1] = dy / len;
    inputDirection[j3 + 2] = dz / len;
    if (full) quatRotateInverse(localOffset, j3, orientations, 4 * p, inputDirection, j3);
  } else {
    // A zero-length bone has no direction of its own: borrow the rest pose's, or the parent's +Y.
    const rx = restPositions[j3] - restPositions[p3],
      ry = restPositions[j3 + 1] - restPositions[p3 + 1],
      rz = restPositions[j3 + 2] - restPositions[p3 + 2];
    const rl = Math.sqrt(rx * rx + ry * ry + rz * rz);
    if (rl > 0) {
      inputDirection[j3] = rx / rl;
      inputDirection[j3 + 1] = ry / rl;
      inputDirection[j3 + 2] = rz / rl;
      quatRotateInverse(localOffset, j3, restOrientations, 4 * p, inputDirection, j3);
    } else {
      localOffset[j3] = 0;
      localOffset[j3 + 1] = 1;
      localOffset[j3 + 2] = 0;
    }
    quatRotate(inputDirection, j3, orientations, 4 * p, localOffset, j3);
  }
  if (full) quatConjugateMultiply(inputLocal, 4 * j, orientations, 4 * p, orientations, 4 * j);
}

/**
 * The oriented passes are needed where a joint is limited or where branches meet (their frames are rigid);
 * a plain unbranched chain without limits takes the positions-only fast path.
 */
function needsOrientedPasses(plan: SolvePlan, c: number): boolean {
  if (!plan.componentIsPath[c]) return true;
  const flags = plan.scratch.flags;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    if (flags[plan.rotatingJoints[ri]] & LIMIT_ROTATION) return true;
  }
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
    if (flags[plan.activeJoints[k]] & LIMIT_STRETCH) return true;
  }
  return false;
}

/** Returns the iterations used by one independent component. */
function solveComponent(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  maxIterations: number,
  poles: Float64Array,
): number {
  const numbers = plan.scratch.numbers;
  const tolerance = numbers[TOLERANCE_SLOT];
  const firstEffector = plan.componentEffectorStart[c],
    lastEffector = plan.componentEffectorStart[c + 1];
  // Cleared first, so a component that needs no solving does not report the last solve's clamps.
  clearOnLimit(plan, c);
  measureResiduals(plan, firstEffector, lastEffector, positions, targets);
  if (numbers[MAX_RESIDUAL_SLOT] <= tolerance) return 0;

  const oriented = plan.scratch.componentOriented[c] === 1;
  if (!oriented) {
    if (straightenIfOutOfReach(plan, c, positions, targets)) {
      orientChainFromPositions(plan, c, positions, orientations);
      return 1;
    }
    return iterateComponent(plan, c, positions, orientations, targets, maxIterations, poles, false);
  }
  // Hinges too go straight to the oriented passes: the plain passes never turn a bone about its own axis,
  // so their answer keeps a hinge only by chance (on the characters bench, never in 60,000 arm solves).
  if (!plan.componentIsPath[c] || hasLimit(plan, c, LIMIT_STRETCH | LIMIT_HINGE) || maxIterations < 2) {
    return iterateComponent(plan, c, positions, orientations, targets, maxIterations, poles, true);
  }
  // A limited plain chain first tries the plain passes, which cost a fraction of the oriented ones, with
  // half the iteration budget: when their answer reaches the target and already keeps every limit, it is an
  // answer. Otherwise the chain starts again from its input with the limits inside both passes, for the
  // rest of the budget (so a solve never exceeds maxIterations).
  savePose(plan, c, positions, orientations);
  const plainBudget = Math.floor(maxIterations / 2);
  const plain = iterateComponent(plan, c, positions, orientations, targets, plainBudget, poles, false);
  measureResiduals(plan, firstEffector, lastEffector, positions, targets);
  if (numbers[MAX_RESIDUAL_SLOT] <= tolerance && keepsLimits(plan, c, orientations, false)) return plain;
  restorePose(plan, c, positions, orientations);
  return (
    plain + iterateComponent(plan, c, positions, orientations, targets, maxIterations - plain, poles, true)
  );
}

/**
 * True when a joint the component moves has one of the `mask` limits, or its base one of the rotation
 * limits in it (the base turns; its own bone, above the component, never stretches).
 */
function hasLimit(plan: SolvePlan, c: number, mask: number): boolean {
  const flags = plan.scratch.flags;
  if (flags[plan.componentBase[c]] & mask & LIMIT_ROTATION) return true;
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
    if (flags[plan.activeJoints[k]] & mask) return true;
  }
  return false;
}

/**
 * True when every joint the component turns keeps its limits, to within {@link LIMIT_SLACK}. `input` says
 * the pose is the solve's input: a fixed joint is at its input rotation there by definition (the plain
 * passes, in contrast, never hold a joint fixed), and stretchable bones are checked at their input lengths
 * (the plain passes never stretch, and components with stretch never take them).
 */
function keepsLimits(plan: SolvePlan, c: number, orientations: Float64Array, input: boolean): boolean {
  const { limits, rotatingJoints } = plan;
  const parents = plan.rig.parents;
  const temp = plan.scratch.temp;
  if (input) {
    const boneLength = plan.scratch.boneLength;
    for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
      const j = plan.activeJoints[k];
      if ((plan.scratch.flags[j] & LIMIT_STRETCH) === 0) continue;
      const len = boneLength[j];
      if (
        len < limits.stretch[2 * j] * (1 - LIMIT_SLACK) ||
        len > limits.stretch[2 * j + 1] * (1 + LIMIT_SLACK)
      )
        return false;
    }
  }
  temp[20] = 0;
  temp[21] = 0;
  temp[22] = 0;
  temp[23] = 1;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const r = rotatingJoints[ri];
    const flags = plan.scratch.flags[r];
    if ((flags & LIMIT_ROTATION) === 0) continue;
    if (flags & LIMIT_FIXED) {
      if (input) continue;
      return false;
    }
    const p = parents[r];
    // Δ = rest⁻¹ · parent⁻¹ · orientation at temp[16..19], a copy at temp[24..27] to compare with.
    quatConjugateMultiply(temp, 16, p >= 0 ? orientations : temp, p >= 0 ? 4 * p : 20, orientations, 4 * r);
    quatConjugateMultiply(temp, 16, limits.restLocal, 4 * r, temp, 16);
    for (let i = 0; i < 4; i++) temp[24 + i] = temp[16 + i];
    if (!projectRotation(limits, r, temp, 16, temp, 32)) continue;
    // Moved: by the angle of projected⁻¹ · Δ, 2 asin of its vector part (accurate for small angles).
    quatConjugateMultiply(temp, 28, temp, 16, temp, 24);
    const sin = Math.sqrt(temp[28] * temp[28] + temp[29] * temp[29] + temp[30] * temp[30]);
    if (sin > 0.5 * LIMIT_SLACK) return false;
  }
  return true;
}

/** The iteration loop of one component, with the plain or the oriented passes. Returns the iterations used. */
function iterateComponent(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  maxIterations: number,
  poles: Float64Array,
  oriented: boolean,
): number {
  const numbers = plan.scratch.numbers;
  const tolerance = numbers[TOLERANCE_SLOT];
  const firstEffector = plan.componentEffectorStart[c],
    lastEffector = plan.componentEffectorStart[c + 1];
  let hasPole = false;
  for (let k = firstEffector; k < lastEffector; k++)
    if (plan.effectorHasPole[plan.componentEffectors[k]]) hasPole = true;
  // Under limits the error need not fall monotonically, so the best pose seen is kept aside: it is what the
  // solve returns if it ends worse, and what every lock escape starts from. The input is the first candidate
  // when it keeps every limit, as a warm start does (last frame's answer, the target moved a little): near a
  // limit boundary the oriented passes can leave the chain further from its target than it started (what the
  // projection takes back sends it elsewhere), and escapes from there drifted the chain away from the pose it
  // had, frame after frame, until it settled in another configuration. So a solve never ends further from
  // its targets than a valid input, and its escapes start from the nearest pose to it that is at least as good.
  let best = Infinity;
  if (oriented && keepsLimits(plan, c, orientations, true)) {
    measureResiduals(plan, firstEffector, lastEffector, positions, targets);
    best = numbers[RESIDUAL_SUM_SLOT];
    savePose(plan, c, positions, orientations);
  }
  // A small step (every target near where the input has its effector, as from last frame's answer) keeps
  // to the configuration it has: it escapes only a lock on a limit, since another configuration would make
  // the limb jump between frames.
  const smallStep = targetsNearInput(plan, c, positions, targets);
  // A two-bone limb is answered in closed form when its joints' limits allow it.
  const branched = oriented && !plan.componentIsPath[c];
  if (
    oriented &&
    !branched &&
    placeTwoBoneLimb(plan, plan.componentEffectors[firstEffector], positions, orientations, targets)
  ) {
    measureResiduals(plan, firstEffector, lastEffector, positions, targets);
    if (numbers[MAX_RESIDUAL_SLOT] <= tolerance) return 1;
    // (Out of the hinge's reach after all, by rounding: the passes take it from here.)
  }
  foldChains(plan, c, positions, orientations, targets, false);
  seedTwoBoneChain(plan, c, positions, targets);

  const stall = STALL_FRACTION * tolerance;
  const singleJoint = plan.rotatingStart[c + 1] - plan.rotatingStart[c] === 1;
  // A hinge keeps only the part of a turn about its axis: a pass pressing a hinged limb out of its plane
  // is held back without touching a limit, so hinged components are watched like limited ones.
  const hinged = oriented && hasLimit(plan, c, LIMIT_HINGE);
  // Within length, only the limits or a poor configuration keep a target from being met: worth escaping
  // from anything. Out of reach, the best pose is the answer and an escape only helps a locked limit.
  const withinLength = targetsWithinLength(plan, c, positions, targets, 1);
  let previous = Infinity;
  let bestAtLastEscape = Infinity;
  let escapes = 0;
  let attempts = 0;
  let restarts = 0;
  let fruitless = 0;
  let bestAtRestart = Infinity;
  let bent = false;
  let iteration = 0;
  while (iteration < maxIterations) {
    iteration++;
    if (hasPole) applyPoles(plan, c, positions, targets, poles);
    if (oriented) {
      forwardPassOriented(plan, c, positions, orientations, targets);
      backwardPassOriented(plan, c, positions, orientations);
      // Where branches meet, the passes place each branch's root; its limb, if it is one, is then solved
      // exactly from there.
      if (branched)
        for (let k = firstEffector; k < lastEffector; k++)
          placeTwoBoneLimb(plan, plan.componentEffectors[k], positions, orientations, targets);
    } else {
      forwardPassChain(plan, c, positions, targets);
      backwardPassChain(plan, c, positions);
    }
    measureResiduals(plan, firstEffector, lastEffector, positions, targets);
    const sum = numbers[RESIDUAL_SUM_SLOT];
    if (numbers[MAX_RESIDUAL_SLOT] <= tolerance) {
      best = Infinity; // this pose is the answer
      break;
    }
    if (oriented && sum < best) {
      best = sum;
      savePose(plan, c, positions, orientations);
    }
    // Stalled, within length: at this rate the rest of the budget would not reach the tolerance (progress
    // only slows as FABRIK converges, so plain FABRIK would not either; progress that pauses and picks up
    // again, as on a chain folding away from its own line, is what the bends and escapes below are for).
    // Out of reach: the pose has settled, its error barely changing.
    const progress = previous - sum;
    const remaining = maxIterations - iteration;
    // Under limits, crawling counts as stalling too: FABRIK pressed against a limit often creeps (each pass
    // undoing most of the other) long before it stops outright.
    const crawling =
      oriented &&
      progress < SLUGGISH_FRACTION * sum &&
      ((hinged && withinLength && !smallStep) || anyOnLimit(plan, c));
    const going = withinLength && !smallStep ? progress * remaining > sum - tolerance : progress > stall;
    if (going && !crawling) {
      previous = sum;
      continue;
    }
    if (remaining === 0) break;
    if (!oriented) {
      // A free chain meets any target within its length; stalled, it lies (nearly) along its line to
      // the target, where FABRIK only moves joints along that line. Bend it across, once.
      if (bent || !withinLength) break;
      bent = true;
      foldChains(plan, c, positions, orientations, targets, true);
      previous = Infinity;
      continue;
    }
    // Stalled under limits or branches: a lock, a local minimum, or the best reachable pose. Escape from the
    // best pose and go on; when escapes stop paying, restart elsewhere while the budget lasts. A component
    // turning one joint has no other configuration: its passes already aim it as close as its limits allow.
    if (singleJoint || !((withinLength && !smallStep) || anyOnLimit(plan, c))) break;
    if (best < bestAtLastEscape - stall) attempts = 0;
    else if (++attempts > MAX_ATTEMPTS) {
      // Out of reach, one restart only confirms the best pose; within length, another start may find it,
      // until a few in a row have found nothing better.
      if (best < bestAtRestart - stall) fruitless = 0;
      else if (++fruitless > MAX_FRUITLESS_RESTARTS) break;
      if (restarts > 0 && !withinLength) break;
      bestAtRestart = best;
      restartComponent(plan, c, positions, orientations, restarts);
      foldSwivelled(plan, c, positions, orientations, targets, restarts++);
      attempts = 0;
      bestAtLastEscape = Infinity;
      previous = Infinity;
      continue;
    }
    bestAtLastEscape = best;
    restorePose(plan, c, positions, orientations);
    // The sweep's step scales with the error of the pose it starts from.
    numbers[RESIDUAL_SUM_SLOT] = best;
    numbers[ESCAPE_ATTEMPT_SLOT] = attempts;
    escapeLock(plan, c, positions, orientations, targets);
    escapes++;
    // The sweeps keep every limit, so what they reach is a candidate like any pass's: the pass that follows
    // may well undo it (that is the lock), and it may already be the answer.
    measureResiduals(plan, firstEffector, lastEffector, positions, targets);
    if (numbers[MAX_RESIDUAL_SLOT] <= tolerance) {
      best = Infinity;
      break;
    }
    if (numbers[RESIDUAL_SUM_SLOT] < best) {
      best = numbers[RESIDUAL_SUM_SLOT];
      savePose(plan, c, positions, orientations);
    }
    // The next pass must improve on what the escape reached, or it is the same lock: then the next escape
    // follows at once instead of after a second pass that only confirms it (a locked arm whose escapes each
    // win some 15 % spent two passes per escape).
    previous = numbers[RESIDUAL_SUM_SLOT];
  }
  if (best < Infinity) {
    measureResiduals(plan, firstEffector, lastEffector, positions, targets);
    if (numbers[RESIDUAL_SUM_SLOT] > best) {
      restorePose(plan, c, positions, orientations);
      measureResiduals(plan, firstEffector, lastEffector, positions, targets);
    }
  }
  plan.report.escapes += escapes;
  if (!oriented) orientChainFromPositions(plan, c, positions, orientations);
  return iteration;
}

/**
 * True when every effector of component c has its target within {@link STEP_FRACTION} of its chain's length
 * from where the pose has it now.
 */
function targetsNearInput(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
): boolean {
  const { effectorPath, effectorPathStart, componentEffectors, effectorJoints } = plan;
  const boneLength = plan.scratch.boneLength;
  for (let k = plan.componentEffectorStart[c]; k < plan.componentEffectorStart[c + 1]; k++) {
    const e = componentEffectors[k];
    let length = 0;
    for (let i = effectorPathStart[e]; i < effectorPathStart[e + 1]; i++)
      length += boneLength[effectorPath[i]];
    const j3 = 3 * effectorJoints[e];
    const dx = targets[3 * e] - positions[j3],
      dy = targets[3 * e + 1] - positions[j3 + 1],
      dz = targets[3 * e + 2] - positions[j3 + 2];
    const near = STEP_FRACTION * length;
    if (dx * dx + dy * dy + dz * dz > near * near) return false;
  }
  return true;
}

function anyOnLimit(plan: SolvePlan, c: number): boolean {
  const onLimit = plan.report.onLimit;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++)
    if (onLimit[plan.rotatingJoints[ri]]) return true;
  return false;
}

/**
 * Re-places a component whose base an earlier component carried away: rigidly, from its input locals. The
 * carried pose is this component's input from here on, so its bone directions are measured again.
 */
function followBase(plan: SolvePlan, c: number, positions: Float64Array, orientations: Float64Array): void {
  const b = plan.componentBase[c];
  const p = plan.rig.parents[b];
  const { inputDirection, temp } = plan.scratch;
  quatMultiply(orientations, 4 * b, orientations, 4 * p, plan.scratch.inputLocal, 4 * b);
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
    const j = plan.activeJoints[k];
    placeRigidly(plan, j, positions, orientations);
    inputDirection[3 * j] = temp[4];
    inputDirection[3 * j + 1] = temp[5];
    inputDirection[3 * j + 2] = temp[6];
  }
}

/** The passive joints of a component that moved follow their parents rigidly. */
function carryPassives(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  for (let k = plan.passiveStart[c]; k < plan.passiveStart[c + 1]; k++)
    placeRigidly(plan, plan.passiveJoints[k], positions, orientations);
}

function placeRigidly(plan: SolvePlan, j: number, positions: Float64Array, orientations: Float64Array): void {
  const p = plan.rig.parents[j];
  const { boneLength, localOffset, inputLocal, temp } = plan.scratch;
  const j3 = 3 * j,
    p3 = 3 * p;
  quatRotate(temp, 4, orientations, 4 * p, localOffset, j3);
  const len = boneLength[j];
  positions[j3] = positions[p3] + len * temp[4];
  positions[j3 + 1] = positions[p3 + 1] + len * temp[5];
  positions[j3 + 2] = positions[p3 + 2] + len * temp[6];
  quatMultiply(orientations, 4 * j, orientations, 4 * p, inputLocal, 4 * j);
  // inputLocal carries the norm errors of both input orientations, so without this a long passive tail
  // solved frame after frame from its own output squares them down the chain until it is rejected.
  quatNormalize(orientations, 4 * j);
}
