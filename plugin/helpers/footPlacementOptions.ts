import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Node } from "@babylonjs/core/node.js";
import type { FabrikJoint } from "../babylon/index.js";
import { FabrikError } from "../solver/index.js";
import type { FootPlacementLeg } from "./footLegs.js";
import { fraction } from "./optionChecks.js";

export interface FootPlacementOptions {
  /**
   * The legs to place: foot joints (bone names, roles, nodes, indices) or {@link FootPlacementLeg}s. Default:
   * the feet of a humanoid (`leftFoot`, `rightFoot` below their upper legs, or sitting where their shins
   * end on rigs that hang the feet from the root), plus its hands when they rest lower than halfway down
   * the shins (a quadruped's front legs). When none of those stands on the ground (no such roles, or a
   * T-rex's short arms named as legs), the legs the body stands on: every chain end within 15 % of the
   * character's height of the ground, now or at rest, below a leg rising at least a quarter of the height
   * (a horse's hooves, a spider's eight feet, a rig of numbered bones; never a tail or a snake's body). A
   * foot that sits where a child-less shin ends, as a Blender-IK control does, is placed through that shin;
   * a bone ending in a glTF `_end` site on the ground, by that end (see {@link FootPlacementLeg.end}).
   */
  legs?: readonly (FabrikJoint | FootPlacementLeg)[];
  /**
   * Which meshes are ground. Default: every enabled, visible, pickable mesh that is not part of the
   * character. Give your own to skip props and to keep picking cheap in large scenes.
   */
  ground?: (mesh: AbstractMesh) => boolean;
  /** How far (world units) above the animation's ground a foot may be lifted. Default: half the mean leg length. */
  maxStepUp?: number;
  /** How far below it a foot may reach down. Default: half the mean leg length. */
  maxStepDown?: number;
  /**
   * Where each ray starts, in world units above the animation's ground under the foot. Default: `maxStepUp`
   * (ground higher than a foot may step is not seen at all).
   */
  rayHeight?: number;
  /** The most a foot turns to follow the ground's slope, in radians. Default: 30°. */
  maxTilt?: number;
  /**
   * Time constant (seconds) with which each foot's ground (height and slope) follows what its ray finds.
   * The hips follow the smoothed ground, so they are smooth too. Default: 0.06.
   */
  smoothing?: number;
  /** An extra time constant for the hips on top of that, for jerky clips. Default: 0 (none). */
  hipSmoothing?: number;
  /** Seconds for a leg to fade to its animation over a hole, and back. Default: 0.2. */
  fadeTime?: number;
  /** Lower the hips when a leg cannot reach the ground otherwise. Default: true. */
  lowerHips?: boolean;
  /** The joint lowered. Default: the `hips` role when it carries every leg, else the joint the legs meet at. */
  hips?: FabrikJoint;
  /** The most the hips are lowered, in world units. Default: half the mean leg length. */
  maxHipDrop?: number;
  /**
   * How much of the ground's slope under the feet the body takes, 0..1: the hips pitch (within `maxTilt`,
   * along the body's length from the hips to the head, about the middle of the legs' tops) toward the plane
   * through the ground under the feet, so a horse climbs nose up instead of folding its front legs.
   * Default: 1 with three legs or more, 0 with two (a biped stands upright on a slope).
   */
  tiltBody?: number;
  /**
   * How far a leg may stretch, as a fraction of its length, before the hips come down; a leg the animation
   * stretches further keeps the animation's stretch. Default: 0.95.
   */
  legExtension?: number;
  /**
   * Update every frame by itself, with the animation clock's time step (default). With false, call
   * `FootPlacement.update` yourself, each frame after the animation and before the behavior's solve.
   */
  autoUpdate?: boolean;
}

/** FootPlacement's settings, live: what each frame reads (the options with their defaults filled in). */
export interface FootSettings {
  enabled: boolean;
  maxStepUp: number;
  maxStepDown: number;
  rayHeight: number;
  maxTilt: number;
  smoothing: number;
  hipSmoothing: number;
  fadeTime: number;
  lowerHips: boolean;
  maxHipDrop: number;
  legExtension: number;
  tiltBody: number;
}

const OPTION_KEYS = [
  "legs",
  "ground",
  "maxStepUp",
  "maxStepDown",
  "rayHeight",
  "maxTilt",
  "smoothing",
  "hipSmoothing",
  "fadeTime",
  "lowerHips",
  "hips",
  "maxHipDrop",
  "tiltBody",
  "legExtension",
  "autoUpdate",
];

/** Refuses options FootPlacement does not know, naming them. */
export function checkOptionNames(options: FootPlacementOptions, who: string): void {
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) {
      throw new FabrikError(`${who}: unknown option "${key}" (options are ${OPTION_KEYS.join(", ")})`);
    }
  }
}

/**
 * The settings `options` ask for, defaults scaled by the mean leg length (world units) on the pose at hand;
 * throws a {@link FabrikError} naming a bad number.
 */
export function footSettings(
  options: FootPlacementOptions,
  legLength: number,
  legs: number,
  who: string,
): FootSettings {
  const maxStepUp = positive(options.maxStepUp ?? 0.5 * legLength, "maxStepUp", who);
  return {
    enabled: true,
    maxStepUp,
    maxStepDown: positive(options.maxStepDown ?? 0.5 * legLength, "maxStepDown", who),
    rayHeight: positive(options.rayHeight ?? maxStepUp, "rayHeight", who),
    maxTilt: positive(options.maxTilt ?? Math.PI / 6, "maxTilt", who),
    smoothing: positive(options.smoothing ?? 0.06, "smoothing", who),
    hipSmoothing: positive(options.hipSmoothing ?? 0, "hipSmoothing", who),
    fadeTime: positive(options.fadeTime ?? 0.2, "fadeTime", who),
    maxHipDrop: positive(options.maxHipDrop ?? 0.5 * legLength, "maxHipDrop", who),
    legExtension: positive(options.legExtension ?? 0.95, "legExtension", who),
    tiltBody: fraction(options.tiltBody ?? (legs >= 3 ? 1 : 0), "tiltBody", who),
    lowerHips: options.lowerHips ?? true,
  };
}

/**
 * Ground by default: every enabled, visible, pickable mesh that is not part of the character (`own`: its
 * skinned meshes; `root`: the node the behavior is attached to, and all below it).
 */
export function defaultGround(own: readonly AbstractMesh[], root: Node): (mesh: AbstractMesh) => boolean {
  const mine = new Set<AbstractMesh>(own);
  return (mesh) =>
    mesh.isEnabled() &&
    mesh.isVisible &&
    mesh.isPickable &&
    !mine.has(mesh) &&
    mesh !== root &&
    !mesh.isDescendantOf(root);
}

function positive(value: unknown, option: string, who: string): number {
  if (typeof value !== "number" || !(value >= 0) || !Number.isFinite(value)) {
    throw new FabrikError(
      `${who}: ${option} must be a finite number >= 0, got ${String(value)}`,
      undefined,
      option,
    );
  }
  return value;
}
