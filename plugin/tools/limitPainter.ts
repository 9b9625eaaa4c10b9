import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { FabrikBehavior, PoseReader, SkeletonRig } from "../babylon/index.js";
import {
  LIMIT_FIXED,
  LIMIT_HINGE,
  LIMIT_SWING,
  LIMIT_TWIST,
  LIMIT_UNIVERSAL,
  type JointLimits,
} from "../solver/limits.js";
import type { SolvePlan } from "../solver/index.js";
import { quatConjugateMultiply, quatMultiply, quatRotate } from "../solver/quaternion.js";
import { FABRIK_DEBUG_COLORS } from "./debugColors.js";
import { ARC_SEGMENTS, SLOT_LINES, SPOKE_POINTS, type DebugLines } from "./debugLines.js";
import { collapse, paint, toWorld } from "./linePoints.js";

// Scratch layout: quaternions and vectors the per-frame code passes by (array, offset), never as numbers,
// so nothing is boxed.
const QF = 0; // the joint's rest frame under its current parent: parent orientation × rest local
const QD = 4; // Δ = F⁻¹ × orientation
const QG = 8; // F × swing part of Δ
const QT = 12; // a hinge turn
const VD = 16; // a direction
const VP = 19; // a model-space point
const VC = 22; // an arc centre
const VA = 25; // an axis
const SX = 28; // swing-space point x, y
const SL = 30; // a length
const SA = 31; // a universal joint's angles α, β
const SCRATCH = 33;

/**
 * Draws each limited joint's swing cone (its elliptical outline and the four side angles) and its twist or
 * hinge arc with the joint's current angle (a universal joint: the outline of its two ranges; a pivot: its
 * roll arc), in the joint's frame, into the debug view's limit slots: red
 * while the joint sits on its limit, white for the joint chosen in the Inspector.
 */
export class LimitPainter {
  private readonly _s = new Float64Array(SCRATCH);
  /** The cone outline's direction cosines and sines, exact at the four sides. */
  private readonly _cos: Float64Array;
  private readonly _sin: Float64Array;
  /** How far each joint's cone reaches (model units). */
  private _coneLength: Float64Array = new Float64Array(0);

  /**
   * @param coneSegments points per cone outline, a multiple of 4.
   * @param _showLimits false draws every slot collapsed onto its joint.
   */
  constructor(
    readonly coneSegments: number,
    private readonly _showLimits: boolean,
  ) {
    const k = coneSegments;
    this._cos = new Float64Array(k + 1);
    this._sin = new Float64Array(k + 1);
    for (let i = 0; i <= k; i++) {
      // Exact axis points, so the four side angles land on the outline exactly.
      const quarter = i % (k / 4) === 0;
      const phi = (2 * Math.PI * i) / k;
      this._cos[i] = quarter ? [1, 0, -1, 0][(i / (k / 4)) % 4] : Math.cos(phi);
      this._sin[i] = quarter ? [0, 1, 0, -1][(i / (k / 4)) % 4] : Math.sin(phi);
    }
  }

  /** Sizes the cones for a new rig. */
  setRig(rig: SkeletonRig, behavior: FabrikBehavior): void {
    this._coneLength = coneLengths(rig, behavior);
  }

  /** Every slot: the joints the solver turns, and the last slot for the selected joint when it has none. */
  draw(
    lines: DebugLines,
    reader: PoseReader,
    parents: Int32Array,
    limits: JointLimits,
    plan: SolvePlan | null,
    solved: boolean,
    selected: number,
  ): void {
    const slots = lines.slotJoints;
    const n = parents.length;
    const onLimit = plan?.report.onLimit;
    for (let slot = 0; slot < slots.length; slot++) {
      let j = slots[slot];
      const last = slot === slots.length - 1;
      // The last slot is the selected joint's, unless that joint already has a slot of its own.
      if (last) j = selected >= 0 && selected < n && lines.slotOf[selected] < 0 ? selected : -1;
      const start = lines.slotStart + SLOT_LINES * slot;
      const hit = solved && j >= 0 && onLimit !== undefined && onLimit[j] === 1;
      this._drawSlot(lines, reader, parents, limits, j, start, hit, j === selected);
    }
  }

  /** One joint's cone, spokes, arc and indicator; everything collapses onto the joint when it has no such limit. */
  private _drawSlot(
    debugLines: DebugLines,
    reader: PoseReader,
    parents: Int32Array,
    limits: JointLimits,
    j: number,
    start: number,
    onLimit: boolean,
    selected: boolean,
  ): void {
    const m = reader.modelToWorld,
      pos = reader.positions,
      orientations = reader.orientations;
    const lines = debugLines.lines;
    const cone = lines[start],
      spokes = lines[start + 1],
      arc = lines[start + 2],
      indicator = lines[start + 3];
    const colors = FABRIK_DEBUG_COLORS;
    const coneColor = onLimit ? colors.onLimit : selected ? colors.selected : colors.cone;
    const arcColor = onLimit ? colors.onLimit : selected ? colors.selected : colors.arc;
    for (let k = 0; k < SLOT_LINES; k++) paint(debugLines.colors[start + k], k < 2 ? coneColor : arcColor);
    const flags = j >= 0 && this._showLimits ? limits.flags[j] : 0;
    const rotationLimited = (flags & (LIMIT_HINGE | LIMIT_FIXED)) === 0;
    // A pivot is stored as a closed cone with a twist range: only its arc is worth drawing.
    const pivot = flags !== 0 && limits.specs[j]?.pivot !== undefined;
    const hasSwing = rotationLimited && !pivot && (flags & LIMIT_SWING) !== 0;
    const hasTwist = rotationLimited && (flags & LIMIT_TWIST) !== 0;
    const hasHinge = (flags & LIMIT_HINGE) !== 0;
    const hasUniversal = rotationLimited && (flags & LIMIT_UNIVERSAL) !== 0;
    if (j < 0 || !(hasSwing || hasTwist || hasHinge || hasUniversal)) {
      const at = j >= 0 ? 3 * j : 0;
      collapse(cone, m, pos, at);
      collapse(spokes, m, pos, at);
      collapse(arc, m, pos, at);
      collapse(indicator, m, pos, at);
      return;
    }
    const s = this._s;
    const j3 = 3 * j,
      j4 = 4 * j;
    const p = parents[j];
    if (p >= 0) quatMultiply(s, QF, orientations, 4 * p, limits.restLocal, j4);
    else for (let i = 0; i < 4; i++) s[QF + i] = limits.restLocal[j4 + i];
    const length = this._coneLength[j];
    s[SL] = length;

    if (hasSwing) {
      const sw = limits.swing;
      const k = this.coneSegments;
      for (let i = 0; i <= k; i++) {
        const c = this._cos[i],
          sn = this._sin[i];
        s[SX] = c * (c >= 0 ? sw[j4 + 1] : sw[j4 + 3]);
        s[SX + 1] = sn * (sn >= 0 ? sw[j4] : sw[j4 + 2]);
        swingPoint(cone[i], m, pos, limits, j, s);
      }
      // Joint → each side's extreme → joint: the four angles the Inspector edits.
      for (let i = 0; i < SPOKE_POINTS; i++) {
        if (i % 2 === 0) {
          toWorld(spokes[i], m, pos, j3);
          continue;
        }
        const side = (i - 1) / 2; // up, right, down, left
        s[SX] = side === 1 ? sw[j4 + 1] : side === 3 ? -sw[j4 + 3] : 0;
        s[SX + 1] = side === 0 ? sw[j4] : side === 2 ? -sw[j4 + 2] : 0;
        swingPoint(spokes[i], m, pos, limits, j, s);
      }
    } else if (hasUniversal) {
      drawUniversal(cone, spokes, m, pos, limits, j, s);
    } else if (hasHinge) {
      collapse(cone, m, pos, j3);
      // The hinge axis, through the joint.
      quatRotate(s, VA, s, QF, limits.hingeAxis, j3);
      for (let i = 0; i < SPOKE_POINTS; i++) {
        const sign = i === 0 ? -0.5 : 0.5;
        for (let a = 0; a < 3; a++) s[VP + a] = pos[j3 + a] + sign * length * s[VA + a];
        toWorld(spokes[i], m, s, VP);
      }
    } else {
      collapse(cone, m, pos, j3);
      collapse(spokes, m, pos, j3);
    }

    if (hasHinge) {
      const lo = limits.hinge[2 * j],
        hi = limits.hinge[2 * j + 1];
      for (let i = 0; i <= ARC_SEGMENTS; i++) {
        const half = 0.5 * (lo + ((hi - lo) * i) / ARC_SEGMENTS);
        const sh = Math.sin(half);
        for (let a = 0; a < 3; a++) s[QT + a] = limits.hingeAxis[j3 + a] * sh;
        s[QT + 3] = Math.cos(half);
        quatRotate(s, VD, s, QT, limits.boneAxis, j3);
        quatRotate(s, VD, s, QF, s, VD);
        for (let a = 0; a < 3; a++) s[VP + a] = pos[j3 + a] + length * s[VD + a];
        toWorld(arc[i], m, s, VP);
      }
      // The bone as it is now.
      quatRotate(s, VD, orientations, j4, limits.boneAxis, j3);
      for (let a = 0; a < 3; a++) s[VP + a] = pos[j3 + a] + length * s[VD + a];
      toWorld(indicator[0], m, pos, j3);
      toWorld(indicator[1], m, s, VP);
    } else if (hasTwist) {
      // Δ = F⁻¹ O splits into swing × twist about the bone axis; the arc is drawn in the swung frame
      // F × swing, so it stays around the bone and the indicator (the joint's own "up") sweeps along it.
      quatConjugateMultiply(s, QD, s, QF, orientations, j4);
      const ax = limits.boneAxis[j3],
        ay = limits.boneAxis[j3 + 1],
        az = limits.boneAxis[j3 + 2];
      const along = s[QD] * ax + s[QD + 1] * ay + s[QD + 2] * az;
      const tl = Math.sqrt(along * along + s[QD + 3] * s[QD + 3]);
      // Conjugate twist, to strip it off the orientation: G = O × twist⁻¹ = F × swing.
      s[QT] = tl > 1e-12 ? (-along * ax) / tl : 0;
      s[QT + 1] = tl > 1e-12 ? (-along * ay) / tl : 0;
      s[QT + 2] = tl > 1e-12 ? (-along * az) / tl : 0;
      s[QT + 3] = tl > 1e-12 ? s[QD + 3] / tl : 1;
      quatMultiply(s, QG, orientations, j4, s, QT);
      quatRotate(s, VD, orientations, j4, limits.boneAxis, j3);
      const radius = 0.35 * length;
      for (let a = 0; a < 3; a++) s[VC + a] = pos[j3 + a] + 0.6 * length * s[VD + a];
      const lo = limits.twist[2 * j],
        hi = limits.twist[2 * j + 1];
      for (let i = 0; i <= ARC_SEGMENTS; i++) {
        const t = lo + ((hi - lo) * i) / ARC_SEGMENTS;
        const c = Math.cos(t),
          sn = Math.sin(t);
        for (let a = 0; a < 3; a++) s[VD + a] = c * limits.upAxis[j3 + a] + sn * limits.rightAxis[j3 + a];
        quatRotate(s, VD, s, QG, s, VD);
        for (let a = 0; a < 3; a++) s[VP + a] = s[VC + a] + radius * s[VD + a];
        toWorld(arc[i], m, s, VP);
      }
      quatRotate(s, VD, orientations, j4, limits.upAxis, j3);
      for (let a = 0; a < 3; a++) s[VP + a] = s[VC + a] + radius * s[VD + a];
      toWorld(indicator[0], m, s, VC);
      toWorld(indicator[1], m, s, VP);
    } else {
      collapse(arc, m, pos, j3);
      collapse(indicator, m, pos, j3);
    }
  }
}

/**
 * A universal joint's two ranges as the outline of the directions they allow (one edge of the (α, β)
 * rectangle per quarter of the outline) and spokes to the middle of each edge.
 */
function drawUniversal(
  cone: Vector3[],
  spokes: Vector3[],
  m: Float64Array,
  pos: Float64Array,
  limits: JointLimits,
  j: number,
  s: Float64Array,
): void {
  const r = limits.swing,
    j4 = 4 * j;
  const a0 = r[j4],
    a1 = r[j4 + 1],
    b0 = r[j4 + 2],
    b1 = r[j4 + 3];
  const quarter = (cone.length - 1) / 4;
  for (let i = 0; i < cone.length; i++) {
    const edge = Math.min(3, Math.floor(i / quarter)),
      t = (i - edge * quarter) / quarter;
    // Around the rectangle: α = min up β, β = max along α, α = max down β, β = min back along α.
    s[SA] = edge === 0 ? a0 : edge === 1 ? a0 + t * (a1 - a0) : edge === 2 ? a1 : a1 - t * (a1 - a0);
    s[SA + 1] = edge === 0 ? b0 + t * (b1 - b0) : edge === 1 ? b1 : edge === 2 ? b1 - t * (b1 - b0) : b0;
    universalPoint(cone[i], m, pos, limits, j, s);
  }
  for (let i = 0; i < SPOKE_POINTS; i++) {
    if (i % 2 === 0) {
      toWorld(spokes[i], m, pos, 3 * j);
      continue;
    }
    const side = (i - 1) / 2;
    s[SA] = side === 0 ? a0 : side === 2 ? a1 : 0.5 * (a0 + a1);
    s[SA + 1] = side === 1 ? b1 : side === 3 ? b0 : 0.5 * (b0 + b1);
    universalPoint(spokes[i], m, pos, limits, j, s);
  }
}

/** Where a universal joint at angles s[SA..SA+1] points its bone: u sin β − v cos β sin α + b cos β cos α. */
function universalPoint(
  v: Vector3,
  m: Float64Array,
  pos: Float64Array,
  limits: JointLimits,
  j: number,
  s: Float64Array,
): void {
  const alpha = s[SA],
    beta = s[SA + 1];
  const j3 = 3 * j;
  const cb = Math.cos(beta);
  const cu = Math.sin(beta),
    cv = -cb * Math.sin(alpha),
    ca = cb * Math.cos(alpha);
  const u = limits.upAxis,
    w = limits.rightAxis,
    a = limits.boneAxis;
  for (let i = 0; i < 3; i++) s[VD + i] = cu * u[j3 + i] + cv * w[j3 + i] + ca * a[j3 + i];
  placeDirection(v, m, pos, j, s);
}

/** How far each joint's cone reaches: most of its bone, within sensible bounds of the character's height. */
function coneLengths(rig: SkeletonRig, behavior: FabrikBehavior): Float64Array {
  const n = rig.jointCount;
  const pos = rig.restPositions;
  const size = behavior.height;
  const out = new Float64Array(n);
  const bone = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const p = rig.parents[j];
    if (p < 0) continue;
    const d = Math.hypot(
      pos[3 * j] - pos[3 * p],
      pos[3 * j + 1] - pos[3 * p + 1],
      pos[3 * j + 2] - pos[3 * p + 2],
    );
    bone[j] = d;
    if (d > out[p]) out[p] = d;
  }
  for (let j = 0; j < n; j++) {
    // A leaf continues its parent's bone.
    const length = out[j] > 0 ? out[j] : bone[j];
    out[j] = Math.min(0.25 * size, Math.max(0.03 * size, 0.6 * length));
  }
  return out;
}

/**
 * The direction of swing-space point (x, y) = s[SX..] (azimuthal-equidistant: its length is the swing angle
 * θ, its direction the side), as cos θ·axis + sin θ·(x·right + y·up)/θ in the joint's rest frame, turned by
 * the frame F = s[QF..] and placed s[SL] from joint j.
 */
function swingPoint(
  v: Vector3,
  m: Float64Array,
  pos: Float64Array,
  limits: JointLimits,
  j: number,
  s: Float64Array,
): void {
  const x = s[SX],
    y = s[SX + 1];
  const theta = Math.sqrt(x * x + y * y);
  const c = Math.cos(theta);
  const k = theta > 1e-9 ? Math.sin(theta) / theta : 1;
  const j3 = 3 * j;
  const a = limits.boneAxis,
    r = limits.rightAxis,
    u = limits.upAxis;
  for (let i = 0; i < 3; i++) s[VD + i] = c * a[j3 + i] + k * (x * r[j3 + i] + y * u[j3 + i]);
  placeDirection(v, m, pos, j, s);
}

/** The rest-frame direction s[VD..], turned by the frame F = s[QF..] and placed s[SL] from joint j. */
function placeDirection(v: Vector3, m: Float64Array, pos: Float64Array, j: number, s: Float64Array): void {
  const j3 = 3 * j;
  quatRotate(s, VD, s, QF, s, VD);
  const length = s[SL];
  for (let i = 0; i < 3; i++) s[VP + i] = pos[j3 + i] + length * s[VD + i];
  toWorld(v, m, s, VP);
}
