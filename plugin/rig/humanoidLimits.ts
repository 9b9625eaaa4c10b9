// Engine-free: the preset reads only the solver's rig and the recognised roles, so it runs in workers and
// plain Node tests, and the Babylon behavior merely hands its result to setJointLimit.
import {
  createJointLimits,
  type JointLimitSpec,
  type JointLimits,
  type SwingLimitSpec,
  type TwistLimitSpec,
  type Vector3Tuple,
} from "../solver/limits.js";
import { quatRotate, quatRotateInverse } from "../solver/quaternion.js";
import type { Rig } from "../solver/rig.js";
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
import type { HumanoidRole, HumanoidRoles } from "./humanoidRoles.js";

const DEG = Math.PI / 180;

/**
 * Ranges of motion, in degrees. Plausible defaults, not medical data: rounded adult ranges, trimmed where a
 * solver benefits from a margin (the wrist and the clavicle stay tame so the arm does the work) and widened
 * where a single joint here stands for several real ones (the shoulder ball joint also carries what the
 * scapula adds, the ankle what the subtalar joint adds). The ankle's dorsiflexion is the weight-bearing
 * range (the shin leaning over a planted foot, as on a slope or a stair), not the smaller active one: a foot
 * kept flat on a 20° slope needs the slope plus the shin's own lean.
 *
 * Ball-joint limbs (clavicle, upper arm, upper leg) give how far the bone may point in a body direction,
 * measured from the body's neutral (arm or leg hanging straight down, clavicle sideways); the preset
 * subtracts the rest pose's own offset, so an A-pose and a T-pose end up with the same anatomical reach.
 * Spine, neck, head, wrist, ankle and toes give rotation about body axes, which stays meaningful whatever
 * direction the rig's bone axis happens to take.
 */
const RANGES = {
  shoulder: { forward: 20, back: 15, up: 30, down: 10, twist: 15 },
  /** `up`: abduction from hanging (past horizontal, a little over the head); `down`: across the body. */
  upperArm: { forward: 120, back: 45, up: 190, down: 20, twist: 80 },
  /** Flexion from a straight arm. */
  lowerArm: { flex: 150 },
  hand: { flex: 70, extend: 60, radial: 20, ulnar: 30, twist: 20 },
  upperLeg: { forward: 110, back: 30, out: 45, in: 25, twist: 40 },
  lowerLeg: { flex: 150 },
  foot: { dorsi: 40, plantar: 45, inversion: 20, eversion: 15, turn: 15 },
  toes: { up: 40, down: 30, side: 10, roll: 5 },
  spine: { flex: 25, extend: 15, side: 15, turn: 20 },
  neck: { flex: 40, extend: 40, side: 35, turn: 50 },
  head: { flex: 40, extend: 40, side: 30, turn: 40 },
} as const;

/** No side of a cone closes completely, even when the rest pose already sits past the anatomical range. */
const MIN_SWING = 5 * DEG;
/** A rest bend smaller than this is modelling noise, not a hint of which way the elbow or knee folds. */
const MIN_BEND_HINT = 1 * DEG;
/** A swing direction this close to the bone (sine of the angle) says nothing about the cone's sides. */
const MIN_PERPENDICULAR = 0.2;

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
 * The body frame comes from the rest pose (see {@link findBodyFrame}), so the preset holds for any bone-axis
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
  const preset = new Preset(rig, roles, body);

  for (let i = 1; i < TORSO.length; i++) {
    const j = preset.joint(TORSO[i], TORSO.slice(0, i));
    if (j === undefined) continue;
    const r = i <= 3 ? RANGES.spine : RANGES[TORSO[i] as "neck" | "head"];
    presets.set(j, preset.torso(j, r));
  }

  for (const side of ["left", "right"] as const) {
    const arm = ARM.map((part) => `${side}${part}` as HumanoidRole);
    const leg = LEG.map((part) => `${side}${part}` as HumanoidRole);
    // Outward from the midline on this side: the character's left for left limbs.
    const out = side === "left" ? body.left : scale(body.left, -1);

    if (!armsAreLegs(rig, roles, upOf(options.up) ?? body.up)) {
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
  return presets;
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

/** How far (radians) a bone may swing from rest toward a model-space direction. */
interface Reach {
  dir: Vec3;
  angle: number;
}

/** Allowed rotation (radians) about a model-space body axis, min ≤ 0 ≤ max. */
interface Turn {
  axis: Vec3;
  min: number;
  max: number;
}

class Preset {
  private readonly rig: Rig;
  private readonly roles: HumanoidRoles;
  private readonly body: BodyFrame;
  /** Only read for the bone axes, so the preset measures around exactly the axis the solver will. */
  private readonly limits: JointLimits;
  private readonly scratch = new Float64Array(3);

  constructor(rig: Rig, roles: HumanoidRoles, body: BodyFrame) {
    this.rig = rig;
    this.roles = roles;
    this.body = body;
    this.limits = createJointLimits(rig);
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
      return this.isAncestor(above, j) ? j : undefined;
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

  /**
   * A hinge about the axis that folds the bone toward `fold`, or toward the rest bend when it is a plausible
   * hint (`accept`). Its range runs from straight to `flex` past straight, minus what the rest pose already
   * bends, so the straight limb and the rest pose are both inside.
   */
  private hinge(
    j: number,
    upper: number | undefined,
    flex: number,
    fold: Vec3,
    accept: (bendDirection: Vec3) => boolean,
  ): JointLimitSpec {
    const f = this.boneDirection(j);
    const parent = upper ?? this.rig.parents[j];
    const u = normalize(sub(this.position(j), this.position(parent))) ?? f;
    const bent = perpendicular(f, u);
    let axis: Vec3 | undefined;
    if (bent !== undefined && Math.acos(clamp(dot(u, f), -1, 1)) > MIN_BEND_HINT && accept(bent)) {
      axis = normalize(cross(u, f));
    }
    // Without a hint, or a straight rest: fold toward the anatomical side, or toward up as a last resort.
    axis ??= normalize(cross(f, perpendicular(fold, f) ?? perpendicular(this.body.up, f) ?? fold));
    axis ??= this.body.left;
    // The rest bend about that axis: from the upper bone to this one.
    const up = perpendicular(u, axis),
      fp = perpendicular(f, axis);
    const restBend = up && fp ? Math.atan2(dot(axis, cross(up, fp)), dot(up, fp)) : 0;
    return {
      hinge: {
        axis: this.toParent(j, axis),
        min: Math.min(0, -restBend),
        max: clamp(flex - restBend, 0, Math.PI),
      },
    };
  }

  /** Swing and twist from allowed rotations about three body axes, whatever the bone's own direction. */
  private turns(j: number, turns: Turn[]): JointLimitSpec {
    const b = this.boneDirection(j);
    // The body axis nearest the bone becomes twist; the other two swing the bone sideways.
    let k = 0;
    for (let i = 1; i < turns.length; i++) {
      if (Math.abs(dot(turns[i].axis, b)) > Math.abs(dot(turns[k].axis, b))) k = i;
    }
    const along = dot(turns[k].axis, b) >= 0;
    const twist: TwistLimitSpec = along
      ? { min: turns[k].min, max: turns[k].max }
      : { min: -turns[k].max, max: -turns[k].min };
    const reaches: Reach[] = [];
    for (let i = 0; i < turns.length; i++) {
      if (i === k) continue;
      // A positive turn about `axis` carries the bone's tip toward axis × bone.
      const toward = cross(turns[i].axis, b);
      reaches.push({ dir: toward, angle: turns[i].max }, { dir: scale(toward, -1), angle: -turns[i].min });
    }
    return { swing: this.reaches(j, reaches), twist };
  }

  /**
   * An elliptical cone from reaches toward body directions. "Up" is the first reach that is not along the
   * bone; each of the four sides takes the reach pointing most nearly its way, so mirrored limbs need no
   * special case.
   */
  private reaches(j: number, reaches: Reach[]): SwingLimitSpec {
    const b = this.boneDirection(j);
    const usable: Reach[] = [];
    for (const r of reaches) {
      const d = perpendicular(r.dir, b, MIN_PERPENDICULAR);
      if (d !== undefined) usable.push({ dir: d, angle: clamp(r.angle, MIN_SWING, Math.PI) });
    }
    // Only a bone along every given direction lands here; any cone frame will do then.
    const upDir = usable.length > 0 ? usable[0].dir : (perpendicular(this.body.forward, b) ?? this.body.up);
    const rightDir = normalize(cross(b, upDir)) ?? this.body.left;
    const fallback = usable.length > 0 ? usable.reduce((s, r) => s + r.angle, 0) / usable.length : MIN_SWING;
    const side = (s: Vec3): number => {
      let best: Reach | undefined,
        bestDot = 0.5;
      for (const r of usable) {
        const d = dot(r.dir, s);
        if (d > bestDot) {
          best = r;
          bestDot = d;
        }
      }
      return best !== undefined ? best.angle : fallback;
    };
    return {
      up: side(upDir),
      right: side(rightDir),
      down: side(scale(upDir, -1)),
      left: side(scale(rightDir, -1)),
      upAxis: this.toParent(j, upDir),
    };
  }

  /** Model-space direction of the solver's bone axis of `j` (toward its main child). */
  private boneDirection(j: number): Vec3 {
    quatRotate(this.scratch, 0, this.rig.restOrientations, 4 * j, this.limits.boneAxis, 3 * j);
    return normalize([this.scratch[0], this.scratch[1], this.scratch[2]]) ?? this.body.up;
  }

  private position(j: number): Vec3 {
    const p = this.rig.restPositions;
    return [p[3 * j], p[3 * j + 1], p[3 * j + 2]];
  }

  /** A model-space direction in the parent's rest frame, where limit specs take their axes. */
  private toParent(j: number, v: Vec3): Vector3Tuple {
    const p = this.rig.parents[j];
    if (p < 0) return [v[0], v[1], v[2]];
    this.scratch[0] = v[0];
    this.scratch[1] = v[1];
    this.scratch[2] = v[2];
    quatRotateInverse(this.scratch, 0, this.rig.restOrientations, 4 * p, this.scratch, 0);
    return [this.scratch[0], this.scratch[1], this.scratch[2]];
  }

  private isAncestor(ancestor: number, joint: number): boolean {
    for (let j = this.rig.parents[joint]; j >= 0; j = this.rig.parents[j]) if (j === ancestor) return true;
    return false;
  }
}

/** v without its component along unit `axis`, normalised; undefined when less than `min` of it is left. */
function perpendicular(v: Vec3, axis: Vec3, min = 1e-6): Vec3 | undefined {
  const len = Math.hypot(v[0], v[1], v[2]);
  const h = sub(v, scale(axis, dot(v, axis)));
  return Math.hypot(h[0], h[1], h[2]) > min * len ? normalize(h) : undefined;
}

function symmetric(degrees: number): TwistLimitSpec {
  return { min: -degrees * DEG, max: degrees * DEG };
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}
