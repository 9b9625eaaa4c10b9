import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PoseReader, buildSkeletonRig, buildSkeletonRigs } from "../../plugin/babylon/index.js";
import { FabrikError } from "../../plugin/solver/errors.js";

let engine: NullEngine;
let scene: Scene;
beforeEach(() => {
  engine = new NullEngine();
  scene = new Scene(engine);
});
afterEach(() => engine.dispose());

function rejects(make: () => unknown, pattern: RegExp): void {
  let error: unknown;
  try {
    make();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(FabrikError);
  expect((error as Error).message).toMatch(pattern);
}

/** A three-bone arm of bare Bones (no linked nodes), skinning `mesh`. */
function bareArm(name: string, mesh: Mesh): Bone[] {
  const skeleton = new Skeleton(name, name, scene);
  const shoulder = new Bone(`${name}-shoulder`, skeleton, null, Matrix.Translation(0, 1, 0));
  const elbow = new Bone(
    `${name}-elbow`,
    skeleton,
    shoulder,
    Matrix.Compose(
      new Vector3(1, 1, 1),
      Quaternion.RotationAxis(Vector3.Forward(), 0.4),
      new Vector3(0, 1, 0),
    ),
  );
  const wrist = new Bone(`${name}-wrist`, skeleton, elbow, Matrix.Translation(0, 0.8, 0));
  mesh.skeleton = skeleton;
  return [shoulder, elbow, wrist];
}

/** Linked nodes under `parent`, Euler-rotated (no rotationQuaternion), driving a new skeleton. */
function linkedChain(
  name: string,
  parent: TransformNode,
  count: number,
): { skeleton: Skeleton; nodes: TransformNode[] } {
  const skeleton = new Skeleton(name, name, scene);
  const nodes: TransformNode[] = [];
  let bone: Bone | null = null;
  for (let i = 0; i < count; i++) {
    const node = new TransformNode(`${name}${i}`, scene);
    node.parent = i === 0 ? parent : nodes[i - 1];
    node.position.set(0.1 * i, 1, 0);
    node.rotation.set(0.1, 0.2 * i, -0.3);
    bone = new Bone(`${name}${i}`, skeleton, bone, Matrix.Identity());
    bone.linkTransformNode(node);
    nodes.push(node);
  }
  return { skeleton, nodes };
}

describe("buildSkeletonRig: errors name the problem", () => {
  it("rejects a node with no skinned mesh at or under it", () => {
    const empty = new TransformNode("prop", scene);
    new Mesh("rock", scene).parent = empty;
    rejects(() => buildSkeletonRig(empty), /no skinned mesh .* under TransformNode "prop"/);
    rejects(() => buildSkeletonRig(new Mesh("plain", scene)), /no skinned mesh .* under Mesh "plain"/);
  });

  it("rejects something that is not a node", () => {
    rejects(
      () => buildSkeletonRig(null as unknown as TransformNode),
      /expected a TransformNode or AbstractMesh, got null/,
    );
    rejects(() => buildSkeletonRig({} as TransformNode), /expected a TransformNode or AbstractMesh/);
  });

  it("rejects a skeleton without bones", () => {
    const mesh = new Mesh("body", scene);
    mesh.skeleton = new Skeleton("empty", "empty", scene);
    rejects(() => buildSkeletonRig(mesh), /skeleton "empty" of mesh "body" has no bones/);
  });

  it("asks to choose among unrelated skeletons, and builds each one on request", () => {
    const group = new TransformNode("crowd", scene);
    const a = new Mesh("a", scene);
    const b = new Mesh("b", scene);
    a.parent = group;
    b.parent = group;
    bareArm("alice", a);
    bareArm("bob", b);
    rejects(
      () => buildSkeletonRig(group),
      /2 unrelated skeleton groups under "crowd": "alice" .*"bob".*buildSkeletonRigs/,
    );
    expect(buildSkeletonRig(group, { skeleton: "bob" }).names).toEqual([
      "bob-shoulder",
      "bob-elbow",
      "bob-wrist",
    ]);
    expect(buildSkeletonRig(group, { skeleton: a.skeleton! }).meshes).toEqual([a]);
    rejects(
      () => buildSkeletonRig(group, { skeleton: "carol" }),
      /no skeleton "carol" among the skinned meshes/,
    );
    expect(buildSkeletonRigs(group).map((rig) => rig.modelRoot)).toEqual([a, b]);
  });

  it("rejects root joints below different nodes (no common model space)", () => {
    const left = new TransformNode("left", scene);
    const right = new TransformNode("right", scene);
    const skeleton = new Skeleton("split", "split", scene);
    for (const parent of [left, right]) {
      const node = new TransformNode(`${parent.name}Joint`, scene);
      node.parent = parent;
      new Bone(node.name, skeleton, null).linkTransformNode(node);
    }
    const mesh = new Mesh("body", scene);
    mesh.skeleton = skeleton;
    rejects(
      () => buildSkeletonRig(mesh),
      /root joints "leftJoint" and "rightJoint" hang below different nodes/,
    );
  });
});

describe("buildSkeletonRig on hand-made skeletons", () => {
  it("reads bare Bones (no linked nodes) in the skinned mesh's space, scale included", () => {
    const holder = new TransformNode("holder", scene);
    holder.position.set(2, 0, -1);
    holder.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 0.7);
    holder.scaling.set(1, 2, 1);
    const mesh = new Mesh("body", scene);
    mesh.parent = holder;
    const [shoulder, elbow, wrist] = bareArm("arm", mesh);
    const rig = buildSkeletonRig(holder);
    expect(rig.modelRoot).toBe(mesh);
    expect(rig.nodes).toEqual([null, null, null]);
    expect(rig.indexOf(elbow)).toBe(1);
    expect(rig.indexOf("arm-wrist")).toBe(2);

    const reader = new PoseReader(rig);
    shoulder.rotationQuaternion = Quaternion.RotationAxis(new Vector3(1, 0.5, 0).normalize(), 0.9);
    shoulder.scaling = new Vector3(1.5, 0.5, 1);
    elbow.position = new Vector3(0.2, 1.1, 0);
    reader.read();
    mesh.skeleton!.computeAbsoluteMatrices(true);
    mesh.computeWorldMatrix(true);
    const fk = new Vector3();
    for (const [j, bone] of [shoulder, elbow, wrist].entries()) {
      const expected = bone.getAbsolutePosition(mesh);
      expect(Vector3.Distance(reader.getWorldPositionToRef(j, fk), expected)).toBeLessThan(1e-5);
    }
  });

  it("reads Euler-rotated linked nodes (rotationQuaternion null) and the rest pose from the rest matrices", () => {
    const model = new TransformNode("model", scene);
    model.rotation.set(0.3, 1.2, 0);
    const { skeleton, nodes } = linkedChain("spine", model, 4);
    const mesh = new Mesh("body", scene);
    mesh.parent = model;
    mesh.skeleton = skeleton;
    const rig = buildSkeletonRig(model);
    expect(rig.modelRoot).toBe(model);
    expect(rig.restPositions.every((v) => v === 0)).toBe(true); // identity rest matrices
    const reader = new PoseReader(rig);
    nodes[2].rotation.y += 0.5;
    nodes[1].scaling.set(1, 3, 0.5);
    reader.read();
    scene.incrementRenderId();
    const fk = new Vector3();
    nodes.forEach((node, j) => {
      expect(Vector3.Distance(reader.getWorldPositionToRef(j, fk), node.getAbsolutePosition())).toBeLessThan(
        1e-5,
      );
    });
  });

  it("treats meshes sharing a skeleton, and skeletons sharing nodes, as one rig", () => {
    const model = new TransformNode("model", scene);
    const { skeleton, nodes } = linkedChain("leg", model, 3);
    const twin = new Skeleton("twin", "twin", scene);
    let bone: Bone | null = null;
    for (const node of nodes) {
      bone = new Bone(node.name, twin, bone);
      bone.linkTransformNode(node);
    }
    const meshes = ["a", "b", "c"].map((name) => {
      const mesh = new Mesh(name, scene);
      mesh.parent = model;
      return mesh;
    });
    meshes[0].skeleton = meshes[1].skeleton = skeleton;
    meshes[2].skeleton = twin;
    const rig = buildSkeletonRig(model);
    expect(rig.jointCount).toBe(3);
    expect(rig.skeletons).toEqual([skeleton, twin]);
    expect(rig.meshes).toEqual(meshes);
    rig.bones.forEach((bones, j) => expect(bones).toEqual([skeleton.bones[j], twin.bones[j]]));
    expect(rig.indexOf(twin.bones[2])).toBe(2);
  });

  it("nests a skeleton whose root node hangs below another skeleton's joint, keeping parents first", () => {
    const model = new TransformNode("model", scene);
    const body = linkedChain("body", model, 3);
    const tail = linkedChain("tail", body.nodes[1], 2);
    const bodyMesh = new Mesh("bodyMesh", scene);
    bodyMesh.parent = model;
    const tailMesh = new Mesh("tailMesh", scene);
    tailMesh.parent = body.nodes[1];
    // The nested skeleton is found first, yet its joints still come after their parent joint.
    tailMesh.skeleton = tail.skeleton;
    bodyMesh.skeleton = body.skeleton;
    const rig = buildSkeletonRig(model);
    expect(rig.jointCount).toBe(5);
    rig.parents.forEach((p, j) => expect(p).toBeLessThan(j));
    expect(rig.parents[rig.indexOf("tail0")]).toBe(rig.indexOf("body1"));
    expect(rig.modelRoot).toBe(model);
    // On its own, the nested skeleton lives in the space of the joint it hangs from.
    expect(buildSkeletonRig(tailMesh).modelRoot).toBe(body.nodes[1]);
  });
});
