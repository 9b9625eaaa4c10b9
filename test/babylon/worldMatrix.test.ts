import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PoseReader, buildSkeletonRig, composeWorldMatrix } from "../../plugin/babylon/index.js";
import { linkedJointChain, mixedNodeChain } from "./nodeChains.js";

let engine: NullEngine;
let scene: Scene;
beforeEach(() => {
  engine = new NullEngine();
  scene = new Scene(engine);
});
afterEach(() => engine.dispose());

function expectMatrixClose(actual: ArrayLike<number>, expected: ArrayLike<number>): void {
  for (let i = 0; i < 16; i++) expect(actual[i]).toBeCloseTo(expected[i], 4);
}

function chain(): [TransformNode, Mesh, TransformNode] {
  return mixedNodeChain(scene);
}

describe("composeWorldMatrix", () => {
  it("equals Babylon's world matrix for plain nodes, Euler or quaternion, mirrored or not", () => {
    const nodes = chain();
    const out = new Float64Array(16);
    for (const node of nodes) {
      expect(composeWorldMatrix(node, out)).toBe(true);
      expectMatrixClose(out, node.computeWorldMatrix(true).m);
    }
  });

  it("sees in-place changes that Babylon's same-frame cache misses", () => {
    const [a, , c] = chain();
    c.computeWorldMatrix(true);
    a.position.x += 10;
    const out = new Float64Array(16);
    composeWorldMatrix(c, out);
    // Babylon still answers from its cache within this render id…
    expect(c.computeWorldMatrix().m[12]).not.toBeCloseTo(out[12], 3);
    // …until it is forced.
    expectMatrixClose(out, c.computeWorldMatrix(true).m);
  });

  it("starts from a frozen ancestor's frozen matrix", () => {
    const [a, b, c] = chain();
    a.freezeWorldMatrix();
    const frozen = a.getWorldMatrix().clone();
    a.position.set(100, 100, 100); // ignored by Babylon while frozen
    const out = new Float64Array(16);
    expect(composeWorldMatrix(c, out)).toBe(true);
    const expected = c.computeWorldMatrix(true).m;
    expectMatrixClose(out, expected);
    expect(frozen.m[12]).toBeCloseTo(a.getWorldMatrix().m[12], 6);
    void b;
  });

  it("leaves pivots, billboards, bone attachments and non-node parents to Babylon", () => {
    const out = new Float64Array(16);
    const [, b, c] = chain();
    b.setPivotPoint(new Vector3(1, 0, 0));
    expect(composeWorldMatrix(c, out)).toBe(false);
    b.setPivotMatrix(Matrix.Identity(), false);
    expect(composeWorldMatrix(c, out)).toBe(true);
    b.billboardMode = TransformNode.BILLBOARDMODE_ALL;
    expect(composeWorldMatrix(c, out)).toBe(false);
    b.billboardMode = TransformNode.BILLBOARDMODE_NONE;

    const camera = new FreeCamera("camera", new Vector3(0, 0, -5), scene);
    const held = new TransformNode("held", scene);
    held.parent = camera;
    expect(composeWorldMatrix(held, out)).toBe(false);

    const skeleton = new Skeleton("s", "s", scene);
    const bone = new Bone("hand", skeleton);
    const carrier = new Mesh("carrier", scene);
    carrier.skeleton = skeleton;
    const sword = new TransformNode("sword", scene);
    sword.attachToBone(bone, carrier);
    expect(composeWorldMatrix(sword, out)).toBe(false);
  });
});

describe("PoseReader under a model root Babylon has to compute", () => {
  it("still matches the nodes when the model root has a pivot", () => {
    new FreeCamera("camera", new Vector3(0, 0, -5), scene);
    const model = new TransformNode("model", scene);
    model.setPivotPoint(new Vector3(0.5, 1, 0));
    model.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 1.3);
    const nodes = linkedJointChain(scene, model);
    const reader = new PoseReader(buildSkeletonRig(model));
    model.position.x += 2; // in place, same render id
    reader.read();
    scene.incrementRenderId();
    const fk = new Vector3();
    nodes.forEach((node, j) => {
      expect(Vector3.Distance(reader.getWorldPositionToRef(j, fk), node.getAbsolutePosition())).toBeLessThan(
        1e-5,
      );
    });
  });
});
