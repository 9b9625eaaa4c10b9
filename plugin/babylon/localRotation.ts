/** What a TransformNode or a Bone exposes of its local rotation. */
export interface RotationSource {
  readonly rotationQuaternion: {
    readonly x: number;
    readonly y: number;
    readonly z: number;
    readonly w: number;
  } | null;
  /** Euler angles, used by Babylon when `rotationQuaternion` is null. */
  readonly rotation: { readonly x: number; readonly y: number; readonly z: number };
}

/**
 * Writes the local rotation of `source` as a unit quaternion `x y z w` into `out[offset..offset+3]`: its
 * `rotationQuaternion`, or else its Euler `rotation` read as Babylon does (yaw about Y, then pitch about X,
 * then roll about Z: q = qYaw * qPitch * qRoll). The result is normalised: glTF quaternions are unit up to
 * float rounding, and the solver needs unit ones (Babylon would compose a non-unit one as is, which is then
 * no rotation at all). A zero or non-finite quaternion becomes the identity.
 *
 * It takes objects and an index rather than numbers on purpose: doubles passed to a function V8 does not
 * inline are boxed on the heap, and this runs for every joint every frame.
 */
export function readLocalRotation(source: RotationSource, out: Float64Array, offset: number): void {
  const q = source.rotationQuaternion;
  if (q === null) {
    readEulerRotation(source.rotation, out, offset);
    return;
  }
  // Kept small (the Euler case is a call of its own) so V8 inlines it into the per-joint loops: a call per
  // joint cost more than the rest of the pose read (measured on 100 characters).
  const x = q.x,
    y = q.y,
    z = q.z,
    w = q.w;
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  if (len > 0 && len < Infinity) {
    const inv = 1 / len;
    out[offset] = x * inv;
    out[offset + 1] = y * inv;
    out[offset + 2] = z * inv;
    out[offset + 3] = w * inv;
  } else {
    out[offset] = out[offset + 1] = out[offset + 2] = 0;
    out[offset + 3] = 1;
  }
}

/** Babylon's Euler order: yaw about Y, then pitch about X, then roll about Z (q = qYaw * qPitch * qRoll). */
function readEulerRotation(
  e: { readonly x: number; readonly y: number; readonly z: number },
  out: Float64Array,
  offset: number,
): void {
  const cy = Math.cos(e.y * 0.5),
    sy = Math.sin(e.y * 0.5);
  const cp = Math.cos(e.x * 0.5),
    sp = Math.sin(e.x * 0.5);
  const cr = Math.cos(e.z * 0.5),
    sr = Math.sin(e.z * 0.5);
  const x = cy * sp * cr + sy * cp * sr,
    y = sy * cp * cr - cy * sp * sr,
    z = cy * cp * sr - sy * sp * cr,
    w = cy * cp * cr + sy * sp * sr;
  // Unit by construction; a non-finite angle gives NaN, which becomes the identity.
  if (Number.isFinite(x + y + z + w)) {
    out[offset] = x;
    out[offset + 1] = y;
    out[offset + 2] = z;
    out[offset + 3] = w;
  } else {
    out[offset] = out[offset + 1] = out[offset + 2] = 0;
    out[offset + 3] = 1;
  }
}

/** `out[o..o+3]` = the unit quaternion of the Euler angles `e[eo..eo+2]`, read as Babylon reads them. */
export function eulerToQuaternion(e: Float64Array, eo: number, out: Float64Array, o: number): void {
  euler.x = e[eo];
  euler.y = e[eo + 1];
  euler.z = e[eo + 2];
  readEulerRotation(euler, out, o);
}

const euler = { x: 0.5, y: 0.5, z: 0.5 };
