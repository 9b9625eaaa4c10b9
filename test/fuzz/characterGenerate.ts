// Random characters for the behavior fuzzer (not a test file): skeletons built the ways a loader or an app
// builds them, under the transforms files put above them. Everything comes from one seeded generator, so a
// case is rebuilt from its seed alone.
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { preciseEngine } from "../babylon/codeCharacters.js";
import { chance, int, pick, randomRotation, uniform, unitVector, type Rand } from "./generate.js";

/** How the joints are held: glTF's TransformNodes linked to bones, or bare Bones (a .babylon file, code). */
export type JointKind = "linked" | "bones";

/** What sits above the skeleton. */
export type Above = "none" | "gltfMirror" | "uniform" | "stretched" | "armature";

/** What scale a joint carries. */
export type JointScale = "one" | "uniform" | "negative" | "mirror" | "stretched";

export interface GeneratedCharacter {
  readonly engine: NullEngine;
  readonly scene: Scene;
  readonly root: Mesh;
  readonly kind: JointKind;
  readonly above: Above;
  readonly parents: readonly number[];
  readonly names: readonly string[];
  readonly nodes: readonly (TransformNode | null)[];
  readonly bones: readonly Bone[];
  /** Some joint carries a non-uniform scale: bones below it are solved only approximately. */
  readonly stretched: boolean;
  /** The model's unit: typical bone length in world units. */
  readonly unit: number;
}

const JOINT_SCALES: readonly JointScale[] = [
  "one",
  "one",
  "one",
  "one",
  "uniform",
  "negative",
  "mirror",
  "stretched",
];
const ABOVE: readonly Above[] = ["none", "gltfMirror", "gltfMirror", "uniform", "stretched", "armature"];

function randomQuaternion(rand: Rand, maxAngle: number): Quaternion {
  const [x, y, z, w] = randomRotation(rand, maxAngle);
  return new Quaternion(x, y, z, w);
}

/**
 * 2 to 24 joints: a chain that mostly goes on from the last joint, sometimes branches from an earlier one,
 * sometimes starts a second root. Bones 0.2–1 units long in random directions, some straight on along the
 * parent's bone (a collinear chain), some of zero length (coincident joints); rest rotations random or none.
 */
export function generateCharacter(rand: Rand): GeneratedCharacter {
  const engine = preciseEngine();
  const scene = new Scene(engine);
  new FreeCamera("camera", new Vector3(0, 1, -5), scene);
  const kind: JointKind = chance(rand, 0.7) ? "linked" : "bones";
  const above = pick(rand, ABOVE);
  const unit = Math.pow(10, uniform(rand, -2, 2));
  const root = new Mesh("__root__", scene);
  root.position.set(uniform(rand, -3, 3), uniform(rand, -3, 3), uniform(rand, -3, 3));
  root.rotationQuaternion = randomQuaternion(rand, Math.PI);
  let parentOfSkeleton: TransformNode = root;
  if (above === "gltfMirror") {
    root.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), Math.PI);
    root.scaling.set(1, 1, -1);
  } else if (above === "uniform") root.scaling.setAll(uniform(rand, 0.2, 5));
  else if (above === "stretched")
    root.scaling.set(uniform(rand, 0.5, 2), uniform(rand, 0.5, 2), uniform(rand, 0.5, 2));
  else if (above === "armature") {
    // Mixamo's and Blender's armature node: a unit change and an axis swap between the root and the joints.
    const armature = new TransformNode("Armature", scene);
    armature.parent = root;
    armature.rotationQuaternion = Quaternion.RotationAxis(Vector3.Right(), Math.PI / 2);
    armature.scaling.setAll(pick(rand, [0.01, 100, 1]));
    parentOfSkeleton = armature;
  }
  const skeleton = new Skeleton("rig", "rig", scene);
  const count = int(rand, 2, 24);
  const parents: number[] = [];
  const names: string[] = [];
  const nodes: (TransformNode | null)[] = [];
  const bones: Bone[] = [];
  let stretched = false;
  // Most rigs have no non-uniform joint scale: those are solved only approximately, and checked for less.
  const mayStretch = chance(rand, 0.2);
  // A joint's own bone direction in its frame, to lay a child straight on along it.
  const along: Vector3[] = [];
  for (let j = 0; j < count; j++) {
    const parent = j === 0 || chance(rand, 0.05) ? -1 : chance(rand, 0.75) ? j - 1 : int(rand, 0, j - 1);
    const name = `b${j}`;
    const length = chance(rand, 0.06) ? 0 : uniform(rand, 0.2, 1) * unit;
    const straight = parent >= 0 && chance(rand, 0.25);
    const direction = straight ? along[parent].clone() : new Vector3(...unitVector(rand));
    const position = parent < 0 ? new Vector3(...unitVector(rand)).scale(unit) : direction.scale(length);
    const rotation = straight || chance(rand, 0.3) ? Quaternion.Identity() : randomQuaternion(rand, Math.PI);
    let scaleKind = pick(rand, JOINT_SCALES);
    if (scaleKind === "stretched" && !mayStretch) scaleKind = "one";
    const s = uniform(rand, 0.5, 2);
    const scaling =
      scaleKind === "uniform"
        ? new Vector3(s, s, s)
        : scaleKind === "negative"
          ? new Vector3(-1, -1, -1)
          : scaleKind === "mirror"
            ? new Vector3(s * pick(rand, [-1, 1]), s * pick(rand, [-1, 1]), -s)
            : scaleKind === "stretched"
              ? new Vector3(s, uniform(rand, 0.5, 2), uniform(rand, 0.5, 2))
              : new Vector3(1, 1, 1);
    if (scaleKind === "stretched") stretched = true;
    // The child's bone runs on along this one's: its direction in this joint's frame.
    along.push(
      direction
        .applyRotationQuaternion(Quaternion.Inverse(rotation))
        .divideInPlace(new Vector3(scaling.x, scaling.y, scaling.z)),
    );
    if (along[j].lengthSquared() === 0) along[j].set(0, 1, 0);
    along[j].normalize();
    const local = Matrix.Compose(scaling, rotation, position);
    const bone = new Bone(name, skeleton, parent < 0 ? null : bones[parent], local.clone(), local.clone());
    let node: TransformNode | null = null;
    if (kind === "linked") {
      node = new TransformNode(name, scene);
      node.parent = parent < 0 ? parentOfSkeleton : nodes[parent]!;
      node.position.copyFrom(position);
      node.rotationQuaternion = rotation.clone();
      node.scaling.copyFrom(scaling);
      bone.linkTransformNode(node);
    } else if (parent < 0 && parentOfSkeleton !== root) {
      // Bare bones hang from the mesh: the armature's transform goes into the root bones instead.
      const m = Matrix.Compose(
        parentOfSkeleton.scaling,
        parentOfSkeleton.rotationQuaternion!,
        Vector3.Zero(),
      );
      const composed = local.multiply(m);
      bone.updateMatrix(composed, false, false);
      bone.setRestMatrix(composed.clone());
    }
    parents.push(parent);
    names.push(name);
    nodes.push(node);
    bones.push(bone);
  }
  const mesh = new Mesh("body", scene);
  mesh.parent = root;
  mesh.skeleton = skeleton;
  return { engine, scene, root, kind, above, parents, names, nodes, bones, stretched, unit };
}

/** Every joint's local rotation, position and scaling (10 numbers a joint), as the scene holds them now. */
export function localValues(c: GeneratedCharacter): Float64Array {
  const out = new Float64Array(10 * c.bones.length);
  c.bones.forEach((bone, j) => {
    const source = c.nodes[j] ?? bone;
    const q = source.rotationQuaternion!;
    out.set([q.x, q.y, q.z, q.w, source.position.x, source.position.y, source.position.z], 10 * j);
    out.set([source.scaling.x, source.scaling.y, source.scaling.z], 10 * j + 7);
  });
  return out;
}

/** Every joint's world position, computed afresh. */
export function worldPositions(c: GeneratedCharacter): Vector3[] {
  c.scene.incrementRenderId();
  c.root.computeWorldMatrix(true);
  return c.bones.map((bone, j) => {
    const node = c.nodes[j];
    if (node !== null) return node.computeWorldMatrix(true).getTranslation();
    bone.computeAbsoluteMatrices();
    return bone.getAbsolutePosition(c.root);
  });
}

/** Every joint's world matrix, computed afresh. */
export function worldMatrices(c: GeneratedCharacter): Matrix[] {
  c.scene.incrementRenderId();
  const root = c.root.computeWorldMatrix(true);
  return c.bones.map((bone, j) => {
    const node = c.nodes[j];
    if (node !== null) return node.computeWorldMatrix(true).clone();
    bone.computeAbsoluteMatrices();
    return bone.getAbsoluteMatrix().multiply(root);
  });
}
