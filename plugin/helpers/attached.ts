import type { FabrikBehavior, SkeletonRig } from "../babylon/index.js";
import { FabrikError } from "../solver/index.js";

/**
 * The rig of an attached behavior; helpers need it, so they are built after attaching and say so otherwise
 * (Babylon defers `addBehavior` while a scene is loading unless asked not to).
 */
export function attachedRig(ik: FabrikBehavior, who: string): SkeletonRig {
  const rig = ik.rig;
  if (ik.attachedNode === null || rig === null) {
    throw new FabrikError(
      `${who}: the behavior is not attached; add it to the character first (mesh.addBehavior(ik, true))`,
    );
  }
  return rig;
}
