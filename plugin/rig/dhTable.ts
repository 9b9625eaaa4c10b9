import { FabrikError } from "../solver/errors.js";
import type { Vector3Tuple } from "../solver/limits.js";

/*
 * Denavit–Hartenberg tables as a user writes them, and their validation into flat arrays. Building the rig
 * from the validated table is dhRig.ts's.
 */

/** What a DH joint does: turn about its axis, or slide along it. */
export type DHJointType = "revolute" | "prismatic";

/**
 * Which DH convention a table follows. `"standard"` (Denavit–Hartenberg): row i is Rz(θ)·Tz(d)·Tx(a)·Rx(α), and
 * joint i moves about (or along) the z axis of the frame before it, z_{i-1}. `"modified"` (Craig): row i is
 * Rx(α)·Tx(a)·Rz(θ)·Tz(d), holding the link before the joint, and joint i moves about z_i.
 */
export type DHConvention = "standard" | "modified";

/** One row of a DH table: one joint and its link. Lengths in model units, angles in radians. */
export interface DHRow {
  a: number;
  alpha: number;
  /** Offset along the joint axis. For a prismatic joint, its length at joint value 0. Default 0. */
  d?: number;
  /** Angle about the joint axis. For a revolute joint, its angle at joint value 0. Default 0. */
  theta?: number;
  /** Default `"revolute"`. */
  joint?: DHJointType;
  /**
   * Range of the joint value (radians or model units). Revolute default [-π, π]; prismatic joints must give
   * both. A revolute range must lie within π of the home value either side, unless it spans a full turn.
   */
  min?: number;
  max?: number;
  /**
   * Added to the joint value before it enters the table (θ = theta + offset + q for a revolute joint,
   * d = d + offset + q for a prismatic one), for tables that list a joint's zero offset apart. Default 0.
   */
  offset?: number;
}

/** Options of {@link createRigFromDH}. */
export interface DHOptions {
  /** Default `"standard"`. */
  convention?: DHConvention;
  /** Joint values the rig is built at (its rest pose), one per row; each within its range. Default all 0. */
  home?: readonly number[];
  /** One name per row, unique. Default `joint1` … `jointN`. */
  names?: readonly string[];
  /** The tool point in the last DH frame, where the end effector (`"tool"`) sits. Default the frame's origin. */
  toolOffset?: Vector3Tuple;
  /**
   * Distance from the tool point to its two orientation markers (along the tool frame's x and z), which an
   * orientation target pulls on. Default a quarter of the arm's reach.
   */
  markerDistance?: number;
}

/** A validated table: one entry per row in each array. */
export interface DHTable {
  readonly convention: DHConvention;
  readonly count: number;
  readonly a: Float64Array;
  readonly alpha: Float64Array;
  readonly d: Float64Array;
  readonly theta: Float64Array;
  readonly offset: Float64Array;
  /** 1 for prismatic rows. */
  readonly prismatic: Uint8Array;
  readonly min: Float64Array;
  readonly max: Float64Array;
  readonly home: Float64Array;
  readonly names: readonly string[];
  readonly toolOffset: Float64Array;
}

/** Names the rig gives its own joints, which a row's name may not take. */
export const DH_RESERVED_NAMES = ["base", "tool", "tool.x", "tool.z"];

const WHO = "createRigFromDH";

/** Checks a table and its options; throws a {@link FabrikError} naming the row and field at fault. */
export function validateDHTable(rows: readonly DHRow[], options: DHOptions): DHTable {
  if (!Array.isArray(rows) || rows.length === 0) {
    throw new FabrikError(`${WHO}: rows must be a non-empty array of DH rows`, undefined, "rows");
  }
  if (options === null || typeof options !== "object") {
    throw new FabrikError(`${WHO}: options must be an object`, undefined, "options");
  }
  const convention = options.convention ?? "standard";
  if (convention !== "standard" && convention !== "modified") {
    throw new FabrikError(
      `${WHO}: convention must be "standard" or "modified", got ${JSON.stringify(convention) ?? String(convention)}`,
      undefined,
      "convention",
    );
  }
  const n = rows.length;
  const names = checkNames(options.names, n);
  const home = options.home;
  if (home !== undefined && (!Array.isArray(home) || home.length !== n)) {
    throw new FabrikError(`${WHO}: home must hold one joint value per row (${n})`, undefined, "home");
  }
  const table: DHTable = {
    convention,
    count: n,
    a: new Float64Array(n),
    alpha: new Float64Array(n),
    d: new Float64Array(n),
    theta: new Float64Array(n),
    offset: new Float64Array(n),
    prismatic: new Uint8Array(n),
    min: new Float64Array(n),
    max: new Float64Array(n),
    home: new Float64Array(n),
    names,
    toolOffset: new Float64Array(3),
  };
  for (let i = 0; i < n; i++) {
    const row = rows[i];
    const who = `${WHO}: row ${i} ("${names[i]}")`;
    if (row === null || typeof row !== "object") {
      throw new FabrikError(
        `${who} must be an object { a, alpha, d?, theta?, joint?, min?, max?, offset? }`,
        undefined,
        `rows[${i}]`,
      );
    }
    const joint = row.joint ?? "revolute";
    if (joint !== "revolute" && joint !== "prismatic") {
      throw new FabrikError(
        `${who}: joint must be "revolute" or "prismatic", got ${JSON.stringify(joint) ?? String(joint)}`,
        undefined,
        `rows[${i}].joint`,
      );
    }
    const prismatic = joint === "prismatic";
    table.prismatic[i] = prismatic ? 1 : 0;
    table.a[i] = finite(row.a, `${who}: a`, `rows[${i}].a`);
    table.alpha[i] = finite(row.alpha, `${who}: alpha`, `rows[${i}].alpha`);
    table.d[i] = finite(row.d ?? 0, `${who}: d`, `rows[${i}].d`);
    table.theta[i] = finite(row.theta ?? 0, `${who}: theta`, `rows[${i}].theta`);
    table.offset[i] = finite(row.offset ?? 0, `${who}: offset`, `rows[${i}].offset`);
    if (prismatic && (row.min === undefined || row.max === undefined)) {
      throw new FabrikError(
        `${who}: a prismatic joint needs its range, min and max`,
        undefined,
        `rows[${i}].min`,
      );
    }
    const min = finite(row.min ?? -Math.PI, `${who}: min`, `rows[${i}].min`);
    const max = finite(row.max ?? Math.PI, `${who}: max`, `rows[${i}].max`);
    if (min > max) {
      throw new FabrikError(
        `${who}: range is inverted, min ${min} > max ${max}`,
        undefined,
        `rows[${i}].min`,
      );
    }
    const h = home === undefined ? 0 : finite(home[i], `${who}: home value`, "home");
    if (h < min || h > max) {
      throw new FabrikError(
        `${who}: home value ${h} is outside the range [${min}, ${max}]`,
        undefined,
        "home",
      );
    }
    if (!prismatic && max - min < 2 * Math.PI && (min < h - Math.PI || max > h + Math.PI)) {
      throw new FabrikError(
        `${who}: range [${min}, ${max}] reaches more than π from the home value ${h}; a hinge measures ` +
          "its angle within π of home, so choose a home nearer the middle of the range",
        undefined,
        "home",
      );
    }
    table.min[i] = min;
    table.max[i] = max;
    table.home[i] = h;
  }
  const tool = options.toolOffset ?? [0, 0, 0];
  if (
    !Array.isArray(tool) ||
    tool.length !== 3 ||
    !tool.every((v) => typeof v === "number" && Number.isFinite(v))
  ) {
    throw new FabrikError(`${WHO}: toolOffset must be three finite numbers`, undefined, "toolOffset");
  }
  table.toolOffset.set(tool);
  const markers = options.markerDistance;
  if (markers !== undefined && !(typeof markers === "number" && Number.isFinite(markers) && markers > 0)) {
    throw new FabrikError(
      `${WHO}: markerDistance must be a finite number > 0, got ${String(markers)}`,
      undefined,
      "markerDistance",
    );
  }
  return table;
}

function finite(value: unknown, what: string, option: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new FabrikError(`${what} must be a finite number, got ${String(value)}`, undefined, option);
  }
  return value;
}

function checkNames(names: readonly string[] | undefined, n: number): string[] {
  if (names === undefined) return Array.from({ length: n }, (_, i) => `joint${i + 1}`);
  if (!Array.isArray(names) || names.length !== n) {
    throw new FabrikError(`${WHO}: names must hold one name per row (${n})`, undefined, "names");
  }
  const seen = new Set<string>(DH_RESERVED_NAMES);
  for (let i = 0; i < n; i++) {
    const name: unknown = names[i];
    if (typeof name !== "string" || name === "" || seen.has(name)) {
      throw new FabrikError(
        `${WHO}: name of row ${i} must be a non-empty string used once and not one of ` +
          `${DH_RESERVED_NAMES.join(", ")}; got ${JSON.stringify(name) ?? String(name)}`,
        undefined,
        "names",
      );
    }
    seen.add(name);
  }
  return names.slice();
}
