import { FabrikError, describeJoint } from "./errors.js";
import { packTypedArrays } from "./packArrays.js";

/**
 * What a caller knows about a skeleton: its topology and rest pose, in model space.
 * Joints are listed parents first, so a single forward sweep visits every parent before its children.
 */
export interface RigDescription {
  /** Parent index per joint, `-1` for a root. Every parent index must be smaller than its child's. */
  parents: ArrayLike<number>;
  /** Rest joint positions, model space, `x y z` per joint (length `3 * jointCount`). */
  restPositions: ArrayLike<number>;
  /** Rest joint orientations, model space, unit quaternions `x y z w` per joint. Identity when omitted. */
  restOrientations?: ArrayLike<number>;
  /** Optional joint names, used to look joints up and to name them in errors. */
  names?: readonly string[];
}

/** A validated rig: flat typed arrays, plus the derived child lists and rest bone lengths. */
export interface Rig {
  readonly jointCount: number;
  readonly parents: Int32Array;
  readonly restPositions: Float64Array;
  readonly restOrientations: Float64Array;
  readonly names: readonly string[] | undefined;
  /** Children of joint `j` are `children[childStart[j] .. childStart[j + 1])`, in index order. */
  readonly childStart: Int32Array;
  readonly children: Int32Array;
  /** Rest distance from each joint to its parent (0 for roots). */
  readonly restLengths: Float64Array;
}

/** Quaternions read from float32 files are unit only to about 1e-7; anything further off is a data error. */
const UNIT_QUATERNION_SLACK = 1e-3;

/** Validates a rig description and copies it into typed arrays. Throws a {@link FabrikError} naming the joint. */
export function createRig(description: RigDescription): Rig {
  const {
    parents: parentsIn,
    restPositions: positionsIn,
    restOrientations: orientationsIn,
    names,
  } = description;
  if (parentsIn == null || typeof parentsIn.length !== "number") {
    throw new FabrikError("rig: `parents` must be an array of parent indices", undefined, "parents");
  }
  const n = parentsIn.length;
  if (n === 0)
    throw new FabrikError("rig: `parents` is empty; a rig needs at least one joint", undefined, "parents");
  if (names !== undefined) {
    if (!Array.isArray(names) || names.length !== n) {
      throw new FabrikError(`rig: \`names\` must hold one name per joint (${n})`, undefined, "names");
    }
    for (let i = 0; i < n; i++) {
      if (typeof names[i] !== "string") {
        throw new FabrikError(`rig: name of joint ${i} is not a string`, i, "names");
      }
    }
  }

  const parents = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = parentsIn[i];
    if (!Number.isInteger(p) || p < -1 || p >= i) {
      throw new FabrikError(
        `rig: ${describeJoint(i, names)} has parent ${String(p)}; a parent must be -1 (a root) or an earlier ` +
          "joint, since joints are listed parents first",
        i,
        "parents",
      );
    }
    parents[i] = p;
  }

  if (positionsIn == null || positionsIn.length !== 3 * n) {
    throw new FabrikError(
      `rig: \`restPositions\` must hold 3 numbers per joint (${3 * n}), got ${positionsIn?.length ?? "none"}`,
      undefined,
      "restPositions",
    );
  }
  const restPositions = new Float64Array(3 * n);
  for (let i = 0; i < 3 * n; i++) {
    const v = positionsIn[i];
    if (typeof v !== "number" || !Number.isFinite(v)) {
      const joint = Math.floor(i / 3);
      throw new FabrikError(
        `rig: rest position of ${describeJoint(joint, names)} is not finite (${String(v)})`,
        joint,
        "restPositions",
      );
    }
    restPositions[i] = v;
  }

  const restOrientations = new Float64Array(4 * n);
  if (orientationsIn === undefined) {
    for (let i = 0; i < n; i++) restOrientations[4 * i + 3] = 1;
  } else {
    if (orientationsIn.length !== 4 * n) {
      throw new FabrikError(
        `rig: \`restOrientations\` must hold 4 numbers per joint (${4 * n}), got ${orientationsIn.length}`,
        undefined,
        "restOrientations",
      );
    }
    for (let i = 0; i < n; i++) {
      const x = orientationsIn[4 * i],
        y = orientationsIn[4 * i + 1],
        z = orientationsIn[4 * i + 2],
        w = orientationsIn[4 * i + 3];
      const len = Math.sqrt(x * x + y * y + z * z + w * w);
      if (!Number.isFinite(len) || Math.abs(len - 1) > UNIT_QUATERNION_SLACK) {
        throw new FabrikError(
          `rig: rest orientation of ${describeJoint(i, names)} is not a unit quaternion (length ${len})`,
          i,
          "restOrientations",
        );
      }
      restOrientations[4 * i] = x / len;
      restOrientations[4 * i + 1] = y / len;
      restOrientations[4 * i + 2] = z / len;
      restOrientations[4 * i + 3] = w / len;
    }
  }

  const childStart = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) if (parents[i] >= 0) childStart[parents[i] + 1]++;
  for (let i = 0; i < n; i++) childStart[i + 1] += childStart[i];
  const children = new Int32Array(childStart[n]);
  const fill = childStart.slice(0, n);
  for (let i = 0; i < n; i++) if (parents[i] >= 0) children[fill[parents[i]]++] = i;

  const restLengths = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const p = parents[i];
    if (p < 0) continue;
    const dx = restPositions[3 * i] - restPositions[3 * p];
    const dy = restPositions[3 * i + 1] - restPositions[3 * p + 1];
    const dz = restPositions[3 * i + 2] - restPositions[3 * p + 2];
    restLengths[i] = Math.sqrt(dx * dx + dy * dy + dz * dz);
  }

  const rig: Rig = {
    jointCount: n,
    parents,
    restPositions,
    restOrientations,
    names: names === undefined ? undefined : names.slice(),
    childStart,
    children,
    restLengths,
  };
  packTypedArrays(rig);
  return rig;
}

/**
 * Resolves a joint given by index or by name. `what` says who asked, so the error can name the option.
 * A name used by two joints is ambiguous and rejected rather than guessed.
 */
export function findJoint(rig: Rig, joint: number | string, what: string): number {
  if (typeof joint === "number") {
    if (!Number.isInteger(joint) || joint < 0 || joint >= rig.jointCount) {
      throw new FabrikError(
        `${what}: joint index ${joint} is outside the rig (0..${rig.jointCount - 1})`,
        undefined,
        what,
      );
    }
    return joint;
  }
  if (typeof joint !== "string") {
    throw new FabrikError(
      `${what}: a joint must be given by index or name, got ${typeof joint}`,
      undefined,
      what,
    );
  }
  const names = rig.names;
  let found = -1;
  if (names !== undefined) {
    for (let i = 0; i < names.length; i++) {
      if (names[i] !== joint) continue;
      if (found >= 0) {
        throw new FabrikError(
          `${what}: joint name "${joint}" is ambiguous (joints ${found} and ${i}); use an index`,
          i,
          what,
        );
      }
      found = i;
    }
  }
  if (found < 0) throw new FabrikError(`${what}: no joint named "${joint}" in the rig`, undefined, what);
  return found;
}
