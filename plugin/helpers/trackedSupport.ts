import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { invertAffineMatrix, type FabrikFrame } from "../babylon/index.js";
import { transformPoint } from "../rig/index.js";

/**
 * The meshes planted feet stand on: a foot is carried as the mesh it landed on moves (a platform, a lift),
 * and told unsupported when that mesh is disposed or disabled (it then steps down to whatever is below). No
 * ray is cast under a planted foot: the mesh is the one the cast that placed the foot hit, and its world
 * matrix says where it went (Babylon's picking allocates its results; a cast a frame would too).
 */
export class TrackedSupport {
  /** The mesh each planted foot stands on (null: none, the animation's ground), and each step's landing. */
  private readonly _mesh: (AbstractMesh | null)[] = [null, null];
  private readonly _landing: (AbstractMesh | null)[] = [null, null];
  /** Per foot: where it stands in its mesh's space (3 each, world units). */
  private readonly _local = new Float64Array(6);
  private readonly _matrix = new Float64Array(16);
  private readonly _inverse = new Float64Array(16);
  private readonly _point = new Float64Array(3);

  /** The mesh foot `i`'s step (or plant) will stand on, from the cast that found its ground. */
  aim(i: number, mesh: AbstractMesh | null): void {
    this._landing[i] = mesh;
  }

  /** Foot `i` is planted at `s[p..p+2]` (model space), on the mesh its last cast found. */
  plant(i: number, s: Float64Array, p: number, frame: FabrikFrame): void {
    const mesh = this._landing[i];
    this._mesh[i] = mesh;
    if (mesh === null) return;
    this._readMatrix(mesh);
    if (!invertAffineMatrix(this._matrix, this._inverse)) {
      this._mesh[i] = null;
      return;
    }
    transformPoint(this._point, 0, frame.modelToWorld, s, p);
    transformPoint(this._local, 3 * i, this._inverse, this._point, 0);
  }

  /**
   * How far planted foot `i`, at `s[p..p+2]`, was carried by its mesh since it was planted, into
   * `s[out..out+2]` (model space; zero without a mesh). False when the mesh is gone (disposed or disabled):
   * the foot stands on nothing.
   */
  follow(i: number, s: Float64Array, p: number, out: number, frame: FabrikFrame): boolean {
    s[out] = s[out + 1] = s[out + 2] = 0;
    const mesh = this._mesh[i];
    if (mesh === null) return true;
    if (mesh.isDisposed() || !mesh.isEnabled()) {
      this._mesh[i] = null;
      return false;
    }
    this._readMatrix(mesh);
    transformPoint(this._point, 0, this._matrix, this._local, 3 * i);
    transformPoint(s, out, frame.worldToModel, this._point, 0);
    for (let k = 0; k < 3; k++) s[out + k] -= s[p + k];
    return true;
  }

  private _readMatrix(mesh: AbstractMesh): void {
    const m = mesh.getWorldMatrix().m;
    for (let k = 0; k < 16; k++) this._matrix[k] = m[k];
  }
}
