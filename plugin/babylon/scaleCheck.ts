import { FabrikError } from "../solver/errors.js";
import type { SkeletonRig } from "./skeletonRig.js";

/*
 * The solver turns bones by rotations and carries a joint's orientation down to its children as a product of
 * rotations. A scale inside the skeleton whose signs differ (a mirror, (-1, 1, 1), or a half turn written as
 * scale, (-1, -1, 1)) is neither: the bones below it would be turned the wrong way, their targets missed by
 * as much as the limb is long, without a word. A uniform scale, negative or not, commutes with every
 * rotation and is fine, and so is any scale above the skeleton (glTF's mirrored `__root__`).
 */

/** The joint's scale now (its node's, times Babylon's mirror determinant; a bare Bone's) and at rest. */
function scalesOf(rig: SkeletonRig, j: number): number[][] {
  const node = rig.nodes[j];
  const source = node ?? rig.bones[j][0];
  const s = source.scaling;
  const det = node?.scalingDeterminant ?? 1;
  const r = rig.restScales;
  return [
    [s.x * det, s.y * det, s.z * det],
    [r[3 * j], r[3 * j + 1], r[3 * j + 2]],
  ];
}

function flipped(s: readonly number[]): boolean {
  const negative = (s[0] < 0 ? 1 : 0) + (s[1] < 0 ? 1 : 0) + (s[2] < 0 ? 1 : 0);
  return negative !== 0 && negative !== 3;
}

/**
 * Throws a {@link FabrikError} naming the first joint, from `j` up to the root, whose scale (now or at rest)
 * has signs that differ: the solve would turn the bones below it the wrong way.
 */
export function refuseFlippedScale(rig: SkeletonRig, j: number, who: string): void {
  for (let k = j; k >= 0; k = rig.parents[k]) {
    for (const s of scalesOf(rig, k)) {
      if (!flipped(s)) continue;
      throw new FabrikError(
        `${who}: "${rig.names[k]}" is scaled (${s.map((v) => +v.toPrecision(4)).join(", ")}), a mirror or a ` +
          "half turn inside the skeleton, which the solve would carry to the bones below it the wrong way; " +
          "a uniform scale (negative or not) and any scale above the skeleton are fine: apply this one in " +
          "the exporter, or bake it into the rest pose",
        k,
        "joint",
      );
    }
  }
}
