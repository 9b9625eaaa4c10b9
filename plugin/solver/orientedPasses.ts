import { aimCarriedChains } from "./carriedChains.js";
import { alignToChild, fitToChildren } from "./aimAtChildren.js";
import { placeSectionFromBase, placeSectionFromTip } from "./continuumArc.js";
import { placeHinge, rollForHinge } from "./hingePlane.js";
import { projectRotation } from "./jointLimitProjection.js";
import { LIMIT_FIXED, LIMIT_HINGE, LIMIT_ROTATION, LIMIT_STRETCH } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import {
  quatConjugateMultiply,
  quatMultiply,
  quatMultiplyConjugate,
  quatNormalize,
  quatRotate,
} from "./quaternion.js";

/*
 * FABRIK passes that carry joint orientations along with positions, used for every component that has
 * joint limits or where branches meet. Each rotating joint is a rigid frame: all its children sit at fixed
 * offsets in it, so a chest turns its neck and both shoulders together, and a limit is always measured in
 * the frame its parent really has. A rotating joint's orientation is built in the plan's `candidate` (see
 * aimAtChildren.ts, hingePlane.ts) before it is held to its limits and written.
 */

/** This file's temporaries. */
const temp = new Float64Array(20);
const V = 0; // vector
const L = 4; // local rotation / Δ
const ID = 8; // identity quaternion
const LIMIT = 12; // projectRotation scratch (8)

/**
 * Backward reaching: from the fixed base outward, each rotating joint turns so its children point where the
 * forward pass left them, within its limits, and its children are placed at bone length in the new frame.
 */
export function backwardPassOriented(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  const { rotatingJoints, activeChildStart, activeChildren, limits, rig } = plan;
  const parents = rig.parents;
  const { rotatingIndex, boneLength, localOffset, inputLocal, candidate } = plan.scratch;
  const onLimit = plan.report.onLimit;
  const flags = plan.scratch.flags;
  // All four: the workspace may hold anything from another plan's solve (see SolveWorkspace).
  temp[ID] = 0;
  temp[ID + 1] = 0;
  temp[ID + 2] = 0;
  temp[ID + 3] = 1;
  const { atBase, jointStart } = plan.continuum;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const r = rotatingJoints[ri];
    const section = atBase[r];
    if (section >= 0) {
      // A continuum section moves as one arc; its bending joints follow r in rotatingJoints.
      placeSectionFromBase(plan, section, positions, orientations);
      ri += jointStart[section + 1] - jointStart[section] - 2;
      continue;
    }
    const r3 = 3 * r,
      r4 = 4 * r;
    const first = activeChildStart[ri],
      last = activeChildStart[ri + 1];
    if (last - first === 1) {
      const ch = activeChildren[first];
      alignToChild(plan, r, ch, positions, orientations);
      if (flags[ch] & LIMIT_HINGE && rotatingIndex[ch] >= 0)
        rollForHinge(plan, c, r, ch, positions, orientations);
    } else {
      fitToChildren(plan, r, first, last, positions, orientations, false);
    }

    onLimit[r] = 0;
    if (flags[r] & LIMIT_ROTATION) {
      const p = parents[r];
      const parentArray = p >= 0 ? orientations : temp;
      const po = p >= 0 ? 4 * p : ID;
      if (flags[r] & LIMIT_FIXED) {
        quatMultiply(orientations, r4, parentArray, po, inputLocal, r4);
      } else {
        // Δ = rest⁻¹ · parent⁻¹ · candidate, projected, then back to model space.
        quatConjugateMultiply(temp, L, parentArray, po, candidate, 0);
        quatConjugateMultiply(temp, L, limits.restLocal, r4, temp, L);
        if (projectRotation(limits, r, temp, L, temp, LIMIT)) {
          onLimit[r] = temp[LIMIT + 7];
          quatMultiply(temp, L, limits.restLocal, r4, temp, L);
          quatMultiply(orientations, r4, parentArray, po, temp, L);
        } else {
          for (let i = 0; i < 4; i++) orientations[r4 + i] = candidate[i];
        }
      }
    } else {
      orientations[r4] = candidate[0];
      orientations[r4 + 1] = candidate[1];
      orientations[r4 + 2] = candidate[2];
      orientations[r4 + 3] = candidate[3];
    }
    quatNormalize(orientations, r4);

    for (let k = first; k < last; k++) {
      const ch = activeChildren[k];
      const c3 = 3 * ch;
      let len = boneLength[ch];
      if (flags[ch] & LIMIT_STRETCH) {
        const dx = positions[c3] - positions[r3],
          dy = positions[c3 + 1] - positions[r3 + 1],
          dz = positions[c3 + 2] - positions[r3 + 2];
        len = Math.sqrt(dx * dx + dy * dy + dz * dz);
        const min = limits.stretch[2 * ch],
          max = limits.stretch[2 * ch + 1];
        len = len < min ? min : len > max ? max : len;
        boneLength[ch] = len;
      }
      quatRotate(temp, V, orientations, r4, localOffset, c3);
      positions[c3] = positions[r3] + len * temp[V];
      positions[c3 + 1] = positions[r3 + 1] + len * temp[V + 1];
      positions[c3 + 2] = positions[r3 + 2] + len * temp[V + 2];
      // A leaf effector keeps its local rotation: it turns with its parent.
      if (rotatingIndex[ch] < 0) quatMultiply(orientations, 4 * ch, orientations, r4, inputLocal, 4 * ch);
    }
  }
}

/**
 * Forward reaching: from the effectors inward. A leaf effector goes to its target; a joint with one active
 * child goes back to bone length from it along the line toward where it was, turned so the child's limit
 * holds; where branches meet, the joint takes the rigid fit of its children's positions (the weighted
 * centroid of what each branch proposes), blended with its own target when it is an effector too.
 */
export function forwardPassOriented(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
): void {
  const { activeJoints, activeChildStart, activeChildren, limits, effectorWeights } = plan;
  const { rotatingIndex, effectorOf, branchWeight, boneLength, localOffset, inputLocal, candidate, fitted } =
    plan.scratch;
  const flags = plan.scratch.flags;
  const start = plan.componentStart[c];
  if (plan.scratch.carriedBases.length > 0) aimCarriedChains(plan, c, positions, targets);
  const { atLastBend, jointStart, joints } = plan.continuum;
  for (let k = plan.componentStart[c + 1] - 1; k >= start; k--) {
    const j = activeJoints[k];
    const section = atLastBend[j];
    if (section >= 0) {
      // A continuum section moves as one arc, up to its base; its joints precede j in activeJoints.
      placeSectionFromTip(plan, section, positions, orientations, targets);
      k -= jointStart[section + 1] - jointStart[section] - 3;
      if (plan.scratch.movable[joints[jointStart[section]]] === 1) k--;
      continue;
    }
    const j3 = 3 * j,
      j4 = 4 * j;
    const e = effectorOf[j];
    const ri = rotatingIndex[j];
    if (ri < 0) {
      positions[j3] = targets[3 * e];
      positions[j3 + 1] = targets[3 * e + 1];
      positions[j3 + 2] = targets[3 * e + 2];
      continue;
    }
    const first = activeChildStart[ri],
      last = activeChildStart[ri + 1];
    let px: number, py: number, pz: number;
    if (last - first === 1) {
      const ch = activeChildren[first];
      const c3 = 3 * ch,
        c4 = 4 * ch;
      if ((flags[j] & (LIMIT_HINGE | LIMIT_FIXED)) === LIMIT_HINGE)
        placeHinge(plan, c, j, ch, positions, orientations);
      alignToChild(plan, j, ch, positions, orientations);
      if (rotatingIndex[ch] >= 0 && flags[ch] & LIMIT_ROTATION) {
        // The child's limit, enforced from this side: keep the child's frame, turn this one.
        if (flags[ch] & LIMIT_FIXED) {
          quatMultiplyConjugate(candidate, 0, orientations, c4, inputLocal, c4);
        } else {
          quatConjugateMultiply(temp, L, candidate, 0, orientations, c4);
          quatConjugateMultiply(temp, L, limits.restLocal, c4, temp, L);
          if (projectRotation(limits, ch, temp, L, temp, LIMIT)) {
            quatMultiply(temp, L, limits.restLocal, c4, temp, L);
            quatMultiplyConjugate(candidate, 0, orientations, c4, temp, L);
          }
        }
      }
      orientations[j4] = candidate[0];
      orientations[j4 + 1] = candidate[1];
      orientations[j4 + 2] = candidate[2];
      orientations[j4 + 3] = candidate[3];
      quatNormalize(orientations, j4);
      let len = boneLength[ch];
      if (flags[ch] & LIMIT_STRETCH) {
        const dx = positions[c3] - positions[j3],
          dy = positions[c3 + 1] - positions[j3 + 1],
          dz = positions[c3 + 2] - positions[j3 + 2];
        len = Math.sqrt(dx * dx + dy * dy + dz * dz);
        const min = limits.stretch[2 * ch],
          max = limits.stretch[2 * ch + 1];
        len = len < min ? min : len > max ? max : len;
        boneLength[ch] = len;
      }
      quatRotate(temp, V, orientations, j4, localOffset, c3);
      px = positions[c3] - len * temp[V];
      py = positions[c3 + 1] - len * temp[V + 1];
      pz = positions[c3 + 2] - len * temp[V + 2];
    } else {
      fitToChildren(plan, j, first, last, positions, orientations, true);
      orientations[j4] = candidate[0];
      orientations[j4 + 1] = candidate[1];
      orientations[j4 + 2] = candidate[2];
      orientations[j4 + 3] = candidate[3];
      px = fitted[0];
      py = fitted[1];
      pz = fitted[2];
    }
    if (e >= 0) {
      // An effector with active children: blend its own target with where its branches put it.
      const we = effectorWeights[e];
      const wb = branchWeight[j] - we;
      const s = 1 / (wb + we);
      px = (wb * px + we * targets[3 * e]) * s;
      py = (wb * py + we * targets[3 * e + 1]) * s;
      pz = (wb * pz + we * targets[3 * e + 2]) * s;
    }
    positions[j3] = px;
    positions[j3 + 1] = py;
    positions[j3 + 2] = pz;
  }
}
