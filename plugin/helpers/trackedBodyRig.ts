import type { FabrikBehavior, SkeletonRig } from "../babylon/index.js";
import { findBodyFrame, quatRotate, type HumanoidRole } from "../rig/index.js";
import { FabrikError } from "../solver/index.js";
import { floorMeasures, type FloorMeasures } from "./trackedFloor.js";
import { frameQuaternion } from "./trackedMath.js";

/** The humanoid roles a tracked body drives; each must be recognised. */
const NEEDED: readonly HumanoidRole[] = [
  "hips",
  "head",
  "leftUpperArm",
  "leftLowerArm",
  "leftHand",
  "rightUpperArm",
  "rightLowerArm",
  "rightHand",
  "leftUpperLeg",
  "leftLowerLeg",
  "leftFoot",
  "rightUpperLeg",
  "rightLowerLeg",
  "rightFoot",
];

/**
 * A hips joint this many leg lengths below its hip joints is not the pelvis (a root bone on the ground); on
 * every other rig it is, wherever it sits between them and the spine.
 */
const PELVIS_APART = 0.5;

/** A side's limb joints: arm (upper, lower, hand) and leg (upper, lower, foot). */
export interface TrackedSide {
  readonly upperArm: number;
  readonly lowerArm: number;
  readonly hand: number;
  readonly upperLeg: number;
  readonly lowerLeg: number;
  readonly foot: number;
  /** +1 on the left, -1 on the right: the sign of the body's left axis pointing outward. */
  readonly out: number;
}

/**
 * What a tracked body knows of its avatar, measured once in the rest pose, in model space. Lengths are model
 * units; heights are along the body's up from the plane through the model origin (the animation's ground).
 * What is measured "from the hips" is measured from the pelvis (`pelvis`), where the hips are placed.
 * `frame` holds forward (0..2), up (3..5) and left (6..8).
 */
export class TrackedBodyRig {
  readonly hips: number;
  readonly head: number;
  /** The head's chain: from the head down to the joint above the hips (the spine turns, the hips do not). */
  readonly headChain: number;
  readonly sides: readonly [TrackedSide, TrackedSide];
  readonly frame = new Float64Array(9);
  readonly standHips: number;
  readonly standHead: number;
  /**
   * The pelvis, the point the hips are placed by, from the hips joint in the hips' own rest frame: zero where
   * the hips joint is the pelvis; else the hip joints' midpoint (`pelvisApart`, a root on the ground).
   */
  readonly pelvis = new Float64Array(3);
  readonly pelvisApart: boolean;
  /** Distance from the pelvis to the head. */
  readonly spineLength: number;
  /** The head chain's length: the sum of its bones, from the joint above the hips to the head. */
  readonly spineReach: number;
  /** The head chain's base (the joint above the hips) in the hips' own frame, at rest. */
  readonly spineBase = new Float64Array(3);
  /** Head minus hips in the body frame: forward, up, left components. */
  readonly headFromHips = new Float64Array(3);
  /** The hands' chain: up to the shoulder (the collarbone turns for a reach overhead), or the behavior's default. */
  readonly handChain: number | undefined;
  /** Per side (3 numbers each): the foot minus the hips in the body frame (forward, up, left), then its height. */
  readonly footFromHips = new Float64Array(6);
  readonly footHeight = new Float64Array(2);
  /**
   * How far ahead of the ankle the sole reaches (rest, along forward): half again the toe joint's distance,
   * to the toes' tips; with no toe joint, a fifth of the leg's length (a person's foot).
   */
  readonly toeReach: number;
  /**
   * Per side: the ball of the foot, the point a planted foot rolls onto when its heel lifts, from the ankle in
   * the foot's rest orientation (3 each): the toe joint, or without one the sole's front on the ground.
   */
  readonly ball = new Float64Array(6);
  /** Per side: the ball's offset from the ankle at rest along forward, then along left (2 each). */
  readonly ballAhead = new Float64Array(4);
  /** Per side: how far (radians) the ball lies below the ankle's level at rest, seen from the ankle. */
  readonly ballDrop = new Float64Array(2);
  /** Per side: the upper leg (the hip joint) minus the hips in the body frame. */
  readonly hipFromHips = new Float64Array(6);
  readonly legLength: number;
  readonly armLength: number;
  /** How far the upper arms (their mean) stand below the head in the rest pose, along up. */
  readonly shoulderDrop: number;
  /** Rest orientations (4 each): hips, head, left hand, right hand, left foot, right foot. */
  readonly rest = new Float64Array(24);
  /** Per side: the hand's rest pointing axis (lower arm to hand) and the back of the hand (6 numbers). */
  readonly handAxes = new Float64Array(12);
  /**
   * The rest frames' own orientations (4 each, see `frameQuaternion`): the body's (forward, up), then each
   * hand's (its two axes). The targets turn a rest orientation by how a tracker's frame turned from these.
   */
  readonly restFrames = new Float64Array(12);
  /** Per hand: 1 when its rest axes make a frame (its forearm is not along up). */
  readonly handFramed = new Uint8Array(2);
  /** Every joint the body reads or drives. */
  readonly joints: number[];
  /** The deepest crouch the knees fold to and the pelvis resting on the ground (see trackedFloor.ts). */
  readonly floor: FloorMeasures;

  constructor(ik: FabrikBehavior, rig: SkeletonRig, who: string) {
    const roles = ik.roles;
    for (const role of NEEDED) {
      if (roles[role] === undefined) {
        throw new FabrikError(
          `${who}: the rig has no "${role}" joint (a humanoid with head, hands and feet is needed)`,
          undefined,
          role,
        );
      }
    }
    const body = findBodyFrame(ik.solverRig!, roles);
    if (body === undefined)
      throw new FabrikError(`${who}: the rig's up and left cannot be told from its rest pose`);
    this.frame.set(body.forward, 0);
    this.frame.set(body.up, 3);
    this.frame.set(body.left, 6);
    const hips = roles.hips!;
    const head = roles.head!;
    let levels = 0;
    for (let j = head; j !== hips; j = rig.parents[j]) {
      if (j < 0) throw new FabrikError(`${who}: the head does not hang below the hips`, head, "head");
      levels++;
    }
    if (levels < 2) throw new FabrikError(`${who}: no spine between the hips and the head`, head, "head");
    this.hips = hips;
    this.head = head;
    this.headChain = levels - 1;
    const side = (s: "left" | "right", out: number): TrackedSide => ({
      upperArm: roles[`${s}UpperArm`]!,
      lowerArm: roles[`${s}LowerArm`]!,
      hand: roles[`${s}Hand`]!,
      upperLeg: roles[`${s}UpperLeg`]!,
      lowerLeg: roles[`${s}LowerLeg`]!,
      foot: roles[`${s}Foot`]!,
      out,
    });
    this.sides = [side("left", 1), side("right", -1)];
    const shoulder = roles.leftShoulder;
    const lower = roles.leftLowerArm!;
    this.handChain =
      shoulder !== undefined &&
      rig.parents[rig.parents[lower]] === shoulder &&
      rig.parents[roles.leftHand!] === lower
        ? 3
        : undefined;
    const p = rig.restPositions;
    const f = this.frame;
    const along = (j: number, axis: number, from: number): number =>
      (p[3 * j] - (from < 0 ? 0 : p[3 * from])) * f[axis] +
      (p[3 * j + 1] - (from < 0 ? 0 : p[3 * from + 1])) * f[axis + 1] +
      (p[3 * j + 2] - (from < 0 ? 0 : p[3 * from + 2])) * f[axis + 2];
    const dist = (a: number, b: number): number =>
      Math.hypot(p[3 * a] - p[3 * b], p[3 * a + 1] - p[3 * b + 1], p[3 * a + 2] - p[3 * b + 2]);
    let legs = 0;
    for (const s of this.sides) legs += dist(s.upperLeg, s.lowerLeg) + dist(s.lowerLeg, s.foot);
    this.legLength = legs / 2;
    const legL = this.sides[0].upperLeg,
      legR = this.sides[1].upperLeg;
    // The pelvis: the hips joint, or the hip joints' midpoint where the hips joint lies far below them (a
    // root bone on the ground that carries the legs and the spine, as Quaternius' rigs have).
    const pelvis = Float64Array.from(p.subarray(3 * hips, 3 * hips + 3));
    const below = (along(legL, 3, hips) + along(legR, 3, hips)) / 2;
    this.pelvisApart = below > PELVIS_APART * this.legLength;
    if (this.pelvisApart) for (let k = 0; k < 3; k++) pelvis[k] = (p[3 * legL + k] + p[3 * legR + k]) / 2;
    // Measured from the pelvis (the hips joint itself on most rigs: the same numbers).
    const fromPelvis = (j: number, axis: number): number =>
      (p[3 * j] - pelvis[0]) * f[axis] +
      (p[3 * j + 1] - pelvis[1]) * f[axis + 1] +
      (p[3 * j + 2] - pelvis[2]) * f[axis + 2];
    this.standHips = pelvis[0] * f[3] + pelvis[1] * f[4] + pelvis[2] * f[5];
    this.standHead = along(head, 3, -1);
    this.spineLength = Math.hypot(
      p[3 * head] - pelvis[0],
      p[3 * head + 1] - pelvis[1],
      p[3 * head + 2] - pelvis[2],
    );
    for (let k = 0; k < 3; k++) this.headFromHips[k] = fromPelvis(head, 3 * k);
    let reach = 0,
      base = head;
    for (let j = head; rig.parents[j] !== hips; j = rig.parents[j]) {
      reach += dist(j, rig.parents[j]);
      base = rig.parents[j];
    }
    this.spineReach = reach;
    for (let k = 0; k < 3; k++) this.spineBase[k] = p[3 * base + k] - pelvis[k];
    const ro = rig.restOrientations;
    const unturn = Float64Array.of(-ro[4 * hips], -ro[4 * hips + 1], -ro[4 * hips + 2], ro[4 * hips + 3]);
    quatRotate(this.spineBase, 0, unturn, 0, this.spineBase, 0);
    for (let k = 0; k < 3; k++) this.pelvis[k] = pelvis[k] - p[3 * hips + k];
    quatRotate(this.pelvis, 0, unturn, 0, this.pelvis, 0);
    let arms = 0;
    const r = rig.restOrientations;
    this.rest.set(r.subarray(4 * hips, 4 * hips + 4), 0);
    this.rest.set(r.subarray(4 * head, 4 * head + 4), 4);
    for (let i = 0; i < 2; i++) {
      const s = this.sides[i];
      for (let k = 0; k < 3; k++) {
        this.footFromHips[3 * i + k] = fromPelvis(s.foot, 3 * k);
        this.hipFromHips[3 * i + k] = fromPelvis(s.upperLeg, 3 * k);
      }
      this.footHeight[i] = along(s.foot, 3, -1);
      arms += dist(s.upperArm, s.lowerArm) + dist(s.lowerArm, s.hand);
      this.rest.set(r.subarray(4 * s.hand, 4 * s.hand + 4), 8 + 4 * i);
      this.rest.set(r.subarray(4 * s.foot, 4 * s.foot + 4), 16 + 4 * i);
      // The hand points along its forearm; the back of the hand is up (a T-pose's palms face down).
      const a = this.handAxes;
      const o = 6 * i;
      const len = dist(s.hand, s.lowerArm);
      for (let k = 0; k < 3; k++) a[o + k] = (p[3 * s.hand + k] - p[3 * s.lowerArm + k]) / len;
      for (let k = 0; k < 3; k++) a[o + 3 + k] = f[3 + k];
    }
    const scratch = new Float64Array(15);
    scratch.set(f.subarray(0, 6), 0);
    frameQuaternion(this.restFrames, 0, scratch, 0, 3, 6);
    for (let i = 0; i < 2; i++) {
      scratch.set(this.handAxes.subarray(6 * i, 6 * i + 6), 0);
      this.handFramed[i] = frameQuaternion(this.restFrames, 4 + 4 * i, scratch, 0, 3, 6) ? 1 : 0;
    }
    this.armLength = arms / 2;
    this.shoulderDrop =
      this.standHead - (along(this.sides[0].upperArm, 3, -1) + along(this.sides[1].upperArm, 3, -1)) / 2;
    const toes = roles.leftToes;
    const toeAhead = toes !== undefined ? along(toes, 0, this.sides[0].foot) : 0;
    this.toeReach = toeAhead > 0 ? 1.5 * toeAhead : 0.2 * this.legLength;
    for (let i = 0; i < 2; i++) {
      const foot = this.sides[i].foot,
        toe = i === 0 ? roles.leftToes : roles.rightToes;
      const ball = this.ball.subarray(3 * i, 3 * i + 3);
      for (let k = 0; k < 3; k++) {
        ball[k] =
          toe !== undefined && along(toe, 0, foot) > 0
            ? p[3 * toe + k] - p[3 * foot + k]
            : this.toeReach * f[k] - this.footHeight[i] * f[3 + k];
      }
      this.ballAhead[2 * i] = ball[0] * f[0] + ball[1] * f[1] + ball[2] * f[2];
      this.ballAhead[2 * i + 1] = ball[0] * f[6] + ball[1] * f[7] + ball[2] * f[8];
      const drop =
        -(ball[0] * f[3] + ball[1] * f[4] + ball[2] * f[5]) / Math.hypot(ball[0], ball[1], ball[2]);
      this.ballDrop[i] = Math.asin(Math.max(-1, Math.min(1, drop)));
      const q = r.subarray(4 * foot, 4 * foot + 4);
      quatRotate(ball, 0, Float64Array.of(-q[0], -q[1], -q[2], q[3]), 0, ball, 0);
    }
    if (!(
      this.spineLength > 0 &&
      this.legLength > 0 &&
      this.armLength > 0 &&
      this.standHead > this.standHips
    )) {
      throw new FabrikError(`${who}: the rest pose does not stand upright (head above hips above feet)`);
    }
    const joints = new Set<number>([hips, head]);
    for (let j = rig.parents[head]; j !== hips; j = rig.parents[j]) joints.add(j);
    for (const s of this.sides) {
      for (const j of [s.upperArm, s.lowerArm, s.hand, s.upperLeg, s.lowerLeg, s.foot]) joints.add(j);
    }
    this.joints = [...joints];
    this.floor = floorMeasures(ik, rig, this);
  }
}
