import { FabrikError } from "../solver/errors.js";
import { invertAffineMatrix, setIdentityMatrix } from "./affineMatrix.js";
import { forwardKinematics } from "../rig/index.js";
import { readLocalRotation, type RotationSource } from "./localRotation.js";
import { foldAxis, foldJoint } from "./scaleFold.js";
import { WorldMatrixCache } from "./worldMatrixCache.js";
import type { SkeletonRig } from "./skeletonRig.js";
import { packTypedArrays } from "../solver/packArrays.js";

/** Anything with writable x y z, such as a Babylon `Vector3`. */
export type WritableVector3 = { x: number; y: number; z: number };

/** Anything with readable x y z. */
export type Vector3Like = { readonly x: number; readonly y: number; readonly z: number };

/**
 * Reads a rig's current (animated) pose every frame into preallocated arrays, then runs forward kinematics
 * on them. Build it once per rig; {@link PoseReader.read} allocates nothing.
 *
 * The linked TransformNode is the source of truth for glTF joints (Babylon copies it into the Bone only
 * while rendering, so the Bone lags a frame before that); bare Bones are read directly. World matrices
 * are never asked of Babylon for joints, and for the model root only when it uses a feature
 * `composeWorldMatrix` leaves to Babylon (pivots, billboards, bone attachment): so Babylon's same-frame
 * cache, which misses in-place changes of a parent, never feeds the reader stale matrices. The model root's
 * matrix is composed again only when Babylon's change flags say it may have moved (`WorldMatrixCache`).
 */
export class PoseReader {
  /** Local pose per joint, relative to the parent joint: translation (3n), unit rotation (4n), scale (3n). */
  readonly localTranslations: Float64Array;
  readonly localRotations: Float64Array;
  readonly localScales: Float64Array;
  /** Model-space joint positions (3n); parents' scales, non-uniform included, are applied. */
  readonly positions: Float64Array;
  /** Model-space unit orientations (4n): the composed local rotations, scale left out. */
  readonly orientations: Float64Array;
  /** Model-space basis per joint (9n): its x, y, z axes with scale; see `forwardKinematics`. */
  readonly bases: Float64Array;
  /** The model root's world matrix and its inverse, in Babylon's `Matrix.m` layout (see `affineMatrix`). */
  readonly modelToWorld = new Float64Array(16);
  readonly worldToModel = new Float64Array(16);
  /** False when the model root is scaled to zero; `worldToModel` then holds the identity. */
  worldToModelValid = true;

  private readonly _nodes: LocalPoseSource[];
  private readonly _modelToWorldCache = new WorldMatrixCache();
  /** The joints {@link read} visits, parents first: all of them, or those set by {@link readOnly}. */
  private _order: Int32Array;

  constructor(readonly rig: SkeletonRig) {
    const n = rig.jointCount;
    this.localTranslations = new Float64Array(3 * n);
    this.localRotations = new Float64Array(4 * n);
    this.localScales = new Float64Array(3 * n);
    this.positions = new Float64Array(3 * n);
    this.orientations = new Float64Array(4 * n);
    this.bases = new Float64Array(9 * n);
    this._nodes = rig.nodes.map((node, j) => node ?? rig.bones[j][0]);
    this._order = Int32Array.from(rig.parents, (_, j) => j);
    setIdentityMatrix(this.modelToWorld);
    setIdentityMatrix(this.worldToModel);
    packTypedArrays(this, this._modelToWorldCache);
    // A first read fills the arrays and lets Bones create their lazily-built local vectors up front.
    this.read();
  }

  /**
   * From now on, {@link read} visits only `joints` and their ancestors (the FK needs them); the other joints
   * keep whatever the arrays last held. `null` goes back to every joint. A character with fingers, a face
   * and props costs a fraction to read when only its limb chains are solved. Allocates; call it when the
   * set changes, not per frame.
   */
  readOnly(joints: ArrayLike<number> | null): void {
    const parents = this.rig.parents;
    const n = parents.length;
    if (joints === null) {
      this._order = Int32Array.from(parents, (_, j) => j);
      return;
    }
    const wanted = new Uint8Array(n);
    for (let k = 0; k < joints.length; k++) {
      const joint = joints[k];
      if (!Number.isInteger(joint) || joint < 0 || joint >= n) {
        throw new FabrikError(
          `PoseReader.readOnly: joint index ${String(joint)} is not a joint of this rig (0 .. ${n - 1})`,
          undefined,
          "joints",
        );
      }
    }
    for (let k = 0; k < joints.length; k++) {
      for (let j = joints[k]; j >= 0 && wanted[j] === 0; j = parents[j]) wanted[j] = 1;
    }
    const order: number[] = [];
    for (let j = 0; j < n; j++) if (wanted[j] === 1) order.push(j);
    this._order = Int32Array.from(order);
  }

  /** Copies the local transforms, runs forward kinematics, and reads the model root's world matrix. */
  read(): void {
    const t = this.localTranslations,
      r = this.localRotations,
      s = this.localScales;
    const sources = this._nodes;
    const order = this._order;
    const n = order.length;
    for (let k = 0; k < n; k++) {
      const j = order[k];
      const source = sources[j];
      const p = source.position;
      t[3 * j] = p.x;
      t[3 * j + 1] = p.y;
      t[3 * j + 2] = p.z;
      readLocalRotation(source, r, 4 * j);
      const sc = source.scaling;
      // TransformNodes multiply their scaling by this (it is 1 unless a mesh was mirrored by Babylon).
      const d = source.scalingDeterminant ?? 1;
      s[3 * j] = sc.x * d;
      s[3 * j + 1] = sc.y * d;
      s[3 * j + 2] = sc.z * d;
      if (s[3 * j] < 0 || s[3 * j + 1] < 0 || s[3 * j + 2] < 0)
        foldJoint(foldAxis(s, 3 * j), r, 4 * j, s, 3 * j);
    }
    forwardKinematics(this.rig.parents, t, r, s, this.positions, this.orientations, this.bases, order);

    const root = this.rig.modelRoot;
    if (root === null) return;
    if (this._modelToWorldCache.update(root, this.modelToWorld)) {
      this.worldToModelValid = invertAffineMatrix(this.modelToWorld, this.worldToModel);
    }
  }

  /** World position of `joint` from the last {@link read}. */
  getWorldPositionToRef<T extends WritableVector3>(joint: number, result: T): T {
    const p = this.positions;
    const m = this.modelToWorld;
    const x = p[3 * joint],
      y = p[3 * joint + 1],
      z = p[3 * joint + 2];
    result.x = x * m[0] + y * m[4] + z * m[8] + m[12];
    result.y = x * m[1] + y * m[5] + z * m[9] + m[13];
    result.z = x * m[2] + y * m[6] + z * m[10] + m[14];
    return result;
  }

  /** Brings a world-space point (e.g. an IK target) into model space, with the matrix of the last read. */
  worldToModelToRef<T extends WritableVector3>(point: Vector3Like, result: T): T {
    const m = this.worldToModel;
    const x = point.x,
      y = point.y,
      z = point.z;
    result.x = x * m[0] + y * m[4] + z * m[8] + m[12];
    result.y = x * m[1] + y * m[5] + z * m[9] + m[13];
    result.z = x * m[2] + y * m[6] + z * m[10] + m[14];
    return result;
  }
}

/** What the reader needs of a TransformNode or a Bone: both expose their local pose under these names. */
interface LocalPoseSource extends RotationSource {
  readonly position: Vector3Like;
  readonly scaling: Vector3Like;
  /** TransformNodes only. */
  readonly scalingDeterminant?: number;
}
