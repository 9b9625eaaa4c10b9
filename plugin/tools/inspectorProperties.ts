import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { InspectableType, type IInspectable } from "@babylonjs/core/Misc/iInspectable.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { JointLimitSpec, SwingLimitSpec } from "../solver/limits.js";
import { FabrikDebugView } from "./debugView.js";
import type { FabrikBehavior, FabrikJoint, FabrikTargetInfo, Vector3Like } from "../babylon/index.js";
import { getSelectedJoint, setSelectedJoint } from "./jointSelection.js";

/** Anything the Inspector can select that carries custom rows: a Node, or the behavior itself. */
type Host = object & { inspectableCustomProperties?: IInspectable[] };

type Side = keyof Omit<SwingLimitSpec, "upAxis">;

const DEG = 180 / Math.PI;
const RAD = Math.PI / 180;
const SIDES: readonly Side[] = ["up", "right", "down", "left"];

/** Suffixes of the joint-limit rows, refreshed together whenever the joint or one of its limits changes. */
const JOINT_KEYS = [
  "JointLimits",
  "SwingUp",
  "SwingRight",
  "SwingDown",
  "SwingLeft",
  "TwistMin",
  "TwistMax",
  "HingeMin",
  "HingeMax",
];

const prefixes = new WeakMap<FabrikBehavior, string>();

/**
 * The prefix of a behavior's Inspector proxy properties (`fabrikWeight`, `fabrikSwingUp`, …): "fabrik", or
 * "fabrik2", "fabrik3"… when another behavior already uses the same node. Null while detached.
 */
export function inspectorPrefix(behavior: FabrikBehavior): string | null {
  return prefixes.get(behavior) ?? null;
}

/**
 * Exposes a behavior's settings in the Babylon Inspector (v2, 9.x) and returns the function that removes
 * them again. Called by the behavior on attach; nothing here imports the Inspector.
 *
 * The Inspector shows `inspectableCustomProperties` of the selected entity and binds each row to
 * `entity[propertyName]`, so the rows go onto every node a user may select for this character (the node
 * the behavior is attached to and each skinned mesh of the rig) and onto the behavior itself (for
 * `additionalNodes`), each backed by a getter/setter pair defined on that object. Setters never throw:
 * Inspector edits that the behavior rejects are clamped or logged, and the rows re-read.
 */
export function installInspectorProperties(behavior: FabrikBehavior): () => void {
  const rows = new InspectorRows(behavior);
  return () => rows.dispose();
}

class InspectorRows {
  readonly prefix: string;
  private readonly _hosts: Host[];
  private readonly _createdArray = new Set<Host>();
  private readonly _keys = new Set<string>();
  private _rows: IInspectable[] = [];
  private _live = true;
  private _refreshing = false;
  private readonly _warned = new Set<string>();
  /** Each joint's limits as they were at attach: what "Reset joint limits" goes back to. */
  private readonly _initialLimits: (JointLimitSpec | undefined)[];
  private readonly _depths: Int32Array;
  private readonly _positions: Vector3[] = [];
  private readonly _targetsObserver: Observer<FabrikBehavior>;
  private _debugWanted = false;
  private _debugView: FabrikDebugView | null = null;
  private _ownsDebugView = false;

  constructor(private readonly _ik: FabrikBehavior) {
    const rig = _ik.rig!;
    const hosts = new Set<Host>([_ik.attachedNode!, ...rig.meshes, _ik]);
    this._hosts = [...hosts];
    let prefix = "fabrik";
    for (let k = 2; this._hosts.some((h) => `${prefix}Enabled` in h); k++) prefix = `fabrik${k}`;
    this.prefix = prefix;
    prefixes.set(_ik, prefix);
    this._initialLimits = _ik.limits!.specs.map((s) => (s === undefined ? undefined : structuredClone(s)));
    this._depths = new Int32Array(rig.jointCount);
    for (let j = 0; j < rig.jointCount; j++) {
      const p = rig.parents[j];
      this._depths[j] = p >= 0 ? this._depths[p] + 1 : 0;
    }
    if (!(getSelectedJoint(_ik) >= 0 && getSelectedJoint(_ik) < rig.jointCount)) {
      setSelectedJoint(_ik, this._defaultJoint());
    }
    this._defineFixedProperties();
    this._rebuild();
    this._targetsObserver = _ik.onTargetsChangedObservable.add(() => {
      this._rebuild();
      this._refresh(["Summary", "LastSolve", ...JOINT_KEYS]);
    });
  }

  dispose(): void {
    if (!this._live) return;
    this._live = false;
    this._targetsObserver.remove();
    const ours = new Set(this._rows);
    for (const host of this._hosts) {
      const list = host.inspectableCustomProperties;
      if (list !== undefined) {
        for (let i = list.length - 1; i >= 0; i--) if (ours.has(list[i])) list.splice(i, 1);
        if (list.length === 0 && this._createdArray.has(host)) delete host.inspectableCustomProperties;
      }
      for (const key of this._keys) delete (host as Record<string, unknown>)[key];
    }
    this._rows = [];
    if (this._debugView !== null && this._ownsDebugView) this._debugView.dispose();
    this._debugView = null;
    prefixes.delete(this._ik);
  }

  // ---- rows ---------------------------------------------------------------------------------------------

  /** Replaces this behavior's rows on every host, after any rows the user put there. */
  private _rebuild(): void {
    const ik = this._ik;
    const p = this.prefix;
    const targets = ik.targets;
    // Labels are unique: Inspector v2 keys its rows by label within the section.
    const rows: IInspectable[] = [
      { label: "FABRIK IK", propertyName: `${p}Summary`, type: InspectableType.Tab },
      { label: "Enabled", propertyName: `${p}Enabled`, type: InspectableType.Checkbox },
      {
        label: "Weight",
        propertyName: `${p}Weight`,
        type: InspectableType.Slider,
        min: 0,
        max: 1,
        step: 0.01,
      },
      {
        label: "Iterations (max)",
        propertyName: `${p}MaxIterations`,
        type: InspectableType.Slider,
        min: 1,
        max: Math.max(200, ik.maxIterations),
        step: 1,
      },
      {
        label: "Tolerance (× height)",
        propertyName: `${p}Tolerance`,
        type: InspectableType.Slider,
        min: 0,
        max: Math.max(0.02, ik.tolerance),
        step: 0.0001,
      },
      { label: "Last solve", propertyName: `${p}LastSolve`, type: InspectableType.Tab },
      { label: "Debug view", propertyName: `${p}Debug`, type: InspectableType.Checkbox },
    ];
    targets.forEach((t, e) => {
      this._defineTargetProperties(e);
      rows.push(
        { label: `Target ${e + 1}`, propertyName: `${p}Target${e}`, type: InspectableType.Tab },
        {
          label: `Target ${e + 1} position`,
          propertyName: `${p}Target${e}Position`,
          type: InspectableType.Vector3,
        },
        {
          label: `Target ${e + 1} weight`,
          propertyName: `${p}Target${e}Weight`,
          type: InspectableType.Slider,
          min: 0,
          max: 1,
          step: 0.01,
        },
        {
          label: `Target ${e + 1} chain length`,
          propertyName: `${p}Target${e}ChainLength`,
          type: InspectableType.Slider,
          min: 1,
          max: Math.max(1, this._depths[t.joint]),
          step: 1,
        },
      );
    });
    const names = ik.rig!.names;
    const roleOf = new Map<number, string>();
    for (const [role, j] of Object.entries(ik.roles)) if (j !== undefined) roleOf.set(j, role);
    const angle = (label: string, suffix: string, min: number): IInspectable => ({
      label,
      propertyName: `${p}${suffix}`,
      type: InspectableType.Slider,
      min,
      max: 180,
      step: 1,
    });
    rows.push(
      {
        label: "Joint",
        propertyName: `${p}Joint`,
        type: InspectableType.Options,
        options: names.map((name, j) => ({
          label: roleOf.has(j) ? `${name} (${roleOf.get(j)})` : name,
          value: j,
        })),
      },
      { label: "Limits", propertyName: `${p}JointLimits`, type: InspectableType.Tab },
      angle("Swing up (°)", "SwingUp", 0),
      angle("Swing right (°)", "SwingRight", 0),
      angle("Swing down (°)", "SwingDown", 0),
      angle("Swing left (°)", "SwingLeft", 0),
      angle("Twist min (°)", "TwistMin", -180),
      angle("Twist max (°)", "TwistMax", -180),
      angle("Hinge min (°)", "HingeMin", -180),
      angle("Hinge max (°)", "HingeMax", -180),
      {
        label: "Reset joint limits",
        propertyName: `${p}ResetJoint`,
        type: InspectableType.Button,
        callback: () => this._resetJoint(false),
      },
      {
        label: "Remove joint limits",
        propertyName: `${p}FreeJoint`,
        type: InspectableType.Button,
        callback: () => this._resetJoint(true),
      },
    );

    const old = new Set(this._rows);
    for (const host of this._hosts) {
      let list = host.inspectableCustomProperties;
      if (list === undefined || list === null) {
        list = [];
        host.inspectableCustomProperties = list;
        this._createdArray.add(host);
      }
      for (let i = list.length - 1; i >= 0; i--) if (old.has(list[i])) list.splice(i, 1);
      list.push(...rows);
    }
    this._rows = rows;
  }

  private _defineFixedProperties(): void {
    const ik = this._ik;
    this._define("Summary", () => {
      const n = ik.targets.length;
      return `${ik.rig!.jointCount} joints, ${n} target${n === 1 ? "" : "s"}`;
    });
    this._define(
      "Enabled",
      () => ik.enabled,
      (v) => {
        ik.enabled = v === true;
      },
    );
    this._define(
      "Weight",
      () => ik.weight,
      (v) => {
        ik.weight = clamp(finite(v, "weight"), 0, 1);
      },
    );
    this._define(
      "MaxIterations",
      () => ik.maxIterations,
      (v) => {
        ik.maxIterations = Math.max(1, Math.round(finite(v, "iterations")));
      },
    );
    this._define(
      "Tolerance",
      () => ik.tolerance,
      (v) => {
        ik.tolerance = Math.max(0, finite(v, "tolerance"));
      },
    );
    this._define("LastSolve", () => describeReport(ik));
    this._define(
      "Debug",
      () =>
        this._debugView !== null && !this._debugView.isDisposed ? this._debugView.enabled : this._debugWanted,
      (v) => this._setDebug(v === true),
    );
    this._define(
      "Joint",
      () => getSelectedJoint(ik),
      (v) => {
        const j = typeof v === "string" ? Number(v) : v;
        if (typeof j !== "number" || !Number.isInteger(j) || j < 0 || j >= ik.rig!.jointCount) {
          throw new Error(`no joint ${String(v)}`);
        }
        setSelectedJoint(ik, j);
      },
    );
    this._define("JointLimits", () => describeLimits(ik, getSelectedJoint(ik)));
    for (const side of SIDES) {
      this._define(
        `Swing${side[0].toUpperCase()}${side.slice(1)}`,
        () => degrees(this._spec()?.swing?.[side] ?? Math.PI),
        (v) => this._editSwing(side, finite(v, `swing ${side}`)),
      );
    }
    this._define(
      "TwistMin",
      () => degrees(this._spec()?.twist?.min ?? -Math.PI),
      (v) => this._editRange("twist", "min", finite(v, "twist min")),
    );
    this._define(
      "TwistMax",
      () => degrees(this._spec()?.twist?.max ?? Math.PI),
      (v) => this._editRange("twist", "max", finite(v, "twist max")),
    );
    this._define(
      "HingeMin",
      () => degrees(this._spec()?.hinge?.min ?? -Math.PI),
      (v) => this._editRange("hinge", "min", finite(v, "hinge min")),
    );
    this._define(
      "HingeMax",
      () => degrees(this._spec()?.hinge?.max ?? Math.PI),
      (v) => this._editRange("hinge", "max", finite(v, "hinge max")),
    );
  }

  private _defineTargetProperties(e: number): void {
    if (this._keys.has(`${this.prefix}Target${e}`)) return;
    const ik = this._ik;
    const target = (): FabrikTargetInfo => {
      const t = ik.targets[e];
      if (t === undefined) throw new Error(`target ${e + 1} was removed`);
      return t;
    };
    this._define(`Target${e}`, () => {
      const t = ik.targets[e];
      return t === undefined ? "" : `${t.label}, ${describeSource(t.source)}`;
    });
    this._define(
      `Target${e}Position`,
      () => this._targetPosition(e),
      (v) => {
        const t = target();
        if (!isFiniteVector(v)) throw new Error(`target ${e + 1}: the position must be a finite Vector3`);
        const source = t.source;
        if (source instanceof TransformNode) source.setAbsolutePosition(new Vector3(v.x, v.y, v.z));
        else if (typeof source === "function") {
          this._warnOnce(
            `fn${e}`,
            `target ${e + 1} (${t.label}) is a function: move what it returns, or setTarget a Vector3 or a node`,
          );
        } else {
          const w = source as { x: number; y: number; z: number };
          w.x = v.x;
          w.y = v.y;
          w.z = v.z;
        }
      },
    );
    this._define(
      `Target${e}Weight`,
      () => ik.targets[e]?.weight,
      (v) => this._retarget(target(), { weight: clamp(finite(v, "weight"), 0, 1) }),
    );
    this._define(
      `Target${e}ChainLength`,
      () => {
        const plan = ik.plan;
        return plan !== null && e < plan.effectorCount ? plan.chainLengths[e] : undefined;
      },
      (v) => {
        const t = target();
        const length = clamp(Math.round(finite(v, "chain length")), 1, Math.max(1, this._depths[t.joint]));
        this._retarget(t, { chainLength: length });
      },
    );
  }

  /**
   * Defines `prefix + suffix` on every host. A setter exists even for read-only rows: the Inspector only
   * watches writable properties, and assigning a row to itself is how the other rows are told to re-read.
   */
  private _define(suffix: string, get: () => unknown, set?: (value: unknown) => void): void {
    const key = `${this.prefix}${suffix}`;
    this._keys.add(key);
    const descriptor: PropertyDescriptor = {
      configurable: true,
      enumerable: false,
      get: () => (this._live ? get() : undefined),
      set: (value: unknown) => {
        if (!this._live || this._refreshing || set === undefined) return;
        try {
          set(value);
        } catch (error) {
          Logger.Warn(`FabrikIK Inspector: ${(error as Error).message}`);
          // The row goes back to the value it holds (text typed into a number field would stay otherwise),
          // once the Inspector has finished with the edit.
          setTimeout(() => this._refresh([suffix]), 0);
        }
        this._refresh(["Summary", "LastSolve", "Debug", ...JOINT_KEYS], key);
      },
    };
    for (const host of this._hosts) Object.defineProperty(host, key, descriptor);
  }

  /** Assigns each row to itself, so an Inspector watching it re-reads the getter. */
  private _refresh(suffixes: readonly string[], except?: string): void {
    if (!this._live) return;
    this._refreshing = true;
    try {
      for (const host of this._hosts) {
        const h = host as Record<string, unknown>;
        for (const suffix of suffixes) {
          const key = `${this.prefix}${suffix}`;
          if (key === except || !this._keys.has(key)) continue;
          const value = h[key];
          h[key] = value;
        }
      }
    } finally {
      this._refreshing = false;
    }
  }

  // ---- targets ------------------------------------------------------------------------------------------

  /**
   * The Vector3 the Position row edits: the user's own Vector3 (so the row follows it live), the node's
   * world position, or for a function the point of the last solve.
   */
  private _targetPosition(e: number): Vector3 | undefined {
    const ik = this._ik;
    const t = ik.targets[e];
    if (t === undefined) return undefined;
    const source = t.source;
    if (source instanceof TransformNode) return source.getAbsolutePosition();
    if (source instanceof Vector3) return source;
    while (this._positions.length <= e) this._positions.push(new Vector3());
    const out = this._positions[e];
    if (typeof source !== "function") return out.set(source.x, source.y, source.z);
    const points = ik.targetPositions,
      m = ik.modelToWorld;
    if (points === null || m === null || points.length < 3 * e + 3) return out.setAll(0);
    const x = points[3 * e],
      y = points[3 * e + 1],
      z = points[3 * e + 2];
    return out.set(
      x * m[0] + y * m[4] + z * m[8] + m[12],
      x * m[1] + y * m[5] + z * m[9] + m[13],
      x * m[2] + y * m[6] + z * m[10] + m[14],
    );
  }

  /** Sets a target again with one option changed and every other option as it was. */
  private _retarget(t: FabrikTargetInfo, change: { weight?: number; chainLength?: number }): void {
    // Named as the user named it when that still means the same joint, so messages and rows keep the name.
    let joint: FabrikJoint = this._joint(t.joint);
    try {
      const name: unknown = JSON.parse(t.label);
      if (typeof name === "string" && this._ik.jointIndex(name) === t.joint) joint = name;
    } catch {
      // Not a quoted name: keep the joint object.
    }
    this._ik.setTarget(joint, t.source, {
      weight: change.weight ?? t.weight,
      chainLength: change.chainLength ?? t.chainLength,
      matchOrientation: t.matchOrientation,
      rotation: t.rotation ?? undefined,
      pole: t.pole ?? undefined,
    });
  }

  // ---- joint limits -------------------------------------------------------------------------------------

  private _spec(): JointLimitSpec | undefined {
    const j = getSelectedJoint(this._ik);
    return j >= 0 ? this._ik.getLimit(this._joint(j)) : undefined;
  }

  /** A free joint gains a cone open to π on the other sides: the same freedom, now adjustable. */
  private _editSwing(side: Side, deg: number): void {
    const j = getSelectedJoint(this._ik);
    const spec = this._ik.getLimit(this._joint(j)) ?? {};
    if (spec.hinge !== undefined || spec.fixed === true) {
      this._warnOnce(
        `swing${j}`,
        `${this._name(j)} is a ${spec.fixed ? "fixed joint" : "hinge"}: it has no swing`,
      );
      return;
    }
    const swing = spec.swing ?? { up: Math.PI, right: Math.PI, down: Math.PI, left: Math.PI };
    swing[side] = clamp(deg * RAD, 0, Math.PI);
    spec.swing = swing;
    this._ik.setLimit(this._joint(j), spec);
  }

  /** Keeps min <= max by clamping the edited end against the other one. */
  private _editRange(kind: "twist" | "hinge", end: "min" | "max", deg: number): void {
    const j = getSelectedJoint(this._ik);
    const spec = this._ik.getLimit(this._joint(j)) ?? {};
    let range: { min: number; max: number };
    if (kind === "hinge") {
      if (spec.hinge === undefined) {
        this._warnOnce(
          `hinge${j}`,
          `${this._name(j)} is not a hinge; make it one with setLimit(joint, { hinge: { axis, min, max } })`,
        );
        return;
      }
      range = spec.hinge;
    } else {
      if (spec.hinge !== undefined || spec.fixed === true) {
        this._warnOnce(
          `twist${j}`,
          `${this._name(j)} is a ${spec.fixed ? "fixed joint" : "hinge"}: it has no twist`,
        );
        return;
      }
      range = spec.twist ?? { min: -Math.PI, max: Math.PI };
      spec.twist = range;
    }
    const value = deg * RAD;
    if (end === "min") range.min = clamp(value, -Math.PI, range.max);
    else range.max = clamp(value, range.min, Math.PI);
    this._ik.setLimit(this._joint(j), spec);
  }

  private _resetJoint(free: boolean): void {
    if (!this._live) return;
    const j = getSelectedJoint(this._ik);
    if (j < 0) return;
    try {
      this._ik.setLimit(this._joint(j), free ? undefined : this._initialLimits[j]);
    } catch (error) {
      Logger.Warn(`FabrikIK Inspector: ${(error as Error).message}`);
    }
    this._refresh(["LastSolve", ...JOINT_KEYS]);
  }

  /** The joint an edit most likely wants: above the first effector (an elbow, a knee), else a limited one. */
  private _defaultJoint(): number {
    const ik = this._ik;
    const parents = ik.rig!.parents;
    const first = ik.targets[0];
    if (first !== undefined && parents[first.joint] >= 0) return parents[first.joint];
    const limited = ik.limits!.specs.findIndex((s) => s !== undefined);
    return limited >= 0 ? limited : 0;
  }

  /** Joints are named to the behavior by object: bone names may repeat, nodes and bones do not. */
  private _joint(j: number): TransformNode | Bone {
    const rig = this._ik.rig!;
    return rig.nodes[j] ?? rig.bones[j][0];
  }

  private _name(j: number): string {
    return `"${this._ik.rig!.names[j]}"`;
  }

  private _warnOnce(key: string, message: string): void {
    if (this._warned.has(key)) return;
    this._warned.add(key);
    Logger.Warn(`FabrikIK Inspector: ${message}`);
  }

  // ---- debug view ---------------------------------------------------------------------------------------

  /**
   * Shows the debug view (the character's own, when one is open, else one of this panel's), or hides it.
   * Imported statically: the package's entry exports FabrikDebugView, so a lazy import would split nothing.
   */
  private _setDebug(on: boolean): void {
    this._debugWanted = on;
    const view = this._debugView;
    if (view !== null && !view.isDisposed) {
      if (on) view.enabled = true;
      else if (this._ownsDebugView) {
        view.dispose();
        this._debugView = null;
      } else view.enabled = false;
      return;
    }
    this._debugView = null;
    if (!on) return;
    const existing = FabrikDebugView.of(this._ik);
    if (existing !== null) {
      existing.enabled = true;
      this._debugView = existing;
      this._ownsDebugView = false;
    } else {
      this._debugView = new FabrikDebugView(this._ik);
      this._ownsDebugView = true;
    }
    this._refresh(["Debug"]);
  }
}

function describeReport(ik: FabrikBehavior): string {
  const plan = ik.plan;
  if (plan === null) return "no targets";
  const r = plan.report;
  let onLimit = 0;
  for (let j = 0; j < r.onLimit.length; j++) onLimit += r.onLimit[j];
  const relative = ik.height > 0 ? r.maxResidual / ik.height : r.maxResidual;
  return (
    `${r.iterations} iteration${r.iterations === 1 ? "" : "s"}, residual ${relative.toExponential(1)} × height, ` +
    `${r.converged ? "converged" : "not converged"}, ${onLimit} joint${onLimit === 1 ? "" : "s"} on limits`
  );
}

function describeLimits(ik: FabrikBehavior, j: number): string {
  const rig = ik.rig;
  if (rig === null || j < 0 || j >= rig.jointCount) return "";
  const spec = ik.limits!.specs[j];
  const kinds: string[] = [];
  if (spec?.fixed) kinds.push("fixed");
  if (spec?.hinge) kinds.push("hinge");
  if (spec?.swing) kinds.push("swing");
  if (spec?.twist) kinds.push("twist");
  if (spec?.stretch) kinds.push("stretch");
  const onLimit = ik.plan?.report.onLimit[j] === 1 ? " (on its limit)" : "";
  return `${rig.names[j]}: ${kinds.length > 0 ? kinds.join(" + ") : "free"}${onLimit}`;
}

function describeSource(source: FabrikTargetInfo["source"]): string {
  if (source instanceof TransformNode) return `node "${source.name}"`;
  return typeof source === "function" ? "function" : "Vector3";
}

function degrees(radians: number): number {
  return Math.round(radians * DEG * 1e6) / 1e6;
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

function finite(v: unknown, what: string): number {
  const n = typeof v === "string" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n))
    throw new Error(`${what} must be a finite number, got ${String(v)}`);
  return n;
}

function isFiniteVector(v: unknown): v is Vector3Like {
  const p = v as Vector3Like | null;
  return (
    p !== null &&
    typeof p === "object" &&
    Number.isFinite(p.x) &&
    Number.isFinite(p.y) &&
    Number.isFinite(p.z)
  );
}
