// Random Denavit–Hartenberg tables and their bad variants for the DH arm fuzzer (not a test file).
import type { DHConvention, DHOptions, DHRow } from "../../plugin/index.js";
import { chance, int, pick, uniform, unitVector, type Rand } from "./generate.js";

const TURN = 2 * Math.PI;

/** Twists a table tends to have (parallel, perpendicular, reversed axes), or any. */
function twist(rand: Rand): number {
  return chance(rand, 0.6)
    ? pick(rand, [0, Math.PI / 2, -Math.PI / 2, Math.PI])
    : uniform(rand, -Math.PI, Math.PI);
}

/** A length that is often exactly 0 (axes that meet: a spherical wrist, a row with a = d = 0). */
function length(rand: Rand, zero: number): number {
  return chance(rand, zero) ? 0 : uniform(rand, -1.5, 1.5) * (chance(rand, 0.1) ? 1e-3 : 1);
}

/**
 * A revolute row's range and a home value it accepts: the default [-π, π], ±90°, a narrow range (down to a
 * single value), any range narrower than a turn (home within π of both ends), or a full turn and more.
 */
function revoluteRange(rand: Rand, row: DHRow): number {
  const kind = int(rand, 0, 4);
  if (kind === 0) return uniform(rand, -Math.PI, Math.PI);
  let min: number, max: number;
  if (kind === 1) [min, max] = [-Math.PI / 2, Math.PI / 2];
  else if (kind === 2) {
    min = uniform(rand, -3, 3);
    max = min + (chance(rand, 0.2) ? 0 : 10 ** uniform(rand, -4, -1));
  } else if (kind === 3) {
    min = uniform(rand, -5, 3);
    max = min + uniform(rand, 0.1, TURN - 1e-3);
  } else {
    min = uniform(rand, -5, 1);
    max = min + TURN + (chance(rand, 0.5) ? 0 : uniform(rand, 0, 3));
  }
  row.min = min;
  row.max = max;
  if (max - min >= TURN) return uniform(rand, min, max);
  return uniform(rand, Math.max(min, max - Math.PI), Math.min(max, min + Math.PI));
}

export interface GeneratedArm {
  rows: DHRow[];
  options: DHOptions;
}

/**
 * 1–12 rows, revolute and prismatic, standard or modified; lengths and angles often 0 (coincident axes), θ
 * and offsets sometimes; random ranges and home values; sometimes a tool offset, names, a marker distance.
 */
export function generateArm(rand: Rand): GeneratedArm {
  const n = chance(rand, 0.5) ? int(rand, 1, 4) : int(rand, 1, 12);
  const convention: DHConvention = chance(rand, 0.5) ? "standard" : "modified";
  const home: number[] = [];
  const rows: DHRow[] = [];
  const dZero = pick(rand, [0.2, 0.5, 0.9]);
  for (let i = 0; i < n; i++) {
    const row: DHRow = { a: length(rand, 0.35), alpha: twist(rand) };
    if (chance(rand, 0.7)) row.d = length(rand, dZero);
    if (chance(rand, 0.4)) row.theta = uniform(rand, -Math.PI, Math.PI);
    if (chance(rand, 0.2)) row.offset = uniform(rand, -1, 1);
    if (chance(rand, 0.2)) {
      row.joint = "prismatic";
      const min = uniform(rand, -0.6, 0.6);
      const max = min + (chance(rand, 0.15) ? 10 ** uniform(rand, -5, -2) : uniform(rand, 0, 1.2));
      row.min = min;
      row.max = max;
      home.push(chance(rand, 0.3) ? min : uniform(rand, min, max));
    } else {
      if (chance(rand, 0.3)) row.joint = "revolute";
      home.push(revoluteRange(rand, row));
    }
    rows.push(row);
  }
  const options: DHOptions = { convention };
  if (chance(rand, 0.6)) options.home = home;
  else {
    // The default home is all zeros: ranges must hold 0, and lie within π of it.
    rows.forEach((row) => {
      if (row.joint === "prismatic") {
        row.min = Math.min(row.min!, 0);
        row.max = Math.max(row.max!, 0);
      } else if (row.min !== undefined && row.max! - row.min >= TURN) {
        row.min = Math.min(row.min, 0);
        row.max = Math.max(row.max!, 0);
      } else if (row.min !== undefined) {
        row.min = Math.max(Math.min(row.min, 0), -Math.PI);
        row.max = Math.min(Math.max(row.max!, 0), Math.PI);
      }
    });
  }
  if (chance(rand, 0.5)) {
    const along = chance(rand, 0.3);
    const size = uniform(rand, 0, 0.5);
    options.toolOffset = along
      ? [0, 0, size]
      : (unitVector(rand).map((v) => v * size) as [number, number, number]);
  }
  if (chance(rand, 0.2)) options.names = rows.map((_, i) => `link ${i}`);
  if (chance(rand, 0.2)) options.markerDistance = 10 ** uniform(rand, -3, 0.5);
  if (chance(rand, 0.3)) scaleArm({ rows, options }, 10 ** uniform(rand, -2, 3));
  return { rows, options };
}

/** Scales every length of a table (lengths, slider ranges and homes, the tool offset, the marker distance). */
function scaleArm({ rows, options }: GeneratedArm, scale: number): void {
  rows.forEach((row, i) => {
    row.a *= scale;
    if (row.d !== undefined) row.d *= scale;
    if (row.joint !== "prismatic") return;
    row.min! *= scale;
    row.max! *= scale;
    if (row.offset !== undefined) row.offset *= scale;
    if (options.home !== undefined) (options.home as number[])[i] *= scale;
  });
  if (options.toolOffset !== undefined)
    options.toolOffset = options.toolOffset.map((v) => v * scale) as [number, number, number];
  if (options.markerDistance !== undefined) options.markerDistance *= scale;
}

/** Whether `createRigFromDH` must refuse the table as having no length (its reach is 0). */
export function hasNoLength(arm: GeneratedArm): boolean {
  const tool = arm.options.toolOffset ?? [0, 0, 0];
  if (Math.hypot(...tool) > 0) return false;
  return arm.rows.every((row) => {
    const d = (row.d ?? 0) + (row.joint === "prismatic" ? (row.offset ?? 0) : 0);
    const reach =
      row.joint === "prismatic"
        ? Math.max(Math.abs(d + row.min!), Math.abs(d + row.max!))
        : Math.abs(row.d ?? 0);
    return row.a === 0 && reach === 0;
  });
}

/** One bad input: what to call it, and the error `createRigFromDH` must throw (its option and message). */
export interface BadTable {
  label: string;
  option: string;
  message: RegExp;
}

const who = (i: number, name: string) => `^createRigFromDH: row ${i} \\("${escape(name)}"\\)`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Makes one thing about a good table wrong, in place, and says what the refusal must name. Every fault is a
 * row of the bad-input table in docs/errors.md.
 */
export function spoilArm(rand: Rand, arm: GeneratedArm): BadTable {
  const { rows, options } = arm;
  const n = rows.length;
  const i = int(rand, 0, n - 1);
  const row = rows[i];
  const name = options.names?.[i] ?? `joint${i + 1}`;
  const kind = int(rand, 0, 13);
  switch (kind) {
    case 0: {
      const field = pick(rand, ["a", "alpha", "d", "theta", "offset", "min", "max"] as const);
      // null is a bad a or alpha; the optional fields take it as absent, as they take undefined.
      const required = field === "a" || field === "alpha";
      const bad = pick(
        rand,
        required ? [NaN, Infinity, -Infinity, "1", null] : [NaN, Infinity, -Infinity, "1"],
      );
      row[field] = bad as number;
      return {
        label: `rows[${i}].${field} = ${String(bad)}`,
        option: `rows[${i}].${field}`,
        message: new RegExp(`${who(i, name)}: ${field} must be a finite number, got ${escape(String(bad))}$`),
      };
    }
    case 1: {
      const mid = options.home?.[i] ?? 0;
      row.min = mid + 1;
      row.max = mid - 1;
      return {
        label: `rows[${i}] inverted range`,
        option: `rows[${i}].min`,
        message: new RegExp(`${who(i, name)}: range is inverted`),
      };
    }
    case 2:
      row.joint = pick(rand, ["spherical", "Revolute", "", 3]) as "revolute";
      return {
        label: `rows[${i}].joint ${String(row.joint)}`,
        option: `rows[${i}].joint`,
        message: new RegExp(`${who(i, name)}: joint must be "revolute" or "prismatic"`),
      };
    case 3:
      row.joint = "prismatic";
      if (chance(rand, 0.5)) delete row.min;
      else delete row.max;
      return {
        label: `rows[${i}] prismatic without a range`,
        option: `rows[${i}].min`,
        message: new RegExp(`${who(i, name)}: a prismatic joint needs its range, min and max`),
      };
    case 4:
      options.convention = pick(rand, ["craig", "Standard", "", 0]) as DHConvention;
      return {
        label: `convention ${String(options.convention)}`,
        option: "convention",
        message: /^createRigFromDH: convention must be "standard" or "modified"/,
      };
    case 5:
      options.home = Array.from({ length: chance(rand, 0.5) ? n + 1 : n - 1 }, () => 0);
      return {
        label: "home of the wrong length",
        option: "home",
        message: /^createRigFromDH: home must hold one joint value per row/,
      };
    case 6: {
      const home = options.home?.slice() ?? rows.map(() => 0);
      const [min, max] = [row.min ?? -Math.PI, row.max ?? Math.PI];
      home[i] = chance(rand, 0.5) ? max + uniform(rand, 1e-6, 2) : min - uniform(rand, 1e-6, 2);
      options.home = home;
      return {
        label: `home[${i}] outside its range`,
        option: "home",
        message: new RegExp(`${who(i, name)}: home value .* is outside the range`),
      };
    }
    case 7: {
      // A revolute range narrower than a turn that reaches more than π from home.
      row.joint = "revolute";
      const h = options.home?.[i] ?? 0;
      const far = uniform(rand, Math.PI + 0.01, TURN - 0.5);
      const near = uniform(rand, 0, 0.4);
      [row.min, row.max] = chance(rand, 0.5) ? [h - far, h + near] : [h - near, h + far];
      return {
        label: `rows[${i}] range beyond π of home`,
        option: "home",
        message: new RegExp(`${who(i, name)}: range .* reaches more than π from the home value`),
      };
    }
    case 8: {
      const names = rows.map((_, k) => `n${k}`);
      const k = int(rand, 0, n - 1);
      const fault = int(rand, 0, 3);
      if (fault === 0) names.push("extra");
      else if (fault === 1) names[k] = pick(rand, ["base", "tool", "tool.x", "tool.z"]);
      else if (fault === 2) names[k] = "";
      else if (n > 1) names[k] = names[(k + 1) % n];
      else names[k] = "tool";
      options.names = names;
      return fault === 0
        ? {
            label: "names of the wrong length",
            option: "names",
            message: /^createRigFromDH: names must hold one name per row/,
          }
        : {
            label: `names[${k}] ${JSON.stringify(names[k])}`,
            option: "names",
            message: /^createRigFromDH: name of row \d+ must be a non-empty string used once/,
          };
    }
    case 9:
      options.toolOffset = pick(rand, [
        [0, NaN, 0],
        [1, 2],
        [0, 0, Infinity],
        [0, "0", 0],
      ]) as [number, number, number];
      return {
        label: "toolOffset bad",
        option: "toolOffset",
        message: /^createRigFromDH: toolOffset must be three finite numbers/,
      };
    case 10:
      options.markerDistance = pick(rand, [0, -1, NaN, Infinity]);
      return {
        label: `markerDistance ${options.markerDistance}`,
        option: "markerDistance",
        message: /^createRigFromDH: markerDistance must be a finite number > 0/,
      };
    case 11:
      rows[i] = pick(rand, [null, 3, "row"]) as unknown as DHRow;
      return {
        label: `rows[${i}] not an object`,
        option: `rows[${i}]`,
        message: new RegExp(`${who(i, name)} must be an object`),
      };
    case 12: {
      // Every a, d and the tool offset 0: no length. Revolute joints of the default range at home 0, so
      // that nothing else is wrong with the table.
      for (const r of rows) {
        r.a = 0;
        r.d = 0;
        r.joint = "revolute";
        r.offset = 0;
        delete r.min;
        delete r.max;
      }
      delete options.home;
      options.toolOffset = [0, 0, 0];
      return { label: "no length", option: "rows", message: /^createRigFromDH: the arm has no length/ };
    }
    default:
      arm.rows = chance(rand, 0.5) ? [] : ({} as DHRow[]);
      return {
        label: "rows empty",
        option: "rows",
        message: /^createRigFromDH: rows must be a non-empty array/,
      };
  }
}
