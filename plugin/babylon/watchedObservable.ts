import { Observable, type EventState, type Observer } from "@babylonjs/core/Misc/observable.js";
import type { Nullable } from "@babylonjs/core/types.js";

type Callback<T> = (eventData: T, eventState: EventState) => void;

/** Bits of `WatchedOwner._watched`: which of a behavior's per-frame observables has ever had an observer. */
export const WATCHED_PRESOLVE = 1;
export const WATCHED_SOLVED = 2;

/** What keeps the bits: the behavior, which a frame reads anyway. */
export interface WatchedOwner {
  _watched: number;
}

/**
 * An Observable that sets its bit on its owner when an observer is added, for good: a frame skips notifying
 * an observable that never had one without touching it. With a hundred characters each observable and its
 * list of observers is one more object met cold every frame; the owner is met anyway. Every way of adding
 * an observer (`addOnce` too) goes through `add`.
 */
export class WatchedObservable<T> extends Observable<T> {
  constructor(
    private readonly _owner: WatchedOwner,
    private readonly _bit: number,
  ) {
    super();
  }

  override add(callback?: null, mask?: number, insertFirst?: boolean, scope?: unknown, once?: boolean): null;
  override add(
    callback: Callback<T>,
    mask?: number,
    insertFirst?: boolean,
    scope?: unknown,
    once?: boolean,
  ): Observer<T>;
  override add(
    callback?: Callback<T> | null,
    mask?: number,
    insertFirst?: boolean,
    scope?: unknown,
    once?: boolean,
  ): Nullable<Observer<T>> {
    const observer = super.add(callback, mask, insertFirst, scope, once);
    if (observer !== null) this._owner._watched |= this._bit;
    return observer;
  }
}
