import {
  IDENTITY_QUAT,
  Y,
  conjugate,
  mulQuat,
  normalize,
  normalizeQuat,
  quatFromUnitVectors,
  rotate,
  sub,
  type Quat,
  type Rigid,
  type Vec3,
} from "./math.js";

interface JointDraft {
  readonly name: string;
  readonly parent: number;
  readonly position: Vec3;
  readonly aim: string | undefined;
}

/**
 * A joint tree in its rest (bind) pose. Joints are authored by model-space position, the way one
 * sketches a character; orientations follow the convention most DCC and Mixamo rigs use: each joint's
 * local +Y points along its bone, toward its aim child (the first child unless told otherwise), with the
 * roll of the shortest rotation from +Y. Leaves keep their parent's orientation. So rest rotations are
 * not identity, which is what real characters look like to the IK adapter.
 */
export class Skeleton {
  readonly names: readonly string[];
  readonly parents: readonly number[];
  /** Rest positions, model space. */
  readonly positions: readonly Vec3[];
  /** Rest orientations, model space. */
  readonly worldRotations: readonly Quat[];
  /** Rest transform of each joint relative to its parent (relative to the model for roots). */
  readonly locals: readonly Rigid[];
  private readonly byName: ReadonlyMap<string, number>;

  /**
   * With `identity`, every joint's rest orientation is the model's (a VRM's normalized bones): bones then
   * point wherever their child lies, with no rotation of their own to say so.
   */
  constructor(drafts: readonly JointDraft[], identity = false) {
    this.names = drafts.map((d) => d.name);
    this.parents = drafts.map((d) => d.parent);
    this.positions = drafts.map((d) => d.position);
    this.byName = new Map(this.names.map((n, i) => [n, i]));

    const rotations: Quat[] = [];
    drafts.forEach((draft, j) => {
      const aim = draft.aim === undefined ? drafts.findIndex((d) => d.parent === j) : this.index(draft.aim);
      if (aim >= 0 && drafts[aim].parent !== j) {
        throw new Error(`skeleton: "${draft.name}" aims at "${drafts[aim].name}", which is not its child`);
      }
      if (identity) {
        rotations.push(IDENTITY_QUAT);
      } else if (aim >= 0) {
        rotations.push(quatFromUnitVectors(Y, normalize(sub(drafts[aim].position, draft.position))));
      } else {
        rotations.push(draft.parent >= 0 ? rotations[draft.parent] : IDENTITY_QUAT);
      }
    });
    this.worldRotations = rotations;

    this.locals = drafts.map((draft, j) => {
      if (draft.parent < 0) return { rotation: canonical(rotations[j]), translation: draft.position };
      const inverseParent = conjugate(rotations[draft.parent]);
      return {
        rotation: canonical(normalizeQuat(mulQuat(inverseParent, rotations[j]))),
        translation: rotate(inverseParent, sub(draft.position, this.positions[draft.parent])),
      };
    });
  }

  get jointCount(): number {
    return this.names.length;
  }

  index(name: string): number {
    const i = this.byName.get(name);
    if (i === undefined) throw new Error(`skeleton: no joint named "${name}"`);
    return i;
  }

  position(name: string): Vec3 {
    return this.positions[this.index(name)];
  }

  /** Rest world transform of a joint (model space). */
  world(joint: number): Rigid {
    return { rotation: this.worldRotations[joint], translation: this.positions[joint] };
  }

  /** Rest orientation of the frame a joint's local transform lives in: its parent's, or the model's. */
  parentRotation(joint: number): Quat {
    const parent = this.parents[joint];
    return parent >= 0 ? this.worldRotations[parent] : IDENTITY_QUAT;
  }
}

/** Collects joints parent-first; `build()` derives orientations and local transforms. */
export class SkeletonBuilder {
  private readonly drafts: JointDraft[] = [];

  /** Adds a joint at a model-space rest position. `aim` names the child its +Y should point at. */
  add(name: string, parent: string | null, position: Vec3, aim?: string): this {
    if (this.drafts.some((d) => d.name === name)) throw new Error(`skeleton: duplicate joint "${name}"`);
    let parentIndex = -1;
    if (parent !== null) {
      parentIndex = this.drafts.findIndex((d) => d.name === parent);
      if (parentIndex < 0) throw new Error(`skeleton: "${name}" needs its parent "${parent}" added first`);
    }
    this.drafts.push({ name, parent: parentIndex, position, aim });
    return this;
  }

  /** The skeleton; `identity` gives every joint the model's orientation at rest (see {@link Skeleton}). */
  build(identity = false): Skeleton {
    return new Skeleton(this.drafts, identity);
  }
}

/** One sign per rotation (w >= 0), so equal rotations are stored as equal numbers. */
function canonical(q: Quat): Quat {
  return q[3] < 0 ? [-q[0], -q[1], -q[2], -q[3]] : q;
}
