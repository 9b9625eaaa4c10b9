import { markJointLimitsShared, type JointLimits } from "../solver/limits.js";
import { compilePlan, type PlanOptions, type SolvePlan } from "../solver/plan.js";
import type { Rig } from "../solver/rig.js";
import { createSolveWorkspace, type SolveWorkspace } from "../solver/workspace.js";

/*
 * A crowd is mostly copies of a few models: each copy's behavior builds a solver rig and a limit set that
 * equal, number for number, those of every other copy. Handing them all one rig and one limit set keeps one
 * copy of that data in cache for the whole crowd where there were a hundred: the characters bench's frame
 * took 5–8 % less (its hundred copies of RobotExpressive with and without sharing, frames alternating in one
 * process). Only equal data is shared, compared byte for byte; the sets are held weakly, so a model whose last
 * character is gone leaves nothing behind. The same goes for what their solves work in (one workspace per
 * rig) and for the layouts of their plans (one per set of effectors).
 */

const rigs = new Map<string, WeakRef<Rig>>();
const limitSets = new WeakMap<Rig, Map<string, WeakRef<JointLimits>>>();
const workspaces = new WeakMap<Rig, SolveWorkspace>();
const plans = new WeakMap<Rig, Map<string, WeakRef<SolvePlan>>>();
const forgetting = new FinalizationRegistry<() => void>((forget) => forget());

/** The rig already in use with the same joints, names and rest pose as `rig`, or `rig` itself. */
export function shareRig(rig: Rig): Rig {
  const key = [
    JSON.stringify(rig.names ?? null),
    bytesOf(rig.parents),
    bytesOf(rig.restPositions),
    bytesOf(rig.restOrientations),
  ].join("|");
  return intern(rigs, key, rig);
}

/**
 * The limit set already in use with the same rig and the same limits as `limits`, or `limits` itself; either
 * way marked shared, so edits go to a copy (`FabrikBehavior.setLimit` makes one) and never reach another
 * character.
 */
export function shareLimits(limits: JointLimits): JointLimits {
  let sets = limitSets.get(limits.rig);
  if (sets === undefined) limitSets.set(limits.rig, (sets = new Map()));
  const fields = limits as unknown as Record<string, unknown>;
  const parts = [JSON.stringify(limits.specs)];
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (ArrayBuffer.isView(value)) parts.push(key, bytesOf(value));
  }
  const shared = intern(sets, parts.join("|"), limits);
  markJointLimitsShared(shared);
  return shared;
}

/**
 * The one solve workspace of every plan compiled for `rig` (see SolveWorkspace). Behaviors solve one at a
 * time, and nothing runs inside a solve that could start another, so they can all work in one.
 */
export function sharedWorkspace(rig: Rig): SolveWorkspace {
  let workspace = workspaces.get(rig);
  if (workspace === undefined) workspaces.set(rig, (workspace = createSolveWorkspace(rig.jointCount)));
  return workspace;
}

/**
 * `compilePlan`, sharing the layout of a plan compiled before for the same rig and effectors, when one is
 * still alive (see `PlanOptions.shareLayoutWith`): copies of a model with the same targets read one layout.
 */
export function compileSharedPlan(rig: Rig, options: PlanOptions): SolvePlan {
  let known = plans.get(rig);
  if (known === undefined) plans.set(rig, (known = new Map()));
  // What decides a layout; weights, limits and the workspace do not.
  const key = JSON.stringify([
    options.effectors.map((e) => [e.joint, e.chainLength ?? null, e.pole === true]),
    options.pinned ?? [],
    options.passiveJoints ?? "all",
  ]);
  const plan = compilePlan(rig, { ...options, shareLayoutWith: known.get(key)?.deref() });
  intern(known, key, plan);
  return plan;
}

function intern<T extends object>(map: Map<string, WeakRef<T>>, key: string, value: T): T {
  const known = map.get(key)?.deref();
  if (known !== undefined) return known;
  const ref = new WeakRef(value);
  map.set(key, ref);
  forgetting.register(value, () => {
    if (map.get(key) === ref) map.delete(key);
  });
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
