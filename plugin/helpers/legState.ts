import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { vectorFromArray, type FabrikBehavior, type FabrikTargetOptions } from "../babylon/index.js";
import { FabrikError } from "../solver/index.js";
import type { ResolvedLeg } from "./footLegs.js";
import { GOAL_SURFACE, GROUND, LEG_SLOTS, SURFACE, TARGET, TILT, WEIGHT } from "./footSlots.js";

/** What a leg is doing (live: updated every frame). */
export interface FootPlacementLegInfo {
  /** The joint put on the ground (for a leg placed by its bone's end, `FootPlacementLeg.end`: that bone's). */
  readonly foot: number;
  readonly name: string;
  readonly chainLength: number;
  /** The joint at the top of the leg's chain (it keeps its place and turns). */
  readonly base: number;
  readonly align: boolean;
  /**
   * The shin whose end the foot sits at, for a foot that does not hang below its leg (see
   * `FootPlacementLeg.shin`), or the foot's own bone for a leg placed by where it ends; -1 otherwise.
   */
  readonly shin: number;
  /**
   * The node the leg's target is written to, in model space: the foot's, or for a foot at a shin's end, the
   * knee's (position and the shin's orientation).
   */
  readonly target: TransformNode;
  /** Whether the ray under the foot found ground this frame. */
  readonly grounded: boolean;
  /** How much of the placement shows, 0..1: it fades to 0 (the animation) over holes. */
  readonly weight: number;
  /** The height (world Y) of the smoothed ground plane straight below the foot. */
  readonly groundHeight: number;
  /** The smoothed ground normal (world), within `maxTilt` of straight up. */
  readonly normal: Vector3;
  /** Where the foot is sent this frame (world). */
  readonly targetPosition: Vector3;
}

/** One leg of a FootPlacement: what it resolved to, its target node, and its state from frame to frame. */
export class LegState implements FootPlacementLegInfo {
  /**
   * Everything per frame lives in this array (see footSlots): the ground is kept as a smoothed plane rather
   * than a smoothed height, so a foot sliding over an even slope sees no lag at all while a step edge still
   * blends over time.
   */
  readonly s = new Float64Array(LEG_SLOTS);
  grounded = false;
  /** Whether the behavior holds a target for this leg. */
  installed = false;
  /** Whether the leg hangs below the joint the hips lowering moves. */
  lowered = false;
  /**
   * The behavior refused the leg's target (another target already holds its joints: a foot's shin targeted
   * by the user, say): the leg shows its animation until the targets change.
   */
  refused = false;
  private _warned = false;
  private readonly _normal = new Vector3(0, 1, 0);
  private readonly _target = new Vector3();

  constructor(
    readonly leg: ResolvedLeg,
    readonly target: TransformNode,
  ) {
    this.s[SURFACE + 1] = this.s[GOAL_SURFACE + 1] = this.s[TILT + 1] = 1;
  }

  get foot(): number {
    return this.leg.foot;
  }

  /**
   * Sets the leg's target, in a frame. A refusal is not thrown out of the render loop: it is warned once, and
   * the leg waits for the targets to change (see {@link refused}).
   */
  install(ik: FabrikBehavior, options: FabrikTargetOptions): void {
    try {
      ik.setTarget(this.leg.effector, this.target, options);
      this.installed = true;
    } catch (error) {
      if (!(error instanceof FabrikError)) throw error;
      this.refused = true;
      if (!this._warned)
        Logger.Warn(`FootPlacement: the leg "${this.name}" keeps its animation: ${error.message}`);
      this._warned = true;
    }
  }
  get name(): string {
    return this.leg.name;
  }
  get chainLength(): number {
    return this.leg.chainLength;
  }
  get base(): number {
    return this.leg.base;
  }
  get align(): boolean {
    return this.leg.align;
  }
  get shin(): number {
    return this.leg.shin;
  }
  get weight(): number {
    return this.s[WEIGHT];
  }
  get groundHeight(): number {
    return this.s[GROUND];
  }
  get normal(): Vector3 {
    return vectorFromArray(this._normal, this.s, TILT);
  }
  get targetPosition(): Vector3 {
    return vectorFromArray(this._target, this.s, TARGET);
  }
}
