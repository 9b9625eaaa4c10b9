// Engine-free: the preset reads only the solver's rig and the recognised roles, so it runs in workers and
// plain Node tests, and the Babylon behavior merely hands its result to setJointLimit.
import type { JointLimitSpec, TwistLimitSpec, Vector3Tuple } from "../solver/limits.js";
import type { Rig } from "../solver/rig.js";
import { BodyLimits, clamp, DEG, MIN_PERPENDICULAR, perpendicular } from "./bodyLimits.js";
import {
  add,
  cross,
  dot,
  findBodyFrame,
  normalize,
  scale,
  sub,
  type BodyFrame,
  type Vec3,
} from "./bodyFrame.js";
import { RANGES } from "./humanoidRanges.js";
import type { HumanoidRole, HumanoidRoles } from "./humanoidRoles.js";
import { footShin } from "./footShin.js";
import { isAncestor } from "./jointTree.js";

const TORSO = ["hips", "spine", "chest", "upperChest", "neck", "head"] as const;
const ARM = ["Shoulder", "UpperArm", "LowerArm", "Hand"] as const;
const LEG = ["UpperLeg", "LowerLeg", "Foot", "Toes"] as const;

export interface HumanoidLimitPresetOptions {
  /**
   * The direction of "up" in the rig's model space, when the caller knows it (the Babylon behavior passes
   * world +Y). Without it the body's own up (hips to head) stands in, which a quadruped's level spine
   * turns into "forward".
   */
  up?: Vector3Tuple;
}

/**
 * Anatomically plausible limits for a recognised humanoid: joint index → spec for `setJointLimit`, with
 * every axis in the parent's rest frame and every angle measured from the rest pose.
 *
 * The body frame (up, left, forward) comes from the rest pose, so the preset holds for any bone-axis
 * convention, T- or A-pose, mirrored sides, Y- or Z-up and any scale. Hips (the base) get nothing; a role
 * whose joint is a root, or that does not hang below the previous recognised role of its limb (Blender-IK
 * feet parented to the root), is left free because its parent is not the anatomical one. Elbows and knees
 * fold the way their rest bend hints when the rig has one, else forward (elbow) and backward (knee). Arms
 * whose hands rest below the middle of the shins are front legs (a quadruped with humanoid names) and get nothing.
 * Returns an empty map when the roles cannot fix the body's up and left.
 */
export function humanoidLimitPreset(
  rig: Rig,
  given: HumanoidRoles,
  options: HumanoidLimitPresetOptions = {},
): Map<number, JointLimitSpec> {
  const presets = new Map<number, JointLimitSpec>();
  // Hand-written roles, or roles found on another rig, must not index outside this one.
  const roles: HumanoidRoles = {};
  for (const [role, j] of Object.entries(given) as [HumanoidRole, number | undefined][]) {
    if (typeof j === "number" && Number.isInteger(j) && j >= 0 && j < rig.jointCount) roles[role] = j;
  }
  const body = findBodyFrame(rig, roles);
  if (body === undefined) return presets;
  const up = upOf(options.up) ?? body.up;
  // A child-less shin whose foot sits at its end (a rig made for Blender's IK) runs toward that foot.
  const restPose = {
    positions: rig.restPositions,
    orientations: rig.restOrientations,
    up,
  };
  const shinEnds = new Map<number, number>();
  for (const side of ["leftFoot", "rightFoot"] as const) {
    const foot = roles[side];
    const shin = foot === undefined ? -1 : footShin(rig, roles, foot, restPose);
    if (shin >= 0) shinEnds.set(shin, foot!);
  }
  const preset = new Preset(rig, roles, body, shinEnds);

  for (let i = 1; i < TORSO.length; i++) {
    const j = preset.joint(TORSO[i], TORSO.slice(0, i));
    if (j === undefined) continue;
    presets.set(j, preset.torso(j, torsoRange(i)));
  }

  for (const side of ["left", "right"] as const) {
    const arm = ARM.map((part) => `${side}${part}` as HumanoidRole);
    const leg = LEG.map((part) => `${side}${part}` as HumanoidRole);
    // Outward from the midline on this side: the character's left for left limbs.
    const out = side === "left" ? body.left : scale(body.left, -1);

    if (!armsAreLegs(rig, roles, up)) {
      const shoulder = preset.joint(arm[0], []);
      if (shoulder !== undefined) presets.set(shoulder, preset.clavicle(shoulder, out));
      const upperArm = preset.joint(arm[1], arm.slice(0, 1));
      if (upperArm !== undefined) presets.set(upperArm, preset.upperArm(upperArm, out));
      const lowerArm = preset.joint(arm[2], arm.slice(0, 2));
      if (lowerArm !== undefined) presets.set(lowerArm, preset.elbow(lowerArm, roles[arm[1]]));
      const hand = preset.joint(arm[3], arm.slice(0, 3));
      if (hand !== undefined) presets.set(hand, preset.wrist(hand, roles[arm[2]], out));
    }

    const upperLeg = preset.joint(leg[0], ["hips"]);
    if (upperLeg !== undefined) presets.set(upperLeg, preset.upperLeg(upperLeg, out));
    const lowerLeg = preset.joint(leg[1], leg.slice(0, 1));
    if (lowerLeg !== undefined) presets.set(lowerLeg, preset.knee(lowerLeg, roles[leg[0]]));
    const foot = preset.joint(leg[2], leg.slice(0, 2));
    if (foot !== undefined) presets.set(foot, preset.ankle(foot, out));
    const toes = preset.joint(leg[3], leg.slice(0, 3));
    if (toes !== undefined) presets.set(toes, preset.toes(toes));
  }
  limitSegments(rig, roles, presets, armsAreLegs(rig, roles, up), (j, i) => preset.torso(j, torsoRange(i)));
  return presets;
}

/**
 * Bones with no role of their own between two roles of a limb or the torso (Rigify's `DEF-upper_arm.L.001`
 * and `DEF-thigh.L.001`, Daz Genesis' `lShldrTwist` and `lThighTwist`, MakeHuman's `upperarm02.L`, Unreal 5's
 * `spine_02`, Character Creator's `NeckTwist02`) are parts of the bone above them: a limb's segment is rigid
 * (the solver keeps the rotation it is given, the animation's twist, and solves the limb as two rigid links:
 * limbSegments.ts), a spine or neck segment bends within the range of the role it leads up to. Left free,
 * the solver bent a reaching arm in the middle of its upper arm, a crouching leg backwards at its segments,
 * and folded a spine at such a joint.
 */
function limitSegments(
  rig: Rig,
  roles: HumanoidRoles,
  presets: Map<number, JointLimitSpec>,
  armsAreFree: boolean,
  torso: (j: number, torsoIndex: number) => JointLimitSpec,
): void {
  const parents = rig.parents;
  const between = (from: HumanoidRole, to: HumanoidRole, limit: (j: number) => JointLimitSpec) => {
    const a = roles[from],
      b = roles[to];
    if (a === undefined || b === undefined || a === b || !isAncestor(parents, a, b)) return;
    for (let j = parents[b]; j !== a && j >= 0; j = parents[j]) if (!presets.has(j)) presets.set(j, limit(j));
  };
  const rigid = (): JointLimitSpec => ({ fixed: true });
  for (const side of ["left", "right"] as const) {
    if (!armsAreFree) {
      between(`${side}UpperArm`, `${side}LowerArm`, rigid);
      between(`${side}LowerArm`, `${side}Hand`, rigid);
    }
    between(`${side}UpperLeg`, `${side}LowerLeg`, rigid);
    between(`${side}LowerLeg`, `${side}Foot`, rigid);
  }
  // A torso segment bends as the role it leads up to does (the spine's between hips and spine, the head's
  // between neck and head), within its own parent's frame.
  let above = 0;
  for (let i = 1; i < TORSO.length; i++) {
    if (roles[TORSO[i]] === undefined) continue;
    if (presets.has(roles[TORSO[i]]!)) between(TORSO[above], TORSO[i], (j) => torso(j, i));
    above = i;
  }
}

/** The range of the torso role `TORSO[i]`: the spine's for every role below the neck. */
function torsoRange(i: number): { flex: number; extend: number; side: number; turn: number } {
  return i <= 3 ? RANGES.spine : RANGES[TORSO[i] as "neck" | "head"];
}

/**
 * True for a four-legged rig whose front legs carry arm names (the glTF Fox): a hand resting below the
 * middle of a shin. A standing biped's hands hang higher in any rest pose (T, A or arms down; even a
 * long-armed robot's reach just past its knees), and a person's shoulder cone and forward-folding elbow would
 * clamp a front leg's stride into nonsense: such limbs are left free, as any unrecognised bone is.
 */
function armsAreLegs(rig: Rig, roles: HumanoidRoles, up: Vec3): boolean {
  const p = rig.restPositions;
  const height = (j: number): number => dot([p[3 * j], p[3 * j + 1], p[3 * j + 2]], up);
  let shinMiddle = -Infinity;
  for (const side of ["left", "right"] as const) {
    const knee = roles[`${side}LowerLeg`],
      foot = roles[`${side}Foot`];
    if (knee === undefined || foot === undefined) continue;
    shinMiddle = Math.max(shinMiddle, 0.5 * (height(knee) + height(foot)));
  }
  for (const side of ["left", "right"] as const) {
    const hand = roles[`${side}Hand`] ?? roles[`${side}LowerArm`];
    if (hand !== undefined && height(hand) < shinMiddle) return true;
  }
  return false;
}

/** A usable unit direction from an option, or undefined. */
function upOf(up: Vector3Tuple | undefined): Vec3 | undefined {
  return up === undefined ? undefined : normalize([up[0], up[1], up[2]]);
}

/** The humanoid preset: one limit recipe per joint, on the body-axis shapes of {@link BodyLimits}. */
class Preset extends BodyLimits {
  private readonly roles: HumanoidRoles;

  constructor(
    rig: Rig,
    roles: HumanoidRoles,
    body: BodyFrame,
    private readonly shinEnds: ReadonlyMap<number, number>,
  ) {
    super(rig, body);
    this.roles = roles;
  }

  /**
   * Where the bone runs: for a child-less shin with its foot at its end, toward that foot (the solver's
   * bone axis continues the thigh there, which would measure the knee's hinge as if the rest pose held the
   * leg straight: a knee bent at rest could then never straighten).
   */
  protected override boneDirection(j: number): Vec3 {
    const foot = this.shinEnds.get(j);
    if (foot === undefined) return super.boneDirection(j);
    return normalize(sub(this.position(foot), this.position(j))) ?? super.boneDirection(j);
  }

  /**
   * The joint of `role` when it can be limited: not a root (a root's "parent frame" is the model, so a limit
   * would pin the character's placement), and below the nearest recognised role of `before`.
   */
  joint(role: HumanoidRole, before: readonly HumanoidRole[]): number | undefined {
    const j = this.roles[role];
    if (j === undefined || this.rig.parents[j] < 0) return undefined;
    for (let i = before.length - 1; i >= 0; i--) {
      const above = this.roles[before[i]];
      if (above === undefined) continue;
      return isAncestor(this.rig.parents, above, j) ? j : undefined;
    }
    return j;
  }

  torso(j: number, r: { flex: number; extend: number; side: number; turn: number }): JointLimitSpec {
    const { up, forward } = this.body;
    return this.turns(j, [
      // Flexion turns the top of the bone from up toward forward.
      { axis: cross(up, forward), min: -r.extend * DEG, max: r.flex * DEG },
      { axis: forward, min: -r.side * DEG, max: r.side * DEG },
      { axis: up, min: -r.turn * DEG, max: r.turn * DEG },
    ]);
  }

  clavicle(j: number, out: Vec3): JointLimitSpec {
    const r = RANGES.shoulder;
    const { up, forward } = this.body;
    // As turns rather than reaches: some rigs model the clavicle as a short bone pointing down or back.
    return this.turns(j, [
      { axis: cross(out, up), min: -r.down * DEG, max: r.up * DEG },
      { axis: cross(out, forward), min: -r.back * DEG, max: r.forward * DEG },
      { axis: out, min: -r.twist * DEG, max: r.twist * DEG },
    ]);
  }

  upperArm(j: number, out: Vec3): JointLimitSpec {
    const r = RANGES.upperArm;
    const { up, forward } = this.body;
    const b = this.boneDirection(j);
    // Rest offsets: how far the arm is already raised sideways (0 hanging, 45° A-pose, 90° T-pose) and
    // forward; the anatomical range is from hanging, the cone from rest.
    const raised = Math.atan2(dot(b, out), -dot(b, up));
    const ahead = Math.asin(clamp(dot(b, forward), -1, 1));
    // Raising sideways sweeps the arm from out toward up, whatever its rest elevation.
    const abduct = add(scale(up, Math.sin(raised)), scale(out, Math.cos(raised)));
    return {
      swing: this.reaches(j, [
        { dir: forward, angle: r.forward * DEG - ahead },
        { dir: scale(forward, -1), angle: r.back * DEG + ahead },
        { dir: abduct, angle: r.up * DEG - raised },
        { dir: scale(abduct, -1), angle: r.down * DEG + raised },
      ]),
      twist: symmetric(r.twist),
    };
  }

  upperLeg(j: number, out: Vec3): JointLimitSpec {
    const r = RANGES.upperLeg;
    const { up, forward } = this.body;
    const b = this.boneDirection(j);
    const down = -dot(b, up);
    const ahead = Math.atan2(dot(b, forward), down);
    const spread = Math.atan2(dot(b, out), down);
    // Flexing and spreading sweep the leg from its rest offset on up, as raising sweeps the arm.
    const flex = add(scale(up, Math.sin(ahead)), scale(forward, Math.cos(ahead)));
    const abduct = add(scale(up, Math.sin(spread)), scale(out, Math.cos(spread)));
    return {
      swing: this.reaches(j, [
        { dir: flex, angle: r.forward * DEG - ahead },
        { dir: scale(flex, -1), angle: r.back * DEG + ahead },
        { dir: abduct, angle: r.out * DEG - spread },
        { dir: scale(abduct, -1), angle: r.in * DEG + spread },
      ]),
      twist: symmetric(r.twist),
    };
  }

  elbow(j: number, upperArm: number | undefined): JointLimitSpec {
    const { up, forward } = this.body;
    return this.hinge(j, upperArm, RANGES.lowerArm.flex * DEG, forward, (bend) => {
      // Elbows fold to the front, or up for palms-forward rigs; never back or down.
      const f = dot(bend, forward);
      return f >= 0.3 || (dot(bend, up) >= 0.3 && f >= -0.1);
    });
  }

  knee(j: number, upperLeg: number | undefined): JointLimitSpec {
    const back = scale(this.body.forward, -1);
    return this.hinge(j, upperLeg, RANGES.lowerLeg.flex * DEG, back, (bend) => dot(bend, back) >= 0.3);
  }

  wrist(j: number, lowerArm: number | undefined, out: Vec3): JointLimitSpec {
    const r = RANGES.hand;
    const { up, forward } = this.body;
    const forearm = lowerArm !== undefined ? this.boneDirection(lowerArm) : this.boneDirection(j);
    // The palm is assumed to face down (T-pose) or down and in (A-pose); an arm hanging at rest has it
    // facing the thigh. Flexion bends the hand toward the palm; the thumb, on the radial side, is in front.
    const palm =
      perpendicular(scale(up, -1), forearm, MIN_PERPENDICULAR) ??
      perpendicular(scale(out, -1), forearm) ??
      forward;
    const flexAxis = normalize(cross(forearm, palm)) ?? palm;
    const radialPositive = dot(cross(palm, forearm), forward) >= 0;
    const radial = r.radial * DEG,
      ulnar = r.ulnar * DEG;
    return this.turns(j, [
      { axis: flexAxis, min: -r.extend * DEG, max: r.flex * DEG },
      { axis: palm, min: radialPositive ? -ulnar : -radial, max: radialPositive ? radial : ulnar },
      { axis: forearm, min: -r.twist * DEG, max: r.twist * DEG },
    ]);
  }

  ankle(j: number, out: Vec3): JointLimitSpec {
    const r = RANGES.foot;
    const { up, forward } = this.body;
    return this.turns(j, [
      // Dorsiflexion turns the toes from forward toward up; inversion turns the sole from down toward the
      // midline (mirrored per side through `out`).
      { axis: cross(forward, up), min: -r.plantar * DEG, max: r.dorsi * DEG },
      { axis: cross(up, out), min: -r.eversion * DEG, max: r.inversion * DEG },
      { axis: up, min: -r.turn * DEG, max: r.turn * DEG },
    ]);
  }

  toes(j: number): JointLimitSpec {
    const r = RANGES.toes;
    const { up, forward } = this.body;
    return this.turns(j, [
      { axis: cross(forward, up), min: -r.down * DEG, max: r.up * DEG },
      { axis: up, min: -r.side * DEG, max: r.side * DEG },
      { axis: forward, min: -r.roll * DEG, max: r.roll * DEG },
    ]);
  }
}

function symmetric(degrees: number): TwistLimitSpec {
  return { min: -degrees * DEG, max: degrees * DEG };
}
