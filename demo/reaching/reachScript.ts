import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Reach, type ReachHandle } from "../../plugin/helpers/index.js";
import type { Character } from "../stage/character.js";

/** One hand moving one thing between two spots on a table (x and z of the spots; y is the table's). */
export interface Errand {
  readonly hand: "leftHand" | "rightHand";
  readonly thing: Mesh;
  /** Height of the thing's centre above the table top. */
  readonly rest: number;
  readonly from: Vector3;
  readonly to: Vector3;
}

/** Where the wrist goes to hold a thing: above it and a little nearer the body, so the palm covers it. */
const GRIP = new Vector3(0, 0.085, -0.05);
const LIFT = 0.16;
const EASE = 0.9;
const CARRY = 1.6;
const PAUSE = 0.5;

const smooth = (t: number) => t * t * (3 - 2 * t);

/**
 * Errands for the plugin's Reach helper: it eases a hand's target weight in (the arm blends from the clip
 * into the reach), the thing is taken when the weight peaks and rides in the hand while the target moves
 * to the other spot, then the hand lets go and the weight eases out. The hand chain runs down to the
 * spine, so the body leans into a far reach.
 */
export class ReachScript {
  /** Distance from the active hand to its target after the last solve at full weight, metres. */
  handError = 0;
  /** Things carried so far. */
  moved = 0;
  private readonly _reach: Reach;
  private _handle: ReachHandle | null = null;
  private _errand = 0;
  private _forward = true;
  private _carry = -1;
  private _pause = PAUSE;
  private _holding = false;
  private _grabPending = false;
  private readonly _target = new Vector3();
  private readonly _hands = new Map<string, TransformNode>();
  private readonly _chains = new Map<string, number>();
  private readonly _a = new Vector3();
  private readonly _b = new Vector3();
  private readonly _offset = new Vector3();
  private readonly _inverse = new Matrix();

  constructor(
    private readonly _character: Character,
    private readonly _errands: readonly Errand[],
    private readonly _tableTop: number,
  ) {
    const ik = _character.ik;
    const rig = ik.rig!;
    const depth = (j: number) => {
      let d = 0;
      for (let k = rig.parents[j]; k >= 0; k = rig.parents[k]) d++;
      return d;
    };
    const spine = ik.roles.spine ?? ik.roles.hips!;
    for (const { hand } of _errands) {
      const j = ik.jointIndex(hand);
      this._hands.set(hand, rig.nodes[j]!);
      this._chains.set(hand, depth(j) - depth(spine));
    }
    this._reach = new Reach(ik);
    ik.onSolvedObservable.add(() => this._afterSolve());
  }

  /** The active hand's weight, 0 between errands. */
  get weight(): number {
    return this._handle?.weight ?? 0;
  }

  private _grip(spot: Vector3, errand: Errand, out: Vector3): Vector3 {
    return out.set(spot.x + GRIP.x, this._tableTop + errand.rest + GRIP.y, spot.z + GRIP.z);
  }

  /** Call once per frame, before the behavior solves. */
  advance(seconds: number): void {
    const errand = this._errands[this._errand];
    const from = this._forward ? errand.from : errand.to;
    const to = this._forward ? errand.to : errand.from;
    if (this._handle === null) {
      this._pause -= seconds;
      if (this._pause > 0) return;
      this._grip(from, errand, this._target);
      const handle = this._reach.reach(this._target, {
        hand: errand.hand,
        duration: EASE,
        chainLength: this._chains.get(errand.hand),
      });
      handle.onReachedObservable.add(() => {
        this._grabPending = true;
        this._carry = 0;
      });
      void handle.done.then(() => this._next());
      this._handle = handle;
      return;
    }
    if (this._carry < 0) return;
    this._carry += seconds;
    const t = Math.min(1, this._carry / CARRY);
    this._grip(from, errand, this._a);
    this._grip(to, errand, this._b);
    Vector3.LerpToRef(this._a, this._b, smooth(t), this._target);
    this._target.y += LIFT * Math.sin(Math.PI * t);
    if (t < 1) return;
    this._carry = -1;
    this._holding = false;
    errand.thing.position.set(to.x, this._tableTop + errand.rest, to.z);
    this.moved++;
    this._handle.release();
  }

  /** After a reach has eased out: a pause, then the other hand; after both, things go back the other way. */
  private _next(): void {
    this._handle = null;
    this._pause = PAUSE;
    this._errand = (this._errand + 1) % this._errands.length;
    if (this._errand === 0) this._forward = !this._forward;
  }

  /** The solved pose exists only now (the animation is restored after drawing): carry and measure here. */
  private _afterSolve(): void {
    const errand = this._errands[this._errand];
    const hand = this._hands.get(errand.hand)!;
    hand.getScene().incrementRenderId();
    const world = hand.computeWorldMatrix(true);
    if (this._grabPending) {
      world.invertToRef(this._inverse);
      Vector3.TransformCoordinatesToRef(errand.thing.position, this._inverse, this._offset);
      this._grabPending = false;
      this._holding = true;
    }
    if (this._holding) Vector3.TransformCoordinatesToRef(this._offset, world, errand.thing.position);
    if (this.weight > 0.999) this.handError = Vector3.Distance(world.getTranslation(), this._target);
  }

  dispose(): void {
    this._reach.dispose();
  }
}
