import type { IInspectable } from "@babylonjs/core/Misc/iInspectable.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { FabrikBehavior, FabrikTargetInfo } from "../babylon/index.js";
import type { JointLimitSpec } from "../solver/index.js";
import { DebugToggle } from "./debugToggle.js";
import { inspectorRowList } from "./inspectorRowList.js";
import {
  clamp,
  degrees,
  describeLimits,
  describeReport,
  describeSection,
  describeSource,
  finite,
  RAD,
} from "./inspectorValues.js";
import { getSelectedJoint, setSelectedJoint } from "./jointSelection.js";
import { editRange, editSwing, jointObject, rangeOf, SWING_SIDES, type RangeKind } from "./limitEdits.js";
import { moveTarget, retarget, targetPosition } from "./targetEdits.js";

/** The range rows, by the kind of limit they edit, and their property names. */
const RANGE_ROWS: readonly (readonly [RangeKind, string])[] = [
  ["twist", "Twist"],
  ["hinge", "Hinge"],
  ["pivot", "Pivot"],
  ["first", "UniversalFirst"],
  ["second", "UniversalSecond"],
];

/** Anything the Inspector can select that carries custom rows: a Node, or the behavior itself. */
type Host = object & { inspectableCustomProperties?: IInspectable[] };

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

/**
 * The Inspector rows of one attached behavior (see `installFabrikInspector`), removed by {@link dispose}.
 *
 * The Inspector shows `inspectableCustomProperties` of the selected entity and binds each row to
 * `entity[propertyName]`, so the rows go onto every node a user may select for this character (the node
 * the behavior is attached to and each skinned mesh of the rig) and onto the behavior itself (for
 * `additionalNodes`), each backed by a getter/setter pair defined on that object. Setters never throw:
 * Inspector edits that the behavior rejects are clamped or logged, and the rows re-read. Nothing here
 * imports the Inspector.
 */
export class InspectorRows {
  /** "fabrik", or "fabrik2", "fabrik3"… when another behavior already uses the same node. */
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
  private readonly _debug: DebugToggle;

  constructor(private readonly _ik: FabrikBehavior) {
    const rig = _ik.rig!;
    const hosts = new Set<Host>([_ik.attachedNode!, ...rig.meshes, _ik]);
    this._hosts = [...hosts];
    let prefix = "fabrik";
    for (let k = 2; this._hosts.some((h) => `${prefix}Enabled` in h); k++) prefix = `fabrik${k}`;
    this.prefix = prefix;
    this._debug = new DebugToggle(_ik);
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
      this._refresh(["Summary", "LastSolve", ...JOINT_KEYS, ...this._sectionKeys()]);
    });
  }

  /** Removes every row and property this object added, leaving the user's own rows. Idempotent. */
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
    this._debug.dispose();
  }

  /** Replaces this behavior's rows on every host, after any rows the user put there. */
  private _rebuild(): void {
    this._ik.targets.forEach((_, e) => this._defineTargetProperties(e));
    this._ik.continuumSections.forEach((_, s) => this._defineSectionProperties(s));
    const rows = inspectorRowList(this._ik, this.prefix, this._depths, {
      reset: () => this._resetJoint(false),
      free: () => this._resetJoint(true),
    });
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
      "SkipWhenHidden",
      () => ik.skipWhenHidden,
      (v) => {
        ik.skipWhenHidden = v === true;
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
      () => this._debug.on,
      (v) => {
        if (this._debug.set(v === true)) this._refresh(["Debug"]);
      },
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
    const warn = (key: string, message: string) => this._warnOnce(key, message);
    for (const side of SWING_SIDES) {
      this._define(
        `Swing${side[0].toUpperCase()}${side.slice(1)}`,
        () => degrees(this._spec()?.swing?.[side] ?? Math.PI),
        (v) => editSwing(ik, getSelectedJoint(ik), side, finite(v, `swing ${side}`), warn),
      );
    }
    for (const [kind, name] of RANGE_ROWS) {
      const bound = kind === "second" ? Math.PI / 2 : Math.PI;
      this._define(
        `${name}Min`,
        () => degrees(rangeOf(this._spec(), kind)?.min ?? -bound),
        (v) => editRange(ik, getSelectedJoint(ik), kind, "min", finite(v, `${kind} min`), warn),
      );
      this._define(
        `${name}Max`,
        () => degrees(rangeOf(this._spec(), kind)?.max ?? bound),
        (v) => editRange(ik, getSelectedJoint(ik), kind, "max", finite(v, `${kind} max`), warn),
      );
    }
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
      () => targetPosition(ik, e, this._positions),
      (v) => moveTarget(target(), e, v, (key, message) => this._warnOnce(key, message)),
    );
    this._define(
      `Target${e}Weight`,
      () => ik.targets[e]?.weight,
      (v) => retarget(ik, target(), { weight: clamp(finite(v, "weight"), 0, 1) }),
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
        retarget(ik, t, { chainLength: length });
      },
    );
  }

  /** Continuum section `s`: what it is and whether the targets bend it, and its bend limit in degrees. */
  private _defineSectionProperties(s: number): void {
    if (this._keys.has(`${this.prefix}Section${s}`)) return;
    const ik = this._ik;
    this._define(`Section${s}`, () => describeSection(ik.continuumSections[s]));
    this._define(
      `Section${s}MaxBend`,
      () => {
        const section = ik.continuumSections[s];
        return section === undefined ? undefined : degrees(section.maxBend);
      },
      (v) => ik.setContinuumMaxBend(s, clamp(finite(v, "max bend"), 1, 359) * RAD),
    );
  }

  /** The suffixes of the section rows, which a new plan changes (a section becomes active or not). */
  private _sectionKeys(): string[] {
    return this._ik.continuumSections.map((_, s) => `Section${s}`);
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

  /** The selected joint's limit spec, undefined when it has none or no joint is selected. */
  private _spec(): JointLimitSpec | undefined {
    const j = getSelectedJoint(this._ik);
    return j >= 0 ? this._ik.getLimit(jointObject(this._ik, j)) : undefined;
  }

  private _resetJoint(free: boolean): void {
    if (!this._live) return;
    const j = getSelectedJoint(this._ik);
    if (j < 0) return;
    try {
      this._ik.setLimit(jointObject(this._ik, j), free ? undefined : this._initialLimits[j]);
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

  private _warnOnce(key: string, message: string): void {
    if (this._warned.has(key)) return;
    this._warned.add(key);
    Logger.Warn(`FabrikIK Inspector: ${message}`);
  }
}
