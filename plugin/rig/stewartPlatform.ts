import { FabrikError } from "../solver/errors.js";
import { createPlatformPasses, type PlatformPasses } from "./platformPasses.js";
import { legLengths, numbers, perLeg, readPose, type PlatformPose } from "./platformPose.js";

/*
 * A Stewart–Gough platform as a user describes it, validated into typed arrays. Its kinematics are
 * stewartKinematics.ts's.
 */

/** Legs of a Stewart–Gough platform. */
export const STEWART_LEGS = 6;

/** Options of {@link createStewartPlatform}. Lengths in model units; the base's frame is model space. */
export interface StewartPlatformOptions {
  /** Where each leg's lower joint sits on the base: x y z per leg, 6 legs (18 numbers). */
  baseAnchors: ArrayLike<number>;
  /** Where each leg's upper joint sits on the platform, in the platform's own frame (18 numbers). */
  platformAnchors: ArrayLike<number>;
  /** Shortest leg (> 0): one for all legs, or one per leg. */
  minLength: number | ArrayLike<number>;
  /** Longest leg: one for all legs, or one per leg. */
  maxLength: number | ArrayLike<number>;
  /**
   * The platform's rest pose, the start of forward kinematics when no better guess is known; every leg
   * within its range there. Default: unrotated, its anchors' centre straight above (+z) the base anchors'
   * centre, at the height where the legs are on average halfway along their ranges.
   */
  home?: { position: ArrayLike<number>; orientation?: ArrayLike<number> };
}

/** A validated Stewart–Gough platform, from {@link createStewartPlatform}. */
export interface StewartPlatform {
  readonly legs: number;
  readonly baseAnchors: Float64Array;
  readonly platformAnchors: Float64Array;
  readonly minLength: Float64Array;
  readonly maxLength: Float64Array;
  readonly home: PlatformPose;
  /** Largest distance of a platform anchor from the anchors' centre: tolerances scale with it. */
  readonly size: number;
}

/** Buffers of each platform's forward-kinematics passes (one solve at a time per platform). */
const passesOf = new WeakMap<StewartPlatform, PlatformPasses>();

/** The passes' buffers of a platform made by {@link createStewartPlatform}; throws for any other object. */
export function stewartPasses(platform: StewartPlatform, who: string): PlatformPasses {
  const passes = platform !== null && typeof platform === "object" ? passesOf.get(platform) : undefined;
  if (passes === undefined) {
    throw new FabrikError(`${who}: platform must come from createStewartPlatform`, undefined, "platform");
  }
  return passes;
}

const WHO = "createStewartPlatform";
/** Anchors nearer than this fraction of the mechanism's size count as coincident. */
const COINCIDENT = 1e-6;

/**
 * Checks a Stewart–Gough platform's description and builds it. Throws a {@link FabrikError} naming the
 * option at fault: anchors not 18 finite numbers, two anchors on one point, platform anchors on one line
 * (the platform could turn about it), leg lengths ≤ 0 or not finite, min > max, a home pose out of range.
 */
export function createStewartPlatform(options: StewartPlatformOptions): StewartPlatform {
  if (options === null || typeof options !== "object") {
    throw new FabrikError(`${WHO}: options must be an object`, undefined, "options");
  }
  const legs = STEWART_LEGS;
  const base = Float64Array.from(numbers(options.baseAnchors, 3 * legs, WHO, "baseAnchors"));
  const top = Float64Array.from(numbers(options.platformAnchors, 3 * legs, WHO, "platformAnchors"));
  const minLength = perLeg(options.minLength, legs, true, WHO, "minLength");
  const maxLength = perLeg(options.maxLength, legs, true, WHO, "maxLength");
  for (let i = 0; i < legs; i++) {
    if (minLength[i] > maxLength[i]) {
      throw new FabrikError(
        `${WHO}: leg ${i}'s range is inverted, minLength ${minLength[i]} > maxLength ${maxLength[i]}`,
        undefined,
        "minLength",
      );
    }
  }
  const size = radius(top);
  const scale = Math.max(size, radius(base));
  distinct(base, scale, "baseAnchors");
  distinct(top, scale, "platformAnchors");
  if (!spansPlane(top, size)) {
    throw new FabrikError(
      `${WHO}: platformAnchors lie on one line, so the platform could turn about it freely`,
      undefined,
      "platformAnchors",
    );
  }
  const home = { position: new Float64Array(3), orientation: new Float64Array([0, 0, 0, 1]) };
  if (options.home === undefined) defaultHome(base, top, minLength, maxLength, home.position);
  else readPose({ orientation: [0, 0, 0, 1], ...options.home } as never, home, WHO, "home");
  const platform: StewartPlatform = {
    legs,
    baseAnchors: base,
    platformAnchors: top,
    minLength,
    maxLength,
    home,
    size,
  };
  checkHome(platform);
  passesOf.set(platform, createPlatformPasses(top, size));
  return platform;
}

/** Largest distance of a point from the points' centroid. */
function radius(points: Float64Array): number {
  const n = points.length / 3;
  let cx = 0,
    cy = 0,
    cz = 0;
  for (let i = 0; i < n; i++) {
    cx += points[3 * i] / n;
    cy += points[3 * i + 1] / n;
    cz += points[3 * i + 2] / n;
  }
  let r = 0;
  for (let i = 0; i < n; i++)
    r = Math.max(r, Math.hypot(points[3 * i] - cx, points[3 * i + 1] - cy, points[3 * i + 2] - cz));
  return r;
}

function distinct(points: Float64Array, scale: number, option: string): void {
  const n = points.length / 3;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const d = Math.hypot(
        points[3 * i] - points[3 * j],
        points[3 * i + 1] - points[3 * j + 1],
        points[3 * i + 2] - points[3 * j + 2],
      );
      if (!(d > COINCIDENT * scale)) {
        throw new FabrikError(
          `${WHO}: ${option} of legs ${i} and ${j} coincide; each leg needs its own joint`,
          undefined,
          option,
        );
      }
    }
}

/** Whether some three of the points span a triangle of real area. */
function spansPlane(points: Float64Array, size: number): boolean {
  const n = points.length / 3;
  for (let j = 1; j < n; j++)
    for (let k = j + 1; k < n; k++) {
      const ux = points[3 * j] - points[0],
        uy = points[3 * j + 1] - points[1],
        uz = points[3 * j + 2] - points[2];
      const vx = points[3 * k] - points[0],
        vy = points[3 * k + 1] - points[1],
        vz = points[3 * k + 2] - points[2];
      const area = Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
      if (area > 1e-6 * size * size) return true;
    }
  return false;
}

/** The default home position: centres aligned in x, y; the height that puts the legs mid-range on average. */
function defaultHome(
  base: Float64Array,
  top: Float64Array,
  minLength: Float64Array,
  maxLength: Float64Array,
  out: Float64Array,
): void {
  const n = minLength.length;
  for (let k = 0; k < 2; k++) {
    let b = 0,
      t = 0;
    for (let i = 0; i < n; i++) {
      b += base[3 * i + k] / n;
      t += top[3 * i + k] / n;
    }
    out[k] = b - t;
  }
  let height = 0;
  for (let i = 0; i < n; i++) {
    const dx = top[3 * i] + out[0] - base[3 * i],
      dy = top[3 * i + 1] + out[1] - base[3 * i + 1];
    const mid = 0.5 * (minLength[i] + maxLength[i]);
    const rise = Math.sqrt(Math.max(mid * mid - dx * dx - dy * dy, 0));
    height += (rise - top[3 * i + 2] + base[3 * i + 2]) / n;
  }
  out[2] = height;
}

function checkHome(platform: StewartPlatform): void {
  const lengths = new Float64Array(platform.legs);
  legLengths(platform.baseAnchors, platform.platformAnchors, platform.home, lengths);
  for (let i = 0; i < platform.legs; i++) {
    const min = platform.minLength[i],
      max = platform.maxLength[i];
    if (lengths[i] < min || lengths[i] > max) {
      throw new FabrikError(
        `${WHO}: at the home pose leg ${i} is ${lengths[i].toPrecision(6)} long, outside its range ` +
          `[${min}, ${max}]; give a home pose where every leg is in range`,
        undefined,
        "home",
      );
    }
  }
}
