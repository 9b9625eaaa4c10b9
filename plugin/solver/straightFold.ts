import { bendingPathStart } from "./carriedChains.js";
import { foldAtHinge, hingeSide } from "./hingeFold.js";
import type { SolvePlan } from "./plan.js";

/**
 * This file's temporaries, handed from foldChains and foldSwivelled down to bendPath: the chain's own bend
 * and the target's side across the line; the chain's length; a restart's swivel.
 */
const temp = new Float64Array(8);
const BEND = 0;
const AIM = 3;
const LENGTH = 6;
const SWIVEL = 7;
const GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5));

/**
 * A straight chain counts as lying along its line when every joint is within this fraction of its length
 * from it.
 */
const NEAR_LINE = 0.01;
/**
 * A straight chain folds before iterating unless its target lies more than FAR_FROM_LINE of its length off
 * its line and nearer than NEAR_FULL of its length: there FABRIK folds it in a few passes by itself, and
 * keeps the configuration it has been keeping; near the line (a target 1e-3 of the length off the line of a
 * straight 10-bone chain took some 30 passes) or near full length it only creeps.
 */
const FAR_FROM_LINE = 0.2;
const NEAR_FULL = 0.9;

/**
 * A chain lying along the line to its target (as a limb standing straight does) barely moves under FABRIK:
 * its passes move joints along the lines between them, so a straight chain whose target lies on its own
 * line never leaves it, and one whose target is slightly off it needs many passes to fold (Aristidou et al.
 * 2016 perturb it). So before iterating, a chain whose joints all lie within NEAR_LINE of its length from
 * its line is folded to its target (see {@link bendPath}), unless the target is far off that line and well
 * within reach (FAR_FROM_LINE, NEAR_FULL). With `always`, every unmet chain is folded however it lies: the
 * escape of a free chain that stalled.
 */
export function foldChains(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  always: boolean,
): void {
  temp[SWIVEL] = 0;
  foldEach(plan, c, positions, orientations, targets, always);
}

/**
 * Restart number k of a limited component: every unmet chain that bends at a one-sided hinge folded as
 * {@link foldChains} does when `always`, its plane turned about the line to the target by k golden angles, so
 * successive restarts try planes spread evenly around it (the plane a limb bends in is what its limits most
 * often rule out). Other chains keep the restart's pose.
 */
export function foldSwivelled(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  k: number,
): void {
  temp[SWIVEL] = k * GOLDEN_ANGLE + 1;
  foldEach(plan, c, positions, orientations, targets, true);
}

function foldEach(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
  always: boolean,
): void {
  const tolerance = plan.scratch.tolerance[0];
  const { effectorPath, effectorPathStart } = plan;
  const boneLength = plan.scratch.boneLength;
  for (let k = plan.componentEffectorStart[c]; k < plan.componentEffectorStart[c + 1]; k++) {
    const e = plan.componentEffectors[k];
    // The path it bends as a whole: from the component's base, or below a carried chain's base.
    const first = bendingPathStart(plan, e),
      last = effectorPathStart[e + 1];
    if (last - first < 2 || plan.effectorHasPole[e]) continue; // one bone cannot bend; a pole decides itself
    const b3 = 3 * plan.rig.parents[effectorPath[first]];
    const bx = positions[b3],
      by = positions[b3 + 1],
      bz = positions[b3 + 2];
    if (plan.report.residuals[e] <= tolerance) continue; // measured just before

    let length = 0;
    for (let i = first; i < last; i++) length += boneLength[effectorPath[i]];
    if (length <= 0) continue;
    // The chain's line: from the base through the farthest joint of the path.
    let ux = 0,
      uy = 0,
      uz = 0,
      far = 0;
    for (let i = first; i < last; i++) {
      const j3 = 3 * effectorPath[i];
      const dx = positions[j3] - bx,
        dy = positions[j3 + 1] - by,
        dz = positions[j3 + 2] - bz;
      const d = dx * dx + dy * dy + dz * dz;
      if (d > far) {
        far = d;
        ux = dx;
        uy = dy;
        uz = dz;
      }
    }
    if (far <= 0) {
      // Every joint sits on the base: a fully folded, zero-extent chain. Use the first bone's input direction.
      const j3 = 3 * effectorPath[first];
      ux = plan.scratch.inputDirection[j3];
      uy = plan.scratch.inputDirection[j3 + 1];
      uz = plan.scratch.inputDirection[j3 + 2];
    } else {
      const inv = 1 / Math.sqrt(far);
      ux *= inv;
      uy *= inv;
      uz *= inv;
    }
    // The joints' offsets across the line (the widest, and their sum: the chain's own bend) and the
    // target's (its side), to bend toward.
    let widest = 0,
      distance = 0,
      aside = 0;
    temp[BEND] = 0;
    temp[BEND + 1] = 0;
    temp[BEND + 2] = 0;
    for (let i = first - 1; i < last; i++) {
      const source = i < first ? targets : positions;
      const o3 = i < first ? 3 * e : 3 * effectorPath[i];
      const x = source[o3] - bx,
        y = source[o3 + 1] - by,
        z = source[o3 + 2] - bz;
      const t = x * ux + y * uy + z * uz;
      const rx = x - t * ux,
        ry = y - t * uy,
        rz = z - t * uz;
      if (i < first) {
        distance = Math.sqrt(x * x + y * y + z * z);
        aside = Math.sqrt(rx * rx + ry * ry + rz * rz);
        temp[AIM] = rx;
        temp[AIM + 1] = ry;
        temp[AIM + 2] = rz;
        continue;
      }
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 > widest) widest = r2;
      temp[BEND] += rx;
      temp[BEND + 1] += ry;
      temp[BEND + 2] += rz;
    }
    if (!always) {
      const slack = NEAR_LINE * length;
      // A bent chain folds under FABRIK by itself, and so does a straight one toward a target well off its
      // line and well within its length; near the line, or near full length, it only creeps.
      if (widest > slack * slack) continue;
      if (aside > FAR_FROM_LINE * length && distance < NEAR_FULL * length) continue;
    }
    const line = plan.scratch.foldLine;
    line[0] = ux;
    line[1] = uy;
    line[2] = uz;
    temp[LENGTH] = length;
    bendPath(plan, c, e, positions, orientations, targets);
  }
}

/**
 * Bends effector e's path (line direction in foldLine, the joints' summed offsets across it in
 * temp[BEND..], the target's in temp[AIM..], its length in temp[LENGTH]) into an arc whose bones are chords of
 * one circle, from the base exactly to the target (or as near as its length allows): the passes that follow
 * start from an even fold that already fits, instead of spending many passes folding a straight chain. The side, first found first: where the path's first hinge bends within its range (folding the other
 * way bends a knee or an elbow backwards, which the limit must then undo); where the chain already bends,
 * so a limb passing through straight keeps its plane from frame to frame; toward the target; across the
 * world axis least aligned with the line. The same input always bends the same way.
 */
function bendPath(
  plan: SolvePlan,
  c: number,
  e: number,
  positions: Float64Array,
  orientations: Float64Array,
  targets: Float64Array,
): void {
  const { effectorPath, effectorPathStart } = plan;
  const { foldLine, foldSide } = plan.scratch;
  const length = temp[LENGTH];
  const ux = foldLine[0],
    uy = foldLine[1],
    uz = foldLine[2];
  const tiny = 1e-9 * length;
  let px: number, py: number, pz: number;
  const bl = Math.sqrt(temp[BEND] ** 2 + temp[BEND + 1] ** 2 + temp[BEND + 2] ** 2);
  const al = Math.sqrt(temp[AIM] ** 2 + temp[AIM + 1] ** 2 + temp[AIM + 2] ** 2);
  const hinge = hingeSide(plan, e, orientations);
  if (hinge >= 0) {
    px = foldSide[0];
    py = foldSide[1];
    pz = foldSide[2];
  } else if (bl > tiny) {
    px = temp[BEND];
    py = temp[BEND + 1];
    pz = temp[BEND + 2];
  } else if (al > tiny) {
    px = temp[AIM];
    py = temp[AIM + 1];
    pz = temp[AIM + 2];
  } else {
    const ax = Math.abs(ux),
      ay = Math.abs(uy),
      az = Math.abs(uz);
    if (ax <= ay && ax <= az) {
      px = 0;
      py = uz;
      pz = -uy;
    } else if (ay <= az) {
      px = -uz;
      py = 0;
      pz = ux;
    } else {
      px = uy;
      py = -ux;
      pz = 0;
    }
  }
  // The arc runs from the base to the target: its plane holds the line to the target and the side.
  const b3 = 3 * plan.rig.parents[effectorPath[bendingPathStart(plan, e)]];
  const e3 = 3 * e;
  let tx = targets[e3] - positions[b3],
    ty = targets[e3 + 1] - positions[b3 + 1],
    tz = targets[e3 + 2] - positions[b3 + 2];
  const distance = Math.sqrt(tx * tx + ty * ty + tz * tz);
  if (distance > tiny) {
    tx /= distance;
    ty /= distance;
    tz /= distance;
  } else {
    tx = ux;
    ty = uy;
    tz = uz;
  }
  const across = px * tx + py * ty + pz * tz;
  px -= across * tx;
  py -= across * ty;
  pz -= across * tz;
  const pl = Math.sqrt(px * px + py * py + pz * pz);
  if (!(pl > 0)) return;
  px /= pl;
  py /= pl;
  pz /= pl;
  // A restart (temp[SWIVEL] = 1 + the swivel) folds hinged limbs only: an arc's plane is the restart's own.
  if (temp[SWIVEL] !== 0 && hinge < 0) return;
  const swivel = temp[SWIVEL] === 0 ? 0 : temp[SWIVEL] - 1;
  if (swivel !== 0) {
    // p turned about t: p cos + (t × p) sin (p is perpendicular to t).
    const cs = Math.cos(swivel),
      sn = Math.sin(swivel);
    const qx = ty * pz - tz * py,
      qy = tz * px - tx * pz,
      qz = tx * py - ty * px;
    px = px * cs + qx * sn;
    py = py * cs + qy * sn;
    pz = pz * cs + qz * sn;
  }
  const bx = positions[b3],
    by = positions[b3 + 1],
    bz = positions[b3 + 2];
  if (hinge >= 0) {
    const direction = plan.scratch.foldDirection;
    plan.scratch.foldDistance[0] = distance;
    direction[0] = tx;
    direction[1] = ty;
    direction[2] = tz;
    foldSide[0] = px;
    foldSide[1] = py;
    foldSide[2] = pz;
    foldAtHinge(plan, e, hinge, positions, b3);
    return;
  }
  // The path's bones as chords of one circle, of curvature k: bone i spans 2 asin(k l_i / 2) of it, and the
  // whole path spans Θ(k), so its ends lie 2 sin(Θ/2) / k apart. Θ grows with k and the span shrinks (until
  // the circle closes), so bisecting on k finds the circle whose chords reach exactly to the target.
  const { boneLength } = plan.scratch;
  const first = bendingPathStart(plan, e),
    last = effectorPathStart[e + 1];
  let longest = 0;
  for (let i = first; i < last; i++)
    if (boneLength[effectorPath[i]] > longest) longest = boneLength[effectorPath[i]];
  let lo = 0,
    hi = 2 / longest;
  for (let step = 0; step < 48; step++) {
    const k = 0.5 * (lo + hi);
    let span = 0;
    for (let i = first; i < last; i++)
      span += 2 * Math.asin(Math.min(1, 0.5 * k * boneLength[effectorPath[i]]));
    if (span >= 2 * Math.PI || (2 * Math.sin(0.5 * span)) / k < distance) hi = k;
    else lo = k;
  }
  const k = lo;
  let span = 0;
  for (let i = first; i < last; i++)
    span += 2 * Math.asin(Math.min(1, 0.5 * k * boneLength[effectorPath[i]]));
  // Walk the chords from the base: each heads half its own span past where the last one ended.
  let heading = 0.5 * span;
  let x = bx,
    y = by,
    z = bz;
  for (let i = first; i < last; i++) {
    const j = effectorPath[i];
    const len = boneLength[j];
    const half = Math.asin(Math.min(1, 0.5 * k * len));
    heading -= half;
    const a = len * Math.cos(heading),
      h = len * Math.sin(heading);
    x += a * tx + h * px;
    y += a * ty + h * py;
    z += a * tz + h * pz;
    positions[3 * j] = x;
    positions[3 * j + 1] = y;
    positions[3 * j + 2] = z;
    heading -= half;
  }
}
