import type { FabrikBehavior, FabrikJoint } from "../babylon/index.js";
import { footShin, type HumanoidRoles, type LegPose } from "../rig/index.js";
import { FabrikError } from "../solver/index.js";
import {
  endSiteInJointFrame,
  findGroundLegs,
  heightsAboveGround,
  onGround,
  type GroundPose,
} from "./groundLegs.js";

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
   * carry (toes, a paw), is a humanoid's foot (`leftFoot`, `rightFoot`: its sole is skin, or an `_end` node
   * outside the skin, even with no toe joint), or hangs at a shin's end (see `shin`); a leg ending in a tip
   * has nothing to turn.
   */
  readonly align?: boolean;
  /**
   * For a foot that does not hang below its leg (rigs made for Blender's IK keep the feet under the root,
   * each where its shin ends): the lower leg at whose far end the foot sits. The leg is then the thigh and
   * that shin; the knee is placed so the shin ends on the ground, and the foot is moved with the shin's end.
   * Found by itself for a `leftFoot`/`rightFoot` role that sits at the end of the side's child-less
   * `LowerLeg` (below its `UpperLeg`), in the rest pose and the current one.
   */
  readonly shin?: FabrikJoint;
  /**
   * Put where the foot joint's own bone ends on the ground (its glTF `_end` site: a hoof, a claw's tip),
   * not the joint: the leg is then that bone and the one above it, bent at the foot joint as at a knee.
   * Default: for legs found by where they stand, when the foot joint's bone ends in such a site.
   */
  readonly end?: boolean;
}

/** A leg with everything resolved to joint indices. */
export interface ResolvedLeg {
  /** The joint put on the ground. */
  readonly foot: number;
  /** The joint given the behavior's target: the foot, or for a foot hung at a shin's end, the shin. */
  readonly effector: number;
  /** The shin whose end the foot sits at, or -1 when the foot hangs below its leg. */
  readonly shin: number;
  readonly name: string;
  /** Bones of the leg that bend: from the foot up (for a foot hung at a shin's end: the thigh and the shin). */
  readonly chainLength: number;
  /** The joint at the top of the leg: it keeps its place (it moves with the hips) and turns. */
  readonly base: number;
  readonly align: boolean;
  /**
   * For a leg placed by where its last bone ends (`end`): that point in the bone's frame (model units);
   * `foot`, `shin` and `effector` are then that bone's joint. Null otherwise.
   */
  readonly site: Float64Array | null;
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
 * The legs a humanoid or a quadruped shows by its roles: each foot below its upper leg (or at the end of its
 * shin, on rigs whose feet hang from the root), and each hand below its upper arm that rests lower than
 * halfway down the shins (a quadruped's front legs; a biped's hands hang above its knees).
 */
function legsByRole(ik: FabrikBehavior, pose: LegPose): FootPlacementLeg[] {
  const restUp = pose.up;
  const roles = ik.roles;
  const rig = ik.rig!;
  const parents = rig.parents;
  const rest = rig.restPositions;
  const height = (j: number) =>
    rest[3 * j] * restUp[0] + rest[3 * j + 1] * restUp[1] + rest[3 * j + 2] * restUp[2];
  const legs: FootPlacementLeg[] = [];
  /** Halfway down each shin. */
  const shins: number[] = [];
  for (const side of ["left", "right"] as const) {
    const foot = roles[`${side}Foot`];
    if (
      foot !== undefined &&
      (limbRoot(roles, parents, foot) >= 0 || footShin(ik.rig!, ik.roles, foot, pose) >= 0)
    ) {
      legs.push({ foot });
      const knee = roles[`${side}LowerLeg`];
      if (knee !== undefined) shins.push((height(knee) + height(foot)) / 2);
    }
  }
  if (shins.length > 0) {
    // Long arms (a robot's, an ape's) may hang to the knees; a quadruped's front feet stand on the ground.
    const shinHeight = Math.min(...shins);
    for (const side of ["left", "right"] as const) {
      const hand = roles[`${side}Hand`];
      if (hand !== undefined && limbRoot(roles, parents, hand) >= 0 && height(hand) < shinHeight) {
        legs.push({ foot: hand });
      }
    }
  }
  return legs;
}

/**
 * The legs to place when none are given: those the roles show, when one of their feet stands on the ground
 * (a T-rex's short arms carry leg names), else those the body's shape shows (see findGroundLegs).
 */
function defaultLegs(ik: FabrikBehavior, pose: GroundPose): FootPlacementLeg[] {
  const heights = heightsAboveGround(ik, pose);
  const byRole = legsByRole(ik, pose);
  return byRole.some((leg) => onGround(heights, leg.foot as number))
    ? byRole
    : findGroundLegs(ik, pose, heights);
}

/**
 * Resolves the legs to place: the given ones, or those found (see defaultLegs). Throws a FabrikError that
 * names the leg at fault, or says that no legs were found.
 */
export function resolveLegs(
  ik: FabrikBehavior,
  given: readonly (FabrikJoint | FootPlacementLeg)[] | undefined,
  pose: GroundPose,
  who: string,
): ResolvedLeg[] {
  const rig = ik.rig!;
  const parents = rig.parents;
  const specs: FootPlacementLeg[] =
    given === undefined
      ? defaultLegs(ik, pose)
      : given.map((leg) =>
          typeof leg === "object" && leg !== null && "foot" in leg ? leg : { foot: leg as FabrikJoint },
        );
  if (specs.length === 0) {
    throw new FabrikError(
      `${who}: no legs found (no foot role below an upper leg, and no chain end standing on the ground ` +
        `below a leg); list them, e.g. ` +
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
  const resolved = specs.map((spec, i): ResolvedLeg => {
    const foot = feet[i];
    const name = rig.names[foot];
    if (seen.has(foot)) throw new FabrikError(`${who}: the leg "${name}" is listed twice`, foot, "legs");
    seen.add(foot);
    const depth = depthOf(parents, foot);
    if (spec.end === true) return endLeg(ik, spec, foot, pose, who);
    const shin = shinFor(ik, spec, foot, name, pose, who);
    if (shin >= 0) {
      if (spec.chainLength !== undefined && spec.chainLength !== 2) {
        throw new FabrikError(
          `${who}: leg "${name}" sits at the end of the shin "${rig.names[shin]}": its chain is the thigh ` +
            `and the shin, so chainLength must be 2 (or left out), got ${String(spec.chainLength)}`,
          foot,
          "chainLength",
        );
      }
      return {
        foot,
        effector: shin,
        shin,
        name,
        chainLength: 2,
        base: parents[shin],
        align: spec.align ?? true,
        site: null,
      };
    }
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
    return {
      foot,
      effector: foot,
      shin: -1,
      name,
      chainLength,
      base,
      align: spec.align ?? (hasChild(parents, foot) || isFootRole(ik.roles, foot)),
      site: null,
    };
  });
  // One target per joint: two legs may not end on the same effector (a foot and the shin it sits on).
  for (let a = 0; a < resolved.length; a++) {
    for (let b = a + 1; b < resolved.length; b++) {
      if (resolved[a].effector !== resolved[b].effector) continue;
      throw new FabrikError(
        `${who}: the legs "${resolved[a].name}" and "${resolved[b].name}" both place ` +
          `"${rig.names[resolved[a].effector]}"`,
        resolved[b].foot,
        "legs",
      );
    }
  }
  return resolved;
}

/**
 * The shin a leg's foot sits at the end of: the one given (checked to be a leg's lower bone the foot does
 * not hang from), or for a foot role with no chain length given and no leg above it, the one found; else -1.
 */
function shinFor(
  ik: FabrikBehavior,
  spec: FootPlacementLeg,
  foot: number,
  name: string,
  pose: LegPose,
  who: string,
): number {
  const rig = ik.rig!;
  const parents = rig.parents;
  if (spec.shin === undefined) {
    if (spec.chainLength !== undefined || limbRoot(ik.roles, parents, foot) >= 0) return -1;
    return footShin(ik.rig!, ik.roles, foot, pose);
  }
  const shin = ik.jointIndex(spec.shin);
  if (shin < 0) {
    throw new FabrikError(
      `${who}: leg "${name}": no shin joint ${describe(spec.shin)} in the rig`,
      foot,
      "shin",
    );
  }
  if (isAncestorOrSelf(parents, shin, foot) || isAncestorOrSelf(parents, foot, shin) || parents[shin] < 0) {
    throw new FabrikError(
      `${who}: leg "${name}": the shin "${rig.names[shin]}" must be a joint with a parent (the thigh) that ` +
        "the foot does not hang from, nor carry; for a foot below its leg give chainLength instead",
      foot,
      "shin",
    );
  }
  return shin;
}

/** A humanoid's foot: it has a sole to turn to the ground even with no toe joint below it. */
function isFootRole(roles: Readonly<HumanoidRoles>, j: number): boolean {
  return roles.leftFoot === j || roles.rightFoot === j;
}

/** A leg placed by where its foot joint's own bone ends (`end`): that bone and the one above it. */
function endLeg(
  ik: FabrikBehavior,
  spec: FootPlacementLeg,
  foot: number,
  pose: GroundPose,
  who: string,
): ResolvedLeg {
  const rig = ik.rig!;
  const name = rig.names[foot];
  const refuse = (why: string, option: string) => {
    throw new FabrikError(`${who}: leg "${name}": ${why}`, foot, option);
  };
  if (spec.shin !== undefined) refuse("end places the foot's own bone, so it takes no shin", "shin");
  if (spec.chainLength !== undefined && spec.chainLength !== 2) {
    refuse(
      `end bends the foot's bone and the one above it: chainLength must be 2 (or left out)`,
      "chainLength",
    );
  }
  if (spec.align === true)
    refuse("end turns the foot's bone to put its end down, so it cannot align", "align");
  // Where the bone ends, in its own frame (model units), as it stands now.
  const site = new Float64Array(3);
  if (!endSiteInJointFrame(rig, foot, pose, site))
    refuse(`end needs the bone to end in a glTF _end node below "${name}"; it has none`, "end");
  if (rig.parents[foot] < 0) refuse("end needs a bone above the foot's to bend it", "end");
  return {
    foot,
    effector: foot,
    shin: foot,
    name,
    chainLength: 2,
    base: rig.parents[foot],
    align: false,
    site,
  };
}
