/*
 * Where FootPlacement keeps its numbers: every per-frame number lives in a Float64Array (doubles passed to or
 * returned from calls V8 does not inline are boxed), one per leg and one for the frame, at these slots.
 */

/* A leg's state (`LegState.s`). */
export const WEIGHT = 0;
export const GOAL_WEIGHT = 1;
/** The ground as a smoothed plane: a point on it and its normal (world), and the goals they follow. */
export const POINT = 2;
export const GOAL_POINT = 5;
export const SURFACE = 8;
export const GOAL_SURFACE = 11;
/** The foot's tilt: the surface normal within `maxTilt` of up. */
export const TILT = 14;
export const GROUND = 17;
export const TARGET = 18;
/** The animated foot, its animated height above the animation's ground, and the leg's base (world). */
export const FOOT = 21;
export const HEIGHT = 24;
export const BASE = 25;
/** The target in model space: position, then orientation. */
export const MODEL_TARGET = 28;
export const MODEL_ROTATION = 31;
/** A foot at a shin's end: where it sits in the shin's frame (model units) this frame. */
export const SHIN_END = 35;
/** …and the bend axis for a straight leg, in the thigh's frame (from the rest pose). */
export const BEND_LOCAL = 38;
/** …and its knee's target in model space: position, then the shin's orientation. */
export const KNEE_TARGET = 41;
export const KNEE_ROTATION = 44;
/**
 * …and its animated shin as the behavior's limits keep it: orientation, bend axis (model space), whether
 * that is a hinge and the turn the hinge allows from the animated angle, and how far from the hip the
 * shin's end is (animated) and may get (model units).
 */
export const SHIN_ORIENTATION = 48;
export const SHIN_AXIS = 52;
export const SHIN_HINGE = 55;
export const SHIN_MIN = 56;
export const SHIN_MAX = 57;
export const SHIN_STRETCH = 58;
export const SHIN_REACH = 59;
/** The animated foot in model space (see `footPoint`). */
export const FOOT_MODEL = 60;
export const LEG_SLOTS = 63;

/* The frame's scalars (`FootPlacement._n`). */
export const DT = 0;
export const ALPHA = 1;
export const HIP_ALPHA = 2;
export const FADE = 3;
export const REF_Y = 4;
export const MODEL_PER_WORLD = 5;
export const COS_TILT = 6;
export const DROP = 7;
export const LENGTH = 8;
export const APPLIED = 9;
export const SMOOTHING = 10;
export const HIP_SMOOTHING = 11;
export const UP_MODEL = 12;
export const NORMAL_MODEL = 15;
export const DELTA = 18;
export const VECTOR = 22;
export const HIT = 25;
export const TURN = 28;
export const REACH = 29;
export const RAY = 30;
/** The face normal a ray hit (world). */
export const HIT_NORMAL = 33;
/** The body's turn this frame (model space), the point it turns about, and how much it turns (0: none). */
export const TILT_Q = 36;
export const TILT_PIVOT = 40;
export const TILT_AMOUNT = 43;
export const SCALAR_SLOTS = 44;
