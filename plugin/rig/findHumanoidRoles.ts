import { FabrikError } from "../solver/errors.js";
import type { HumanoidRole, HumanoidRoleInput, HumanoidRoles } from "./humanoidRoles.js";
import { parseJointName, type BodyPart, type JointNameParts, type Side } from "./jointNames.js";
import { isAncestor, jointChildren, jointDepths, lowestCommonAncestor } from "./jointTree.js";

/**
 * Recognises humanoid roles from joint names and the joint tree. Names give part and side; the tree
 * settles what names leave open:
 *
 * - Supported name schemes: Mixamo (`mixamorig:LeftUpLeg`, `LeftLeg`, `LeftToeBase`, `Spine1`), Blender /
 *   Rigify (`upper_arm.L`, `forearm.R`, `thigh.L`, `shin.R`, `toe.L`, with `DEF-` preferred over plain over
 *   `ORG-`, and `MCH-` ignored), Unreal (`upperarm_l`, `lowerarm_l`, `clavicle_l`, `thigh_l`, `calf_l`,
 *   `ball_l`, `pelvis`, `spine_01`, `neck_01`; twist bones ignored), VRM (`leftUpperArm`, `upperChest`),
 *   VRoid (`J_Bip_L_UpperArm`), 3ds Max Biped (`Bip01 L Forearm`), Quaternius (`UpperArm.L`, `LowerLeg.R`),
 *   Daz Genesis (`lShldrBend`, `lThighBend`, `abdomenLower`, `chestUpper`, `neckLower`; Twist bones
 *   ignored), Character Creator (`CC_Base_L_Upperarm`, `CC_Base_NeckTwist01`), Auto-Rig Pro
 *   (`arm_stretch.l`, `leg_stretch.r`, `spine_01.x`), BVH and Kinect joint names (`LeftCollar`, `LeftShoulder`,
 *   `LeftElbow`, `LeftWrist`; `LeftHip`, `LeftKnee`, `LeftAnkle`), and numbered limbs (`arm_joint_L_1..3`,
 *   `leg_joint_R_1..5`, `torso_joint_1..3`, `neck_joint_1..2`).
 *   Side words: `L`/`R`/`Left`/`Right` in any case, as prefix, suffix or camelCase word.
 * - Generic words are placed by the tree: along one side, `arm` joints fill the first free slot of
 *   upper arm, lower arm, hand that agrees with the named slots' ancestry (Mixamo `LeftArm` is the upper arm
 *   because `LeftForeArm` lies below it); `leg` joints likewise fill upper leg, lower leg, foot, toes.
 * - `hips` must carry both upper legs; a named hips that does not (RobotExpressive's `Hips` beside its legs)
 *   yields to the legs' lowest common ancestor. The spine roles are the joints between hips and neck: one
 *   is `spine`, two are `spine` and `chest`, three or more give `upperChest` to the last one and `chest` to
 *   the one before (unless names say `chest` / `upperChest` outright).
 * - Without a `head` name, the last `neck` joint below the neck is the head (`neck_joint_2`); with neither,
 *   the longest chain rising from the arms' common ancestor gives neck (first) and head (last).
 * - Without a `hand` name, the forearm's only non-finger child is the hand, or among several (palm bones at
 *   the wrist, RobotExpressive) the one whose chain best continues the forearm. Without a `toes` name, the
 *   foot's only child. Without a `shoulder` name, a joint between the arms' common ancestor and the upper arm.
 * - A named foot that does not hang below its lower leg is still the foot: rigs built for Blender's IK
 *   (Quaternius) keep the feet as bones under the root. Check `isAncestor` before treating it as the leg's
 *   end.
 * - Left and right come from names; a limb name without a side is sided by its rest position along
 *   `leftAxis` relative to its root joint.
 *
 * Roles it cannot place are left out; it never throws on odd names.
 */
export function findHumanoidRoles(input: HumanoidRoleInput): HumanoidRoles {
  return new RoleFinder(input).find();
}

const LIMB_PARTS = new Set<BodyPart>([
  "shoulder",
  "upperArm",
  "lowerArm",
  "hand",
  "palm",
  "finger",
  "upperLeg",
  "lowerLeg",
  "foot",
  "toes",
  "arm",
  "leg",
]);

type LimbSlots = [number, number, number, number];

class RoleFinder {
  private readonly parents: ArrayLike<number>;
  private readonly depths: Int32Array;
  private readonly children: number[][];
  /** Longest run of bones below each joint. */
  private readonly heights: Int32Array;
  private readonly parts: JointNameParts[];
  private readonly sides: (Side | null)[];
  private readonly positions: ArrayLike<number> | undefined;
  /** Largest coordinate span of the rest positions: the scale for "this limb sits on the midline". */
  private readonly extent: number = 0;
  private readonly roles: HumanoidRoles = {};

  constructor(input: HumanoidRoleInput) {
    if (input.names.length !== input.parents.length) {
      throw new FabrikError(
        `humanoid roles: names must hold one name per joint (${input.parents.length}), got ${input.names.length}`,
        undefined,
        "names",
      );
    }
    this.parents = input.parents;
    this.depths = jointDepths(input.parents);
    this.children = jointChildren(input.parents);
    this.heights = new Int32Array(input.parents.length);
    for (let j = input.parents.length - 1; j >= 0; j--) {
      const p = input.parents[j];
      if (p >= 0) this.heights[p] = Math.max(this.heights[p], this.heights[j] + 1);
    }
    this.parts = input.names.map(parseJointName);
    const positions = input.restPositions;
    this.positions =
      positions !== undefined && positions.length === 3 * input.parents.length ? positions : undefined;
    if (this.positions !== undefined) {
      for (let axis = 0; axis < 3; axis++) {
        let min = Infinity,
          max = -Infinity;
        for (let i = axis; i < this.positions.length; i += 3) {
          min = Math.min(min, this.positions[i]);
          max = Math.max(max, this.positions[i]);
        }
        this.extent = Math.max(this.extent, max - min);
      }
    }
    this.sides = this.parts.map((parts, j) => parts.side ?? this.sideFromPosition(j, parts, input.leftAxis));
  }

  find(): HumanoidRoles {
    const leftArm = this.limb("left", ["shoulder", "upperArm", "lowerArm", "hand"], "arm");
    const rightArm = this.limb("right", ["shoulder", "upperArm", "lowerArm", "hand"], "arm");
    const leftLeg = this.limb("left", ["upperLeg", "lowerLeg", "foot", "toes"], "leg");
    const rightLeg = this.limb("right", ["upperLeg", "lowerLeg", "foot", "toes"], "leg");
    for (const arm of [leftArm, rightArm]) if (arm[2] >= 0 && arm[3] < 0) arm[3] = this.handBelow(arm[2]);
    for (const leg of [leftLeg, rightLeg]) if (leg[2] >= 0 && leg[3] < 0) leg[3] = this.onlyBodyChild(leg[2]);

    const hips = this.findHips(leftLeg[0], rightLeg[0]);
    const armRootL = leftArm[0] >= 0 ? leftArm[0] : leftArm[1];
    const armRootR = rightArm[0] >= 0 ? rightArm[0] : rightArm[1];
    const armsMeet = armRootL >= 0 && armRootR >= 0 ? this.lca(armRootL, armRootR) : -1;
    const [neck, head] = this.findNeckAndHead(hips, armsMeet, armRootL, armRootR);
    this.assignSpine(hips, neck >= 0 ? neck : head, armsMeet);
    for (const arm of [leftArm, rightArm])
      if (arm[0] < 0 && arm[1] >= 0) arm[0] = this.shoulderAbove(arm[1], armsMeet);

    this.set("hips", hips);
    this.set("neck", neck);
    this.set("head", head);
    this.setLimb(["leftShoulder", "leftUpperArm", "leftLowerArm", "leftHand"], leftArm);
    this.setLimb(["rightShoulder", "rightUpperArm", "rightLowerArm", "rightHand"], rightArm);
    this.setLimb(["leftUpperLeg", "leftLowerLeg", "leftFoot", "leftToes"], leftLeg);
    this.setLimb(["rightUpperLeg", "rightLowerLeg", "rightFoot", "rightToes"], rightLeg);
    return this.roles;
  }

  private set(role: HumanoidRole, joint: number): void {
    if (joint >= 0) this.roles[role] = joint;
  }

  private setLimb(
    roles: readonly [HumanoidRole, HumanoidRole, HumanoidRole, HumanoidRole],
    slots: LimbSlots,
  ): void {
    for (let i = 0; i < 4; i++) this.set(roles[i], slots[i]);
  }

  private lca(a: number, b: number): number {
    return lowestCommonAncestor(this.parents, this.depths, a, b);
  }

  private below(ancestor: number, joint: number): boolean {
    return isAncestor(this.parents, ancestor, joint);
  }

  private isBody(j: number): boolean {
    return !this.parts[j].helper && this.parts[j].part !== "finger";
  }

  /** Non-helper joints naming `part` on `side`, best first: `DEF-` before plain before `ORG-`, then shallow first. */
  private candidates(part: BodyPart, side: Side | null): number[] {
    const found: number[] = [];
    for (let j = 0; j < this.parts.length; j++) {
      if (this.parts[j].part === part && !this.parts[j].helper && this.sides[j] === side) found.push(j);
    }
    return found.sort(
      (a, b) => this.parts[a].rank - this.parts[b].rank || this.depths[a] - this.depths[b] || a - b,
    );
  }

  private sideFromPosition(
    j: number,
    parts: JointNameParts,
    leftAxis: readonly [number, number, number] = [1, 0, 0],
  ): Side | null {
    const p = this.positions;
    if (p === undefined || parts.part === null || !LIMB_PARTS.has(parts.part)) return null;
    let root = j;
    while (this.parents[root] >= 0) root = this.parents[root];
    const lateral =
      (p[3 * j] - p[3 * root]) * leftAxis[0] +
      (p[3 * j + 1] - p[3 * root + 1]) * leftAxis[1] +
      (p[3 * j + 2] - p[3 * root + 2]) * leftAxis[2];
    if (Math.abs(lateral) <= 1e-4 * this.extent) return null;
    return lateral > 0 ? "left" : "right";
  }

  /** Named slots first (preferring a candidate below the slot before), then generic words by ancestry. */
  private limb(side: Side, slotParts: readonly BodyPart[], generic: BodyPart): LimbSlots {
    const slots: LimbSlots = [-1, -1, -1, -1];
    let previous = -1;
    slotParts.forEach((part, i) => {
      const found = this.candidates(part, side);
      const chosen = found.find((c) => previous < 0 || this.below(previous, c)) ?? found[0];
      if (chosen !== undefined) slots[i] = previous = chosen;
    });
    // Generic words never name the shoulder (slot 0 of an arm): a numbered arm starts at the upper arm.
    const first = generic === "arm" ? 1 : 0;
    for (const g of this.candidates(generic, side).sort((a, b) => this.depths[a] - this.depths[b])) {
      for (let i = first; i < 4; i++) {
        if (slots[i] >= 0) continue;
        let fits = true;
        for (let k = 0; k < 4 && fits; k++) {
          if (slots[k] < 0 || k === i) continue;
          fits = k < i ? this.below(slots[k], g) : this.below(g, slots[k]);
        }
        if (fits) {
          slots[i] = g;
          break;
        }
      }
    }
    this.jointNamedSlots(side, generic, slots);
    return slots;
  }

  /**
   * Names of joints rather than bones (BVH and Kinect skeletons: `LeftCollar`, `LeftShoulder`, `LeftElbow`,
   * `LeftWrist`; `LeftHip`, `LeftKnee`, `LeftAnkle`): a shoulder below the limb's shoulder is the upper arm,
   * a hip with a side the upper leg. Only where no bone name fills the slot (CMU's `LHipJoint` sits above a
   * `LeftUpLeg`, Rigify's `DEF-pelvis.L` beside a `DEF-thigh.L`), and with one such hip a side.
   */
  private jointNamedSlots(side: Side, generic: BodyPart, slots: LimbSlots): void {
    if (generic === "arm" && slots[1] < 0 && slots[0] >= 0) {
      const inner = this.candidates("shoulder", side).find(
        (c) => c !== slots[0] && this.below(slots[0], c) && (slots[2] < 0 || this.below(c, slots[2])),
      );
      if (inner !== undefined) slots[1] = inner;
    }
    // One hip a side: a body with several legs a side (`Leg.L1.Hip` … `Leg.L3.Hip`) is no biped.
    const hips = this.candidates("hips", side);
    if (
      generic === "leg" &&
      slots[0] < 0 &&
      slots[1] >= 0 &&
      hips.length === 1 &&
      this.below(hips[0], slots[1])
    )
      slots[0] = hips[0];
  }

  private onlyBodyChild(j: number): number {
    const kids = this.children[j].filter((c) => this.isBody(c));
    return kids.length === 1 ? kids[0] : -1;
  }

  /** The forearm's child that is the hand; see the rules on {@link findHumanoidRoles}. */
  private handBelow(lowerArm: number): number {
    const kids = this.children[lowerArm].filter((c) => this.isBody(c));
    if (kids.length <= 1 || this.positions === undefined) return kids.length > 0 ? kids[0] : -1;
    const p = this.positions;
    let best = kids[0];
    let bestScore = -Infinity;
    for (const kid of kids) {
      let tip = kid;
      while (this.children[tip].length > 0) tip = this.tallestChild(tip);
      const fx = p[3 * kid] - p[3 * lowerArm],
        fy = p[3 * kid + 1] - p[3 * lowerArm + 1],
        fz = p[3 * kid + 2] - p[3 * lowerArm + 2];
      const hx = p[3 * tip] - p[3 * kid],
        hy = p[3 * tip + 1] - p[3 * kid + 1],
        hz = p[3 * tip + 2] - p[3 * kid + 2];
      const lengths = Math.hypot(fx, fy, fz) * Math.hypot(hx, hy, hz);
      const score = lengths > 0 ? (fx * hx + fy * hy + fz * hz) / lengths : -2;
      if (score > bestScore) {
        bestScore = score;
        best = kid;
      }
    }
    return best;
  }

  private tallestChild(j: number): number {
    let best = -1,
      bestHeight = -1;
    for (const c of this.children[j]) {
      const h = this.heights[c];
      if (h > bestHeight) {
        best = c;
        bestHeight = h;
      }
    }
    return best;
  }

  private findHips(upperLegL: number, upperLegR: number): number {
    const legs = [upperLegL, upperLegR].filter((j) => j >= 0);
    const named = this.candidates("hips", null);
    const carrying = named.find((h) => legs.every((leg) => this.below(h, leg)));
    if (carrying !== undefined) return carrying;
    if (legs.length === 2) return this.lca(legs[0], legs[1]);
    if (legs.length === 1 && named.length === 0) return this.parents[legs[0]];
    return named.length > 0 ? named[0] : -1;
  }

  private findNeckAndHead(
    hips: number,
    armsMeet: number,
    armRootL: number,
    armRootR: number,
  ): [number, number] {
    const underHips = (j: number): boolean => hips < 0 || this.below(hips, j);
    const necks = this.candidates("neck", null).filter(underHips);
    let neck = necks.length > 0 ? necks[0] : -1;
    const heads = this.candidates("head", null).filter(underHips);
    let head =
      heads.find((h) => neck < 0 || this.below(neck, h)) ?? (neck < 0 && heads.length > 0 ? heads[0] : -1);
    if (head < 0 && neck >= 0) {
      // A neck chain without a head joint ends at the head.
      const deeper = necks.filter((j) => this.below(neck, j));
      if (deeper.length > 0) head = deeper.reduce((a, b) => (this.depths[b] > this.depths[a] ? b : a));
    }
    if (head >= 0 && neck < 0) {
      const p = this.parents[head];
      if (
        p >= 0 &&
        p !== armsMeet &&
        p !== hips &&
        underHips(p) &&
        this.isBody(p) &&
        this.parts[p].part === null
      ) {
        neck = p;
      }
    }
    if (head < 0 && neck < 0 && armsMeet >= 0) {
      // Names say nothing (Rigify's spine.004..006): follow the tallest chain rising between the arms.
      const rising = this.children[armsMeet].filter(
        (c) =>
          this.isBody(c) &&
          c !== armRootL &&
          c !== armRootR &&
          !this.below(c, armRootL) &&
          !this.below(c, armRootR) &&
          this.children[c].length > 0,
      );
      if (rising.length > 0) {
        let j = rising.reduce((a, b) => (this.heights[b] > this.heights[a] ? b : a));
        const chain = [j];
        while (this.children[j].some((c) => this.isBody(c))) {
          j = this.children[j]
            .filter((c) => this.isBody(c))
            .reduce((a, b) => (this.heights[b] > this.heights[a] ? b : a));
          chain.push(j);
        }
        head = chain[chain.length - 1];
        if (chain.length > 1) neck = chain[0];
      }
    }
    return [neck, head];
  }

  private assignSpine(hips: number, top: number, armsMeet: number): void {
    if (hips < 0) return;
    const path: number[] = [];
    if (top >= 0 && this.below(hips, top)) {
      for (let j = this.parents[top]; j !== hips; j = this.parents[j]) path.push(j);
    } else if (armsMeet >= 0 && this.below(hips, armsMeet)) {
      for (let j = armsMeet; j !== hips; j = this.parents[j]) path.push(j);
    }
    path.reverse();
    const spine = path.filter(
      (j) => this.isBody(j) && this.parts[j].part !== "hips" && this.sides[j] === null,
    );
    if (spine.length === 0) return;
    const named = (part: BodyPart): number => spine.find((j) => this.parts[j].part === part) ?? -1;
    if (named("chest") >= 0 || named("upperChest") >= 0) {
      this.set("spine", spine[0] !== named("chest") && spine[0] !== named("upperChest") ? spine[0] : -1);
      this.set("chest", named("chest"));
      // Two chest bones and no upper chest (Daz Genesis' `chestLower`, `chestUpper`): the upper is the last.
      const chests = spine.filter((j) => this.parts[j].part === "chest");
      this.set(
        "upperChest",
        named("upperChest") >= 0 || chests.length < 2 ? named("upperChest") : chests.at(-1)!,
      );
      return;
    }
    this.set("spine", spine[0]);
    if (spine.length === 2) this.set("chest", spine[1]);
    if (spine.length >= 3) {
      this.set("chest", spine[spine.length - 2]);
      this.set("upperChest", spine[spine.length - 1]);
    }
  }

  private shoulderAbove(upperArm: number, armsMeet: number): number {
    const p = this.parents[upperArm];
    if (p < 0 || armsMeet < 0 || p === armsMeet || !this.below(armsMeet, p) || !this.isBody(p)) return -1;
    const part = this.parts[p].part;
    return part === null || part === "shoulder" ? p : -1;
  }
}
