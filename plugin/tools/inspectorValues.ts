import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type {
  FabrikBehavior,
  FabrikContinuumSectionInfo,
  FabrikTargetInfo,
  Vector3Like,
} from "../babylon/index.js";

/*
 * What the Inspector rows show (one line of text per row) and how they read what the user typed: numbers
 * may arrive as strings, and anything not finite is refused with a message the rows log.
 */

export const DEG = 180 / Math.PI;
export const RAD = Math.PI / 180;

/** The last solve in one line: iterations, residual relative to the character's height, joints on limits. */
export function describeReport(ik: FabrikBehavior): string {
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

/** Joint j's name and the kinds of limit it has, e.g. "LeftForeArm: hinge (on its limit)". */
export function describeLimits(ik: FabrikBehavior, j: number): string {
  const rig = ik.rig;
  if (rig === null || j < 0 || j >= rig.jointCount) return "";
  const spec = ik.limits!.specs[j];
  const kinds: string[] = [];
  if (spec?.fixed) kinds.push("fixed");
  if (spec?.hinge) kinds.push("hinge");
  if (spec?.universal) kinds.push("universal");
  if (spec?.pivot) kinds.push("pivot");
  if (spec?.swing) kinds.push("swing");
  if (spec?.twist) kinds.push("twist");
  if (spec?.stretch) kinds.push("stretch");
  const onLimit = ik.plan?.report.onLimit[j] === 1 ? " (on its limit)" : "";
  return `${rig.names[j]}: ${kinds.length > 0 ? kinds.join(" + ") : "free"}${onLimit}`;
}

export function describeSource(source: FabrikTargetInfo["source"]): string {
  if (source instanceof TransformNode) return `node "${source.name}"`;
  return typeof source === "function" ? "function" : "Vector3";
}

/** Radians to degrees, rounded to 1e-6° so that a slider shows 45, not 45.00000000000001. */
/** A continuum section in one line, e.g. "Tail2 → Tail4, 2 bones, bending as one arc". */
export function describeSection(section: FabrikContinuumSectionInfo | undefined): string {
  if (section === undefined) return "";
  const { names } = section;
  const bones = names.length - 1;
  return (
    `${names[0]} → ${names[bones]}, ${bones} bone${bones === 1 ? "" : "s"}, ` +
    (section.active ? "bending as one arc" : "not in use (no target's chain moves it whole)")
  );
}

export function degrees(radians: number): number {
  return Math.round(radians * DEG * 1e6) / 1e6;
}

export function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

/** The number typed into a row (a string is parsed); throws, naming `what`, when it is not finite. */
export function finite(v: unknown, what: string): number {
  const n = typeof v === "string" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n))
    throw new Error(`${what} must be a finite number, got ${String(v)}`);
  return n;
}

export function isFiniteVector(v: unknown): v is Vector3Like {
  const p = v as Vector3Like | null;
  return (
    p !== null &&
    typeof p === "object" &&
    Number.isFinite(p.x) &&
    Number.isFinite(p.y) &&
    Number.isFinite(p.z)
  );
}
