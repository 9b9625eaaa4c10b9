/*
 * Where LookAt keeps its numbers.
 */

/* Slots of the scalar array: every per-frame number lives here (doubles crossing calls V8 does not
   inline are boxed), vectors and quaternions included. */
export const DT = 0;
export const SMOOTHING = 1;
export const FRACTION = 2;
export const LAYER_WEIGHT = 3;
export const DISTANCE = 4;
/** The head's gaze in its own frame (constant). */
export const GAZE_LOCAL = 5;
/** Model space: world up, the animated eye and gaze, the wanted gaze, the look point. */
export const UP = 8;
export const EYE = 11;
export const GAZE = 14;
export const WANTED = 17;
export const LOOK = 20;
/** World space: the eye, the smoothed gaze, its goal, the target point. */
export const EYE_WORLD = 23;
export const DIR = 26;
export const GOAL_DIR = 29;
export const POINT = 32;
/** The share-out: the rigid motion so far (x' = carry·x + shift), and per joint values. */
export const CARRY = 35;
export const SHIFT = 39;
export const PIVOT = 42;
export const CUR_GAZE = 45;
export const CUR_EYE = 48;
export const TO = 51;
export const TURN = 54;
export const SHARE = 58;
export const ORIENTATION = 62;
export const PARENT = 66;
export const LOCAL = 70;
export const HEAD = 74;
export const SCRATCH = 78;
// The shown and the goal weight live here too: as object fields they were boxed in some JIT tiers.
export const CURRENT = 96;
export const GOAL_WEIGHT = 97;
export const SLOTS = 100;
