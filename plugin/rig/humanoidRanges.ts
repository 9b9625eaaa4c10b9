/*
 * The humanoid limit preset's numbers: how far each joint of a person moves, in degrees.
 */

/**
 * Ranges of motion, in degrees. Plausible defaults, not medical data: rounded adult ranges, trimmed where a
 * solver benefits from a margin (the wrist and the clavicle stay tame so the arm does the work) and widened
 * where a single joint here stands for several real ones (the shoulder ball joint also carries what the
 * scapula adds, the ankle what the subtalar joint adds). The ankle's dorsiflexion is the weight-bearing
 * range (the shin leaning over a planted foot, as on a slope or a stair), not the smaller active one: a foot
 * kept flat on a 20° slope needs the slope plus the shin's own lean.
 *
 * Ball-joint limbs (clavicle, upper arm, upper leg) give how far the bone may point in a body direction,
 * measured from the body's neutral (arm or leg hanging straight down, clavicle sideways); the preset
 * subtracts the rest pose's own offset, so an A-pose and a T-pose end up with the same anatomical reach.
 * Spine, neck, head, wrist, ankle and toes give rotation about body axes, which stays meaningful whatever
 * direction the rig's bone axis happens to take.
 */
export const RANGES = {
  shoulder: { forward: 20, back: 15, up: 30, down: 10, twist: 15 },
  /** `up`: abduction from hanging (past horizontal, a little over the head); `down`: across the body. */
  upperArm: { forward: 120, back: 45, up: 190, down: 20, twist: 80 },
  /** Flexion from a straight arm. */
  lowerArm: { flex: 150 },
  hand: { flex: 70, extend: 60, radial: 20, ulnar: 30, twist: 20 },
  upperLeg: { forward: 110, back: 30, out: 45, in: 25, twist: 40 },
  lowerLeg: { flex: 150 },
  foot: { dorsi: 40, plantar: 45, inversion: 20, eversion: 15, turn: 15 },
  toes: { up: 40, down: 30, side: 10, roll: 5 },
  spine: { flex: 25, extend: 15, side: 15, turn: 20 },
  neck: { flex: 40, extend: 40, side: 35, turn: 50 },
  head: { flex: 40, extend: 40, side: 30, turn: 40 },
} as const;
