import { FabrikError, describeJoint } from "./errors.js";
import type { SolvePlan } from "./plan.js";
import type { Pose } from "./pose.js";
import { DEFAULT_MAX_ITERATIONS, DEFAULT_TOLERANCE, type SolveSettings } from "./solveSettings.js";

const EMPTY_SETTINGS: SolveSettings = {};

/** Checks everything a solve reads before it writes anything, so a bad call leaves the pose untouched. */
export function validateSolveInput(
  plan: SolvePlan,
  pose: Pose,
  targets: Float64Array,
  settings: SolveSettings = EMPTY_SETTINGS,
): void {
  const n = plan.rig.jointCount;
  const names = plan.rig.names;
  const tolerance = settings.tolerance ?? DEFAULT_TOLERANCE;
  const maxIterations = settings.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  if (pose == null || typeof pose !== "object") {
    throw new FabrikError("solve: pose must be { positions, orientations }", undefined, "pose");
  }
  const { positions, orientations } = pose;
  if (!(positions instanceof Float64Array) || positions.length !== 3 * n) {
    throw new FabrikError(
      `solve: positions must be a Float64Array of 3 numbers per joint (${3 * n})`,
      undefined,
      "positions",
    );
  }
  if (!(orientations instanceof Float64Array) || orientations.length !== 4 * n) {
    throw new FabrikError(
      `solve: orientations must be a Float64Array of 4 numbers per joint (${4 * n})`,
      undefined,
      "orientations",
    );
  }
  if (!(targets instanceof Float64Array) || targets.length < 3 * plan.effectorCount) {
    throw new FabrikError(
      `solve: targets must be a Float64Array of 3 numbers per effector (${3 * plan.effectorCount})`,
      undefined,
      "targets",
    );
  }
  if (typeof tolerance !== "number" || !(tolerance >= 0) || !Number.isFinite(tolerance)) {
    throw new FabrikError(
      `solve: tolerance must be a finite number >= 0, got ${String(tolerance)}`,
      undefined,
      "tolerance",
    );
  }
  if (!Number.isInteger(maxIterations) || maxIterations < 1) {
    throw new FabrikError(
      `solve: maxIterations must be a whole number >= 1, got ${String(maxIterations)}`,
      undefined,
      "maxIterations",
    );
  }
  for (let e = 0; e < plan.effectorCount; e++) {
    if (!finite3(targets, 3 * e)) {
      const j = plan.effectorJoints[e];
      throw new FabrikError(
        `solve: target of effector ${e} (${describeJoint(j, names)}) is not finite ` +
          `(${targets[3 * e]}, ${targets[3 * e + 1]}, ${targets[3 * e + 2]})`,
        j,
        "targets",
      );
    }
    if (plan.effectorHasPole[e]) {
      const poles = settings.poles;
      if (
        !(poles instanceof Float64Array) ||
        poles.length < 3 * plan.effectorCount ||
        !finite3(poles, 3 * e)
      ) {
        const j = plan.effectorJoints[e];
        throw new FabrikError(
          `solve: effector ${e} (${describeJoint(j, names)}) has a pole, so settings.poles must hold a finite ` +
            "x y z for it (3 numbers per effector)",
          j,
          "poles",
        );
      }
    }
  }
  const parents = plan.rig.parents;
  for (let c = 0; c < plan.componentCount; c++) {
    const b = plan.componentBase[c];
    checkJoint(plan, pose, b);
    if (parents[b] >= 0) checkJoint(plan, pose, parents[b]);
    for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++)
      checkJoint(plan, pose, plan.activeJoints[k]);
    for (let k = plan.passiveStart[c]; k < plan.passiveStart[c + 1]; k++)
      checkJoint(plan, pose, plan.passiveJoints[k]);
  }
}

function checkJoint(plan: SolvePlan, pose: Pose, j: number): void {
  const { positions, orientations } = pose;
  if (!finite3(positions, 3 * j)) {
    throw new FabrikError(
      `solve: position of ${describeJoint(j, plan.rig.names)} is not finite ` +
        `(${positions[3 * j]}, ${positions[3 * j + 1]}, ${positions[3 * j + 2]})`,
      j,
      "positions",
    );
  }
  const x = orientations[4 * j],
    y = orientations[4 * j + 1],
    z = orientations[4 * j + 2],
    w = orientations[4 * j + 3];
  const len = x * x + y * y + z * z + w * w;
  if (!(len > 0.998 && len < 1.002)) {
    throw new FabrikError(
      `solve: orientation of ${describeJoint(j, plan.rig.names)} is not a unit quaternion (${x}, ${y}, ${z}, ${w})`,
      j,
      "orientations",
    );
  }
}

function finite3(a: Float64Array, o: number): boolean {
  return Number.isFinite(a[o]) && Number.isFinite(a[o + 1]) && Number.isFinite(a[o + 2]);
}
