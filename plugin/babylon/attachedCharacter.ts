import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { FabrikError } from "../solver/errors.js";
import {
  copyJointLimits,
  createJointLimits,
  isJointLimitsShared,
  setJointLimit,
  type JointLimits,
  type JointLimitSpec,
} from "../solver/limits.js";
import { setPlanLimits } from "../solver/plan.js";
import { fitLimitsToAnimations } from "./animationLimits.js";
import type { CheckedBehaviorOptions } from "./behaviorOptions.js";
import { CharacterPipeline, type PipelineOwner } from "./characterPipeline.js";
import {
  checkMaxBend,
  resolveContinuumSections,
  sectionInfo,
  type CheckedContinuumSection,
  type FabrikContinuumSectionInfo,
  type ResolvedContinuumSection,
} from "./continuumOptions.js";
import { characterHeight, deformingJoints, modelSpaceUp } from "./characterHeight.js";
import type { CompiledTargets, TargetEntry } from "./compiledTargets.js";
import { discoverEndEffectors, type EndEffectorInfo } from "./endEffectors.js";
import { FabrikSystem } from "./fabrikSystem.js";
import {
  humanoidLimitPreset,
  findHumanoidRoles,
  HUMANOID_ROLES,
  type HumanoidRole,
  type HumanoidRoles,
  jointDepths,
} from "../rig/index.js";
import type { FabrikModel } from "./modelCache.js";
import { buildSkeletonRig, type SkeletonRig } from "./skeletonRig.js";
import { describeValue } from "./targetBinding.js";

/**
 * Everything a behavior knows while attached, built at once by {@link attachCharacter} and dropped at once on
 * detach: the rig and what was learnt of it, the model data it shares with copies of the same model, its
 * limits, its targets, and the pipeline that runs its frames.
 */
export interface AttachedCharacter {
  readonly node: TransformNode;
  readonly system: FabrikSystem;
  readonly rig: SkeletonRig;
  readonly model: FabrikModel;
  readonly roles: HumanoidRoles;
  /** The role of each joint, if any. */
  readonly roleOf: readonly (HumanoidRole | undefined)[];
  readonly depths: Int32Array;
  readonly effectors: readonly EndEffectorInfo[];
  readonly height: number;
  /** The `continuumSections` option, found on the rig (in the option's order). */
  sections: readonly ResolvedContinuumSection[];
  /** The joint limits every plan uses: shared with copies (see FabrikModel.shareLimits) until edited. */
  limits: JointLimits;
  /** The targets in effector order, and what they compile to (null without targets). */
  entries: readonly TargetEntry[];
  targets: CompiledTargets | null;
  readonly pipeline: CharacterPipeline;
}

/**
 * Builds the rig of the character at or under `node`, finds its roles, effectors and height, sets its
 * limits, and puts its pipeline into the scene's FabrikSystem. A throw (a node without a skeleton, an
 * ambiguous one) changes nothing.
 */
export function attachCharacter(
  owner: PipelineOwner,
  node: TransformNode,
  options: CheckedBehaviorOptions,
): AttachedCharacter {
  let rig: SkeletonRig;
  try {
    rig = buildSkeletonRig(node, options.skeleton === undefined ? {} : { skeleton: options.skeleton });
  } catch (error) {
    if (error instanceof FabrikError) {
      throw new FabrikError(
        `FabrikIK: cannot attach to "${node.name}": ${error.message}`,
        error.joint,
        error.option,
      );
    }
    throw error;
  }
  const scene = node.getScene();
  const system = FabrikSystem.of(scene);
  const model = system.models.acquire(rig.toRigDescription());
  try {
    return setUp(owner, node, options, rig, system, model);
  } catch (error) {
    system.models.release(model);
    throw error;
  }
}

function setUp(
  owner: PipelineOwner,
  node: TransformNode,
  options: CheckedBehaviorOptions,
  rig: SkeletonRig,
  system: FabrikSystem,
  model: FabrikModel,
): AttachedCharacter {
  const scene = node.getScene();
  const solverRig = model.rig;
  const roles = findHumanoidRoles({
    names: rig.names,
    parents: rig.parents,
    restPositions: rig.restPositions,
  });
  const sections = resolveContinuumSections(rig, roles, options.continuumSections);
  const limits = createJointLimits(solverRig);
  const up = modelSpaceUp(rig);
  if (options.limits === "humanoid") {
    for (const [joint, spec] of humanoidLimitPreset(solverRig, roles, { up })) {
      try {
        setJointLimit(limits, joint, spec);
      } catch (error) {
        // A preset that does not fit one joint should not cost the character its IK.
        Logger.Warn(`FabrikIK: humanoid limit of "${rig.names[joint]}" skipped: ${(error as Error).message}`);
      }
    }
    if (options.fitLimitsToAnimations) fitLimitsToAnimations(rig, limits, scene.animationGroups);
  }
  const roleOf = new Array<HumanoidRole | undefined>(rig.jointCount).fill(undefined);
  for (const role of HUMANOID_ROLES) if (roles[role] !== undefined) roleOf[roles[role]!] = role;
  const pipeline = new CharacterPipeline(owner, rig);
  // A first read, so the model root's matrix is known before the first frame (tools ask for it).
  pipeline.pose.read();
  system.add(pipeline, options.stage);
  return {
    node,
    system,
    rig,
    model,
    roles,
    roleOf,
    depths: jointDepths(rig.parents),
    effectors: discoverEndEffectors(rig),
    height: characterHeight(rig.restPositions, deformingJoints(rig), up),
    sections,
    limits: model.shareLimits(limits),
    entries: [],
    targets: null,
    pipeline,
  };
}

/** Puts the animated pose back and lets go of the scene's system and the model's data. */
export function detachCharacter(character: AttachedCharacter): void {
  character.pipeline.dispose();
  character.system.remove(character.pipeline);
  character.targets?.release();
  character.model.releaseLimits(character.limits);
  character.system.models.release(character.model);
}

/** Refuses to attach a behavior attached elsewhere, or to something that is not a node. */
export function checkAttachable(current: TransformNode | null, node: TransformNode): void {
  if (current !== null) {
    throw new FabrikError(
      `FabrikIK: already attached to "${current.name}"; detach it (node.removeBehavior) before ` +
        `attaching it to "${node?.name}"`,
      undefined,
      "node",
    );
  }
  if (node == null || typeof node.getScene !== "function") {
    throw new FabrikError(`FabrikIK: attach needs a TransformNode or mesh, got ${describeValue(node)}`);
  }
}

/** The character, or the error a call owes a behavior that is not attached (`who` names the call). */
export function requireAttached(character: AttachedCharacter | null, who: string): AttachedCharacter {
  if (character === null) {
    throw new FabrikError(
      `${who}: the behavior is not attached; add it to the character first (mesh.addBehavior(ik, true): ` +
        "without `true`, Babylon defers attaching while the scene is loading)",
    );
  }
  return character;
}

/**
 * Sets (or clears) joint `j`'s limits, effective from the next solve. A limit set shared with identical
 * characters is copied before the first edit: only this one changes. A bad spec changes nothing.
 */
export function setCharacterLimit(
  character: AttachedCharacter,
  j: number,
  spec: JointLimitSpec | undefined,
  who: string,
): void {
  const limits = character.limits;
  const own = isJointLimitsShared(limits) ? copyJointLimits(limits) : limits;
  try {
    setJointLimit(own, j, spec);
  } catch (error) {
    if (error instanceof FabrikError) throw new FabrikError(`${who}: ${error.message}`, j, error.option);
    throw error;
  }
  if (own !== limits) {
    character.model.releaseLimits(limits);
    character.limits = own;
    if (character.targets !== null) setPlanLimits(character.targets.plan, own);
  }
}

/** The character's continuum sections, for tools: joints, names, bend limit, and whether the plan uses each. */
export function continuumSectionsOf(character: AttachedCharacter): FabrikContinuumSectionInfo[] {
  const inPlan = character.targets?.sectionInPlan;
  return character.sections.map((section, s) =>
    sectionInfo(section, character.rig.names, inPlan !== undefined && inPlan[s] >= 0),
  );
}

/**
 * Sets section `s`'s bend limit, in the behavior's options (`kept`), on the character and in the current plan,
 * effective from the next solve without recompiling. A bad section or angle changes nothing.
 */
export function setSectionMaxBend(
  character: AttachedCharacter,
  kept: readonly CheckedContinuumSection[],
  s: number,
  maxBend: number,
  who: string,
): void {
  const count = character.sections.length;
  if (!Number.isInteger(s) || s < 0 || s >= count) {
    throw new FabrikError(
      `${who}: no continuum section ${String(s)} (the behavior has ` +
        `${count === 0 ? "none" : `${count}: 0..${count - 1}`})`,
      undefined,
      "section",
    );
  }
  const value = checkMaxBend(maxBend, who);
  kept[s].maxBend = value;
  character.sections[s].maxBend = value;
  const targets = character.targets;
  if (targets !== null && targets.sectionInPlan[s] >= 0) {
    targets.plan.continuum.maxBend[targets.sectionInPlan[s]] = value;
  }
}
