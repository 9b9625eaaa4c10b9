import { FabrikError } from "../solver/errors.js";
import type { ContinuumSectionSpec } from "../solver/continuumSections.js";
import type { SolvePlan } from "../solver/plan.js";
import type { HumanoidRoles } from "../rig/index.js";
import { findJointIndex, unknownJoint, type FabrikJoint } from "./jointLookup.js";
import type { SkeletonRig } from "./skeletonRig.js";
import { describeValue } from "./targetBinding.js";

/*
 * The behavior's `continuumSections` option: checked when the behavior is made, its bones found by name when
 * it attaches, and turned into the solver's sections each time the targets are compiled (see
 * docs/continuum.md). Every check comes before any change, so a refused option or edit changes nothing.
 */

/** A run of bones that bends as one constant-curvature arc (a tail, a tentacle's segment); see docs/continuum.md. */
export interface FabrikContinuumSection {
  /**
   * The section's bones, parent to child: a list of joints (bone names, roles, nodes, Bones or indices), its
   * base first and its tip last (at least two), or the run `{ from, to }` from the base down to the tip.
   * Sections in series share their end joints (the tip of one is the base of the next).
   */
  bones: readonly FabrikJoint[] | { readonly from: FabrikJoint; readonly to: FabrikJoint };
  /**
   * The most the section may bend, in radians within (0, 2π): the angle between the bone entering its base
   * and its last bone. Default π (a half turn). Change it later with `FabrikBehavior.setContinuumMaxBend`.
   */
  maxBend?: number;
}

/** A section as the behavior resolved it on its rig (see `FabrikBehavior.continuumSections`). */
export interface FabrikContinuumSectionInfo {
  /** The section's joints, base first, tip last. */
  readonly joints: readonly number[];
  /** Their bone names. */
  readonly names: readonly string[];
  readonly maxBend: number;
  /**
   * Whether the current targets bend it as an arc: some target's chain moves every bone of it, no target
   * sits strictly inside it, and no other moving branch leaves it. Otherwise its bones bend as plain joints.
   */
  readonly active: boolean;
}

/** A section as checked at construction: its bones not found yet; `maxBend` is edited in place. */
export interface CheckedContinuumSection {
  readonly bones: readonly FabrikJoint[] | { readonly from: FabrikJoint; readonly to: FabrikJoint };
  maxBend: number;
}

/** A section found on a character's rig; `maxBend` is edited in place. */
export interface ResolvedContinuumSection {
  readonly joints: readonly number[];
  maxBend: number;
}

const OPTION = "continuumSections";
const SECTION_KEYS = ["bones", "maxBend"];
/** A half turn: a tail or a tentacle's segment curls back along itself, not round into a loop. */
const DEFAULT_MAX_BEND = Math.PI;

/** Checks a section's bend limit (`who` names the section or the call); returns it. */
export function checkMaxBend(value: unknown, who: string): number {
  if (typeof value !== "number" || !(value > 0 && value < 2 * Math.PI)) {
    throw new FabrikError(
      `${who}: maxBend must be a number in (0, 2π) radians, got ${String(value)}`,
      undefined,
      "maxBend",
    );
  }
  return value;
}

/** Checks the option's shape and bend limits (the bones are found at attach); returns a copy to keep. */
export function checkContinuumOption(value: unknown): CheckedContinuumSection[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new FabrikError(
      `FabrikIK: continuumSections must be an array of { bones, maxBend? }, got ${describeValue(value)}`,
      undefined,
      OPTION,
    );
  }
  return value.map((section: unknown, s) => {
    const who = `FabrikIK: continuumSections[${s}]`;
    if (section === null || typeof section !== "object" || Array.isArray(section)) {
      throw new FabrikError(`${who} must be an object { bones, maxBend? }`, undefined, OPTION);
    }
    for (const key of Object.keys(section)) {
      if (!SECTION_KEYS.includes(key))
        throw new FabrikError(`${who}: unknown key "${key}" (keys are bones, maxBend)`, undefined, OPTION);
    }
    const { bones, maxBend } = section as FabrikContinuumSection;
    const run = bones as { from?: unknown; to?: unknown } | null;
    const listed = Array.isArray(bones) && bones.length >= 2;
    if (!listed && (Array.isArray(bones) || run?.from == null || run.to == null)) {
      throw new FabrikError(
        `${who}: bones must list at least two joints (the base first, the tip last) or be { from, to }`,
        undefined,
        OPTION,
      );
    }
    let bend = DEFAULT_MAX_BEND;
    try {
      if (maxBend !== undefined) bend = checkMaxBend(maxBend, who);
    } catch (error) {
      throw new FabrikError((error as Error).message, undefined, OPTION);
    }
    return { bones: listed ? bones.slice() : { from: run!.from!, to: run!.to! }, maxBend: bend };
  }) as CheckedContinuumSection[];
}

/**
 * Finds each section's joints on the rig: every joint named, a parent→child run, no bone in two sections.
 * Throws a {@link FabrikError} naming the section and bone at fault.
 */
export function resolveContinuumSections(
  rig: SkeletonRig,
  roles: HumanoidRoles,
  sections: readonly CheckedContinuumSection[],
): ResolvedContinuumSection[] {
  const names = rig.names;
  const quoted = (j: number) => JSON.stringify(names[j]);
  // Per joint: the section its bone (to its parent) is in.
  const boneIn = new Int32Array(rig.jointCount).fill(-1);
  return sections.map((section, s) => {
    const who = `FabrikIK: continuumSections[${s}]`;
    const find = (joint: FabrikJoint, at: string): number => {
      const j = findJointIndex(rig, roles, joint);
      if (j < 0)
        throw new FabrikError(unknownJoint(rig, roles, joint, `${who}${at}`).message, undefined, OPTION);
      return j;
    };
    const bones = section.bones;
    let joints: number[];
    if (Array.isArray(bones)) {
      joints = bones.map((joint, k) => find(joint, `.bones[${k}]`));
      for (let k = 1; k < joints.length; k++) {
        if (rig.parents[joints[k]] !== joints[k - 1]) {
          throw new FabrikError(
            `${who}: ${quoted(joints[k])} is not a child of ${quoted(joints[k - 1])}; a section's bones run ` +
              "parent to child",
            joints[k],
            OPTION,
          );
        }
      }
    } else {
      const run = bones as { from: FabrikJoint; to: FabrikJoint };
      const from = find(run.from, ".bones.from"),
        to = find(run.to, ".bones.to");
      joints = [to];
      while (joints[0] !== from && rig.parents[joints[0]] >= 0) joints.unshift(rig.parents[joints[0]]);
      if (joints[0] !== from || from === to) {
        throw new FabrikError(
          `${who}: ${quoted(to)} does not hang below ${quoted(from)}; a section runs from its base down to ` +
            "its tip",
          to,
          OPTION,
        );
      }
    }
    for (let k = 1; k < joints.length; k++) {
      const j = joints[k];
      if (boneIn[j] >= 0) {
        throw new FabrikError(
          `${who}: the bone to ${quoted(j)} is already in continuumSections[${boneIn[j]}]`,
          j,
          OPTION,
        );
      }
      boneIn[j] = s;
    }
    return { joints, maxBend: section.maxBend };
  });
}

/**
 * The solver's sections for a plan's effectors, given the plan compiled without sections (which joints its
 * chains move, joined chains included): each section the chains move whole, with no effector strictly inside
 * it and no other moving branch leaving it (the rest bend as plain joints), and per section its index among
 * them, or -1.
 */
export function sectionsForPlan(
  plan: SolvePlan,
  sections: readonly ResolvedContinuumSection[],
): { specs: ContinuumSectionSpec[]; inPlan: Int32Array } {
  const inPlan = new Int32Array(sections.length).fill(-1);
  const specs: ContinuumSectionSpec[] = [];
  if (sections.length === 0) return { specs, inPlan };
  const { parents } = plan.rig;
  const { movable, effectorOf } = plan.scratch;
  const movingChildren = new Int32Array(parents.length);
  for (let j = 0; j < parents.length; j++) if (movable[j] && parents[j] >= 0) movingChildren[parents[j]]++;
  sections.forEach((section, s) => {
    const joints = section.joints;
    const last = joints.length - 1;
    for (let k = 0; k < last; k++) {
      if (!movable[joints[k + 1]] || movingChildren[joints[k]] !== 1) return;
      if (k > 0 && effectorOf[joints[k]] >= 0) return;
    }
    inPlan[s] = specs.length;
    specs.push({ joints: joints.slice(), maxBend: section.maxBend });
  });
  return { specs, inPlan };
}

/** What `FabrikBehavior.continuumSections` shows of a resolved section. */
export function sectionInfo(
  section: ResolvedContinuumSection,
  names: readonly string[],
  active: boolean,
): FabrikContinuumSectionInfo {
  return {
    joints: section.joints.slice(),
    names: section.joints.map((j) => names[j]),
    maxBend: section.maxBend,
    active,
  };
}
