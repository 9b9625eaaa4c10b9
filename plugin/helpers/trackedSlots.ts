/*
 * Slots of a tracked body's per-frame numbers, all in one Float64Array (doubles crossing calls V8 does not
 * inline are boxed; typed-array slots are not). Model space unless said otherwise.
 */

/** Each tracker's read: position, forward, up (9 numbers), in the order of `TRACKED_POINTS`. */
export const TRACKER = 0;
export const TRACKER_SIZE = 9;
export const HEAD = 0;
export const LEFT_HAND = 9;
export const RIGHT_HAND = 18;
export const HIPS_TRACKER = 27;
export const LEFT_FOOT_TRACKER = 36;
export const RIGHT_FOOT_TRACKER = 45;
/** The body's heading: a unit vector square to up. */
export const HEADING = 54;
/** Where the head's heading points this frame (before smoothing). */
export const HEAD_HEADING = 57;
/** The midpoint of the feet on the ground. */
export const SUPPORT = 60;
/** The hips' place and orientation this frame. */
export const HIPS_POS = 63;
export const HIPS_ROT = 66;
/** The turn from the rest body frame to the heading frame. */
export const YAW = 70;
/** The spine's lean (radians) and the time step. */
export const LEAN = 74;
export const DT = 75;
/** Left (up × heading). */
export const LEFT = 76;
/** The horizontal direction from the hips to the head (unit, or zero). */
export const LEAN_DIR = 79;
/** Scratch vectors and quaternions. */
export const A = 82;
export const B = 85;
export const C = 88;
export const Q1 = 91;
export const Q2 = 95;
export const Q3 = 99;
/** Nine numbers of scratch for `frameQuaternion`. */
export const FRAME_SCRATCH = 103;
/** The targets written this frame: head, hands, feet (position 3 + rotation 4 each). */
export const HEAD_TARGET = 112;
export const HAND_TARGET = 119; // two of 7
export const FOOT_TARGET = 133; // two of 7
/** Applied (faded) weights, in the order of `TRACKED_POINTS`. */
export const APPLIED = 147;
/** Whether each tracker's read was usable (1) this frame. */
export const VALID = 153;
/** The weight the body shows this frame, and the one given to an effector (slots, not arguments: see above). */
export const BODY_WEIGHT = 159;
export const WEIGHT = 160;
/** Warm-start weights: spine, left arm, right arm (and a spare, 0). */
export const WARM = 161;
/** The share of the hips' place the body model decides (1 less a hips tracker's weight). */
export const HIPS_FREE = 165;
/** The way the hands say the chest faces: from the head toward their midpoint, on the ground (unit). */
export const HANDS_HEADING = 166;
/** The ground's height under the feet (the mean of the two, along up): the hips stand over it. */
export const GROUND_LEVEL = 169;
/** The share of the last solution's twist the spine starts from (see `chestTwistShare`). */
export const SPINE_TWIST = 170;
/** How far the body is down to the floor: 0 standing or crouching, 1 lying (see `floorDepth`). */
export const FLOOR = 171;
/** The span from hips to head the spine is given this frame (placeHips: a leaning spine curls a little). */
export const SPINE_SPAN = 172;
/** How far the floor has moved the hips from where the body on its feet would put them (kept frame to frame). */
export const FLOOR_OFFSET = 173;
export const SLOTS = 176;
