import { Ray } from "@babylonjs/core/Culling/ray.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { vectorFromArray, type FabrikFrame } from "../babylon/index.js";
import { quatFromUnitVectors, quatMultiply, transformDirection, transformPoint } from "../rig/index.js";
import { pickGround } from "./groundProbe.js";
import type { TrackedBodyRig } from "./trackedBodyRig.js";
import type { TrackedBodySettings } from "./trackedBodyOptions.js";
import { unit3 } from "./trackedMath.js";

/* Scratch slots (world unless said otherwise). */
const UP = 0; // the body's up (model space): the heights the hips are placed by
const TOP = 3;
const BOTTOM = 6;
const DIR = 9;
const HIT = 12;
const NORMAL = 15;
const DELTA = 18; // a quaternion
const GROUND_UP = 22; // world up in model space: the animation's ground is square to it
const LENGTH = 25;
const SCRATCH = 26;

/**
 * The ground under a tracked body's feet: a ray cast down through a spot finds the ground meshes (the same
 * cast as FootPlacement's), and gives back the ground's point and normal in model space. A ground is kept as
 * 6 numbers (a point on it, then its normal, unit and facing up), a plane the foot lands on: a spot a little
 * off the one cast is placed on the same plane, so a step's target can move a little without a new cast.
 */
export class TrackedGround {
  private readonly _ray = new Ray(new Vector3(), new Vector3(0, -1, 0), 1);
  private readonly _predicate: (mesh: AbstractMesh) => boolean;
  private readonly _w = new Float64Array(SCRATCH);
  private _toWorld: Float64Array | null = null;
  private _toModel: Float64Array | null = null;
  /** Rays cast since the start (a count for tests and tools). */
  casts = 0;
  /** The mesh the last cast that picked hit (null on a miss). */
  lastMesh: AbstractMesh | null = null;
  /** A dry run's stand-in for a hit, alternating so both outcomes' code runs every frame (see `cast`). */
  private _dryHit = false;

  constructor(
    private readonly _scene: Scene,
    private readonly _body: TrackedBodyRig,
    ground: () => (mesh: AbstractMesh) => boolean,
  ) {
    this._predicate = (mesh) => ground()(mesh);
    for (let k = 0; k < 3; k++) this._w[UP + k] = this._w[GROUND_UP + k] = _body.frame[3 + k];
  }

  /**
   * The frame's model-to-world and back (the casts of this frame use them), and world up in model space:
   * rays are cast down along it and a sole on level ground is as at rest. (The body's up, from its hips to
   * its head, may lean a little: the mannequin's by 0.9°.)
   */
  begin(frame: FabrikFrame): void {
    const w = this._w,
      w2m = frame.worldToModel;
    this._toWorld = frame.modelToWorld;
    this._toModel = w2m;
    w[GROUND_UP] = w2m[4];
    w[GROUND_UP + 1] = w2m[5];
    w[GROUND_UP + 2] = w2m[6];
    if (!unit3(w, GROUND_UP)) for (let k = 0; k < 3; k++) w[GROUND_UP + k] = w[UP + k];
  }

  /**
   * Casts down through the spot `s[at..at+2]` (model space; only where it is across the ground counts) from
   * `level + above` to `level - below` along up (model units; `s[range..range+2]` holds the three: numbers
   * passed to a call V8 does not inline are boxed), into `s[out..out+5]` (a ground: point and
   * normal, the normal turned at most `maxTilt` from up). With no ground mesh hit, or before the first frame,
   * the plane through the model origin (the animation's ground). True on a hit.
   *
   * With `pick` false, a dry run: everything but the picking, on a made-up outcome, into scratch. Steps are
   * rare; code that runs only then stays in V8's interpreter, which boxes every double it computes (an
   * allocation each), so the steps run a dry cast every frame to keep this code compiled.
   */
  cast(
    s: Float64Array,
    at: number,
    range: number,
    settings: TrackedBodySettings,
    out: number,
    pick: boolean,
  ): boolean {
    const w = this._w;
    const level = s[range],
      above = s[range + 1],
      below = s[range + 2];
    const toWorld = this._toWorld,
      toModel = this._toModel;
    const d = s[at] * w[GROUND_UP] + s[at + 1] * w[GROUND_UP + 1] + s[at + 2] * w[GROUND_UP + 2];
    let hit = false;
    if (pick) this.lastMesh = null;
    if (toWorld !== null && toModel !== null && above + below > 0) {
      for (let k = 0; k < 3; k++) {
        w[HIT + k] = s[at + k] + (level + above - d) * w[GROUND_UP + k];
        w[NORMAL + k] = s[at + k] + (level - below - d) * w[GROUND_UP + k];
      }
      transformPoint(w, TOP, toWorld, w, HIT);
      transformPoint(w, BOTTOM, toWorld, w, NORMAL);
      for (let k = 0; k < 3; k++) w[DIR + k] = w[BOTTOM + k] - w[TOP + k];
      const length = Math.sqrt(w[DIR] * w[DIR] + w[DIR + 1] * w[DIR + 1] + w[DIR + 2] * w[DIR + 2]);
      if (unit3(w, DIR)) {
        w[LENGTH] = length;
        if (pick) {
          vectorFromArray(this._ray.origin, w, TOP);
          vectorFromArray(this._ray.direction, w, DIR);
          // Stored only when it changes: the ray's field holds a boxed number, a new one at each store.
          if (Math.abs(this._ray.length - w[LENGTH]) > 1e-6 * w[LENGTH]) this._ray.length = w[LENGTH];
          this.casts++;
          this.lastMesh = pickGround(this._scene, this._ray, this._predicate, w, HIT, w, NORMAL);
          hit = this.lastMesh !== null;
        } else {
          hit = this._dryHit = !this._dryHit;
        }
      }
    }
    if (hit) {
      transformPoint(s, out, toModel!, w, HIT);
      transformDirection(s, out + 3, toModel!, w, NORMAL);
      const up = s[out + 3] * w[GROUND_UP] + s[out + 4] * w[GROUND_UP + 1] + s[out + 5] * w[GROUND_UP + 2];
      if (!unit3(s, out + 3) || !(up > 0)) for (let k = 0; k < 3; k++) s[out + 3 + k] = w[GROUND_UP + k];
      limitTilt(s, out + 3, w, settings);
      hit = Number.isFinite(s[out]) && Number.isFinite(s[out + 1]) && Number.isFinite(s[out + 2]);
      if (!hit && pick) this.lastMesh = null;
    }
    if (!hit) {
      for (let k = 0; k < 3; k++) {
        s[out + k] = s[at + k] - d * w[GROUND_UP + k];
        s[out + 3 + k] = w[GROUND_UP + k];
      }
    }
    return hit;
  }

  /**
   * Puts foot `i`'s place `s[p..p+2]` straight above the ground `s[g..g+5]`, the foot's rest height above it
   * measured square to the ground (so a tilted foot's sole rests on it: straight above, that is height /
   * cos(tilt)); the ground's height under it along the body's up into `s[level]`.
   */
  land(s: Float64Array, p: number, g: number, i: number, level: number): void {
    const w = this._w;
    const footHeight = this._body.footHeight[i];
    const nu = s[g + 3] * w[GROUND_UP] + s[g + 4] * w[GROUND_UP + 1] + s[g + 5] * w[GROUND_UP + 2];
    const cos = nu > 0.1 ? nu : 0.1;
    const off =
      s[g + 3] * (s[p] - s[g]) + s[g + 4] * (s[p + 1] - s[g + 1]) + s[g + 5] * (s[p + 2] - s[g + 2]);
    const t = -off / cos;
    const lift = t + footHeight / cos;
    for (let k = 0; k < 3; k++) s[p + k] += lift * w[GROUND_UP + k];
    s[level] = s[p] * w[UP] + s[p + 1] * w[UP + 1] + s[p + 2] * w[UP + 2] - footHeight / cos;
  }

  /** How far the point `s[t..t+2]` stands above the ground `s[g..g+5]`, straight up, into `s[out]`. */
  above(s: Float64Array, g: number, t: number, out: number): void {
    const w = this._w;
    const nu = s[g + 3] * w[GROUND_UP] + s[g + 4] * w[GROUND_UP + 1] + s[g + 5] * w[GROUND_UP + 2];
    const off =
      s[g + 3] * (s[t] - s[g]) + s[g + 4] * (s[t + 1] - s[g + 1]) + s[g + 5] * (s[t + 2] - s[g + 2]);
    s[out] = off / (nu > 0.1 ? nu : 0.1);
  }

  /**
   * Tilts the rotation `v[q..q+3]` (model space) from up to the ground normal `n[no..no+2]`: the sole follows
   * the slope, the foot's turn about up kept.
   */
  tilt(v: Float64Array, q: number, n: Float64Array, no: number): void {
    const w = this._w;
    quatFromUnitVectors(w, DELTA, w, GROUND_UP, n, no);
    quatMultiply(v, q, w, DELTA, v, q);
  }
}

/** In place: the unit normal `s[o..o+2]` turned toward world up `w[GROUND_UP..]` until at most `maxTilt` from it. */
function limitTilt(s: Float64Array, o: number, w: Float64Array, settings: TrackedBodySettings): void {
  const cosMost = Math.cos(Math.min(settings.maxTilt, Math.PI / 2 - 1e-3));
  const c = s[o] * w[GROUND_UP] + s[o + 1] * w[GROUND_UP + 1] + s[o + 2] * w[GROUND_UP + 2];
  if (c >= cosMost) return;
  for (let k = 0; k < 3; k++) s[o + k] -= c * w[GROUND_UP + k];
  if (!unit3(s, o)) {
    for (let k = 0; k < 3; k++) s[o + k] = w[GROUND_UP + k];
    return;
  }
  const sinMost = Math.sqrt(1 - cosMost * cosMost);
  for (let k = 0; k < 3; k++) s[o + k] = s[o + k] * sinMost + cosMost * w[GROUND_UP + k];
}
