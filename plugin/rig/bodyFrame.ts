// Engine-free on purpose: the limit preset (and anything else that reasons about a humanoid's anatomy) needs
// the character's own up, left and forward, whatever axes its file happens to use.
import type { Rig } from "../solver/rig.js";
import type { HumanoidRole, HumanoidRoles } from "./humanoidRoles.js";

export type Vec3 = [number, number, number];

/**
 * The character's body axes in model space, as unit vectors: `up` from the pelvis toward the head, `left`
 * toward the character's left side, `forward` the way it faces. `forward = left × up` in the right-handed
 * spaces glTF and Babylon models use (+X left, +Y up gives +Z forward, the glTF convention); it is flipped
 * only when the toes clearly say the character faces the other way, i.e. a mirrored model space.
 */
export interface BodyFrame {
  readonly up: Vec3;
  readonly left: Vec3;
  readonly forward: Vec3;
}

/**
 * Derives the body frame from the rest pose, so it holds for Y-up and Z-up files, T- and A-poses and any
 * scale. Returns undefined when the recognised roles cannot fix both up and left.
 */
export function findBodyFrame(rig: Rig, roles: HumanoidRoles): BodyFrame | undefined {
  const p = rig.restPositions;
  // Distances are compared against the rig's size, so millimetre robots and centimetre giants behave alike.
  let extent = 0;
  for (let axis = 0; axis < 3; axis++) {
    let min = Infinity,
      max = -Infinity;
    for (let i = axis; i < p.length; i += 3) {
      min = Math.min(min, p[i]);
      max = Math.max(max, p[i]);
    }
    extent = Math.max(extent, max - min);
  }
  const tiny = 1e-6 * extent;
  const at = (role: HumanoidRole): Vec3 | undefined => {
    const j = roles[role];
    return j === undefined ? undefined : [p[3 * j], p[3 * j + 1], p[3 * j + 2]];
  };
  const midpoint = (a: HumanoidRole, b: HumanoidRole): Vec3 | undefined => {
    const pa = at(a),
      pb = at(b);
    return pa && pb ? scale(add(pa, pb), 0.5) : undefined;
  };

  const up = findUp(at, midpoint, tiny);
  if (up === undefined) return undefined;

  let left: Vec3 | undefined;
  const pairs: [HumanoidRole, HumanoidRole][] = [
    ["leftUpperArm", "rightUpperArm"],
    ["leftShoulder", "rightShoulder"],
    ["leftUpperLeg", "rightUpperLeg"],
    ["leftLowerArm", "rightLowerArm"],
    ["leftLowerLeg", "rightLowerLeg"],
    ["leftHand", "rightHand"],
    ["leftFoot", "rightFoot"],
  ];
  for (const [l, r] of pairs) {
    const pl = at(l),
      pr = at(r);
    if (pl && pr) left = horizontal(sub(pl, pr), up, tiny);
    if (left) break;
  }
  if (left === undefined) {
    // One side only: measure it from the midline.
    const mid = at("hips") ?? at("spine") ?? at("chest");
    for (const [l, r] of pairs) {
      if (mid === undefined) break;
      const pl = at(l),
        pr = at(r);
      if (pl) left = horizontal(sub(pl, mid), up, tiny);
      else if (pr) left = horizontal(sub(mid, pr), up, tiny);
      if (left) break;
    }
  }
  if (left === undefined) return undefined;

  let forward = normalize(cross(left, up))!;
  // Toes point forward on every humanoid; a space where they point back is mirrored, and left × up with it.
  let toes: Vec3 = [0, 0, 0];
  for (const [foot, toe] of [
    ["leftFoot", "leftToes"],
    ["rightFoot", "rightToes"],
  ] as const) {
    const pf = at(foot),
      pt = at(toe);
    if (pf && pt) toes = add(toes, sub(pt, pf));
  }
  const toesFlat = horizontal(toes, up, tiny);
  if (toesFlat !== undefined && dot(toesFlat, forward) < -0.5) forward = scale(forward, -1);
  return { up, left, forward };
}

function findUp(
  at: (role: HumanoidRole) => Vec3 | undefined,
  midpoint: (a: HumanoidRole, b: HumanoidRole) => Vec3 | undefined,
  tiny: number,
): Vec3 | undefined {
  const bottoms = [at("hips"), midpoint("leftUpperLeg", "rightUpperLeg"), at("spine")];
  const tops = [
    at("head"),
    at("neck"),
    at("upperChest"),
    at("chest"),
    midpoint("leftUpperArm", "rightUpperArm"),
    midpoint("leftShoulder", "rightShoulder"),
    at("spine"),
  ];
  for (const top of tops) {
    for (const bottom of bottoms) {
      if (top === undefined || bottom === undefined) continue;
      const v = sub(top, bottom);
      if (length(v) > tiny) return normalize(v);
    }
  }
  // No torso to speak of: legs hang down from the hips.
  let down: Vec3 = [0, 0, 0];
  for (const [hip, end] of [
    ["leftUpperLeg", "leftFoot"],
    ["rightUpperLeg", "rightFoot"],
    ["leftUpperLeg", "leftLowerLeg"],
    ["rightUpperLeg", "rightLowerLeg"],
  ] as const) {
    const a = at(hip),
      b = at(end);
    if (a && b) down = add(down, sub(b, a));
  }
  return length(down) > tiny ? normalize(scale(down, -1)) : undefined;
}

/** v without its component along unit `axis`, normalised; undefined when nothing is left. */
function horizontal(v: Vec3, axis: Vec3, tiny: number): Vec3 | undefined {
  const h = sub(v, scale(axis, dot(v, axis)));
  return length(h) > tiny ? normalize(h) : undefined;
}

export function add(a: Vec3, b: Vec3): Vec3 {
  return [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
}
export function sub(a: Vec3, b: Vec3): Vec3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}
export function scale(a: Vec3, s: number): Vec3 {
  return [a[0] * s, a[1] * s, a[2] * s];
}
export function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
export function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
export function length(a: Vec3): number {
  return Math.hypot(a[0], a[1], a[2]);
}
/** Unit vector along a; undefined for a zero (or non-finite) vector. */
export function normalize(a: Vec3): Vec3 | undefined {
  const l = length(a);
  return l > 0 && Number.isFinite(l) ? [a[0] / l, a[1] / l, a[2] / l] : undefined;
}
