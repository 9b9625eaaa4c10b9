import type { SolvePlan } from "./plan.js";
import { quatRotate } from "./quaternion.js";

/*
 * A chain whose base hangs below a joint that another chain turns (a hand's chain starting at the upper arm,
 * under a chest that the head's chain turns) is carried by that chain. Solved on its own, after the other,
 * it would meet its target only if the other chain happened to leave its base within reach. So the two
 * become one component: the carried chain's base becomes an active joint, and the joints between it and the
 * carrying joint (a shoulder) become active but held, keeping the rotation they have relative to their
 * parent as a fixed joint does.
 *
 * A branching tree hangs below a carrier the same way (a horse's head and front legs on a chest below the
 * pelvis its tail turns, a snake's jaw and tongue below its head): it joins the carrier's component, but asks
 * nothing of the passes, so the carrier turns for its own chains there; the damped steps that follow a
 * stall move the carrier for the tree's targets too.
 *
 * The carrying joint answers to a carried chain only as far as that chain needs it to: while the chain's
 * target lies well within its reach from where its base is, the chain has no say in how the carrier turns
 * (the carrier does what its own chains ask, exactly as before the join); as the target nears the edge of
 * that reach, the chain asks, more and more firmly, for its base to be moved just onto the reach. So a head
 * turning the chest is followed by hands that are free to follow, and is held back only by a hand that
 * would otherwise lose its target.
 */

/** This file's temporaries: a vector, and it turned. */
const temp = new Float64Array(7);

/** Depth inside its reach at which a carried chain starts to pull on its carrier, as a fraction of the reach. */
const PULL_BAND = 0.1;
/** How far inside its reach a carried chain asks its base to be, in tolerances: a margin for round-off. */
const REACH_MARGIN = 0.25;

/** The joins of a plan, per joint. */
export interface CarriedChains {
  /** 1 for the joints between a carrying joint and a carried chain's base: they keep their local rotation. */
  readonly held: Uint8Array;
  /** For a carried chain's base: the effector its chain ends at; -1 elsewhere and for a carried tree. */
  readonly carriedTip: Int32Array;
  /** For held joints and carried bases: the carried base at the end of their run; -1 elsewhere. */
  readonly carriedBelow: Int32Array;
  /** The carried bases. */
  readonly carriedBases: Int32Array;
}

/**
 * Joins, in `movable` (edited in place), every chain or tree that another chain carries: one whose fixed base
 * hangs, through joints that neither move nor turn, below a joint that turns (a base or a joint with movable
 * children). `carriedTip` is the effector of a carried chain whose movable joints form one unbranched path,
 * -1 for a branching tree. Pinned joints are never crossed.
 */
export function joinCarriedChains(
  parents: Int32Array,
  movable: Uint8Array,
  pinned: Uint8Array,
  effectorOf: Int32Array,
): CarriedChains {
  const n = parents.length;
  const held = new Uint8Array(n);
  const carriedTip = new Int32Array(n).fill(-1);
  const carriedBelow = new Int32Array(n).fill(-1);
  const bases: number[] = [];
  const movableChildren = new Int32Array(n);
  const onlyChild = new Int32Array(n);
  for (let changed = true; changed;) {
    changed = false;
    movableChildren.fill(0);
    for (let j = 0; j < n; j++) {
      if (!movable[j] || parents[j] < 0) continue;
      movableChildren[parents[j]]++;
      onlyChild[parents[j]] = j;
    }
    for (let b = 0; b < n; b++) {
      if (movable[b] || pinned[b] || movableChildren[b] === 0 || parents[b] < 0) continue;
      let q = parents[b];
      while (q >= 0 && !movable[q] && movableChildren[q] === 0 && !pinned[q]) q = parents[q];
      // The carrier must turn: a base or a joint with movable children (a moving leaf never turns).
      if (q < 0 || pinned[q] || movableChildren[q] === 0) continue;
      // One path to an effector asks its carrier for reach; a branching tree (a head and two front legs on a
      // horse's chest) asks nothing of the passes, and the damped steps move the carrier for it.
      let tip = movableChildren[b] === 1 ? onlyChild[b] : -1;
      while (tip >= 0 && movableChildren[tip] === 1) tip = onlyChild[tip];
      if (tip >= 0 && movableChildren[tip] > 1) tip = -1;
      if (tip >= 0 && effectorOf[tip] < 0) continue;
      for (let j = b; j !== q; j = parents[j]) {
        movable[j] = 1;
        carriedBelow[j] = b;
        if (j !== b) held[j] = 1;
      }
      carriedTip[b] = tip >= 0 ? effectorOf[tip] : -1;
      bases.push(b);
      changed = true;
    }
  }
  return { held, carriedTip, carriedBelow, carriedBases: Int32Array.from(bases) };
}

/**
 * Per solve, from the input pose: where each carried base sits in its carrier's frame (through the held
 * joints' local rotations), and the reach of its chain (the inner and outer radius of the shell its
 * effector can reach from it, ignoring limits).
 */
export function measureCarriedChains(plan: SolvePlan): void {
  const { carriedBases, carriedTip, held, carriedOffset, carriedReach, boneLength, localOffset, inputLocal } =
    plan.scratch;
  const parents = plan.rig.parents;
  for (let i = 0; i < carriedBases.length; i++) {
    const b = carriedBases[i];
    if (carriedTip[b] < 0) continue;
    let vx = boneLength[b] * localOffset[3 * b],
      vy = boneLength[b] * localOffset[3 * b + 1],
      vz = boneLength[b] * localOffset[3 * b + 2];
    for (let j = parents[b]; held[j] === 1; j = parents[j]) {
      temp[0] = vx;
      temp[1] = vy;
      temp[2] = vz;
      quatRotate(temp, 4, inputLocal, 4 * j, temp, 0);
      vx = temp[4] + boneLength[j] * localOffset[3 * j];
      vy = temp[5] + boneLength[j] * localOffset[3 * j + 1];
      vz = temp[6] + boneLength[j] * localOffset[3 * j + 2];
    }
    carriedOffset[3 * b] = vx;
    carriedOffset[3 * b + 1] = vy;
    carriedOffset[3 * b + 2] = vz;
    let sum = 0,
      longest = 0;
    for (let j = plan.effectorJoints[carriedTip[b]]; j !== b; j = parents[j]) {
      sum += boneLength[j];
      if (boneLength[j] > longest) longest = boneLength[j];
    }
    carriedReach[2 * b] = Math.max(0, 2 * longest - sum);
    carriedReach[2 * b + 1] = sum;
  }
}

/**
 * Before each forward pass of component c: where each carried base asks to be (on its reach, nearest to
 * where it is, or where it is when its target is within reach) and how firmly (its branch's weight, fading
 * to none once the target is PULL_BAND of the reach inside it).
 */
export function aimCarriedChains(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
): void {
  const { carriedBases, carriedTip, carriedReach, carriedGoal, carriedWeight, branchWeight } = plan.scratch;
  const activeIndex = plan.activeIndex;
  const start = plan.componentStart[c],
    end = plan.componentStart[c + 1];
  const tolerance = plan.scratch.tolerance[0];
  for (let i = 0; i < carriedBases.length; i++) {
    const b = carriedBases[i];
    const k = activeIndex[b];
    if (k < start || k >= end) continue;
    if (carriedTip[b] < 0) {
      carriedWeight[b] = 0;
      continue;
    }
    const e3 = 3 * carriedTip[b],
      b3 = 3 * b;
    const dx = positions[b3] - targets[e3],
      dy = positions[b3 + 1] - targets[e3 + 1],
      dz = positions[b3 + 2] - targets[e3 + 2];
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const inner = carriedReach[2 * b],
      outer = carriedReach[2 * b + 1];
    const depth = Math.min(outer - d, d - inner);
    const band = PULL_BAND * outer;
    const pull = depth <= 0 ? 1 : depth >= band ? 0 : 1 - depth / band;
    carriedWeight[b] = pull * branchWeight[b];
    const margin = REACH_MARGIN * tolerance;
    const low = Math.min(inner + margin, 0.5 * (inner + outer)),
      high = Math.max(outer - margin, 0.5 * (inner + outer));
    const want = d < low ? low : d > high ? high : d;
    const s = d > 0 ? want / d : 0;
    carriedGoal[b3] = d > 0 ? targets[e3] + s * dx : positions[b3];
    carriedGoal[b3 + 1] = d > 0 ? targets[e3 + 1] + s * dy : positions[b3 + 1];
    carriedGoal[b3 + 2] = d > 0 ? targets[e3 + 2] + s * dz : positions[b3 + 2];
  }
}

/**
 * Where effector e's path starts for folding and bending as a whole: at its component's base, or, in a
 * carried chain, below the carried base (the held joints above it never bend).
 */
export function bendingPathStart(plan: SolvePlan, e: number): number {
  const k = plan.effectorChainStart[e];
  const top = plan.rig.parents[plan.effectorPath[k]];
  return plan.scratch.carriedBelow[top] >= 0 ? k : plan.effectorPathStart[e];
}
