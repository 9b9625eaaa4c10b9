import { backwardPassChain, forwardPassChain, orientChainFromPositions } from "./chainPasses.js";
import { turnCarrier } from "./carrierTurns.js";
import { CONTINUUM_STARTS, restartContinuum } from "./continuumRestart.js";
import { ARC_ROUND_STEPS, arcSteps } from "./continuumSteps.js";
import { hasContinuumSections } from "./continuumSections.js";
import { LIMIT_HINGE } from "./limits.js";
import { dampedSteps, stretches, takesDampedSteps } from "./dampedSteps.js";
import { hasLimit, keepsLimits } from "./limitCheck.js";
import { restorePose, savePose } from "./componentPose.js";
import { escapeLock, targetsWithinLength } from "./lockEscape.js";
import { backwardPassOriented, forwardPassOriented } from "./orientedPasses.js";
import type { SolvePlan } from "./plan.js";
import { applyPoles } from "./poles.js";
import { restartComponent } from "./restart.js";
import { measureResiduals } from "./residuals.js";
import { foldChains, foldSwivelled } from "./straightFold.js";
import { targetsNearEffectors } from "./trackingSteps.js";
import { placeTwoBoneLimb } from "./twoBoneLimb.js";
import { seedTwoBoneChain } from "./twoBoneSeed.js";

/*
 * The iteration loop of one component: passes until its effectors are within tolerance or the budget is
 * spent, keeping the best pose seen under limits, and when progress stalls, bending a straight chain, lock
 * escapes and restarts.
 */

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
/** Iterations the passes take before crawling hands a branched component over to damped steps. */
const HAND_OVER_AFTER = 2;
/** An iteration that removes less than this fraction of the error, with a joint on its limit, is a lock. */
const SLUGGISH_FRACTION = 0.03;
/** Continuum passes that remove less than this fraction of the error an iteration crawl. */
const ARC_CRAWL_FRACTION = 0.2;
/** Another round of arc steps in one start waits until the passes have halved the error the last one left. */
const ARC_RETRY_GAIN = 0.5;
/** Iterations of the passes before a crawl is judged (the first make the large moves toward the target). */
const ARC_CRAWL_AFTER = 3;
/** Damped steps in one round taken where the passes stall (each counts as an iteration). */
const DAMPED_ROUND_STEPS = 30;
/**
 * A round's steps when the caller's last solve ended short (SolveSettings.fellShort), and in every round of a
 * start after its first. Its gain is judged as a whole round's (a round's first steps gain the most): one
 * that would not reach the tolerance even so is creeping along the limits. Rounds that gain enough go on,
 * short, between the passes. The first round of a start makes the large moves; a later one starts where the
 * passes left the first one's end, and taking it whole crept along the limits (on the robot's fall, 30
 * steps for 5 % of the error).
 */
const SHORT_ROUND_STEPS = 2;

/**
 * The iteration loop of one component, with the plain or the oriented passes. Returns the iterations used.
 * `tracking`: the input is last frame's answer (see trackingSteps.ts).
 */
export function iterateComponent(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  maxIterations: number,
  poles: Float64Array,
  oriented: boolean,
  tracking: boolean,
): number {
  const { maxResidual, residualSum } = plan.scratch;
  const tolerance = plan.scratch.tolerance[0];
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
  // What the passes gain on the input, with continuum sections, decides whether they restart (see below).
  const continuum = hasContinuumSections(plan, c);
  let inputSum = Infinity;
  if (continuum) {
    measureResiduals(plan, firstEffector, lastEffector, positions, targets);
    inputSum = residualSum[0];
  }
  if (oriented && keepsLimits(plan, c, orientations, true)) {
    measureResiduals(plan, firstEffector, lastEffector, positions, targets);
    best = residualSum[0];
    savePose(plan, c, positions, orientations);
  }
  // A small step (every target near where the input has its effector, as from last frame's answer) keeps
  // to the configuration it has: it escapes only a lock on a limit, since another configuration would make
  // the limb jump between frames.
  const smallStep = targetsNearEffectors(plan, c, positions, targets, STEP_FRACTION);
  // A robot arm's escape is a damped step (dampedSteps.ts): local, so a small step may take it too.
  const damped = oriented && takesDampedSteps(plan, c);
  const branched = oriented && !plan.componentIsPath[c];
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
  // The best summed residual since the last restart (or the start).
  let startBest = best;
  let bent = false;
  // Damped steps (dampedSteps.ts) move every joint toward every target at once, where the passes trade one
  // effector's error for another's; a round is taken each time the passes stall, within length, on a better
  // pose than the last round started from (out of reach the passes' best pose is the answer: a round there
  // trades it for the least-squares one, and frames held still alternated between the two). Not with
  // continuum sections: the steps turn joints one by one.
  const dampable = branched && !damped && !stretches(plan, c) && !continuum;
  let bestAtDamped = Infinity;
  // Rounds of damped steps taken since the start (or the last restart).
  let rounds = 0;
  // Set when a round of damped steps gained too little to reach the tolerance in the budget left: no more
  // rounds, and restarts are judged as out of reach (one only confirms the best pose). Tracking, not even
  // that one: the input is last frame's answer, whose configuration the best pose carries on, and a start
  // elsewhere is either no better or a jump between frames.
  let futile = false;
  // The caller's last solve ended short of these targets: short rounds, and the first futile one ends it.
  const short = tracking && plan.scratch.fellShort[0] === 1;
  let turned = false;
  // Where continuum passes crawl, damped steps on the arcs (continuumSteps.ts); a stretching bone's length
  // is the passes' to set, so not where one is.
  const arcStepping = continuum && !stretches(plan, c);
  let bestAtArcSteps = Infinity;
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
    const sum = residualSum[0];
    if (maxResidual[0] <= tolerance) {
      best = Infinity; // this pose is the answer
      break;
    }
    if (sum < startBest) startBest = sum;
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
      ((hinged && withinLength && (!smallStep || damped)) || anyOnLimit(plan, c));
    const going = withinLength && !smallStep ? progress * remaining > sum - tolerance : progress > stall;
    // Where several chains pull one body, passes that crawl hand over to damped steps at once (after the
    // first passes, which make the large moves toward new targets); after a solve that fell short, after the
    // first pass: from last frame's best pose, the passes only trade one effector's error for another's.
    const handOver =
      !futile &&
      ((short && iteration === 1) || (iteration > HAND_OVER_AFTER && progress < SLUGGISH_FRACTION * sum)) &&
      dampable &&
      withinLength &&
      best < bestAtDamped - stall;
    // Continuum passes that crawl (or lose ground) within length hand over to a round of damped steps on the
    // arcs (continuumSteps.ts), from where they stand; the passes go on from where the round ends. Each start
    // (see the restarts below) takes its own rounds: where the first start's passes wander off (sections of
    // a small maxBend), a round from another start's arcs often finds the answer the first one's missed
    // (docs/continuum.md has the numbers).
    const arcCrawl =
      arcStepping &&
      withinLength &&
      iteration >= ARC_CRAWL_AFTER &&
      progress < ARC_CRAWL_FRACTION * sum &&
      startBest < ARC_RETRY_GAIN * bestAtArcSteps;
    if (arcCrawl && remaining > 0) {
      iteration += arcSteps(plan, c, positions, orientations, targets, Math.min(ARC_ROUND_STEPS, remaining));
      measureResiduals(plan, firstEffector, lastEffector, positions, targets);
      if (maxResidual[0] <= tolerance) {
        best = Infinity;
        break;
      }
      if (residualSum[0] < best) {
        best = residualSum[0];
        savePose(plan, c, positions, orientations);
      }
      if (residualSum[0] < startBest) startBest = residualSum[0];
      bestAtArcSteps = startBest;
      previous = residualSum[0];
      continue;
    }
    if (going && !crawling && !handOver) {
      previous = sum;
      continue;
    }
    if (remaining === 0) break;
    if (!futile && (handOver || (dampable && withinLength && best < bestAtDamped - stall))) {
      const from = best;
      bestAtDamped = best;
      restorePose(plan, c, positions, orientations);
      residualSum[0] = best;
      iteration += dampedSteps(
        plan,
        c,
        positions,
        orientations,
        targets,
        Math.min(short || rounds++ > 0 ? SHORT_ROUND_STEPS : DAMPED_ROUND_STEPS, remaining),
        false,
      );
      measureResiduals(plan, firstEffector, lastEffector, positions, targets);
      if (maxResidual[0] <= tolerance) {
        best = Infinity;
        break;
      }
      if (residualSum[0] < best) {
        best = residualSum[0];
        savePose(plan, c, positions, orientations);
      }
      // At this round's gain, the rounds the budget has left would not reach the tolerance: the limits, not
      // the lengths, hold the targets off, and further rounds only creep along them.
      if ((from - best) * ((maxIterations - iteration) / DAMPED_ROUND_STEPS) < best - tolerance) {
        futile = true;
        // After a solve that ended short, one that shows it again ends here: the carrier turn, escapes and
        // restarts after a futile round only confirm the best pose, which then carries on to the next frame.
        if (short) break;
      }
      previous = residualSum[0];
      continue;
    }
    if (!oriented) {
      // A free chain meets any target within its length; stalled, it lies (nearly) along its line to
      // the target, where FABRIK only moves joints along that line. Bend it across, once.
      if (bent || !withinLength) break;
      bent = true;
      foldChains(plan, c, positions, orientations, targets, true);
      previous = Infinity;
      continue;
    }
    // Continuum sections stalled within length: an escape would turn joints one by one, which breaks their
    // arcs, so the component starts again from whole arcs laid out another way (continuumRestart.ts), the
    // nearest first; the best pose of all starts is the answer. A small step, followed from last frame's
    // answer, takes the nearest start only, so the limb moves the least. Passes that gained less than the
    // tolerance on the input stand where the last frame left them, after its own starts: a target held
    // still out of the arcs' reach would otherwise pay for every start again each frame.
    if (continuum) {
      if (singleJoint || !withinLength || restarts >= (smallStep ? 1 : CONTINUUM_STARTS)) break;
      if (restarts === 0 && !(best < inputSum - tolerance)) break;
      restartContinuum(plan, c, positions, orientations, targets, restarts++);
      startBest = Infinity;
      bestAtArcSteps = Infinity;
      previous = Infinity;
      continue;
    }
    // A branched body stalled within length, after its damped round: its carrier turned, once
    // (carrierTurns.ts), before the escapes and restarts, which leave it where it is.
    if (dampable && withinLength && !turned) {
      turned = true;
      iteration += turnCarrier(plan, c, positions, orientations, targets, remaining);
      if (maxResidual[0] <= tolerance) {
        best = Infinity;
        break;
      }
      previous = residualSum[0];
      continue;
    }
    // Stalled under limits or branches: a lock, a local minimum, or the best reachable pose. Escape from the
    // best pose and go on; when escapes stop paying, restart elsewhere while the budget lasts. A component
    // turning one joint has no other configuration: its passes already aim it as close as its limits allow.
    // Out of the chains' length after a solve that ended short: the stalled passes' best pose is the answer.
    if (singleJoint || (short && !withinLength)) break;
    if (!((withinLength && (!smallStep || damped)) || anyOnLimit(plan, c))) break;
    // A robot arm's escape (damped steps) is deterministic: a second one from the same pose finds the same
    // minimum, so an escape that found nothing better is followed by a restart at once, and progress is
    // judged within the current start (a restart's own minimum is worse than the best pose of an earlier one).
    const mark = damped ? startBest : best;
    if (mark < bestAtLastEscape - stall) attempts = 0;
    else if (++attempts > (damped ? 0 : MAX_ATTEMPTS)) {
      // Out of reach, one restart only confirms the best pose; within length, another start may find it,
      // until a few in a row have found nothing better. A robot arm restarts while the budget lasts: its
      // escapes count against it, and its minima are many (a wrist near its limits has several in a row).
      if (best < bestAtRestart - stall) fruitless = 0;
      else if (++fruitless > MAX_FRUITLESS_RESTARTS && !damped) break;
      if ((restarts > 0 && (!withinLength || futile)) || (smallStep && damped) || (futile && tracking)) break;
      bestAtRestart = best;
      restartComponent(plan, c, positions, orientations, restarts);
      bestAtDamped = Infinity;
      rounds = 0;
      attempts = 0;
      bestAtLastEscape = Infinity;
      previous = Infinity;
      startBest = Infinity;
      if (!damped) {
        foldSwivelled(plan, c, positions, orientations, targets, restarts++);
        continue;
      }
      // A robot arm's damped steps start at once from the restart's own pose: folding it (foldSwivelled), or
      // passes before the steps, led every restart back to the minimum the first start had found.
      restarts++;
    }
    // The escape starts from the best pose; a robot arm's from the best of this start (where the passes stand,
    // when the best pose came from an earlier start; the restart's pose, just after one).
    if (!damped || best === startBest) restorePose(plan, c, positions, orientations);
    bestAtLastEscape = mark;
    // The sweep's step scales with the error of the pose it starts from.
    residualSum[0] = best;
    plan.scratch.escapeAttempt[0] = attempts;
    // A small step never restarts, so its damped steps go on while they gain anything (sliding along a limit
    // to the answer); otherwise they stop where they gain little, leaving the budget to restarts.
    iteration += escapeLock(plan, c, positions, orientations, targets, remaining, !smallStep);
    escapes++;
    // The sweeps keep every limit, so what they reach is a candidate like any pass's: the pass that follows
    // may well undo it (that is the lock), and it may already be the answer.
    measureResiduals(plan, firstEffector, lastEffector, positions, targets);
    if (maxResidual[0] <= tolerance) {
      best = Infinity;
      break;
    }
    if (residualSum[0] < startBest) startBest = residualSum[0];
    if (damped) bestAtLastEscape = startBest;
    if (residualSum[0] < best) {
      best = residualSum[0];
      savePose(plan, c, positions, orientations);
    }
    // The next pass must improve on what the escape reached, or it is the same lock: then the next escape
    // follows at once instead of after a second pass that only confirms it (a locked arm whose escapes each
    // win some 15 % spent two passes per escape).
    previous = residualSum[0];
  }
  if (best < Infinity) {
    measureResiduals(plan, firstEffector, lastEffector, positions, targets);
    if (residualSum[0] > best) {
      restorePose(plan, c, positions, orientations);
      measureResiduals(plan, firstEffector, lastEffector, positions, targets);
    }
  }
  plan.report.escapes += escapes;
  if (!oriented) orientChainFromPositions(plan, c, positions, orientations);
  return iteration;
}

function anyOnLimit(plan: SolvePlan, c: number): boolean {
  const onLimit = plan.report.onLimit;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++)
    if (onLimit[plan.rotatingJoints[ri]]) return true;
  return false;
}
