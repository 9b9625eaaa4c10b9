import { FabrikError } from "./errors.js";
import { parentFrameBoneAxis } from "./limitFrames.js";
import type { JointLimits, Vector3Tuple } from "./limits.js";

/* The checks setJointLimit runs on a spec before it writes anything. */

/** An axis that must cross the bone (a swing's up, a universal joint's first axis), given in the parent frame. */
export function checkAcrossBone(
  limits: JointLimits,
  joint: number,
  axis: Vector3Tuple,
  who: string,
  option: string,
  why: string,
): void {
  const a = parentFrameBoneAxis(limits, joint);
  const along = axis[0] * a[0] + axis[1] * a[1] + axis[2] * a[2];
  if (Math.abs(along) > 1 - 1e-6)
    throw new FabrikError(`${who}: ${option} is parallel to the bone, so ${why}`, joint, option);
}

export function checkAngle(value: unknown, min: number, max: number, what: string, joint: number): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw new FabrikError(
      `${what} must be an angle in [${fmt(min)}, ${fmt(max)}] radians, got ${String(value)}`,
      joint,
      what,
    );
  }
}

export function checkRange(
  range: { min: number; max: number },
  lo: number,
  hi: number,
  what: string,
  joint: number,
): void {
  if (range === null || typeof range !== "object")
    throw new FabrikError(`${what} must be { min, max }`, joint, what);
  for (const key of ["min", "max"] as const) {
    const v = range[key];
    if (typeof v !== "number" || !Number.isFinite(v) || v < lo || v > hi) {
      throw new FabrikError(
        `${what}.${key} must be a number in [${fmt(lo)}, ${fmt(hi)}], got ${String(v)}`,
        joint,
        what,
      );
    }
  }
  if (range.min > range.max) {
    throw new FabrikError(`${what} is inverted: min ${range.min} > max ${range.max}`, joint, what);
  }
}

export function checkAxis(axis: unknown, what: string, joint: number): [number, number, number] {
  if (
    !Array.isArray(axis) ||
    axis.length !== 3 ||
    !axis.every((v) => typeof v === "number" && Number.isFinite(v))
  ) {
    throw new FabrikError(`${what} must be three finite numbers`, joint, what);
  }
  const len = Math.hypot(axis[0], axis[1], axis[2]);
  if (!(len > 1e-12)) throw new FabrikError(`${what} has zero length`, joint, what);
  return [axis[0] / len, axis[1] / len, axis[2] / len];
}

function fmt(v: number): string {
  if (v === Math.PI) return "π";
  if (v === -Math.PI) return "-π";
  if (v === Math.PI / 2) return "π/2";
  if (v === -Math.PI / 2) return "-π/2";
  return String(v);
}
