import { clampAngle } from "./angleRange.js";
import { projectHinge } from "./hingeJoint.js";
import { clampToQuarterEllipse, swingClearlyInside } from "./ellipticalSwingLimit.js";
import { LIMIT_HINGE, LIMIT_SWING, LIMIT_TWIST, LIMIT_UNIVERSAL, type JointLimits } from "./limits.js";
import { projectUniversal } from "./universalJoint.js";

/* Scratch layout from `so`: [0..3] the ellipse query, [4..6] the angle clamp query. */

/**
 * Projects Δ, a joint's rotation relative to its rest local rotation (4 numbers at `q[o]`), onto the joint's
 * swing, twist, hinge or universal-joint limits, in place. Returns true when Δ changed. `scratch[so + 7]` says whether it was
 * clamped onto a boundary (for a hinge, removing rotation off its axis changes Δ without that).
 *
 * Swing and twist split Δ = swing · twist about the bone axis (twist leaves the axis where it is, swing moves
 * it by the shortest arc). The twist angle is clamped to [min, max]; the swung axis is clamped into the
 * elliptical cone (see ellipticalSwingLimit.ts). A hinge keeps only the rotation about its axis, measured
 * by where it takes the bone (or, for a bone along the axis, by Δ's twist about the axis), and clamps it.
 */
export function projectRotation(
  limits: JointLimits,
  j: number,
  q: Float64Array,
  o: number,
  scratch: Float64Array,
  so: number,
): boolean {
  const flags = limits.flags[j];
  scratch[so + 7] = 0;
  if (flags & LIMIT_HINGE) return projectHinge(limits, j, q, o, scratch, so);
  if (flags & LIMIT_UNIVERSAL) return projectUniversal(limits, j, q, o, scratch, so);
  if ((flags & (LIMIT_SWING | LIMIT_TWIST)) === 0) return false;

  const a = limits.boneAxis;
  const j3 = 3 * j;
  const ax = a[j3],
    ay = a[j3 + 1],
    az = a[j3 + 2];
  const qx = q[o],
    qy = q[o + 1],
    qz = q[o + 2],
    qw = q[o + 3];

  // Cheap tests first: most joints most of the time are well inside their limits. The swing takes the bone
  // axis where Δ does (twist about the axis leaves it), so s = Δ·a; inside the cone's inscribed circle
  // (cos θ >= cos of the smallest side angle) the swing needs no ellipse at all.
  const along = qx * ax + qy * ay + qz * az;
  let twistInside = true,
    twistClear = true;
  if (flags & LIMIT_TWIST) {
    // The twist's half angle is atan2(along, w) (taken with w >= 0, as q and -q are one rotation); it lies in
    // [min/2, max/2] exactly when (along, w) is on the right side of both bounding rays: two cross products
    // with precomputed (cos, sin) of the half angles instead of an atan2.
    const sign = qw < 0 ? -1 : 1;
    const a = sign * along,
      w = sign * qw;
    const t4 = 4 * j;
    const half = limits.twistHalf;
    const low = a * half[t4] - w * half[t4 + 1],
      high = a * half[t4 + 2] - w * half[t4 + 3];
    twistInside = low >= -1e-15 && high <= 1e-15;
    // Inside by more than rounding, so the full split's measured twist would not be clamped either.
    const margin = TWIST_MARGIN * Math.sqrt(a * a + w * w);
    twistClear = low > margin && high < -margin;
  }
  if (twistInside && along * along + qw * qw > 1e-18) {
    if ((flags & LIMIT_SWING) === 0) return false;
    const cx = 2 * (qy * az - qz * ay),
      cy = 2 * (qz * ax - qx * az),
      cz = 2 * (qx * ay - qy * ax);
    // d = Δ · a, where the swing takes the bone axis.
    const dx = ax + qw * cx + (qy * cz - qz * cy),
      dy = ay + qw * cy + (qz * cx - qx * cz),
      dz = az + qw * cz + (qx * cy - qy * cx);
    const cos = ax * dx + ay * dy + az * dz;
    if (cos >= limits.swingCosMin[j]) return false;
    // Outside that circle but inside the ellipse by more than rounding (and the twist too): the full split
    // below would change nothing either, and costs three inverse trigonometric functions more.
    if (twistClear && swingClearlyInside(limits, j, dx - cos * ax, dy - cos * ay, dz - cos * az, cos))
      return false;
  }

  // Twist: the part of Δ about the bone axis; swing: the rest, and where each takes the bone.
  measureSwingTwist(limits, j, q, o, split, 0);
  let tx = split[4],
    ty = split[5],
    tz = split[6],
    tw = split[7];
  let sx = split[0],
    sy = split[1],
    sz = split[2],
    sw = split[3];

  let changed = false;
  if (flags & LIMIT_TWIST) {
    scratch[so + 4] = split[TWIST_ANGLE];
    scratch[so + 5] = limits.twist[2 * j];
    scratch[so + 6] = limits.twist[2 * j + 1];
    if (clampAngle(scratch, so + 4)) {
      const half = 0.5 * scratch[so + 4];
      const s = Math.sin(half);
      tx = ax * s;
      ty = ay * s;
      tz = az * s;
      tw = Math.cos(half);
      changed = true;
    }
  }

  if (flags & LIMIT_SWING) {
    if (split[SWING_ANGLE] > 1e-12) {
      const x = split[SWING_X],
        y = split[SWING_Y];
      const up = limits.upAxis,
        right = limits.rightAxis;
      const j4 = 4 * j;
      scratch[so + 0] = Math.abs(x);
      scratch[so + 1] = Math.abs(y);
      scratch[so + 2] = x >= 0 ? limits.swing[j4 + 1] : limits.swing[j4 + 3];
      scratch[so + 3] = y >= 0 ? limits.swing[j4] : limits.swing[j4 + 2];
      if (clampToQuarterEllipse(scratch, so)) {
        const nx = x >= 0 ? scratch[so + 0] : -scratch[so + 0];
        const ny = y >= 0 ? scratch[so + 1] : -scratch[so + 1];
        const clamped = Math.sqrt(nx * nx + ny * ny);
        if (clamped > 1e-15) {
          // New swing: by `clamped` about a × u, u the new swing direction in the right/up plane.
          const ux = (nx * right[j3] + ny * up[j3]) / clamped,
            uy = (nx * right[j3 + 1] + ny * up[j3 + 1]) / clamped,
            uz = (nx * right[j3 + 2] + ny * up[j3 + 2]) / clamped;
          const s = Math.sin(0.5 * clamped);
          sx = (ay * uz - az * uy) * s;
          sy = (az * ux - ax * uz) * s;
          sz = (ax * uy - ay * ux) * s;
          sw = Math.cos(0.5 * clamped);
        } else {
          sx = 0;
          sy = 0;
          sz = 0;
          sw = 1;
        }
        changed = true;
      }
    }
  }

  if (changed) {
    scratch[so + 7] = 1;
    // Δ = swing · twist
    q[o] = sw * tx + sx * tw + sy * tz - sz * ty;
    q[o + 1] = sw * ty - sx * tz + sy * tw + sz * tx;
    q[o + 2] = sw * tz + sx * ty - sy * tx + sz * tw;
    q[o + 3] = sw * tw - sx * tx - sy * ty - sz * tz;
  }
  return changed;
}

/** A twist this near its range's ends (in sin of the half angle) is left to the full split to judge. */
const TWIST_MARGIN = 1e-9;

/** Scratch for {@link measureSwingTwist}'s result inside {@link projectRotation}. */
const split = new Float64Array(12);
// measureSwingTwist's outputs after the two quaternions.
const TWIST_ANGLE = 8;
const SWING_ANGLE = 9;
const SWING_X = 10;
const SWING_Y = 11;

/**
 * Splits joint j's Δ = q[o..o+3] into swing · twist about its bone axis, exactly as {@link projectRotation}
 * measures it: out[oo..oo+3] the swing, out[oo+4..oo+7] the twist. Written to an array, not returned, so a
 * call V8 does not inline boxes nothing.
 */
function splitSwingTwist(
  limits: JointLimits,
  j: number,
  q: Float64Array,
  o: number,
  out: Float64Array,
  oo: number,
): void {
  const a = limits.boneAxis;
  const j3 = 3 * j;
  const ax = a[j3],
    ay = a[j3 + 1],
    az = a[j3 + 2];
  const qx = q[o],
    qy = q[o + 1],
    qz = q[o + 2],
    qw = q[o + 3];
  const along = qx * ax + qy * ay + qz * az;
  const tl = Math.sqrt(along * along + qw * qw);
  let tx = 0,
    ty = 0,
    tz = 0,
    tw = 1;
  let sx: number, sy: number, sz: number, sw: number;
  if (tl > 1e-9) {
    tx = (along * ax) / tl;
    ty = (along * ay) / tl;
    tz = (along * az) / tl;
    tw = qw / tl;
    // swing = Δ · twist⁻¹
    sx = qw * -tx + qx * tw + qy * -tz - qz * -ty;
    sy = qw * -ty - qx * -tz + qy * tw + qz * -tx;
    sz = qw * -tz + qx * -ty - qy * -tx + qz * tw;
    sw = qw * tw - qx * -tx - qy * -ty - qz * -tz;
  } else {
    // Δ turns the bone exactly around, where the split is not unique: take the swing as the half turn that
    // goes through "up" (about a × up) and the twist as what remains, swing⁻¹ · Δ, so projecting is
    // idempotent and the twist limit still applies.
    const up = limits.upAxis;
    sx = ay * up[j3 + 2] - az * up[j3 + 1];
    sy = az * up[j3] - ax * up[j3 + 2];
    sz = ax * up[j3 + 1] - ay * up[j3];
    sw = 0;
    // twist = conj(swing) · Δ, which turns about a only
    const rx = sw * qx - sx * qw - sy * qz + sz * qy,
      ry = sw * qy + sx * qz - sy * qw - sz * qx,
      rz = sw * qz - sx * qy + sy * qx - sz * qw,
      rw = sw * qw + sx * qx + sy * qy + sz * qz;
    const ra = rx * ax + ry * ay + rz * az;
    const rl = Math.sqrt(ra * ra + rw * rw);
    if (rl > 0) {
      tx = (ra * ax) / rl;
      ty = (ra * ay) / rl;
      tz = (ra * az) / rl;
      tw = rw / rl;
    }
  }
  out[oo] = sx;
  out[oo + 1] = sy;
  out[oo + 2] = sz;
  out[oo + 3] = sw;
  out[oo + 4] = tx;
  out[oo + 5] = ty;
  out[oo + 6] = tz;
  out[oo + 7] = tw;
}

/**
 * {@link splitSwingTwist} into out[oo..oo+7], then what the limits compare: out[oo+8] the twist angle about
 * the bone axis (radians, in (-π, π]); out[oo+9] the swing angle θ; out[oo+10], out[oo+11] the swing as a
 * point of swing space, θ times its direction toward "right" and "up" (0, 0 when θ is under 1e-12). A
 * swing exactly opposite the bone axis has no direction of its own and is measured toward "up". Shared by
 * the projection and the limit fitting, so a fitted limit contains exactly what the projection measures.
 */
export function measureSwingTwist(
  limits: JointLimits,
  j: number,
  q: Float64Array,
  o: number,
  out: Float64Array,
  oo: number,
): void {
  splitSwingTwist(limits, j, q, o, out, oo);
  const j3 = 3 * j;
  const a = limits.boneAxis;
  const ax = a[j3],
    ay = a[j3 + 1],
    az = a[j3 + 2];
  const sx = out[oo],
    sy = out[oo + 1],
    sz = out[oo + 2],
    sw = out[oo + 3];
  let twist = 2 * Math.atan2(out[oo + 4] * ax + out[oo + 5] * ay + out[oo + 6] * az, out[oo + 7]);
  if (twist > Math.PI) twist -= 2 * Math.PI;
  else if (twist <= -Math.PI) twist += 2 * Math.PI;
  out[oo + 8] = twist;
  // Where the swing takes the bone axis: d = swing · a.
  const cx = 2 * (sy * az - sz * ay),
    cy = 2 * (sz * ax - sx * az),
    cz = 2 * (sx * ay - sy * ax);
  const dx = ax + sw * cx + (sy * cz - sz * cy),
    dy = ay + sw * cy + (sz * cx - sx * cz),
    dz = az + sw * cz + (sx * cy - sy * cx);
  let cos = dx * ax + dy * ay + dz * az;
  cos = cos > 1 ? 1 : cos < -1 ? -1 : cos;
  const theta = Math.acos(cos);
  out[oo + 9] = theta;
  if (!(theta > 1e-12)) {
    out[oo + 10] = 0;
    out[oo + 11] = 0;
    return;
  }
  let px = dx - cos * ax,
    py = dy - cos * ay,
    pz = dz - cos * az;
  const pl = Math.sqrt(px * px + py * py + pz * pz);
  const up = limits.upAxis,
    right = limits.rightAxis;
  if (pl > 1e-12) {
    px /= pl;
    py /= pl;
    pz /= pl;
  } else {
    px = up[j3];
    py = up[j3 + 1];
    pz = up[j3 + 2];
  }
  out[oo + 10] = theta * (px * right[j3] + py * right[j3 + 1] + pz * right[j3 + 2]);
  out[oo + 11] = theta * (px * up[j3] + py * up[j3 + 1] + pz * up[j3 + 2]);
}
