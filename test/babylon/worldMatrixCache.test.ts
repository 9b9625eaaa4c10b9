import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  PoseReader,
  WorldMatrixCache,
  buildSkeletonRig,
  composeWorldMatrix,
} from "../../plugin/babylon/index.js";
import { RETRY_AFTER_DIRTY } from "../../plugin/babylon/worldMatrixCache.js";
import { linkedJointChain, mixedNodeChain } from "./nodeChains.js";

let engine: NullEngine;
let scene: Scene;
beforeEach(() => {
  engine = new NullEngine();
  scene = new Scene(engine);
  new FreeCamera("camera", new Vector3(0, 0, -5), scene);
});
afterEach(() => engine.dispose());

function chain(): [TransformNode, Mesh, TransformNode] {
  return mixedNodeChain(scene);
}

/** What a render does to the chain: Babylon computes every node, which clears its change flags. */
function renderChain(nodes: readonly TransformNode[]): void {
  scene.incrementRenderId();
  for (const node of nodes) node.computeWorldMatrix();
}

/**
 * `out` holds the node's world matrix as composed now (which worldMatrix.test.ts holds to Babylon's), or
 * Babylon's own where composing is left to it. Babylon is not asked otherwise: that would clear the flags.
 */
function expectFresh(c: TransformNode, out: Float64Array): void {
  const composed = new Float64Array(16);
  if (composeWorldMatrix(c, composed)) {
    expect(Array.from(out)).toEqual(Array.from(composed));
    return;
  }
  const babylon = c.computeWorldMatrix(true).m;
  for (let i = 0; i < 16; i++) expect(out[i]).toBeCloseTo(babylon[i], 4);
}

/** A chain Babylon has computed, and a cache that has remembered it (checked: it answers from the flags). */
function cachedChain(): {
  nodes: [TransformNode, Mesh, TransformNode];
  cache: WorldMatrixCache;
  out: Float64Array;
} {
  const nodes = chain();
  renderChain(nodes);
  const cache = new WorldMatrixCache();
  const out = new Float64Array(16);
  expect(cache.update(nodes[2], out)).toBe(true);
  expect(cache.update(nodes[2], out)).toBe(false);
  return { nodes, cache, out };
}

/** How many times `update` composes before it answers from the flags (at most 100). */
function updatesUntilCached(cache: WorldMatrixCache, node: TransformNode, out: Float64Array): number {
  let composed = 0;
  while (composed < 100 && cache.update(node, out)) composed++;
  return composed;
}

/** Each change Babylon can see, made after the cache remembered a chain Babylon had just computed. */
const changes: [string, (a: TransformNode, b: Mesh, c: TransformNode) => void][] = [
  ["the node's position, in place", (_a, _b, c) => (c.position.x += 1)],
  ["the grandparent's position, in place", (a) => (a.position.y -= 2)],
  ["the parent's position object replaced", (_a, b) => (b.position = new Vector3(3, 0, 1))],
  ["the node's quaternion, in place", (_a, _b, c) => c.rotationQuaternion!.set(0.4, 0.1, 0, 0.9).normalize()],
  ["the parent's Euler rotation, in place", (_a, b) => (b.rotation.y += 0.3)],
  ["the grandparent's scaling, in place", (a) => (a.scaling.z = 3)],
  ["the node's scalingDeterminant (Babylon flags no change)", (_a, _b, c) => (c.scalingDeterminant = 1)],
  [
    "the node's quaternion dropped for an Euler rotation",
    (_a, _b, c) => {
      c.rotationQuaternion = null;
      c.rotation.x = 0.4;
    },
  ],
  ["the node reparented", (a, _b, c) => (c.parent = a)],
  [
    "the grandparent given a parent",
    (a) => {
      const top = new TransformNode("top", scene);
      top.position.set(0, 7, 0);
      a.parent = top;
    },
  ],
  [
    "the grandparent moved and then computed by Babylon before the read (its flags cleared)",
    (a) => {
      a.position.x += 5;
      a.computeWorldMatrix(true);
    },
  ],
  [
    "the whole chain moved and computed by Babylon before the read",
    (a, b, c) => {
      a.position.x += 5;
      scene.incrementRenderId();
      for (const node of [a, b, c]) node.computeWorldMatrix();
    },
  ],
];

describe("WorldMatrixCache", () => {
  it("composes once, then answers from the flags while nothing changes", () => {
    const nodes = chain();
    renderChain(nodes);
    const cache = new WorldMatrixCache();
    const out = new Float64Array(16);
    expect(cache.update(nodes[2], out)).toBe(true);
    expectFresh(nodes[2], out);
    const held = Array.from(out);
    renderChain(nodes); // unchanged nodes: Babylon does not recompute them
    for (let i = 0; i < 5; i++) expect(cache.update(nodes[2], out)).toBe(false);
    expect(Array.from(out)).toEqual(held);
  });

  it("composes every time while a node is flagged dirty (no render clears the flags)", () => {
    const nodes = chain();
    const cache = new WorldMatrixCache();
    const out = new Float64Array(16);
    for (let i = 0; i < 3; i++) expect(cache.update(nodes[2], out)).toBe(true);
    expectFresh(nodes[2], out);
  });

  describe.each(changes)("sees %s", (_name, change) => {
    it("composes again, and again until the flags are clear, then rests", () => {
      const { nodes, cache, out } = cachedChain();
      const before = Array.from(out);
      change(...nodes);
      expect(cache.update(nodes[2], out)).toBe(true);
      expect(Array.from(out)).not.toEqual(before);
      expectFresh(nodes[2], out);
      const chainNow: TransformNode[] = [];
      for (let n: TransformNode | null = nodes[2]; n !== null; n = n.parent as TransformNode | null)
        chainNow.unshift(n);
      renderChain(chainNow);
      expect(updatesUntilCached(cache, nodes[2], out)).toBeLessThanOrEqual(RETRY_AFTER_DIRTY + 1);
      expect(cache.update(nodes[2], out)).toBe(false);
      expectFresh(nodes[2], out);
    });
  });

  it("a root moved every frame is composed every frame, and cached a few frames after it stops", () => {
    const nodes = chain();
    const cache = new WorldMatrixCache();
    const out = new Float64Array(16);
    for (let frame = 0; frame < 50; frame++) {
      nodes[0].position.x = Math.sin(frame);
      expect(cache.update(nodes[2], out)).toBe(true);
      expectFresh(nodes[2], out);
      renderChain(nodes);
    }
    // Babylon cleared the flags at the last render, which counted up the ids: composed once more at least.
    const composed = updatesUntilCached(cache, nodes[2], out);
    expect(composed).toBeGreaterThanOrEqual(1);
    expect(composed).toBeLessThanOrEqual(RETRY_AFTER_DIRTY + 1);
    expectFresh(nodes[2], out);
    nodes[0].position.x = 5;
    expect(cache.update(nodes[2], out)).toBe(true);
    expectFresh(nodes[2], out);
  });

  it("never caches what it leaves to Babylon or what is frozen", () => {
    const [a, b, c] = chain();
    const out = new Float64Array(16);
    const cache = new WorldMatrixCache();
    b.billboardMode = TransformNode.BILLBOARDMODE_ALL;
    renderChain([a, b, c]);
    expect(cache.update(c, out)).toBe(true);
    expect(cache.update(c, out)).toBe(true);
    expectFresh(c, out);

    b.billboardMode = TransformNode.BILLBOARDMODE_NONE;
    a.freezeWorldMatrix();
    renderChain([a, b, c]);
    expect(cache.update(c, out)).toBe(true);
    expect(cache.update(c, out)).toBe(true);
    expectFresh(c, out);
  });

  it("notices a billboard switched on after the chain was cached (Babylon does not flag it)", () => {
    const { nodes, cache, out } = cachedChain();
    nodes[1].billboardMode = TransformNode.BILLBOARDMODE_ALL;
    expect(cache.update(nodes[2], out)).toBe(true);
    expectFresh(nodes[2], out);
  });

  it("notices a pivot given to an ancestor after the chain was cached", () => {
    const { nodes, cache, out } = cachedChain();
    const before = Array.from(out);
    nodes[0].setPivotMatrix(Matrix.Translation(0.5, 0, 0), false);
    expect(cache.update(nodes[2], out)).toBe(true);
    expect(Array.from(out)).not.toEqual(before);
    expectFresh(nodes[2], out);
  });

  it("composes every time for a node without Babylon's change tracking (another Babylon version)", () => {
    const nodes = chain();
    renderChain(nodes);
    (nodes[1] as unknown as { _childUpdateId: unknown })._childUpdateId = undefined;
    const cache = new WorldMatrixCache();
    const out = new Float64Array(16);
    expect(cache.update(nodes[2], out)).toBe(true);
    expect(cache.update(nodes[2], out)).toBe(true);
    expectFresh(nodes[2], out);
  });

  it("switching to another node composes that node's matrix", () => {
    const { nodes, cache, out } = cachedChain();
    expect(cache.update(nodes[1], out)).toBe(true);
    expectFresh(nodes[1], out);
    cache.invalidate();
    expect(cache.update(nodes[1], out)).toBe(true);
  });
});

describe("PoseReader's model root", () => {
  it("follows a root moved in place after Babylon computed it, in the same render id", () => {
    const model = new TransformNode("model", scene);
    model.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 1.3);
    const nodes = linkedJointChain(scene, model);
    const reader = new PoseReader(buildSkeletonRig(model));
    const fk = new Vector3();
    for (let frame = 0; frame < 4; frame++) {
      renderChain([model, ...nodes]);
      reader.read();
      if (frame % 2 === 1) {
        model.position.x += 2; // in place, after the render computed it
        model.rotationQuaternion.multiplyInPlace(Quaternion.RotationAxis(Vector3.Right(), 0.2));
        reader.read();
      }
      model.computeWorldMatrix(true);
      for (const [j, node] of nodes.entries()) {
        const expected = node.computeWorldMatrix(true).getTranslation();
        expect(Vector3.Distance(reader.getWorldPositionToRef(j, fk), expected)).toBeLessThan(1e-5);
      }
    }
    expect(reader.worldToModelToRef(model.position, fk).length()).toBeLessThan(1e-9);
  });
});
