import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import type {
  FabrikBehavior,
  FabrikFrame,
  FabrikJoint,
  FabrikPass,
  FabrikTargetOptions,
  SkeletonRig,
  QuaternionLike,
  TargetSource,
} from "../babylon/index.js";
import { FabrikError } from "../solver/index.js";
import { attachedRig } from "./attached.js";

export interface ReachOptions {
  /** The hand (or any joint): a bone name, a humanoid role, a joint node or a Bone. Default `"rightHand"`. */
  hand?: FabrikJoint;
  /** Seconds to ease the weight in. Default 0.4. */
  duration?: number;
  /** Seconds to hold at full weight before easing out; `Infinity` (default) holds until `release()`. */
  hold?: number;
  /** Seconds to ease out from full weight (shorter from a partial one). Default: `duration`. */
  release?: number;
  /**
   * The hand also turns: `true` takes the target node's world rotation (the target must be a node), a
   * quaternion is a world rotation read live. Default: position only.
   */
  orientation?: boolean | QuaternionLike;
  /** The weight held, 0..1. Default 1. */
  weight?: number;
  /** Bones above the hand that move; default: the behavior's (the arm, for a humanoid hand). */
  chainLength?: number;
  /** A bend hint for the elbow. */
  pole?: TargetSource;
}

/** How a reach ended. `replaced`: a newer reach took the same hand over. */
export type ReachOutcome = "completed" | "cancelled" | "replaced";

/** Where a reach is: easing in, holding, easing out, or over. */
export type ReachPhase = "in" | "hold" | "out" | "done";

/** Where the reaches run among a frame's passes: after the body's passes, before the user's. */
const REACH_ORDER = -10;

const OPTION_KEYS = ["hand", "duration", "hold", "release", "orientation", "weight", "chainLength", "pole"];

/**
 * Frame times summed in floating point miss round numbers by an ulp or so (thirty steps of 1/60 s make
 * 0.49999999999999994 s): a phase ending within this of now ends now, at any frame rate alike.
 */
const TIME_EPSILON = 1e-9;

/** Slots of a handle's numbers: doubles kept in object fields or returned from calls are boxed in some tiers. */
const WEIGHT = 0;
const FROM = 1;
const TIME = 2;
const HOLD = 3;
const EASE = 4;
const HANDLE_SLOTS = 5;

/**
 * Smoothstep of `v[EASE]`, in place: eases in and out, with zero slope at both ends so the hand starts and
 * stops gently.
 */
function ease(v: Float64Array): void {
  const x = v[EASE];
  v[EASE] = x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x);
}

/** One reach in progress. Its weight is a function of elapsed time, so frame rate changes nothing. */
export class ReachHandle {
  /** Fired once, when the weight first reaches its peak. */
  readonly onReachedObservable = new Observable<ReachHandle>();
  /** Fired once, when the reach is over and its target removed (or handed to a newer reach). */
  readonly onDoneObservable = new Observable<ReachOutcome>();
  /** Resolves when the reach is over. Never rejects. */
  readonly done: Promise<ReachOutcome>;

  private _phase: ReachPhase = "in";
  /** The weight, the weight the current phase started from, the time in the phase, the hold. */
  private readonly _v = new Float64Array(HANDLE_SLOTS);
  private _outcome: ReachOutcome | null = null;
  private _cancelled = false;
  private _resolve!: (outcome: ReachOutcome) => void;

  /** @internal */
  constructor(
    private readonly _owner: Reach,
    /** The hand's joint index. */
    readonly index: number,
    /** The hand, as its node (or its Bone). */
    readonly joint: TransformNode | Bone,
    readonly name: string,
    readonly target: TargetSource,
    private readonly _peak: number,
    private readonly _duration: number,
    hold: number,
    private readonly _release: number,
    startWeight: number,
  ) {
    this._v[WEIGHT] = startWeight;
    this._v[FROM] = startWeight;
    this._v[HOLD] = hold;
    this.done = new Promise<ReachOutcome>((resolve) => (this._resolve = resolve));
  }

  get phase(): ReachPhase {
    return this._phase;
  }

  /** The hand's current weight. */
  get weight(): number {
    return this._v[WEIGHT];
  }

  /** How the reach ended, or null while it runs. */
  get outcome(): ReachOutcome | null {
    return this._outcome;
  }

  /** Ends the hold now (or the ease-in, from where it got): the hand eases back to its animation. */
  release(): void {
    if (this._phase === "in" || this._phase === "hold") this._startOut();
    this._v[HOLD] = 0;
  }

  /**
   * Stops the reach: by default the weight eases to 0 (over `release` seconds, scaled by the current
   * weight) and then the target is removed; `{ immediate: true }` removes it now. Either way the hand is
   * back to its animation and `done` resolves with `"cancelled"`.
   */
  cancel(options: { immediate?: boolean } = {}): void {
    if (this._phase === "done") return;
    this._cancelled = true;
    if (options.immediate === true) {
      this._v[WEIGHT] = 0;
      this._owner._finish(this, "cancelled", true);
    } else if (this._phase !== "out") {
      this._startOut();
    }
  }

  /** @internal Advances by `values[slot]` seconds; returns true when the weight changed. */
  _advance(values: Float64Array, slot: number): boolean {
    const v = this._v;
    const before = v[WEIGHT];
    let left = values[slot];
    // A frame may span the end of one phase and the start of the next: the time left over carries on.
    while (this._phase !== "done") {
      if (this._phase === "in") {
        const span = this._duration;
        const t = v[TIME] + left;
        if (t < span - TIME_EPSILON) {
          v[TIME] = t;
          v[EASE] = t / span;
          ease(v);
          v[WEIGHT] = v[FROM] + (this._peak - v[FROM]) * v[EASE];
          break;
        }
        left = Math.max(0, t - span);
        v[WEIGHT] = this._peak;
        this._phase = "hold";
        v[TIME] = 0;
        this.onReachedObservable.notifyObservers(this);
      } else if (this._phase === "hold") {
        const t = v[TIME] + left;
        if (t < v[HOLD] - TIME_EPSILON) {
          v[TIME] = t;
          break;
        }
        left = Math.max(0, t - v[HOLD]);
        this._startOut();
      } else {
        const span = this._peak > 0 ? (this._release * v[FROM]) / this._peak : 0;
        const t = v[TIME] + left;
        if (t < span - TIME_EPSILON) {
          v[TIME] = t;
          v[EASE] = t / span;
          ease(v);
          v[WEIGHT] = v[FROM] * (1 - v[EASE]);
          break;
        }
        v[WEIGHT] = 0;
        this._owner._finish(this, this._cancelled ? "cancelled" : "completed", true);
        break;
      }
    }
    return v[WEIGHT] !== before;
  }

  /** @internal The hand's target takes the current weight. */
  _setWeight(ik: FabrikBehavior): void {
    ik.setTargetWeight(this.index, this._v[WEIGHT]);
  }

  /** @internal */
  _end(outcome: ReachOutcome): void {
    this._phase = "done";
    this._outcome = outcome;
    this.onReachedObservable.clear();
    this.onDoneObservable.notifyObservers(outcome);
    this.onDoneObservable.clear();
    this._resolve(outcome);
  }

  private _startOut(): void {
    this._phase = "out";
    this._v[FROM] = this._v[WEIGHT];
    this._v[TIME] = 0;
  }
}

/**
 * Reaching: a hand (or any joint) eases toward a target and back, by ramping its effector weight.
 *
 * ```ts
 * const reach = new Reach(ik);
 * const grab = reach.reach(cup, { hand: "rightHand", duration: 0.5, hold: 1, orientation: true });
 * grab.onReachedObservable.add(() => attachCup());
 * await grab.done; // "completed": eased in, held 1 s, eased out, target removed
 * ```
 *
 * The weight follows a smoothstep from 0 to `weight` over `duration`, holds, then eases to 0 over
 * `release`; at 0 the target is removed, so the arm shows its animation exactly (the behavior writes
 * nothing for it). The weight is a function of elapsed time, independent of the frame rate. A new reach on
 * a hand that is still reaching takes over from the current weight (the older one ends `"replaced"`).
 *
 * It is a pass of the behavior's frame (see `FabrikBehavior.addPass`, order -10): the weights change
 * before the solve that uses them. Like every pass, it waits while the behavior is disabled. A frame
 * allocates nothing: the weight is changed in place (`setTargetWeight`).
 */
export class Reach {
  private readonly _rig: SkeletonRig;
  private readonly _active: ReachHandle[] = [];
  private _pass: FabrikPass | null = null;
  private _disposed = false;
  /** The frame's time step: a double passed to a call V8 does not inline is boxed. */
  private readonly _numbers = new Float64Array(1);

  constructor(
    readonly behavior: FabrikBehavior,
    options: { autoUpdate?: boolean } = {},
  ) {
    this._rig = attachedRig(behavior, "Reach");
    if (options.autoUpdate ?? true) {
      this._pass = {
        beforeSolve: (frame: FabrikFrame) => {
          this._numbers[0] = frame.deltaTime;
          this._step();
        },
      };
      behavior.addPass(this._pass, { order: REACH_ORDER });
    }
  }

  /** The reaches in progress. */
  get active(): readonly ReachHandle[] {
    return this._active;
  }

  /**
   * Starts a reach toward `target` (a Vector3 read live, a node, or a function). Throws a FabrikError,
   * changing nothing, for an unknown hand, a bad target or a bad option.
   */
  reach(target: TargetSource, options: ReachOptions = {}): ReachHandle {
    const who = "Reach reach()";
    if (this._disposed) throw new FabrikError(`${who}: this Reach was disposed`);
    for (const key of Object.keys(options)) {
      if (!OPTION_KEYS.includes(key)) {
        throw new FabrikError(`${who}: unknown option "${key}" (options are ${OPTION_KEYS.join(", ")})`);
      }
    }
    const ik = this.behavior;
    if (ik.rig !== this._rig) throw new FabrikError(`${who}: the behavior was detached`);
    const hand = options.hand ?? "rightHand";
    const j = ik.jointIndex(hand);
    if (j < 0) {
      const name =
        typeof hand === "string" ? `"${hand}"` : ((hand as { name?: string }).name ?? String(hand));
      throw new FabrikError(`${who}: no joint ${name} in the rig (give { hand: "…" })`, undefined, "hand");
    }
    const duration = seconds(options.duration ?? 0.4, "duration", who, false);
    const hold = seconds(options.hold ?? Infinity, "hold", who, true);
    const release = seconds(options.release ?? duration, "release", who, false);
    const peak = options.weight ?? 1;
    if (typeof peak !== "number" || !(peak >= 0 && peak <= 1)) {
      throw new FabrikError(`${who}: weight must be a number in [0, 1], got ${String(peak)}`, j, "weight");
    }
    const previous = this._active.find((h) => h.index === j);
    const start = previous?.weight ?? 0;
    const targetOptions: FabrikTargetOptions = { weight: start };
    if (options.chainLength !== undefined) targetOptions.chainLength = options.chainLength;
    if (options.pole !== undefined) targetOptions.pole = options.pole;
    const orientation = options.orientation;
    if (orientation === true) targetOptions.matchOrientation = true;
    else if (orientation !== undefined && orientation !== false) targetOptions.rotation = orientation;
    // Set now, so a bad target or option throws here rather than in a later frame.
    ik.setTarget(j, target, targetOptions);
    const handle = new ReachHandle(
      this,
      j,
      this._rig.nodes[j] ?? this._rig.bones[j][0],
      this._rig.names[j],
      target,
      peak,
      duration,
      hold,
      release,
      start,
    );
    if (previous !== undefined) this._finish(previous, "replaced", false);
    this._active.push(handle);
    return handle;
  }

  /** Advances every reach by `dt` seconds. Call it yourself only with `autoUpdate: false`, before the solve. */
  update(dt: number): void {
    this._numbers[0] = dt;
    this._step();
  }

  /** Advances every reach by `numbers[0]` seconds. */
  private _step(): void {
    if (this._disposed) return;
    const ik = this.behavior;
    if (ik.rig !== this._rig) {
      // Detached: the behavior dropped its targets already.
      while (this._active.length > 0) this._finish(this._active[0], "cancelled", false);
      return;
    }
    const numbers = this._numbers;
    if (!(numbers[0] > 0 && Number.isFinite(numbers[0]))) numbers[0] = 0;
    // Backwards: a reach that ends leaves the list.
    for (let i = this._active.length - 1; i >= 0; i--) {
      const handle = this._active[i];
      if (handle._advance(numbers, 0) && handle.phase !== "done") this._setWeight(handle);
    }
  }

  /** The hand's target takes the handle's weight; a target someone else removed ends the reach. */
  private _setWeight(handle: ReachHandle): void {
    if (!this.behavior.hasTarget(handle.index)) {
      this._finish(handle, "cancelled", false);
      return;
    }
    handle._setWeight(this.behavior);
  }

  /** Cancels every reach (see {@link ReachHandle.cancel}). */
  cancelAll(options: { immediate?: boolean } = {}): void {
    for (const handle of this._active.slice()) handle.cancel(options);
  }

  /** Ends every reach at once (targets removed, `"cancelled"`) and stops updating. Idempotent. */
  dispose(): void {
    if (this._disposed) return;
    this.cancelAll({ immediate: true });
    if (this._pass !== null) this.behavior.removePass(this._pass);
    this._pass = null;
    this._disposed = true;
  }

  /** @internal Ends a reach; `removeTarget` when its target is still the behavior's. */
  _finish(handle: ReachHandle, outcome: ReachOutcome, removeTarget: boolean): void {
    const i = this._active.indexOf(handle);
    if (i >= 0) this._active.splice(i, 1);
    if (removeTarget && this.behavior.rig === this._rig) this.behavior.removeTarget(handle.index);
    handle._end(outcome);
  }
}

function seconds(value: unknown, option: string, who: string, infinite: boolean): number {
  if (typeof value !== "number" || !(value >= 0) || (!infinite && !Number.isFinite(value))) {
    throw new FabrikError(
      `${who}: ${option} must be a number of seconds >= 0${infinite ? " (or Infinity)" : ""}, got ${String(value)}`,
      undefined,
      option,
    );
  }
  return value;
}
