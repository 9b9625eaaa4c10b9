// Targets just off a straight chain's own line (issue 18, item 1): the chain must bend although its passes
// see an almost collinear problem.
import { createPose } from "../../../plugin/index.js";
import { random, straightChain } from "../fixtures.js";
import type { IkCase } from "./ikCase.js";

export const NEAR_LINE_BONES = 10;
/** How far off the line the targets lie, in bone lengths. */
export const NEAR_LINE_OFFSETS = [1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3];
/** Where along the line (the chain runs from 0 to 10 along +Y): ahead of the root, and behind it. */
export const NEAR_LINE_DISTANCES = [-6, -2, 1, 2.5, 4, 5.5, 7, 8.5, 9.5, 9.9];

/**
 * Every offset at every distance, off the line in a random direction (seeded), on an unlimited chain of 10
 * bones of 1 along +Y, straight at rest. `settings` as given (the reproducer: tolerance 0.01, 1000
 * iterations).
 */
export function nearLineCases(seed: number, settings: IkCase["settings"]): IkCase[] {
  const rig = straightChain(NEAR_LINE_BONES);
  const start = createPose(rig);
  const rand = random(seed);
  const cases: IkCase[] = [];
  for (const along of NEAR_LINE_DISTANCES) {
    for (const off of NEAR_LINE_OFFSETS) {
      const azimuth = 2 * Math.PI * rand();
      cases.push({
        label: `near-line y ${along}, off ${off}`,
        rig,
        effector: NEAR_LINE_BONES,
        start,
        target: Float64Array.of(off * Math.cos(azimuth), along, off * Math.sin(azimuth)),
        settings,
        scale: NEAR_LINE_BONES,
      });
    }
  }
  return cases;
}
