import { markJointLimitsShared, type JointLimits } from "../solver/limits.js";
import { compilePlan, type PlanOptions, type SolvePlan } from "../solver/plan.js";
import { createRig, type Rig, type RigDescription } from "../solver/rig.js";
import { createSolveWorkspace, type SolveWorkspace } from "../solver/workspace.js";

/*
 * A crowd is mostly copies of a few models, and each copy's solver rig, limit set, plan layouts and solve
 * workspace equal every other copy's number for number. Handing every copy one of each keeps one copy of that
 * data in cache for the whole crowd where there were a hundred. The cache below does that in plain sight: it
 * belongs to the scene's FabrikSystem (`FabrikSystem.of(scene).models`), counts who uses what, and lets go of
 * a model, a limit set or a layout when its last user does (a behavior detaching, editing its limits, or
 * changing its targets). Only equal data is shared, compared byte for byte.
 */

/** One model's data, shared by the behaviors of every character made from it. */
export class FabrikModel {
  /** The solver's view of the model, shared by every copy. */
  readonly rig: Rig;
  /**
   * Where every plan of the model solves (see SolveWorkspace): behaviors solve one after another, and
   * nothing runs inside a solve that could start another, so they can all work in one.
   */
  readonly workspace: SolveWorkspace;
  private readonly _limitSets = new Map<string, Counted<JointLimits>>();
  private readonly _layouts = new Map<string, Counted<SolvePlan>>();
  private readonly _layoutOf = new Map<SolvePlan, string>();
  /** @internal Behaviors attached to a copy of the model. */
  _users = 0;

  /** @internal */
  constructor(
    description: RigDescription,
    /** @internal */
    readonly _key: string,
  ) {
    this.rig = createRig(description);
    this.workspace = createSolveWorkspace(this.rig.jointCount);
  }

  /** Limit sets in use (one per distinct set of limits among the copies). */
  get limitSetCount(): number {
    return this._limitSets.size;
  }

  /** Plan layouts in use (one per distinct set of effectors among the copies). */
  get layoutCount(): number {
    return this._layouts.size;
  }

  /**
   * The limit set in use with the same limits as `limits` (for this model's rig), or `limits` itself; either
   * way marked shared, so edits go to a copy and never reach another character. Counted until
   * {@link releaseLimits}.
   */
  shareLimits(limits: JointLimits): JointLimits {
    const fields = limits as unknown as Record<string, unknown>;
    const parts = [JSON.stringify(limits.specs)];
    for (const key of Object.keys(fields)) {
      const value = fields[key];
      if (ArrayBuffer.isView(value)) parts.push(key, bytesOf(value));
    }
    const shared = take(this._limitSets, parts.join("|"), limits);
    markJointLimitsShared(shared);
    return shared;
  }

  /** One user of a limit set from {@link shareLimits} is done with it. */
  releaseLimits(limits: JointLimits): void {
    for (const [key, entry] of this._limitSets) {
      if (entry.value === limits) {
        if (--entry.users === 0) this._limitSets.delete(key);
        return;
      }
    }
  }

  /**
   * `compilePlan` for this model, in its workspace, sharing the layout of a plan in use with the same
   * effectors (see `PlanOptions.shareLayoutWith`). Counted until {@link releasePlan}.
   */
  compilePlan(options: Omit<PlanOptions, "workspace" | "shareLayoutWith">): SolvePlan {
    // What decides a layout; weights, limits and the workspace do not.
    const key = JSON.stringify([
      options.effectors.map((e) => [e.joint, e.chainLength ?? null, e.pole === true]),
      options.pinned ?? [],
      options.passiveJoints ?? "all",
    ]);
    const known = this._layouts.get(key);
    const plan = compilePlan(this.rig, {
      ...options,
      workspace: this.workspace,
      shareLayoutWith: known?.value,
    });
    if (known !== undefined) known.users++;
    else this._layouts.set(key, { value: plan, users: 1 });
    this._layoutOf.set(plan, key);
    return plan;
  }

  /** A plan from {@link compilePlan} is no longer used. */
  releasePlan(plan: SolvePlan): void {
    const key = this._layoutOf.get(plan);
    if (key === undefined) return;
    this._layoutOf.delete(plan);
    const entry = this._layouts.get(key)!;
    if (--entry.users === 0) this._layouts.delete(key);
  }
}

/** The models of one scene's characters: one {@link FabrikModel} per distinct rig (joints, names, rest pose). */
export class FabrikModelCache {
  private readonly _models = new Map<string, FabrikModel>();

  /** Models with at least one character. */
  get size(): number {
    return this._models.size;
  }

  /** The models in use. */
  get models(): readonly FabrikModel[] {
    return [...this._models.values()];
  }

  /** The model with the joints, names and rest pose of `description`, made when new; counted until released. */
  acquire(description: RigDescription): FabrikModel {
    const key = [
      JSON.stringify(description.names ?? null),
      bytesOf(Int32Array.from(description.parents)),
      bytesOf(Float64Array.from(description.restPositions)),
      bytesOf(Float64Array.from(description.restOrientations ?? [])),
    ].join("|");
    let model = this._models.get(key);
    if (model === undefined) this._models.set(key, (model = new FabrikModel(description, key)));
    model._users++;
    return model;
  }

  /** A character of `model` is gone; the model goes with its last one. */
  release(model: FabrikModel): void {
    if (--model._users === 0 && this._models.get(model._key) === model) this._models.delete(model._key);
  }
}

interface Counted<T> {
  readonly value: T;
  users: number;
}

function take<T>(map: Map<string, Counted<T>>, key: string, value: T): T {
  const known = map.get(key);
  if (known !== undefined) {
    known.users++;
    return known.value;
  }
  map.set(key, { value, users: 1 });
  return value;
}

/** The bytes of a typed array as a string (one character per byte): equal strings, equal contents. */
function bytesOf(view: ArrayBufferView): string {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let text = "";
  for (let i = 0; i < bytes.length; i += 4096)
    text += String.fromCharCode(...bytes.subarray(i, Math.min(i + 4096, bytes.length)));
  return text;
}
