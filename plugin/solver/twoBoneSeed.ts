import type { SolvePlan } from "./plan.js";

/**
 * FABRIK converges slowly on a limb that is almost straight (a standing leg at 99.9 % of its length needs
 * tens of iterations for a few millimetres). A two-bone chain has a closed-form answer, so before iterating
 * put its middle joint where the law of cosines says, in the plane it already bends in: the passes that
 * follow then only confirm it (or, under limits, correct it). A straight limb keeps its line: the pole or
 * the collinear bend decides its plane.
 */
export function seedTwoBoneChain(
  plan: SolvePlan,
  c: number,
  positions: Float64Array,
  targets: Float64Array,
): void {
  if (!plan.componentIsPath[c] || plan.componentStart[c + 1] - plan.componentStart[c] !== 2) return;
  const { activeJoints, scratch } = plan;
  const mid = activeJoints[plan.componentStart[c]],
    tip = activeJoints[plan.componentStart[c] + 1];
  const e3 = 3 * plan.componentEffectors[plan.componentEffectorStart[c]];
  const b3 = 3 * plan.componentBase[c],
    m3 = 3 * mid;
  const a = scratch.boneLength[mid],
    b = scratch.boneLength[tip];
  if (!(a > 0) || !(b > 0)) return;
  let nx = targets[e3] - positions[b3],
    ny = targets[e3 + 1] - positions[b3 + 1],
    nz = targets[e3 + 2] - positions[b3 + 2];
  let d = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(d > 1e-12)) return;
  nx /= d;
  ny /= d;
  nz /= d;
  d = Math.min(Math.max(d, Math.abs(a - b)), a + b);
  // The bend direction: the middle joint's offset from the base-target line, as it is now.
  const vx = positions[m3] - positions[b3],
    vy = positions[m3 + 1] - positions[b3 + 1],
    vz = positions[m3 + 2] - positions[b3 + 2];
  const along = vx * nx + vy * ny + vz * nz;
  let px = vx - along * nx,
    py = vy - along * ny,
    pz = vz - along * nz;
  const pl = Math.sqrt(px * px + py * py + pz * pz);
  if (!(pl > 1e-9 * a)) return;
  px /= pl;
  py /= pl;
  pz /= pl;
  const x = (a * a - b * b + d * d) / (2 * d);
  const h = Math.sqrt(Math.max(0, a * a - x * x));
  positions[m3] = positions[b3] + x * nx + h * px;
  positions[m3 + 1] = positions[b3 + 1] + x * ny + h * py;
  positions[m3 + 2] = positions[b3 + 2] + x * nz + h * pz;
}
