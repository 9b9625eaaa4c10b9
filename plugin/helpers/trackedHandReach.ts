import type { FabrikFrame, SkeletonRig } from "../babylon/index.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import { HAND_TARGET } from "./trackedSlots.js";

/**
 * The furthest a hand target is asked to lie from where its chain's base last stood, in chain lengths. An
 * arm chain that starts at the collarbone, pulled straight between a target far out of reach and a head chain
 * that shares its chest, settles on a different pose each frame (hands far apart with the head upside down:
 * the head jumped between frames). A target a little out of reach still pulls the chest toward it, by up to a
 * tenth of the arm a frame, so a far reach is followed over a few frames (a target kept within reach never
 * pulls: in a fall the chest did not follow the hands).
 */
const HAND_SPAN = 1.1;

/**
 * Keeps each hand's target within HAND_SPAN of its arm's reach, as `headWithinReach` keeps the head's within
 * reach: along the line from the chain's base (the collarbone, or the upper arm when the collarbones are left
 * out) where the last solve left it, so the hand still points the tracker's way.
 */
export class TrackedHandReach {
  /** Per side: the arm chain's base joint. */
  private readonly _base: Int32Array;
  /** Per side: the chain's length, base to hand. */
  private readonly _reach = new Float64Array(2);
  /** Per side: the base's place after the last solve (model space). */
  private readonly _at = new Float64Array(6);
  private _known = false;

  constructor(rig: SkeletonRig, body: TrackedBodyRig, collarbones: boolean) {
    const p = rig.restPositions;
    const base: number[] = [];
    body.sides.forEach((s, i) => {
      const top = collarbones && body.handChain !== undefined ? rig.parents[s.upperArm] : s.upperArm;
      base.push(top);
      let reach = 0;
      for (let j = s.hand; j !== top; j = rig.parents[j]) {
        const q = rig.parents[j];
        reach += Math.hypot(p[3 * j] - p[3 * q], p[3 * j + 1] - p[3 * q + 1], p[3 * j + 2] - p[3 * q + 2]);
      }
      this._reach[i] = reach;
    });
    this._base = Int32Array.from(base);
  }

  /** The chain bases' joints (the pass must read them). */
  get joints(): readonly number[] {
    return Array.from(this._base);
  }

  /** After the solve: where the bases stand. */
  store(frame: FabrikFrame): void {
    const pos = frame.positions;
    for (let i = 0; i < 2; i++) for (let k = 0; k < 3; k++) this._at[3 * i + k] = pos[3 * this._base[i] + k];
    this._known = true;
  }

  /** Forgets where the bases stood (TrackedBody.reset). */
  reset(): void {
    this._known = false;
  }

  /** In place: hand `i`'s target `v[HAND_TARGET + 7i]` brought within HAND_SPAN of its chain's reach. */
  limit(v: Float64Array, i: number): void {
    if (!this._known) return;
    const o = HAND_TARGET + 7 * i,
      a = 3 * i;
    const dx = v[o] - this._at[a],
      dy = v[o + 1] - this._at[a + 1],
      dz = v[o + 2] - this._at[a + 2];
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const most = HAND_SPAN * this._reach[i];
    if (!(d > most)) return;
    const k = most / d;
    v[o] = this._at[a] + dx * k;
    v[o + 1] = this._at[a + 1] + dy * k;
    v[o + 2] = this._at[a + 2] + dz * k;
  }
}
