import { FabrikError, describeJoint } from "./errors.js";
import { LIMIT_ROTATION, LIMIT_STRETCH } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import type { PlanEffectors } from "./planEffectors.js";
import type { PlanLayout } from "./planLayout.js";
import { findJoint, type Rig } from "./rig.js";

/*
 * Continuum sections: runs of bones that bend together as one constant-curvature arc (a tentacle's segment,
 * a tail, a snake-arm robot's section). This file reads and checks the specs and compiles them into the
 * tables the passes read; the arc itself is continuumArc.ts's.
 */

/**
 * A run of consecutive bones that bends as one arc: every joint of the section turns its bone by the same
 * angle, in one plane, so the section's bend is spread evenly over its joints. Its bones keep their lengths.
 */
export interface ContinuumSectionSpec {
  /**
   * The section's joints, by index or name, parent to child: its base first, its tip last (at least two).
   * Each bone between two of them is in the section; sections in series share their end joints.
   */
  joints: readonly (number | string)[];
  /**
   * The most the section may bend, in radians within (0, 2π): the angle between the bone entering its base
   * and its last bone. At its bend limit, a section that cannot reach its target ends nearest it.
   */
  maxBend: number;
}

/** The compiled sections of a plan (empty when it has none). */
export interface ContinuumSections {
  readonly count: number;
  /** Section `s` has joints `joints[jointStart[s] .. jointStart[s + 1])`, base first, tip last. */
  readonly jointStart: Int32Array;
  readonly joints: Int32Array;
  readonly maxBend: Float64Array;
  /** Per joint: the section whose base it is, or -1 (a section's tip may be the next one's base). */
  readonly atBase: Int32Array;
  /** Per joint: the section it bends in (every joint of a section but its tip), or -1. */
  readonly bendsIn: Int32Array;
  /** Per joint: the section whose last bending joint (the one above its tip) it is, or -1. */
  readonly atLastBend: Int32Array;
  /** Per component: 1 when a section lies in it. */
  readonly inComponent: Uint8Array;
  /**
   * Scratch of the forward pass, 3 per section: the direction entering its base as the pass left it, which
   * the section above (its base's section, in series) must end along.
   */
  readonly entering: Float64Array;
  /** Per section: the direction entering its base, in its base's parent's frame (see measureSections). */
  readonly enteringLocal: Float64Array;
  /**
   * Scratch of restartContinuum, 4 per section: the bend the section had when its component started again,
   * and the side it bent toward, in its base's parent's frame (as enteringLocal).
   */
  readonly startBend: Float64Array;
}

/** No sections: tables of the right size for the passes to read. */
export function noContinuumSections(jointCount: number, componentCount: number): ContinuumSections {
  return {
    count: 0,
    jointStart: new Int32Array(1),
    joints: new Int32Array(0),
    maxBend: new Float64Array(0),
    atBase: new Int32Array(jointCount).fill(-1),
    atLastBend: new Int32Array(jointCount).fill(-1),
    bendsIn: new Int32Array(jointCount).fill(-1),
    inComponent: new Uint8Array(componentCount),
    entering: new Float64Array(0),
    enteringLocal: new Float64Array(0),
    startBend: new Float64Array(0),
  };
}

/**
 * Checks the `continuumSections` option against the plan's layout and compiles it. Throws a
 * {@link FabrikError} naming the section and joint at fault.
 */
export function compileContinuumSections(
  rig: Rig,
  specs: readonly ContinuumSectionSpec[] | undefined,
  effectors: PlanEffectors,
  layout: PlanLayout,
): ContinuumSections {
  const n = rig.jointCount;
  const sections = noContinuumSections(n, layout.componentCount);
  if (specs === undefined) return sections;
  const option = "continuumSections";
  if (!Array.isArray(specs))
    throw new FabrikError("plan: `continuumSections` must be an array", undefined, option);
  const { parents, names } = rig;
  const { movable, effectorOf } = effectors;
  const { rotatingIndex, activeChildStart, activeIndex } = layout;
  // Per joint: the section its bone (to its parent) is in.
  const boneIn = new Int32Array(n).fill(-1);
  const lists: number[][] = [];
  const bends: number[] = [];
  specs.forEach((spec, s) => {
    const who = `continuumSections[${s}]`;
    if (spec === null || typeof spec !== "object" || !Array.isArray(spec.joints) || spec.joints.length < 2) {
      throw new FabrikError(
        `${who}: joints must list at least two joints, the section's base and its tip`,
        undefined,
        option,
      );
    }
    const { maxBend } = spec;
    if (typeof maxBend !== "number" || !(maxBend > 0 && maxBend < 2 * Math.PI)) {
      throw new FabrikError(
        `${who}: maxBend must be a number in (0, 2π), got ${String(maxBend)}`,
        undefined,
        option,
      );
    }
    const joints = spec.joints.map((j: number | string) => findJoint(rig, j, option));
    for (let k = 1; k < joints.length; k++) {
      const j = joints[k],
        above = joints[k - 1];
      const at = describeJoint(j, names);
      if (parents[j] !== above) {
        throw new FabrikError(
          `${who}: ${at} is not a child of ${describeJoint(above, names)}; a section's joints run parent to child`,
          j,
          option,
        );
      }
      if (boneIn[j] >= 0)
        throw new FabrikError(`${who}: the bone to ${at} is already in section ${boneIn[j]}`, j, option);
      if (!movable[j]) throw new FabrikError(`${who}: ${at} is not moved by any effector's chain`, j, option);
      boneIn[j] = s;
    }
    for (let k = 0; k < joints.length - 1; k++) {
      const j = joints[k];
      const ri = rotatingIndex[j];
      const count = ri < 0 ? 0 : activeChildStart[ri + 1] - activeChildStart[ri];
      if (count !== 1) {
        throw new FabrikError(
          `${who}: ${describeJoint(j, names)} has ${count} moving children; a section cannot branch`,
          j,
          option,
        );
      }
      if (k > 0 && effectorOf[j] >= 0) {
        throw new FabrikError(
          `${who}: ${describeJoint(j, names)} is an effector; only a section's base and tip can be`,
          j,
          option,
        );
      }
    }
    lists.push(joints);
    bends.push(maxBend);
  });
  const jointStart = new Int32Array(lists.length + 1);
  lists.forEach((list, s) => (jointStart[s + 1] = jointStart[s] + list.length));
  const joints = Int32Array.from(lists.flat());
  lists.forEach((list, s) => {
    sections.atBase[list[0]] = s;
    sections.atLastBend[list[list.length - 2]] = s;
    for (let k = 0; k < list.length - 1; k++) sections.bendsIn[list[k]] = s;
    // The component of the section's tip, found by where its active index falls.
    const k = activeIndex[list[list.length - 1]];
    for (let c = 0; c < layout.componentCount; c++)
      if (k >= layout.componentStart[c] && k < layout.componentStart[c + 1]) sections.inComponent[c] = 1;
  });
  return {
    ...sections,
    count: lists.length,
    jointStart,
    joints,
    maxBend: Float64Array.from(bends),
    entering: new Float64Array(3 * lists.length),
    enteringLocal: new Float64Array(3 * lists.length),
    startBend: new Float64Array(4 * lists.length),
  };
}

/** True when a continuum section lies in component c. */
export function hasContinuumSections(plan: SolvePlan, c: number): boolean {
  return plan.continuum.inComponent[c] === 1;
}

/**
 * A section's bend replaces the limits of its joints: their own rotation limits and the stretch of its
 * bones are not used (the flags of this solve are cleared, the limit set is untouched).
 */
export function maskSectionLimits(plan: SolvePlan, flags: Uint8Array): void {
  const { count, jointStart, joints } = plan.continuum;
  for (let s = 0; s < count; s++) {
    const first = jointStart[s],
      last = jointStart[s + 1] - 1;
    for (let i = first; i < last; i++) flags[joints[i]] &= ~LIMIT_ROTATION;
    for (let i = first + 1; i <= last; i++) flags[joints[i]] &= ~LIMIT_STRETCH;
  }
}
