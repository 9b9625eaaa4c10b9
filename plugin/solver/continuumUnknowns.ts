import {
  E1,
  E2,
  NEW,
  SCALAR,
  arcScratch as temp,
  bendSide,
  dot,
  enteringDirection,
  normalize,
  turnBone,
} from "./continuumFit.js";
import { LIMIT_ROTATION } from "./limits.js";
import type { SolvePlan } from "./plan.js";
import { quatConjugateMultiply, quatMultiply, quatNormalize, quatRotate } from "./quaternion.js";

/*
 * The unknowns of the damped steps on a component with continuum sections (continuumSteps.ts), and the
 * component placed from them. A section's unknowns are its bend vector (a, b) = θ·u, written in a frame across
 * the direction entering it (θ its bend, u the side it bends toward): the vector has no singularity at θ = 0,
 * where the side is undefined, and the bend limit is its length. A free joint (no rotation limit) of the
 * component adds three: a turn ω in its parent's frame, on top of its local turn as the steps started. Any other
 * joint keeps its local turn, so the steps keep every limit, and every section stays one even arc.
 */

/**
 * At most this many columns for free joints (each costs one more placement of the component a step); free
 * joints past them keep their turn.
 */
const MAX_COLUMNS = 32;

// Per section in unknowns.frame: the entering direction t, the side u, the bend θ, as placeUnknowns left them.
const FRAME = 7;
const U_SLOT = 3;
const THETA_SLOT = 6;

/** The scratch, grown to the largest rig and section count seen (never allocated per solve after). */
export const unknowns = {
  /** Each joint's turn relative to its parent (4 a joint) as the steps started. */
  locals: new Float64Array(0),
  /** Per section: its first column (-1 outside the component); per joint: its free turn's first column. */
  sectionColumn: new Int32Array(0),
  jointColumn: new Int32Array(0),
  /** Per section: a model-space direction across its entering direction, the frame its bend vector is in. */
  reference: new Float64Array(0),
  frame: new Float64Array(0),
  /** The unknowns, one a column. */
  params: new Float64Array(0),
  /** A turn, and a local turn with it applied. */
  turn: new Float64Array(8),
};

/** Grows the scratch for plan's rig. */
export function growUnknowns(plan: SolvePlan): void {
  const n = plan.rig.jointCount;
  const count = plan.continuum.count;
  if (unknowns.locals.length < 4 * n) {
    unknowns.locals = new Float64Array(4 * n);
    unknowns.jointColumn = new Int32Array(n);
  }
  if (unknowns.sectionColumn.length < count) {
    unknowns.sectionColumn = new Int32Array(count);
    unknowns.reference = new Float64Array(3 * count);
    unknowns.frame = new Float64Array(FRAME * count);
  }
  if (unknowns.params.length < 2 * count + MAX_COLUMNS)
    unknowns.params = new Float64Array(2 * count + MAX_COLUMNS);
}

/**
 * Numbers component c's unknowns into columns and reads them from the pose: each section's bend θ and side u
 * (from its entering direction and first bone, as restartContinuum does), the reference across the entering
 * direction being u itself, so its vector starts as (θ, 0); every free turn starts at zero. Keeps every
 * joint's local turn. Returns the number of columns (0: no section in c).
 */
export function readUnknowns(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
): number {
  const { count, jointStart, joints } = plan.continuum;
  const { localOffset, flags } = plan.scratch;
  const { sectionColumn, jointColumn, reference, params, locals } = unknowns;
  const parents = plan.rig.parents;
  const start = plan.componentStart[c],
    end = plan.componentStart[c + 1];
  let cols = 0;
  for (let s = 0; s < count; s++) {
    const first = jointStart[s],
      last = jointStart[s + 1] - 1;
    const k = plan.activeIndex[joints[last]];
    sectionColumn[s] = -1;
    if (k < start || k >= end) continue;
    sectionColumn[s] = cols;
    enteringDirection(plan, s, orientations);
    quatRotate(temp, E2, orientations, 4 * joints[first], localOffset, 3 * joints[first + 1]);
    dot(E2, E1);
    const cos = temp[SCALAR];
    for (let d = 0; d < 3; d++) temp[E2 + d] -= cos * temp[E1 + d];
    let theta = Math.acos(Math.max(-1, Math.min(1, cos))) * (last - first);
    if (!normalize(E2) || !(theta > 0)) {
      theta = 0;
      bendSide(plan, s, positions, E1, E2);
    }
    for (let d = 0; d < 3; d++) reference[3 * s + d] = temp[E2 + d];
    params[cols] = theta;
    params[cols + 1] = 0;
    cols += 2;
  }
  if (cols === 0) return 0;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const r = plan.rotatingJoints[ri];
    jointColumn[r] = -1;
    if (plan.continuum.bendsIn[r] >= 0 || flags[r] & LIMIT_ROTATION || cols + 3 > 2 * count + MAX_COLUMNS)
      continue;
    jointColumn[r] = cols;
    for (let i = 0; i < 3; i++) params[cols + i] = 0;
    cols += 3;
  }
  const b = plan.componentBase[c];
  readLocal(b, parents[b], orientations, locals);
  for (let i = start; i < end; i++) {
    const j = plan.activeJoints[i];
    readLocal(j, parents[j], orientations, locals);
  }
  return cols;
}

function readLocal(j: number, p: number, orientations: Float64Array, locals: Float64Array): void {
  if (p >= 0) quatConjugateMultiply(locals, 4 * j, orientations, 4 * p, orientations, 4 * j);
  else for (let i = 0; i < 4; i++) locals[4 * j + i] = orientations[4 * j + i];
}

/**
 * Places component c from its base down for the current unknowns: every joint hangs from its parent by its
 * kept local turn (after its free turn, if it has one), and every joint bending in a section is then turned
 * onto that section's arc.
 */
export function placeUnknowns(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  const parents = plan.rig.parents;
  const { localOffset, boneLength } = plan.scratch;
  const b = plan.componentBase[c];
  hang(plan, b, parents[b], orientations);
  bendOntoArc(plan, b, orientations);
  for (let i = plan.componentStart[c]; i < plan.componentStart[c + 1]; i++) {
    const j = plan.activeJoints[i];
    const q = parents[j];
    const j3 = 3 * j;
    quatRotate(temp, NEW, orientations, 4 * q, localOffset, j3);
    const len = boneLength[j];
    for (let d = 0; d < 3; d++) positions[j3 + d] = positions[3 * q + d] + len * temp[NEW + d];
    hang(plan, j, q, orientations);
    bendOntoArc(plan, j, orientations);
  }
}

/** Joint j's orientation: its parent's, then its free turn ω (in its parent's frame), then its kept local turn. */
function hang(plan: SolvePlan, j: number, p: number, orientations: Float64Array): void {
  const { locals, jointColumn, params, turn } = unknowns;
  const col = plan.scratch.rotatingIndex[j] >= 0 ? jointColumn[j] : -1;
  let local = locals,
    o = 4 * j;
  if (col >= 0) {
    const x = params[col],
      y = params[col + 1],
      z = params[col + 2];
    const angle = Math.sqrt(x * x + y * y + z * z);
    const k = angle > 1e-12 ? Math.sin(0.5 * angle) / angle : 0.5;
    turn[0] = k * x;
    turn[1] = k * y;
    turn[2] = k * z;
    turn[3] = Math.cos(0.5 * angle);
    quatMultiply(turn, 4, turn, 0, locals, 4 * j);
    local = turn;
    o = 4;
  }
  if (p >= 0) quatMultiply(orientations, 4 * j, orientations, 4 * p, local, o);
  else for (let i = 0; i < 4; i++) orientations[4 * j + i] = local[o + i];
  quatNormalize(orientations, 4 * j);
}

/** When joint j bends in a section, turns its bone onto the section's arc (its parent is placed by now). */
function bendOntoArc(plan: SolvePlan, j: number, orientations: Float64Array): void {
  const { bendsIn, jointStart, joints, maxBend } = plan.continuum;
  const s = bendsIn[j];
  if (s < 0) return;
  const col = unknowns.sectionColumn[s];
  if (col < 0) return;
  const first = jointStart[s],
    last = jointStart[s + 1] - 1;
  const { frame, reference, params } = unknowns;
  const f = FRAME * s;
  let m = first;
  while (joints[m] !== j) m++;
  if (m === first) {
    // The section's frame, from the direction entering it as its parent now lies: r across t, then
    // u θ = a·r + b·(t × r).
    enteringDirection(plan, s, orientations);
    for (let d = 0; d < 3; d++) temp[E2 + d] = reference[3 * s + d];
    dot(E2, E1);
    const along = temp[SCALAR];
    for (let d = 0; d < 3; d++) temp[E2 + d] -= along * temp[E1 + d];
    normalize(E2);
    const a = params[col],
      bb = params[col + 1];
    const cx = temp[E1 + 1] * temp[E2 + 2] - temp[E1 + 2] * temp[E2 + 1],
      cy = temp[E1 + 2] * temp[E2] - temp[E1] * temp[E2 + 2],
      cz = temp[E1] * temp[E2 + 1] - temp[E1 + 1] * temp[E2];
    const ux = a * temp[E2] + bb * cx,
      uy = a * temp[E2 + 1] + bb * cy,
      uz = a * temp[E2 + 2] + bb * cz;
    const theta = Math.sqrt(ux * ux + uy * uy + uz * uz);
    for (let d = 0; d < 3; d++) frame[f + d] = temp[E1 + d];
    frame[f + U_SLOT] = theta > 0 ? ux / theta : temp[E2];
    frame[f + U_SLOT + 1] = theta > 0 ? uy / theta : temp[E2 + 1];
    frame[f + U_SLOT + 2] = theta > 0 ? uz / theta : temp[E2 + 2];
    frame[f + THETA_SLOT] = theta;
    const onLimit = plan.report.onLimit;
    const clamped = theta >= maxBend[s] * (1 - 1e-6) ? 1 : 0;
    for (let i = first; i < last; i++) onLimit[joints[i]] = clamped;
  }
  const angle = ((m + 1 - first) * frame[f + THETA_SLOT]) / (last - first);
  const cos = Math.cos(angle),
    sin = Math.sin(angle);
  for (let d = 0; d < 3; d++) temp[NEW + d] = cos * frame[f + d] + sin * frame[f + U_SLOT + d];
  turnBone(orientations, 4 * j, plan.scratch.localOffset, 3 * joints[m + 1]);
}

/** Scales any section's bend vector longer than its limit back onto the limit. */
export function clampBends(plan: SolvePlan): void {
  const { count, maxBend } = plan.continuum;
  const { sectionColumn, params } = unknowns;
  for (let s = 0; s < count; s++) {
    const col = sectionColumn[s];
    if (col < 0) continue;
    const length = Math.sqrt(params[col] * params[col] + params[col + 1] * params[col + 1]);
    if (length > maxBend[s]) {
      params[col] *= maxBend[s] / length;
      params[col + 1] *= maxBend[s] / length;
    }
  }
}
