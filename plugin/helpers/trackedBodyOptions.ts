import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { FabrikError } from "../solver/index.js";

export interface TrackedBodyOptions {
  /**
   * The player's standing height in metres: the character is scaled (uniformly, on the node the behavior
   * sits on) so that it stands as tall. Default: the character keeps its size. See `TrackedBody.calibrate`.
   */
  height?: number;
  /** Seconds a tracker's weight takes to fade fully in or out after `weight` is set. Default 0.25. */
  fadeTime?: number;
  /**
   * How much of the head's horizontal offset from the feet the hips take, 0..1: the spine leans over the rest.
   * Default 0.35.
   */
  hipsFollow?: number;
  /** How much of the spine's lean the hips take as their own pitch, 0..1 (the spine bends the rest). Default 0.4. */
  hipsBend?: number;
  /** A foot steps when the place under the hips drifts this far from it, as a fraction of the leg's length. Default 0.25. */
  stepDistance?: number;
  /** A foot steps when the body turns this far (radians) from the way the foot points. Default 0.6 (34°). */
  stepTurn?: number;
  /** Seconds a step takes from a standstill; it shortens as the body moves faster. Default 0.4. */
  stepTime?: number;
  /** How high a foot lifts mid-step, as a fraction of the leg's length. Default 0.12. */
  stepHeight?: number;
  /** Seconds over which the body's heading follows the head's. Default 0.15. */
  turnSmoothing?: number;
  /**
   * Which meshes are ground: where a step lands, a ray cast down finds them (as FootPlacement's does) and the
   * foot stands on what it hits, its sole turned to the slope. Default: every enabled, visible, pickable mesh
   * that is not part of the character. With none hit, the foot stands on the plane through the model root's
   * origin (the animation's ground). `() => false` turns the casting off.
   */
  ground?: (mesh: AbstractMesh) => boolean;
  /**
   * How far above the ground a foot stands on a step may land, as a fraction of the leg's length: the ray
   * starts that high (ground higher than that is not seen). Default 0.5.
   */
  maxStepUp?: number;
  /** How far below it a step may land (the ray's reach below), as a fraction of the leg's length. Default 0.5. */
  maxStepDown?: number;
  /** The most a foot turns (radians) to follow the ground's slope. Default 0.52 (30°). */
  maxTilt?: number;
  /**
   * How far, 0..1, the body's heading is turned from the head's toward the hands (the way from the head to
   * their midpoint, on the ground) when they show where the chest faces: both tracked, well ahead of the head
   * and within 45° of its way (counting less up to 75°). Looking around with the hands held before the body
   * then turns the head, not the chest. Default 1; 0: the body turns with the head alone (see
   * docs/tracked-body.md for both measured).
   */
  handsTurn?: number;
  /**
   * True (the default): the hands' chains reach up to the collarbones, which turn with the arms (a shrug, a
   * reach to the floor from a squat). False: the chains start at the upper arms, the collarbones keep their
   * animation: a bow to the floor then misses by more but costs fewer solver iterations (see
   * docs/tracked-body.md for both measured).
   */
  collarbones?: boolean;
  /** When false, call `update(dt)` yourself each frame before the behavior solves. Default true. */
  autoUpdate?: boolean;
}

/**
 * The settings a TrackedBody runs with (all options but `height`, `ground`, `collarbones` and `autoUpdate`),
 * editable at run time (the ground as `TrackedBody.ground`).
 */
export interface TrackedBodySettings {
  fadeTime: number;
  hipsFollow: number;
  hipsBend: number;
  stepDistance: number;
  stepTurn: number;
  stepTime: number;
  stepHeight: number;
  turnSmoothing: number;
  handsTurn: number;
  maxStepUp: number;
  maxStepDown: number;
  maxTilt: number;
}

const OPTION_KEYS = [
  "height",
  "fadeTime",
  "hipsFollow",
  "hipsBend",
  "stepDistance",
  "stepTurn",
  "stepTime",
  "stepHeight",
  "turnSmoothing",
  "handsTurn",
  "ground",
  "maxStepUp",
  "maxStepDown",
  "maxTilt",
  "collarbones",
  "autoUpdate",
];

/** What a number option may be: at least `min` (above it when `open`), at most `max`. */
interface Range {
  readonly min: number;
  readonly max: number;
  readonly open: boolean;
  readonly fallback: number;
}

const RANGES: Record<keyof TrackedBodySettings, Range> = {
  fadeTime: { min: 0, max: Infinity, open: false, fallback: 0.25 },
  hipsFollow: { min: 0, max: 1, open: false, fallback: 0.35 },
  hipsBend: { min: 0, max: 1, open: false, fallback: 0.4 },
  stepDistance: { min: 0, max: 10, open: true, fallback: 0.25 },
  stepTurn: { min: 0, max: Math.PI, open: true, fallback: 0.6 },
  stepTime: { min: 0, max: 10, open: true, fallback: 0.4 },
  stepHeight: { min: 0, max: 1, open: false, fallback: 0.12 },
  turnSmoothing: { min: 0, max: 10, open: false, fallback: 0.15 },
  handsTurn: { min: 0, max: 1, open: false, fallback: 1 },
  maxStepUp: { min: 0, max: 10, open: true, fallback: 0.5 },
  maxStepDown: { min: 0, max: 10, open: false, fallback: 0.5 },
  maxTilt: { min: 0, max: 1.5, open: false, fallback: 0.52 },
};

function describe(range: Range): string {
  const low = range.open ? `> ${range.min}` : `>= ${range.min}`;
  return Number.isFinite(range.max) ? `a number ${low} and <= ${range.max}` : `a finite number ${low}`;
}

/** Checks the options and fills in the defaults; throws a FabrikError naming the first bad option. */
export function trackedBodySettings(options: TrackedBodyOptions, who: string): TrackedBodySettings {
  if (options === null || typeof options !== "object") {
    throw new FabrikError(`${who}: options must be an object, got ${String(options)}`, undefined, "options");
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) {
      throw new FabrikError(
        `${who}: unknown option "${key}" (options are ${OPTION_KEYS.join(", ")})`,
        undefined,
        key,
      );
    }
  }
  if (options.height !== undefined) checkHeight(options.height, who);
  for (const key of ["autoUpdate", "collarbones"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "boolean") {
      throw new FabrikError(`${who}: ${key} must be true or false`, undefined, key);
    }
  }
  if (options.ground !== undefined && typeof options.ground !== "function") {
    throw new FabrikError(
      `${who}: ground must be a function (mesh) => boolean, got ${String(options.ground)}`,
      undefined,
      "ground",
    );
  }
  const settings = {} as TrackedBodySettings;
  for (const key of Object.keys(RANGES) as (keyof TrackedBodySettings)[]) {
    const range = RANGES[key];
    const value = options[key] ?? range.fallback;
    const ok =
      typeof value === "number" &&
      Number.isFinite(value) &&
      (range.open ? value > range.min : value >= range.min) &&
      value <= range.max;
    if (!ok) {
      throw new FabrikError(
        `${who}: ${key} must be ${describe(range)}, got ${String(value)}`,
        undefined,
        key,
      );
    }
    settings[key] = value;
  }
  return settings;
}

/** A player's height in metres: finite and within what a person (or a child) measures. */
export function checkHeight(height: unknown, who: string): number {
  if (typeof height !== "number" || !(height >= 0.5 && height <= 3)) {
    throw new FabrikError(
      `${who}: height must be a number of metres in [0.5, 3], got ${String(height)}`,
      undefined,
      "height",
    );
  }
  return height;
}
