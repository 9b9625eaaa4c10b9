import { FabrikError } from "../solver/errors.js";

/*
 * The pose of a parallel mechanism's moving platform, and the checks its entry points share: finite numbers,
 * array lengths, ranges.
 */

/** Where a platform is: its frame's origin and orientation (a unit quaternion x y z w) in the base's frame. */
export interface PlatformPose {
  readonly position: Float64Array;
  readonly orientation: Float64Array;
}

/** A platform pose, at the origin with no rotation unless given. */
export function createPlatformPose(
  position: ArrayLike<number> = [0, 0, 0],
  orientation: ArrayLike<number> = [0, 0, 0, 1],
): PlatformPose {
  const pose = { position: new Float64Array(3), orientation: new Float64Array(4) };
  readPose({ position, orientation } as never, pose, "createPlatformPose", "pose");
  return pose;
}

/**
 * Reads a pose given by the user into `out` (which may be the same pose): three finite numbers for the
 * position, four finite numbers not all 0 for the orientation, normalised. Throws naming `option`.
 */
export function readPose(pose: PlatformPose, out: PlatformPose, who: string, option: string): void {
  if (pose === null || typeof pose !== "object") {
    throw new FabrikError(`${who}: ${option} must be { position, orientation }`, undefined, option);
  }
  // The option's name is joined only when throwing: building it on every call would allocate.
  const p = numbers(pose.position, 3, who, option, ".position");
  const q = numbers(pose.orientation, 4, who, option, ".orientation");
  // Not Math.hypot: its arguments are boxed, which would allocate on every call.
  const length = Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(length > 1e-9)) {
    throw new FabrikError(
      `${who}: ${option}.orientation must be a quaternion (x y z w), got one of length 0`,
      undefined,
      `${option}.orientation`,
    );
  }
  for (let k = 0; k < 3; k++) out.position[k] = p[k];
  for (let k = 0; k < 4; k++) out.orientation[k] = q[k] / length;
}

/** Checks a pose the call writes to holds typed arrays of the right sizes; throws naming `option`. */
export function checkWritablePose(pose: PlatformPose, who: string, option: string): void {
  if (
    pose === null ||
    typeof pose !== "object" ||
    !(pose.position instanceof Float64Array) ||
    pose.position.length !== 3 ||
    !(pose.orientation instanceof Float64Array) ||
    pose.orientation.length !== 4
  ) {
    throw new FabrikError(
      `${who}: ${option} must be a platform pose (position a Float64Array of 3, orientation of 4), ` +
        "as createPlatformPose makes",
      undefined,
      option,
    );
  }
}

/**
 * Checks `value` is `count` finite numbers and returns it; throws naming the first bad entry, as the
 * option `option + field`.
 */
export function numbers(
  value: unknown,
  count: number,
  who: string,
  option: string,
  field = "",
): ArrayLike<number> {
  const list = value as ArrayLike<unknown> | null | undefined;
  if (
    list === null ||
    list === undefined ||
    typeof list !== "object" ||
    typeof list.length !== "number" ||
    list.length !== count
  ) {
    const got = list !== null && typeof list === "object" ? ` (${String(list.length)})` : "";
    const name = option + field;
    throw new FabrikError(`${who}: ${name} must hold ${count} numbers${got}`, undefined, name);
  }
  for (let i = 0; i < count; i++) {
    const v = list[i];
    if (typeof v !== "number" || !Number.isFinite(v)) {
      const name = option + field;
      throw new FabrikError(`${who}: ${name}[${i}] is not a finite number (${String(v)})`, undefined, name);
    }
  }
  return list as ArrayLike<number>;
}

/** One range bound per leg from a number or a list; each finite and > 0 when `positive`. */
export function perLeg(
  value: unknown,
  legs: number,
  positive: boolean,
  who: string,
  option: string,
): Float64Array {
  const out = new Float64Array(legs);
  if (typeof value === "number") out.fill(value);
  else out.set(numbers(value, legs, who, option));
  for (let i = 0; i < legs; i++) {
    if (!Number.isFinite(out[i]) || (positive && !(out[i] > 0))) {
      throw new FabrikError(
        `${who}: ${option} of leg ${i} must be a finite number${positive ? " > 0" : ""}, got ${out[i]}`,
        undefined,
        option,
      );
    }
  }
  return out;
}

/**
 * Reads solve settings into `out`: out[0] the tolerance as a fraction of the mechanism's size, out[1] the
 * iteration cap, out[2] 1 to accelerate the passes. Allocates nothing.
 */
export function readSolveOptions(
  options: unknown,
  defaultTolerance: number,
  defaultIterations: number,
  who: string,
  out: Float64Array,
): void {
  out[0] = defaultTolerance;
  out[1] = defaultIterations;
  out[2] = 1;
  if (options === undefined) return;
  if (options === null || typeof options !== "object") {
    throw new FabrikError(`${who}: options must be an object`, undefined, "options");
  }
  const {
    tolerance = defaultTolerance,
    maxIterations = defaultIterations,
    accelerate = true,
  } = options as { tolerance?: unknown; maxIterations?: unknown; accelerate?: unknown };
  if (typeof accelerate !== "boolean") {
    throw new FabrikError(
      `${who}: accelerate must be a boolean, got ${String(accelerate)}`,
      undefined,
      "accelerate",
    );
  }
  if (typeof tolerance !== "number" || !Number.isFinite(tolerance) || !(tolerance > 0)) {
    throw new FabrikError(
      `${who}: tolerance must be a finite number > 0, got ${String(tolerance)}`,
      undefined,
      "tolerance",
    );
  }
  if (typeof maxIterations !== "number" || !Number.isInteger(maxIterations) || maxIterations < 1) {
    throw new FabrikError(
      `${who}: maxIterations must be a whole number ≥ 1, got ${String(maxIterations)}`,
      undefined,
      "maxIterations",
    );
  }
  out[0] = tolerance;
  out[1] = maxIterations;
  out[2] = accelerate ? 1 : 0;
}

/**
 * Distance from each base point to its platform anchor (given in the platform's frame) with the platform at
 * `pose`, into `out` (one per leg). Allocates nothing.
 */
export function legLengths(
  base: Float64Array,
  anchors: Float64Array,
  pose: PlatformPose,
  out: Float64Array,
): void {
  const p = pose.position,
    q = pose.orientation;
  const x = q[0],
    y = q[1],
    z = q[2],
    w = q[3];
  for (let i = 0; i < out.length; i++) {
    const o = 3 * i;
    const lx = anchors[o],
      ly = anchors[o + 1],
      lz = anchors[o + 2];
    // v + w·t + q×t with t = 2·(q×v): the anchor rotated by q.
    const tx = 2 * (y * lz - z * ly),
      ty = 2 * (z * lx - x * lz),
      tz = 2 * (x * ly - y * lx);
    const dx = lx + w * tx + (y * tz - z * ty) + p[0] - base[o],
      dy = ly + w * ty + (z * tx - x * tz) + p[1] - base[o + 1],
      dz = lz + w * tz + (x * ty - y * tx) + p[2] - base[o + 2];
    out[i] = Math.sqrt(dx * dx + dy * dy + dz * dz);
  }
}
