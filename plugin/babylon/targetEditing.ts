import { FabrikError } from "../solver/errors.js";
import type { AttachedCharacter } from "./attachedCharacter.js";
import type { CheckedBehaviorOptions } from "./behaviorOptions.js";
import {
  checkContinuumOption,
  resolveContinuumSections,
  type CheckedContinuumSection,
} from "./continuumOptions.js";
import { CompiledTargets, type TargetEntry } from "./compiledTargets.js";
import { defaultChainLength, shinOf } from "./limbChains.js";
import { ShinEndTarget } from "./shinEndTarget.js";
import { describeValue, TargetBinding, type TargetSource } from "./targetBinding.js";
import { resolveJoint, type FabrikJoint } from "./jointLookup.js";
import type { FabrikTargetOptions } from "./targetOptions.js";

/** The behavior's settings a plan is compiled with: its tolerance (of the character's height), its cap. */
interface TargetSettings {
  readonly tolerance: number;
  readonly maxIterations: number;
}

/*
 * Changing a character's targets: the entry a `setTarget` call makes, and the compiled plan that replaces the
 * old one. Every check comes before any change, so a refused call changes nothing.
 */

/**
 * The target `setTarget(j, target, options)` asks for (options checked already), and the entry it replaces
 * (if any). Throws for a joint without a chain of its own, an effector taken by another target, a pole where
 * none can bend, or a bad source.
 */
export function makeTargetEntry(
  character: AttachedCharacter,
  j: number,
  label: string,
  target: TargetSource,
  options: FabrikTargetOptions & { weight: number },
  who: string,
): TargetEntry {
  const { rig } = character;
  const previous = character.entries.find((e) => e.joint === j);
  let chain = options.chainLength;
  let shinEnd: ShinEndTarget | null = null;
  if (chain === undefined) {
    // A joint without a limb chain of its own may be a foot at its shin's end.
    let refusal: unknown = null;
    try {
      chain = defaultChainLength(character, j, who);
    } catch (error) {
      refusal = error;
    }
    if (chain === undefined) {
      if (previous?.shinEnd != null) shinEnd = previous.shinEnd;
      else {
        const shin = shinOf(character, j);
        if (shin >= 0) shinEnd = new ShinEndTarget(rig, j, shin);
      }
    }
    if (shinEnd === null && refusal !== null) throw refusal;
  }
  checkEffectorFree(character, j, shinEnd, who);
  if (shinEnd !== null && options.pole !== undefined) {
    throw new FabrikError(
      `${who}: "${rig.names[j]}" sits at the end of the shin "${rig.names[shinEnd.shin]}", ` +
        "whose knee bends as animated: a pole has no chain to bend there (give chainLength to target the " +
        "foot bone itself)",
      j,
      "pole",
    );
  }
  const binding = TargetBinding.create(target, who);
  const pole = options.pole === undefined ? null : TargetBinding.create(options.pole, `${who}: pole`);
  const rotation = options.rotation;
  const match = options.matchOrientation ?? rotation !== undefined;
  if (match && rotation === undefined && !binding.isNode) {
    throw new FabrikError(
      `${who}: matchOrientation needs a TransformNode target, or the rotation option, to take a rotation from`,
      j,
      "matchOrientation",
    );
  }
  return {
    joint: j,
    label,
    binding,
    weight: options.weight,
    // A foot at its shin's end: the shin is pulled, its chain the thigh.
    chainLength: shinEnd !== null ? 1 : chain,
    matchOrientation: match,
    rotation: match ? (rotation ?? null) : null,
    pole,
    shinEnd,
  };
}

/**
 * Puts `entry` in place of the target of its joint (or after the others). When only its source, weight or
 * rotation differ from the one it replaces, the plan stays; otherwise the targets are compiled again.
 */
export function putTarget(
  character: AttachedCharacter,
  entry: TargetEntry,
  settings: TargetSettings,
  who: string,
): boolean {
  const current = character.entries;
  const index = current.findIndex((e) => e.joint === entry.joint);
  const previous = index >= 0 ? current[index] : undefined;
  if (
    previous !== undefined &&
    previous.chainLength === entry.chainLength &&
    previous.shinEnd === entry.shinEnd &&
    previous.matchOrientation === entry.matchOrientation &&
    (previous.pole === null) === (entry.pole === null)
  ) {
    // Same plan: only the sources and the weight change.
    (current as TargetEntry[])[index] = entry;
    character.targets!.setEntry(index, entry);
    return false;
  }
  const entries = current.slice();
  if (index >= 0) entries[index] = entry;
  else entries.push(entry);
  installTargets(character, entries, settings, who);
  return true;
}

/** Compiles `entries` and swaps them in for the character's targets; a throw changes nothing. */
export function installTargets(
  character: AttachedCharacter,
  entries: TargetEntry[],
  settings: TargetSettings,
  who: string,
): void {
  let compiled: CompiledTargets | null = null;
  if (entries.length > 0) {
    try {
      compiled = new CompiledTargets(
        entries,
        character.model,
        character.limits,
        character.sections,
        settings.tolerance * character.height,
        settings.maxIterations,
      );
    } catch (error) {
      if (error instanceof FabrikError) {
        throw new FabrikError(
          `${who}: ${error.message.replace(/^effector \d+ /, "")}`,
          error.joint,
          error.option,
        );
      }
      throw error;
    }
  }
  character.targets?.release();
  character.entries = entries;
  character.targets = compiled;
  character.pipeline.setTargets(compiled);
}

/**
 * Replaces the continuum sections (`sections` as the option gives them) in the behavior's options and, when
 * attached, on its character, compiling its targets again. Returns whether a plan was rebuilt. A refused set
 * (a bad shape, a bone the rig lacks, ...) changes nothing.
 */
export function replaceContinuumSections(
  character: AttachedCharacter | null,
  options: CheckedBehaviorOptions,
  settings: TargetSettings,
  sections: unknown,
  who: string,
): boolean {
  let checked: CheckedContinuumSection[];
  try {
    checked = checkContinuumOption(sections);
    if (character === null) {
      options.continuumSections = checked;
      return false;
    }
    const previous = character.sections;
    character.sections = resolveContinuumSections(character.rig, character.roles, checked);
    try {
      if (character.entries.length > 0) installTargets(character, character.entries.slice(), settings, who);
    } catch (error) {
      character.sections = previous;
      throw error;
    }
  } catch (error) {
    if (error instanceof FabrikError && !error.message.startsWith(who)) {
      throw new FabrikError(`${who}: ${error.message.replace(/^FabrikIK: /, "")}`, error.joint, error.option);
    }
    throw error;
  }
  options.continuumSections = checked;
  return character.entries.length > 0;
}

/** One target per solver effector: a shin pulled for its foot takes no target of its own, and back. */
function checkEffectorFree(
  character: AttachedCharacter,
  j: number,
  shinEnd: ShinEndTarget | null,
  who: string,
): void {
  const names = character.rig.names;
  for (const e of character.entries) {
    if (e.joint === j) continue;
    if (e.shinEnd?.shin === j) {
      throw new FabrikError(
        `${who}: "${names[j]}" is the shin the target of "${names[e.joint]}" bends (that foot sits at its ` +
          "end); remove that target first",
        j,
        "joint",
      );
    }
    if (shinEnd !== null && e.joint === shinEnd.shin) {
      throw new FabrikError(
        `${who}: "${names[j]}" sits at the end of the shin "${names[e.joint]}", which has a target of its ` +
          "own; remove that target first",
        j,
        "joint",
      );
    }
  }
}

/**
 * The index of joint `j`'s target entry, or -1. A loop, not `findIndex`: helpers ask every frame, and a
 * closure per call is garbage.
 */
export function entryOf(entries: readonly TargetEntry[], j: number): number {
  if (j >= 0) for (let e = 0; e < entries.length; e++) if (entries[e].joint === j) return e;
  return -1;
}

/**
 * Sets the weight of joint `j`'s target when there is one and the weight is a number in [0, 1]; false
 * otherwise, changing nothing (the caller then says why: see refuseTargetWeight). Allocates nothing.
 */
export function changeTargetWeight(character: AttachedCharacter | null, j: number, weight: number): boolean {
  const valid = character !== null && typeof weight === "number" && weight >= 0 && weight <= 1;
  const e = valid ? entryOf(character.entries, j) : -1;
  if (e < 0) return false;
  character!.entries[e].weight = weight;
  character!.targets!.setWeight(e, weight);
  return true;
}

/** Throws the error a bad `setTargetWeight` call owes (kept apart: the call itself builds no text). */
export function refuseTargetWeight(
  character: AttachedCharacter,
  joint: FabrikJoint,
  weight: unknown,
  who: string,
): never {
  const j = resolveJoint(character, joint, who);
  if (typeof weight !== "number" || !(weight >= 0 && weight <= 1)) {
    throw new FabrikError(
      `${who}: weight must be a number in [0, 1], got ${describeValue(weight)}`,
      j,
      "weight",
    );
  }
  throw new FabrikError(
    `${who}: "${character.rig.names[j]}" has no target; give it one with setTarget first`,
    j,
    "joint",
  );
}
