import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FabrikBehavior, FabrikJoint } from "../babylon/fabrikBehavior.js";
import type { HumanoidRoles } from "../babylon/humanoidRoles.js";
import { FabrikError } from "../solver/errors.js";

/** A leg for foot placement: the foot joint, and optionally its chain and whether it follows the slope. */
export interface FootPlacementLeg {
  /**
   * The joint put on the ground: a bone name, a humanoid role (`"leftFoot"`), a joint node or a Bone. On a
   * humanoid it is the ankle; on a creature, whatever joint ends the leg.
   */
  readonly foot: FabrikJoint;
  /**
   * Bones above the foot that bend; the joint that many levels up keeps its place and turns. Default: up
   * to the upper leg (or upper arm, for a quadruped's front legs), else up to just below the joint where
   * all the legs meet (the body).
   */
  readonly chainLength?: number;
  /**
   * Turn the foot with the ground's slope (its toes follow). Default: when the foot has a child joint to
   * carry (toes, a paw); a leg ending in a tip has nothing to turn.
   */
  readonly align?: boolean;
}

/** A leg with everything resolved to joint indices. */
export interface ResolvedLeg {
  readonly foot: number;
  /** The foot as the behavior's methods take it (its node, or its Bone): unique, unlike names. */
  readonly joint: TransformNode | Bone;
  readonly name: string;
  readonly chainLength: number;
  /** The joint `chainLength` levels above the foot: it keeps its place (it moves with the hips). */
  readonly base: number;
  readonly align: boolean;
}

function depthOf(parents: Int32Array, j: number): number {
  let d = 0;
  for (let k = parents[j]; k >= 0; k = parents[k]) d++;
  return d;
}

function isAncestorOrSelf(parents: Int32Array, ancestor: number, j: number): boolean {
  for (let k = j; k >= 0; k = parents[k]) if (k === ancestor) return true;
  return false;
}

function commonAncestor(parents: Int32Array, a: number, b: number): number {
  let da = depthOf(parents, a),
    db = depthOf(parents, b);
  while (a >= 0 && b >= 0 && a !== b) {
    if (da >= db) {
      a = parents[a];
      da--;
    } else {
      b = parents[b];
      db--;
    }
  }
  return a === b ? a : -1;
}

/** The deepest joint at or above every one of `joints`, or -1 when they hang from different roots. */
export function commonAncestorOf(parents: Int32Array, joints: readonly number[]): number {
  let lca = joints[0];
  for (let i = 1; i < joints.length && lca >= 0; i++) lca = commonAncestor(parents, lca, joints[i]);
  return lca;
}

/** The limb root of a foot or hand named by role, where a limb of that kind would start. */
function limbRoot(roles: Readonly<HumanoidRoles>, parents: Int32Array, j: number): number {
  for (const side of ["left", "right"] as const) {
    const leg = roles[`${side}UpperLeg`];
    const arm = roles[`${side}UpperArm`];
    const legEnds = [roles[`${side}Foot`], roles[`${side}Toes`], roles[`${side}LowerLeg`]];
    const armEnds = [roles[`${side}Hand`], roles[`${side}LowerArm`]];
    if (leg !== undefined && legEnds.includes(j) && isAncestorOrSelf(parents, leg, parents[j])) return leg;
    if (arm !== undefined && armEnds.includes(j) && isAncestorOrSelf(parents, arm, parents[j])) return arm;
  }
  return -1;
}

function hasChild(parents: Int32Array, j: number): boolean {
  for (let k = j + 1; k < parents.length; k++) if (parents[k] === j) return true;
  return false;
}

function describe(joint: FabrikJoint): string {
  if (typeof joint === "string") return JSON.stringify(joint);
  const name = (joint as { name?: unknown } | null)?.name;
  return typeof name === "string" ? JSON.stringify(name) : String(joint);
}

/**
 * The legs a humanoid or a quadruped shows by its roles: each foot below its upper leg, and each hand
 * below its upper arm that rests lower than the knees (a quadruped's front legs; a biped's hands hang far
 * above its knees). `restUp` is the world's up in model space, for "lower".
 */
function legsByRole(ik: FabrikBehavior, restUp: ArrayLike<number>): FootPlacementLeg[] {
  const roles = ik.roles;
  const rig = ik.rig!;
  const parents = rig.parents;
  const rest = rig.restPositions;
  const height = (j: number) =>
    rest[3 * j] * restUp[0] + rest[3 * j + 1] * restUp[1] + rest[3 * j + 2] * restUp[2];
  const legs: FootPlacementLeg[] = [];
  const knees: number[] = [];
  for (const side of ["left", "right"] as const) {
    const foot = roles[`${side}Foot`];
    if (foot !== undefined && limbRoot(roles, parents, foot) >= 0) {
      legs.push({ foot: rig.names[foot] });
      const knee = roles[`${side}LowerLeg`];
      if (knee !== undefined) knees.push(knee);
    }
  }
  if (knees.length > 0) {
    const kneeHeight = Math.min(...knees.map(height));
    for (const side of ["left", "right"] as const) {
      const hand = roles[`${side}Hand`];
      if (hand !== undefined && limbRoot(roles, parents, hand) >= 0 && height(hand) < kneeHeight) {
        legs.push({ foot: rig.names[hand] });
      }
    }
  }
  return legs;
}

/**
 * Resolves the legs to place: the given ones, or those the humanoid roles show. Throws a FabrikError that
 * names the leg at fault, or says that no legs were found.
 */
export function resolveLegs(
  ik: FabrikBehavior,
  given: readonly (FabrikJoint | FootPlacementLeg)[] | undefined,
  restUp: ArrayLike<number>,
  who: string,
): ResolvedLeg[] {
  const rig = ik.rig!;
  const parents = rig.parents;
  const specs: FootPlacementLeg[] =
    given === undefined
      ? legsByRole(ik, restUp)
      : given.map((leg) =>
          typeof leg === "object" && leg !== null && "foot" in leg ? leg : { foot: leg as FabrikJoint },
        );
  if (specs.length === 0) {
    throw new FabrikError(
      `${who}: no legs found (no foot roles below upper legs on this rig); list them, e.g. ` +
        `{ legs: [{ foot: "${rig.names[rig.jointCount - 1]}", chainLength: 2 }, …] }`,
      undefined,
      "legs",
    );
  }
  const feet = specs.map((spec) => {
    const j = ik.jointIndex(spec.foot);
    if (j < 0) {
      throw new FabrikError(`${who}: no joint ${describe(spec.foot)} in the rig`, undefined, "legs");
    }
    return j;
  });
  const lca = feet.length > 1 ? commonAncestorOf(parents, feet) : -1;
  const seen = new Set<number>();
  return specs.map((spec, i) => {
    const foot = feet[i];
    const name = rig.names[foot];
    if (seen.has(foot)) throw new FabrikError(`${who}: the leg "${name}" is listed twice`, foot, "legs");
    seen.add(foot);
    const depth = depthOf(parents, foot);
    let chainLength = spec.chainLength;
    if (chainLength === undefined) {
      const root = limbRoot(ik.roles, parents, foot);
      if (root >= 0) chainLength = depth - depthOf(parents, root);
      else if (lca >= 0 && lca !== foot && depth - depthOf(parents, lca) - 1 >= 1) {
        chainLength = depth - depthOf(parents, lca) - 1;
      } else chainLength = Math.min(2, depth);
    }
    if (!Number.isInteger(chainLength) || chainLength < 1 || chainLength > depth) {
      throw new FabrikError(
        `${who}: leg "${name}": chainLength must be a whole number from 1 to ${depth} (its depth), got ` +
          String(chainLength),
        foot,
        "chainLength",
      );
    }
    let base = foot;
    for (let k = 0; k < chainLength; k++) base = parents[base];
    const joint = rig.nodes[foot] ?? rig.bones[foot][0];
    return { foot, joint, name, chainLength, base, align: spec.align ?? hasChild(parents, foot) };
  });
}
