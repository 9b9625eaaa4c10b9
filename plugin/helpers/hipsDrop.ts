import type { FabrikFrame } from "../babylon/index.js";
import type { ResolvedLeg } from "./footLegs.js";
import type { FootSettings } from "./footPlacementOptions.js";
import {
  APPLIED,
  BASE,
  DELTA,
  DROP,
  FOOT,
  FOOT_MODEL,
  LENGTH,
  MODEL_PER_WORLD,
  REACH,
  SHIN_REACH,
  SHIN_STRETCH,
  TARGET,
  VECTOR,
} from "./footSlots.js";
import type { LegState } from "./legState.js";

/*
 * How far the hips come down so every leg reaches its ground, and the lowering itself. Numbers travel in the
 * frame's scalars `n` and each leg's state (see footSlots).
 */

/**
 * Into `n[DROP]`: how far the hips must come down for the leg to reach its target without stretching past
 * the larger of its animated stretch and `legExtension` of its length, i.e. the least d ≥ 0 with
 * |T − (B − d·up)| ≤ reach.
 */
export function neededDrop(
  settings: FootSettings,
  n: Float64Array,
  positions: Float64Array,
  parents: Int32Array,
  leg: LegState,
): void {
  const s = leg.s;
  if (leg.leg.shin >= 0) shinReach(settings, n, positions, leg);
  else footReach(settings, n, positions, parents, leg);
  const reach = n[REACH];
  const vx = s[TARGET] - s[BASE],
    vy = s[TARGET + 1] - s[BASE + 1],
    vz = s[TARGET + 2] - s[BASE + 2];
  const vv = vx * vx + vy * vy + vz * vz;
  if (vv <= reach * reach) {
    n[DROP] = 0;
    return;
  }
  // |v + d·up|² = reach² → d² + 2·vy·d + (vv − reach²) = 0; the smaller root is the least drop.
  const disc = vy * vy - vv + reach * reach;
  const d = disc >= 0 ? -vy - Math.sqrt(disc) : -vy;
  n[DROP] = d > 0 ? d : 0;
}

/** Into `n[REACH]`: how far (world units) the leg may stretch, the larger of as animated and as allowed. */
function footReach(
  settings: FootSettings,
  n: Float64Array,
  positions: Float64Array,
  parents: Int32Array,
  leg: LegState,
): void {
  const s = leg.s;
  const ax = s[FOOT] - s[BASE],
    ay = s[FOOT + 1] - s[BASE + 1],
    az = s[FOOT + 2] - s[BASE + 2];
  const animated = Math.sqrt(ax * ax + ay * ay + az * az);
  legLength(n, positions, parents, leg.leg, s, FOOT_MODEL);
  n[REACH] = Math.max(animated, (settings.legExtension * n[LENGTH]) / n[MODEL_PER_WORLD]);
}

/**
 * {@link footReach} for a foot at a shin's end: the shin as the limits keep it, and no straighter than its
 * hinge lets it get.
 */
function shinReach(settings: FootSettings, n: Float64Array, positions: Float64Array, leg: LegState): void {
  const s = leg.s;
  shinLength(n, positions, leg.leg, s, FOOT_MODEL);
  const extended = Math.min(settings.legExtension * n[LENGTH], s[SHIN_REACH]);
  n[REACH] = Math.max(s[SHIN_STRETCH], extended) / n[MODEL_PER_WORLD];
}

/**
 * Into `n[LENGTH]`: the leg's length along its chain, in model units, on the pose `positions`; for a foot at
 * a shin's end, to the foot at `foot[fo..fo+2]` (see `footPoint`).
 */
export function legLength(
  n: Float64Array,
  positions: Float64Array,
  parents: Int32Array,
  leg: ResolvedLeg,
  foot: Float64Array,
  fo: number,
): void {
  if (leg.shin >= 0) {
    shinLength(n, positions, leg, foot, fo);
    return;
  }
  const p = positions;
  let length = 0;
  for (let j = leg.foot; j !== leg.base; j = parents[j]) {
    const k = parents[j];
    const dx = p[3 * j] - p[3 * k],
      dy = p[3 * j + 1] - p[3 * k + 1],
      dz = p[3 * j + 2] - p[3 * k + 2];
    length += Math.sqrt(dx * dx + dy * dy + dz * dz);
  }
  n[LENGTH] = length;
}

/** {@link legLength} of a foot at a shin's end: the thigh, and the shin to where the foot sits. */
function shinLength(n: Float64Array, p: Float64Array, leg: ResolvedLeg, foot: Float64Array, c: number): void {
  const a = 3 * leg.base,
    b = 3 * leg.shin;
  const tx = p[b] - p[a],
    ty = p[b + 1] - p[a + 1],
    tz = p[b + 2] - p[a + 2];
  const sx = foot[c] - p[b],
    sy = foot[c + 1] - p[b + 1],
    sz = foot[c + 2] - p[b + 2];
  n[LENGTH] = Math.sqrt(tx * tx + ty * ty + tz * tz) + Math.sqrt(sx * sx + sy * sy + sz * sz);
}

/** Moves joint `hips` `n[APPLIED]` world units down, in its parent's space, in the frame's pose. */
export function lowerHips(n: Float64Array, frame: FabrikFrame, parents: Int32Array, hips: number): void {
  const w2m = frame.worldToModel;
  const drop = n[APPLIED];
  // World (0, −drop, 0) in model space, then in the parent's space.
  n[DELTA] = -drop * w2m[4];
  n[DELTA + 1] = -drop * w2m[5];
  n[DELTA + 2] = -drop * w2m[6];
  if (!frame.toJointSpace(parents[hips], n, DELTA)) return;
  frame.getLocalPosition(hips, n, VECTOR);
  n[VECTOR] += n[DELTA];
  n[VECTOR + 1] += n[DELTA + 1];
  n[VECTOR + 2] += n[DELTA + 2];
  frame.setLocalPosition(hips, n, VECTOR);
}
