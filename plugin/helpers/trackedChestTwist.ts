import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { APPLIED, HEAD, LEFT_HAND, SPINE_TWIST, VALID } from "./trackedSlots.js";

/**
 * The share of the last solution's twist the spine starts from while the hands ask for none (see
 * TrackedWarmStart): arms hanging and bent swing about the shoulders, and the chest stays square with the hips.
 */
const SQUARE_TWIST = 0.3;
/**
 * The highest tracked hand's height above the shoulders, as a fraction of the arm's length, below which the
 * arms count as hanging, and above which as raised: a hand lifted toward shoulder height takes the shoulder
 * girdle, and with it the chest, along.
 */
const HANGING = -0.5;
const RAISED = -0.1;
/**
 * How straight an arm was in the last solution (its hand's distance from its shoulder over its length) from
 * which it starts, and at which it fully has, asked for the chest's twist: a hand at the end of a straight arm
 * is reached by bringing the shoulder toward it.
 */
const BENT = 0.95;
const STRAIGHT = 0.99;

/**
 * `v[SPINE_TWIST]`: how much of the last solution's twist about the spine the next solve starts from, given
 * how straight the straighter arm was in it (`stretch[0]`). `SQUARE_TWIST` while the hands ask for no twist:
 * a walk's swinging arms otherwise turned the chest with them frame after frame (the solve keeps the twist it
 * starts from), 12° from the hips on average in the robot's walk, whose clip keeps it square; the solve
 * still twists the spine as far as the hands need. All of it with a hand raised toward the shoulders or at
 * the end of a straight arm, and with no hand tracked (the twist is then the head's).
 */
export function chestTwistShare(v: Float64Array, body: TrackedBodyRig, stretch: Float64Array): void {
  const up = body.frame;
  const shoulders = v[HEAD] * up[3] + v[HEAD + 1] * up[4] + v[HEAD + 2] * up[5] - body.shoulderDrop;
  let raise = -Infinity;
  for (let i = 0; i < 2; i++) {
    const t = LEFT_HAND + 9 * i;
    if (v[VALID + 1 + i] !== 1 || !(v[APPLIED + 1 + i] > 0)) continue;
    const h = (v[t] * up[3] + v[t + 1] * up[4] + v[t + 2] * up[5] - shoulders) / body.armLength;
    if (h > raise) raise = h;
  }
  // The larger of the two asks, each 0 below its first bound and 1 above its second, smooth between (written
  // out: a double returned from a call V8 does not inline is boxed).
  const x = Math.max((raise - HANGING) / (RAISED - HANGING), (stretch[0] - BENT) / (STRAIGHT - BENT));
  const asked = raise === -Infinity || x >= 1 ? 1 : x <= 0 ? 0 : x * x * (3 - 2 * x);
  v[SPINE_TWIST] = SQUARE_TWIST + (1 - SQUARE_TWIST) * asked;
}
