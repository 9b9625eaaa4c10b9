import type { SolvePlan } from "./plan.js";
import { quatMultiply, quatRotate } from "./quaternion.js";

/*
 * Temporal coherence near a straight hinge. The plane a hinge bends in is only defined by its bend: as an
 * elbow straightens, a millimetre of target motion swings the plane FABRIK proposes all the way round, and
 * rolling the upper arm to follow it (within its twist limit) turned the shoulder by up to its whole twist
 * range from one frame to the next. So when a solve is a small step (its targets near where the input pose
 * had its effectors, as in a warm start from last frame's answer), the roll toward the proposed plane fades
 * out as the bend vanishes, toward the roll the input pose had, and a path may not swivel its limb by more
 * than its target's motion accounts for; and a nearly straight one-sided hinge is bent in its own plane
 * (placeHinge). A solve whose targets are far from the input (a new reach) rolls exactly as before.
 */
/** Sine of the bend below which the roll toward the proposed bend plane fades out (about 11.5°). */
const ROLL_FADE_SIN = 0.2;
/**
 * A solve may roll a hinge's parent, relative to its input roll, by at most this many times the angle the
 * target's motion subtends at the distance of the tip from the parent's bone.
 */
const ROLL_PER_STEP = 4;
/**
 * A target less than this fraction of the chain's reach from where the input pose had its effector makes
 * the solve a step of a continuing motion, in which the hinge keeps its plane; from there on, a new reach.
 */
const STEP_FRACTION = 0.1;
/** Sine of the bend below which the forward pass puts a one-sided hinge in its own plane (about 37°). */
const PLACE_FADE_SIN = 0.6;
/**
 * Below this sine of the angle between a hinge's axis and the line from its parent to its child, the hinge's
 * plane says little about where the joint goes, and the placement fades out.
 */
const PLACE_AXIS_SIN = 0.25;

/** Lengths below this fraction of the bone they belong to have no direction worth following. */
const DEGENERATE = 1e-9;

/** This file's temporaries. */
const temp = new Float64Array(19);
const V = 0; // vector
const W = 4; // vector
const R = 8; // rotation
const L = 12; // local rotation
// Written by measureStep for the hinge at hand.
const STEP = 16; // how far its effector's target is from the input pose's effector, in STEP_FRACTIONs of reach
const MOTION = 17; // that distance
const TIP = 18; // the effector (-1: none, the chain below the hinge branches)

/**
 * A hinge below `r` can only bend in the plane its axis allows, so the shortest-arc turn of r may leave that
 * plane facing away from where the hinge's own child needs to go, with the hinge pinned on a limit (an elbow
 * that would have to bend backward). Roll r's candidate orientation (the plan's `candidate`) about its bone so the hinge
 * axis is perpendicular to both bones, choosing of the two such rolls the one whose bend angle lies in the
 * hinge's range (or nearer to it). r's own twist limit is applied afterwards and may take some roll back.
 *
 * That plane is only as well defined as the bend: in a small step, the roll fades as the bend vanishes toward
 * the one that gives the hinge the axis it had in the input pose, and in a path it stays within what the
 * target's motion accounts for (see ROLL_FADE_SIN, ROLL_PER_STEP).
 */
export function rollForHinge(
  plan: SolvePlan,
  c: number,
  r: number,
  ch: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  const { activeChildStart, activeChildren, limits } = plan;
  const candidate = plan.scratch.candidate;
  const ri = plan.scratch.rotatingIndex[ch];
  if (activeChildStart[ri + 1] - activeChildStart[ri] !== 1) return;
  const gc = activeChildren[activeChildStart[ri]];
  const r3 = 3 * r,
    c3 = 3 * ch,
    g3 = 3 * gc,
    c4 = 4 * ch;
  // d1: r's bone (already aligned); d2: where the hinge's child bone should point.
  let ax = positions[c3] - positions[r3],
    ay = positions[c3 + 1] - positions[r3 + 1],
    az = positions[c3 + 2] - positions[r3 + 2];
  let bx = positions[g3] - positions[c3],
    by = positions[g3 + 1] - positions[c3 + 1],
    bz = positions[g3 + 2] - positions[c3 + 2];
  const al = Math.sqrt(ax * ax + ay * ay + az * az),
    bl = Math.sqrt(bx * bx + by * by + bz * bz);
  const { boneLength } = plan.scratch;
  if (!(al > DEGENERATE * boneLength[ch]) || !(bl > DEGENERATE * boneLength[gc])) return;
  ax /= al;
  ay /= al;
  az /= al;
  bx /= bl;
  by /= bl;
  bz /= bl;
  let nx = ay * bz - az * by,
    ny = az * bx - ax * bz,
    nz = ax * by - ay * bx;
  // |n| is the sine of the bend: how far the proposed plane can be trusted.
  const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
  // The hinge axis and the hinge child's zero-angle direction under the candidate: Q · restLocal(ch) · v.
  quatMultiply(temp, L, candidate, 0, limits.restLocal, c4);
  quatRotate(temp, V, temp, L, limits.hingeAxis, c3);
  quatRotate(temp, W, temp, L, limits.boneAxis, c3);
  const hd = temp[V] * ax + temp[V + 1] * ay + temp[V + 2] * az;
  let hx = temp[V] - hd * ax,
    hy = temp[V + 1] - hd * ay,
    hz = temp[V + 2] - hd * az;
  const hl = Math.sqrt(hx * hx + hy * hy + hz * hz);
  if (hl < 1e-6) return; // the hinge turns about r's bone: rolling cannot help
  hx /= hl;
  hy /= hl;
  hz /= hl;
  let bestRoll = 0;
  if (nl >= 1e-6) {
    // (In line, any roll serves the proposal: only the input's roll counts then, see `trust`.)
    nx /= nl;
    ny /= nl;
    nz /= nl;
    const min = limits.hinge[2 * ch],
      max = limits.hinge[2 * ch + 1];
    let bestMiss = Infinity;
    for (let side = -1; side <= 1; side += 2) {
      // Roll about d1 taking h onto side·n.
      const tx = side * nx,
        ty = side * ny,
        tz = side * nz;
      const roll = Math.atan2(
        ax * (hy * tz - hz * ty) + ay * (hz * tx - hx * tz) + az * (hx * ty - hy * tx),
        hx * tx + hy * ty + hz * tz,
      );
      // The zero-angle child direction rolled the same way (Rodrigues about d1), then the bend about side·n.
      const cs = Math.cos(roll),
        sn = Math.sin(roll);
      const w0 = temp[W],
        w1 = temp[W + 1],
        w2 = temp[W + 2];
      const dot = ax * w0 + ay * w1 + az * w2;
      const zx = w0 * cs + (ay * w2 - az * w1) * sn + ax * dot * (1 - cs),
        zy = w1 * cs + (az * w0 - ax * w2) * sn + ay * dot * (1 - cs),
        zz = w2 * cs + (ax * w1 - ay * w0) * sn + az * dot * (1 - cs);
      const bend = Math.atan2(
        tx * (zy * bz - zz * by) + ty * (zz * bx - zx * bz) + tz * (zx * by - zy * bx),
        zx * bx + zy * by + zz * bz,
      );
      const miss = bend < min ? min - bend : bend > max ? bend - max : 0;
      if (miss < bestMiss - 1e-12 || (miss <= bestMiss + 1e-12 && Math.abs(roll) < Math.abs(bestRoll))) {
        bestMiss = miss;
        bestRoll = roll;
      }
    }
  }

  // The weight of the proposed roll against the input's: 1 once the bend is clear or the solve is no small
  // step (the input's roll means nothing to a new reach), fading smoothly to 0 as both vanish.
  let trust = nl / ROLL_FADE_SIN;
  trust = trust >= 1 ? 1 : trust * trust * (3 - 2 * trust);
  measureStep(plan, c, ch, positions);
  let step = temp[STEP];
  step = step >= 1 ? 1 : step * step * (3 - 2 * step);
  trust = 1 - (1 - trust) * (1 - step);
  // How far the swivel may move from the input's in a small step: a target that moved by m, seen from r's
  // bone at the distance of the tip, subtends about m / lever.
  let cap = Infinity;
  if (temp[TIP] >= 0 && temp[STEP] < 1) {
    // Before the tip is placed in this pass, positions hold it at its target.
    const t3 = 3 * temp[TIP];
    const lx = positions[t3] - positions[c3],
      ly = positions[t3 + 1] - positions[c3 + 1],
      lz = positions[t3 + 2] - positions[c3 + 2];
    const ux = ly * az - lz * ay,
      uy = lz * ax - lx * az,
      uz = lx * ay - ly * ax;
    const lever = Math.sqrt(ux * ux + uy * uy + uz * uz);
    if (lever > DEGENERATE * plan.scratch.boneLength[ch]) cap = (ROLL_PER_STEP * temp[MOTION]) / lever;
  }
  if (trust < 1 || cap < Math.PI) {
    // The input's roll: r's input local under its parent as it is now, whose hinge axis, across d1, lies
    // at `anchor` from the candidate's.
    const p = plan.rig.parents[r];
    const inputLocal = plan.scratch.inputLocal;
    if (p >= 0) quatMultiply(temp, L, orientations, 4 * p, inputLocal, 4 * r);
    else for (let i = 0; i < 4; i++) temp[L + i] = inputLocal[4 * r + i];
    quatMultiply(temp, L, temp, L, limits.restLocal, c4);
    quatRotate(temp, V, temp, L, limits.hingeAxis, c3);
    const gd = temp[V] * ax + temp[V + 1] * ay + temp[V + 2] * az;
    const gx = temp[V] - gd * ax,
      gy = temp[V + 1] - gd * ay,
      gz = temp[V + 2] - gd * az;
    let anchor = 0;
    if (gx * gx + gy * gy + gz * gz > 1e-12)
      anchor = Math.atan2(
        ax * (hy * gz - hz * gy) + ay * (hz * gx - hx * gz) + az * (hx * gy - hy * gx),
        hx * gx + hy * gy + hz * gz,
      );
    // From the input's roll toward the proposed one, the shorter way round, weighted and bounded.
    let d = bestRoll - anchor;
    d = d > Math.PI ? d - 2 * Math.PI : d < -Math.PI ? d + 2 * Math.PI : d;
    d *= trust;
    d = d > cap ? cap : d < -cap ? -cap : d;
    bestRoll = anchor + d;
  }
  if (bestRoll === 0) return;
  const s = Math.sin(0.5 * bestRoll);
  temp[R] = ax * s;
  temp[R + 1] = ay * s;
  temp[R + 2] = az * s;
  temp[R + 3] = Math.cos(0.5 * bestRoll);
  quatMultiply(candidate, 0, temp, R, candidate, 0);
}

/**
 * For the chain from joint `j` down to its effector (while it does not branch): temp[TIP] = that effector,
 * temp[MOTION] = how far its target is from where the input pose had it, seen from j's parent (the joint
 * whose turn is at stake) and leaving out what lies beyond the reach of the chain below it; temp[STEP] = that
 * distance in STEP_FRACTIONs of that reach: below 1 the solve is a step of a continuing motion (a warm start),
 * from 1 on a new reach. Both passes call it while the effector still sits where the forward pass put it (its
 * target). Input positions are the base (which does not move within a component) plus each bone on the
 * effector's path at its input length and direction. A branching chain has no one target to follow: a new
 * reach (temp[TIP] = -1).
 */
function measureStep(plan: SolvePlan, c: number, j: number, positions: Float64Array): void {
  const { activeChildStart, activeChildren, effectorPath, effectorPathStart } = plan;
  const { rotatingIndex, effectorOf, boneLength, inputDirection } = plan.scratch;
  temp[STEP] = 1;
  temp[MOTION] = Infinity;
  temp[TIP] = -1;
  let tip = j;
  while (effectorOf[tip] < 0) {
    const ri = rotatingIndex[tip];
    if (ri < 0 || activeChildStart[ri + 1] - activeChildStart[ri] !== 1) return;
    tip = activeChildren[activeChildStart[ri]];
  }
  const e = effectorOf[tip];
  const pivot = plan.rig.parents[j];
  const b3 = 3 * plan.componentBase[c];
  // The input pose's pivot (px..) and tip (x..), relative to the base; the reach below the pivot.
  let px = 0,
    py = 0,
    pz = 0,
    x = 0,
    y = 0,
    z = 0,
    reach = 0;
  for (let i = effectorPathStart[e]; i < effectorPathStart[e + 1]; i++) {
    const k = effectorPath[i];
    const len = boneLength[k];
    x += len * inputDirection[3 * k];
    y += len * inputDirection[3 * k + 1];
    z += len * inputDirection[3 * k + 2];
    reach += len;
    if (k === pivot) {
      px = x;
      py = y;
      pz = z;
      reach = 0;
    }
  }
  if (!(reach > 0)) return;
  x -= px;
  y -= py;
  z -= pz;
  // A target out of reach counts where the chain can go toward it: brought onto the reach sphere, so an
  // arm held out toward it is one step from it, however far beyond it lies.
  const t3 = 3 * tip;
  let tx = positions[t3] - positions[b3] - px,
    ty = positions[t3 + 1] - positions[b3 + 1] - py,
    tz = positions[t3 + 2] - positions[b3 + 2] - pz;
  const distance = Math.sqrt(tx * tx + ty * ty + tz * tz);
  if (distance > reach) {
    const s = reach / distance;
    tx *= s;
    ty *= s;
    tz *= s;
  }
  x -= tx;
  y -= ty;
  z -= tz;
  const motion = Math.sqrt(x * x + y * y + z * z);
  temp[TIP] = tip;
  temp[MOTION] = motion;
  temp[STEP] = motion / (STEP_FRACTION * reach);
}

/**
 * Forward pass, before a one-sided hinge `j` is aligned to its child: FABRIK puts j back along the line
 * toward where it was, which near straight creeps (a fraction of a millimetre per iteration, while the
 * short bones at the tip fold instead) and bends in whatever plane the target's last motion suggests, often
 * one the hinge cannot bend in. In a small step (see measureStep) with j nearly straight, move j toward
 * where the law of cosines puts it between its parent (where the last pass left it) and its child, on the
 * side the hinge bends to in the plane its axis has now: the limb straightens and bends at its elbow, in the
 * plane it had. Both conditions fade in smoothly; a new reach or a clearly bent hinge keeps FABRIK's
 * placement, and the roll chooses the plane.
 */
export function placeHinge(
  plan: SolvePlan,
  c: number,
  j: number,
  ch: number,
  positions: Float64Array,
  orientations: Float64Array,
): void {
  const limits = plan.limits;
  // A hinge that bends both ways never locks straight: FABRIK's plane is as good as any there.
  const side = limits.hinge[2 * j] >= 0 ? 1 : limits.hinge[2 * j + 1] <= 0 ? -1 : 0;
  if (side === 0) return;
  measureStep(plan, c, j, positions);
  let step = temp[STEP];
  if (!(step < 1)) return;
  const p3 = 3 * plan.rig.parents[j],
    j3 = 3 * j,
    c3 = 3 * ch;
  const { boneLength } = plan.scratch;
  const a = boneLength[j],
    b = boneLength[ch];
  // The bend at j now, as the sine of the angle between its bone and its child's.
  const ax = positions[j3] - positions[p3],
    ay = positions[j3 + 1] - positions[p3 + 1],
    az = positions[j3 + 2] - positions[p3 + 2];
  const bx = positions[c3] - positions[j3],
    by = positions[c3 + 1] - positions[j3 + 1],
    bz = positions[c3 + 2] - positions[j3 + 2];
  const sx = ay * bz - az * by,
    sy = az * bx - ax * bz,
    sz = ax * by - ay * bx;
  const lengths = (ax * ax + ay * ay + az * az) * (bx * bx + by * by + bz * bz);
  if (!(lengths > 0) || !(a > 0) || !(b > 0)) return;
  let bend = Math.sqrt((sx * sx + sy * sy + sz * sz) / lengths) / PLACE_FADE_SIN;
  if (!(bend < 1)) return;
  // The line from the base to the child, and the side j goes to: u × axis bends the hinge the positive way.
  let ux = positions[c3] - positions[p3],
    uy = positions[c3 + 1] - positions[p3 + 1],
    uz = positions[c3 + 2] - positions[p3 + 2];
  const d = Math.sqrt(ux * ux + uy * uy + uz * uz);
  if (!(d > DEGENERATE * (a + b))) return;
  ux /= d;
  uy /= d;
  uz /= d;
  quatRotate(temp, V, orientations, 4 * j, limits.hingeAxis, j3);
  let ex = uy * temp[V + 2] - uz * temp[V + 1],
    ey = uz * temp[V] - ux * temp[V + 2],
    ez = ux * temp[V + 1] - uy * temp[V];
  const el = Math.sqrt(ex * ex + ey * ey + ez * ez);
  if (!(el > 1e-12)) return;
  ex *= side / el;
  ey *= side / el;
  ez *= side / el;
  let axis = el / PLACE_AXIS_SIN;
  axis = axis >= 1 ? 1 : axis * axis * (3 - 2 * axis);
  step = step * step * (3 - 2 * step);
  bend = bend * bend * (3 - 2 * bend);
  const w = (1 - step) * (1 - bend) * axis;
  const dc = d < Math.abs(a - b) ? Math.abs(a - b) : d > a + b ? a + b : d;
  const x = (a * a - b * b + dc * dc) / (2 * dc);
  const h = Math.sqrt(Math.max(0, a * a - x * x));
  positions[j3] += w * (positions[p3] + x * ux + h * ex - positions[j3]);
  positions[j3 + 1] += w * (positions[p3 + 1] + x * uy + h * ey - positions[j3 + 1]);
  positions[j3 + 2] += w * (positions[p3 + 2] + x * uz + h * ez - positions[j3 + 2]);
}
