import type { AttachedCharacter } from "./attachedCharacter.js";
import {
  checkBehaviorOptions,
  checkMaxIterations,
  checkTolerance,
  checkWeight,
  type CheckedBehaviorOptions,
  type FabrikBehaviorOptions,
} from "./behaviorOptions.js";

/**
 * What a behavior is set to, apart from its targets and limits: its options as checked when it was made, and
 * the global weight, tolerance and iteration cap, which the setters change at any time (a tolerance or cap
 * changed while attached goes straight into the current plan's solve settings).
 */
export class BehaviorSettings {
  readonly options: CheckedBehaviorOptions;
  private _weight = 1;
  private _tolerance: number;
  private _maxIterations: number;

  /** Throws a {@link FabrikError} naming the first bad option. */
  constructor(options: FabrikBehaviorOptions) {
    this.options = checkBehaviorOptions(options);
    this._tolerance = this.options.tolerance;
    this._maxIterations = this.options.maxIterations;
  }

  get weight(): number {
    return this._weight;
  }
  set weight(value: number) {
    this._weight = checkWeight(value);
  }

  /** A fraction of the character's height. */
  get tolerance(): number {
    return this._tolerance;
  }

  get maxIterations(): number {
    return this._maxIterations;
  }

  setTolerance(value: number, character: AttachedCharacter | null): void {
    this._tolerance = checkTolerance(value);
    if (character?.targets != null) character.targets.settings.tolerance = this._tolerance * character.height;
  }

  setMaxIterations(value: number, character: AttachedCharacter | null): void {
    this._maxIterations = checkMaxIterations(value);
    if (character?.targets != null) character.targets.settings.maxIterations = this._maxIterations;
  }
}
