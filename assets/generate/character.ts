import { Document, NodeIO, type Node } from "@gltf-transform/core";
import { writeClip, type Clip } from "./animation.js";
import { conjugate, invertRigid, rigidToMatrix, rotate, sub, type Vec3 } from "./math.js";
import type { Skeleton } from "./skeleton.js";
import type { MeshData } from "./skinnedMesh.js";

export interface CharacterSpec {
  /** Names the scene, the character's root node (`<name>`), its mesh node (`<name>Mesh`) and skin. */
  readonly name: string;
  readonly skeleton: Skeleton;
  readonly mesh: MeshData;
  /** Linear RGBA. */
  readonly color: readonly [number, number, number, number];
  readonly roughness: number;
  readonly clips: readonly Clip[];
  /**
   * End sites: plain nodes below joints, outside the skin, at model-space rest positions (Blender's exporter
   * writes each leaf bone's tail as such a `<bone>_end` node).
   */
  readonly ends?: readonly { readonly name: string; readonly parent: string; readonly at: Vec3 }[];
}

/**
 * One skinned character as a glTF document: scene > `<name>` > { root joint, `<name>Mesh` }. The mesh
 * node sits beside the joint tree, not under it, because glTF ignores a skinned mesh's own transform and
 * Babylon re-parents it there anyway; the joint root is the skin's `skeleton`.
 */
export function buildCharacter(spec: CharacterSpec): Document {
  const { name, skeleton } = spec;
  const doc = new Document();
  // A fixed generator string: the glTF-Transform version would otherwise change the bytes on upgrade.
  Object.assign(doc.getRoot().getAsset(), {
    generator: "babylon-fabrik assets/generate",
    copyright: "CC0-1.0, the babylon-fabrik project",
  });
  const buffer = doc.createBuffer();
  const scene = doc.createScene(name);
  doc.getRoot().setDefaultScene(scene);
  const root = doc.createNode(name);
  scene.addChild(root);

  const joints: Node[] = skeleton.names.map((jointName, j) => {
    const local = skeleton.locals[j];
    return doc
      .createNode(jointName)
      .setTranslation([...local.translation])
      .setRotation([...local.rotation]);
  });
  const roots = skeleton.parents.flatMap((p, j) => (p < 0 ? [j] : []));
  if (roots.length !== 1) throw new Error(`${name}: the skeleton must have exactly one root joint`);
  joints.forEach((node, j) => (skeleton.parents[j] < 0 ? root : joints[skeleton.parents[j]]).addChild(node));

  for (const end of spec.ends ?? []) {
    const parent = skeleton.index(end.parent);
    const offset = sub(end.at, skeleton.positions[parent]);
    joints[parent].addChild(
      doc
        .createNode(end.name)
        .setTranslation([...rotate(conjugate(skeleton.worldRotations[parent]), offset)]),
    );
  }

  const inverseBind = skeleton.names.flatMap((_, j) => rigidToMatrix(invertRigid(skeleton.world(j))));
  const skin = doc
    .createSkin(`${name}Skin`)
    .setSkeleton(joints[roots[0]])
    .setInverseBindMatrices(
      doc
        .createAccessor(`${name}.inverseBindMatrices`, buffer)
        .setType("MAT4")
        .setArray(Float32Array.from(inverseBind)),
    );
  for (const joint of joints) skin.addJoint(joint);

  const material = doc
    .createMaterial(`${name}Material`)
    .setBaseColorFactor([...spec.color])
    .setMetallicFactor(0)
    .setRoughnessFactor(spec.roughness);
  const attribute = (suffix: string, type: "VEC3" | "VEC4", array: Float32Array | Uint8Array) =>
    doc.createAccessor(`${name}.${suffix}`, buffer).setType(type).setArray(array);
  const primitive = doc
    .createPrimitive()
    .setAttribute("POSITION", attribute("position", "VEC3", spec.mesh.positions))
    .setAttribute("NORMAL", attribute("normal", "VEC3", spec.mesh.normals))
    .setAttribute("JOINTS_0", attribute("joints", "VEC4", spec.mesh.joints))
    .setAttribute("WEIGHTS_0", attribute("weights", "VEC4", spec.mesh.weights))
    .setIndices(doc.createAccessor(`${name}.indices`, buffer).setType("SCALAR").setArray(spec.mesh.indices))
    .setMaterial(material);
  const meshNode = doc
    .createNode(`${name}Mesh`)
    .setMesh(doc.createMesh(`${name}Mesh`).addPrimitive(primitive))
    .setSkin(skin);
  root.addChild(meshNode);

  for (const clip of spec.clips) writeClip(doc, buffer, joints, clip);
  return doc;
}

/** GLB bytes of a document; the same document always gives the same bytes. */
export function toGlb(doc: Document): Promise<Uint8Array> {
  return new NodeIO().writeBinary(doc);
}
