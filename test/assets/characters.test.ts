import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { NodeIO, type Document, type Node } from "@gltf-transform/core";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { ImportMeshAsync } from "@babylonjs/core/Loading/sceneLoader.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import "@babylonjs/loaders/glTF/2.0/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHARACTERS, generate } from "../../assets/generate/characters.js";

/**
 * The project's own characters: the committed files must be exactly what the generator writes, load in
 * Babylon as one linked skeleton with the documented joint names and clips, and be shaped as documented.
 */

const assetPath = (file: string) => fileURLToPath(new URL(`../../assets/${file}`, import.meta.url));

function mannequinNames(): string[] {
  const names = ["Hips", "Spine", "Spine1", "Spine2", "Neck", "Head", "HeadTop_End"];
  for (const side of ["Left", "Right"]) {
    names.push(`${side}Shoulder`, `${side}Arm`, `${side}ForeArm`, `${side}Hand`);
    for (const digit of ["Thumb", "Index", "Middle", "Ring", "Pinky"]) {
      for (let i = 1; i <= 4; i++) names.push(`${side}Hand${digit}${i}`);
    }
    names.push(`${side}UpLeg`, `${side}Leg`, `${side}Foot`, `${side}ToeBase`, `${side}Toe_End`);
  }
  return names;
}

function creatureNames(): string[] {
  const names = ["Body", "Head", "Head.End", "Tail.1", "Tail.2", "Tail.3", "Tail.End"];
  for (const side of ["L", "R"]) {
    for (const n of [1, 2, 3]) {
      for (const part of ["Hip", "Knee", "Ankle", "Foot"]) names.push(`Leg.${side}${n}.${part}`);
    }
  }
  return names;
}

function figureNames(): string[] {
  const names = ["hips", "spine", "chest", "upperChest", "neck", "head"];
  for (const side of ["left", "right"]) {
    names.push(`${side}Shoulder`, `${side}UpperArm`, `${side}LowerArm`, `${side}Hand`);
    names.push(`${side}UpperLeg`, `${side}LowerLeg`, `${side}Foot`);
  }
  return names;
}

const tentacleNames = (): string[] =>
  Array.from({ length: 25 }, (_, i) => `Tentacle.${String(i).padStart(2, "0")}`);

interface Expected {
  readonly file: string;
  readonly root: string;
  readonly names: readonly string[];
  readonly clips: readonly { readonly name: string; readonly duration: number }[];
  /** A clip to play and a joint it must turn. */
  readonly moving: { readonly clip: string; readonly joint: string };
}

const EXPECTED: readonly Expected[] = [
  {
    file: "mannequin.glb",
    root: "Hips",
    names: mannequinNames(),
    clips: [
      { name: "Idle", duration: 2 },
      { name: "Walk", duration: 1 },
    ],
    moving: { clip: "Walk", joint: "LeftUpLeg" },
  },
  {
    file: "creature.glb",
    root: "Body",
    names: creatureNames(),
    clips: [
      { name: "Idle", duration: 2 },
      { name: "Walk", duration: 1 },
    ],
    moving: { clip: "Walk", joint: "Leg.L1.Hip" },
  },
  {
    file: "tentacle.glb",
    root: "Tentacle.00",
    names: tentacleNames(),
    clips: [{ name: "Idle", duration: 3 }],
    moving: { clip: "Idle", joint: "Tentacle.10" },
  },
  {
    file: "figure.glb",
    root: "hips",
    names: figureNames(),
    clips: [{ name: "Idle", duration: 2 }],
    moving: { clip: "Idle", joint: "head" },
  },
];

const committed = (file: string) => new Uint8Array(readFileSync(assetPath(file)));
const readDocument = (bytes: Uint8Array): Promise<Document> => new NodeIO().readBinary(bytes);

function nodeNamed(doc: Document, name: string): Node {
  const node = doc
    .getRoot()
    .listNodes()
    .find((n) => n.getName() === name);
  if (node === undefined) throw new Error(`no node named ${name}`);
  return node;
}

/** Column-major 4x4 product, enough to check that world x inverse-bind is the identity. */
function multiply(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  const out = new Array<number>(16).fill(0);
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      for (let k = 0; k < 4; k++) out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
    }
  }
  return out;
}

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

it("the generator covers exactly the characters tested here", () => {
  expect(CHARACTERS.map((c) => c.file)).toEqual(EXPECTED.map((e) => e.file));
});

describe.each(EXPECTED)("$file", (expected) => {
  it("is byte for byte what `npm run assets` writes", async () => {
    const generated = await generate(expected.file);
    const onDisk = committed(expected.file);
    expect(onDisk.byteLength, `assets/${expected.file} is stale: run npm run assets`).toBe(
      generated.byteLength,
    );
    expect(Buffer.from(onDisk).equals(Buffer.from(generated)), `assets/${expected.file} is stale`).toBe(true);
  });

  it("is small", () => {
    expect(committed(expected.file).byteLength).toBeLessThan(512 * 1024);
  });

  describe("as glTF", () => {
    let doc: Document;
    beforeAll(async () => {
      doc = await readDocument(committed(expected.file));
    });

    it("has one skin over every joint, rooted at the root joint, with inverse bind matrices of the rest pose", () => {
      const skins = doc.getRoot().listSkins();
      expect(skins).toHaveLength(1);
      const [skin] = skins;
      const joints = skin.listJoints();
      expect(joints.map((j) => j.getName()).sort()).toEqual([...expected.names].sort());
      expect(skin.getSkeleton()?.getName()).toBe(expected.root);
      const ibm = skin.getInverseBindMatrices()?.getArray();
      expect(ibm?.length).toBe(16 * joints.length);
      joints.forEach((joint, j) => {
        const product = multiply(joint.getWorldMatrix(), ibm!.slice(16 * j, 16 * j + 16));
        product.forEach((v, i) => expect(v, `${joint.getName()} [${i}]`).toBeCloseTo(IDENTITY[i], 5));
      });
    });

    it("has one skinned primitive with normals and normalised weights of up to four joints", () => {
      const meshes = doc.getRoot().listMeshes();
      expect(meshes).toHaveLength(1);
      const [primitive] = meshes[0].listPrimitives();
      const positions = primitive.getAttribute("POSITION")!;
      const normals = primitive.getAttribute("NORMAL")!.getArray()!;
      const joints = primitive.getAttribute("JOINTS_0")!;
      const weights = primitive.getAttribute("WEIGHTS_0")!;
      expect(joints.getArray()).toBeInstanceOf(Uint8Array);
      expect(weights.getArray()).toBeInstanceOf(Float32Array);
      const count = positions.getCount();
      const jointArray = joints.getArray()!;
      const weightArray = weights.getArray()!;
      let worstSum = 0;
      let worstNormal = 0;
      let badInfluences = 0;
      for (let v = 0; v < count; v++) {
        let sum = 0;
        for (let k = 0; k < 4; k++) {
          const w = weightArray[4 * v + k];
          if (!(w >= 0) || jointArray[4 * v + k] >= expected.names.length) badInfluences++;
          sum += w;
        }
        worstSum = Math.max(worstSum, Math.abs(sum - 1));
        const n = Math.hypot(normals[3 * v], normals[3 * v + 1], normals[3 * v + 2]);
        worstNormal = Math.max(worstNormal, Math.abs(n - 1));
      }
      expect(badInfluences).toBe(0);
      expect(worstSum).toBeLessThan(1e-6);
      expect(worstNormal).toBeLessThan(1e-5);
      expect(primitive.getMaterial()?.getBaseColorFactor()).toHaveLength(4);
      const skinned = doc
        .getRoot()
        .listNodes()
        .filter((n) => n.getMesh() !== null);
      expect(skinned.map((n) => n.getSkin() !== null)).toEqual([true]);
    });

    it("is made of closed surfaces wound counter-clockwise from outside", () => {
      const primitive = doc.getRoot().listMeshes()[0].listPrimitives()[0];
      const p = primitive.getAttribute("POSITION")!.getArray()!;
      const index = primitive.getIndices()!.getArray()!;
      const edges = new Map<number, number>();
      const edge = (from: number, to: number) => from * 0x10000 + to;
      let volume = 0;
      for (let t = 0; t < index.length; t += 3) {
        const [a, b, c] = [index[t], index[t + 1], index[t + 2]];
        for (const [from, to] of [
          [a, b],
          [b, c],
          [c, a],
        ]) {
          edges.set(edge(from, to), (edges.get(edge(from, to)) ?? 0) + 1);
        }
        // Signed volume of the tetrahedron to the origin: positive sums mean outward-facing triangles.
        volume +=
          (p[3 * a] * (p[3 * b + 1] * p[3 * c + 2] - p[3 * b + 2] * p[3 * c + 1]) -
            p[3 * a + 1] * (p[3 * b] * p[3 * c + 2] - p[3 * b + 2] * p[3 * c]) +
            p[3 * a + 2] * (p[3 * b] * p[3 * c + 1] - p[3 * b + 1] * p[3 * c])) /
          6;
      }
      // Every edge is walked once each way: no holes, and neighbouring triangles agree on winding.
      let unpaired = 0;
      for (const [key, uses] of edges) {
        const [from, to] = [Math.floor(key / 0x10000), key % 0x10000];
        if (uses !== 1 || edges.get(edge(to, from)) !== 1) unpaired++;
      }
      expect(unpaired).toBe(0);
      expect(volume).toBeGreaterThan(0);
    });

    it("has looping clips of rotation (and translation) channels on joints", () => {
      const animations = doc.getRoot().listAnimations();
      expect(animations.map((a) => a.getName())).toEqual(expected.clips.map((c) => c.name));
      const jointSet = new Set(doc.getRoot().listSkins()[0].listJoints());
      animations.forEach((animation, i) => {
        for (const channel of animation.listChannels()) {
          expect(jointSet.has(channel.getTargetNode()!)).toBe(true);
          expect(["rotation", "translation"]).toContain(channel.getTargetPath());
          const sampler = channel.getSampler()!;
          const times = sampler.getInput()!.getArray()!;
          const values = sampler.getOutput()!.getArray()!;
          const size = sampler.getOutput()!.getElementSize();
          expect(sampler.getInterpolation()).toBe("LINEAR");
          expect(times[0]).toBe(0);
          expect(times[times.length - 1]).toBeCloseTo(expected.clips[i].duration, 6);
          // Seamless loop: last key equals the first.
          for (let k = 0; k < size; k++) expect(values[values.length - size + k]).toBe(values[k]);
        }
      });
    });
  });

  describe("in Babylon", () => {
    let engine: NullEngine;
    let scene: Scene;
    let result: Awaited<ReturnType<typeof ImportMeshAsync>>;
    beforeAll(async () => {
      engine = new NullEngine();
      scene = new Scene(engine);
      new FreeCamera("camera", new Vector3(0, 1, -5), scene);
      result = await ImportMeshAsync(committed(expected.file), scene, { pluginExtension: ".glb" });
    });
    afterAll(() => {
      scene.dispose();
      engine.dispose();
    });

    it("loads one skeleton whose bones carry the joint names and are linked to transform nodes", () => {
      expect(result.skeletons).toHaveLength(1);
      const [skeleton] = result.skeletons;
      expect(skeleton.bones).toHaveLength(expected.names.length);
      expect(skeleton.bones.map((b) => b.name).sort()).toEqual([...expected.names].sort());
      for (const bone of skeleton.bones) {
        expect(bone.getTransformNode()?.name, bone.name).toBe(bone.name);
      }
      expect(skeleton.bones.filter((b) => b.getParent() === null).map((b) => b.name)).toEqual([
        expected.root,
      ]);
    });

    it("has the clips as animation groups", () => {
      expect(result.animationGroups.map((g) => g.name)).toEqual(expected.clips.map((c) => c.name));
    });

    it("skins every vertex with weights summing to 1", () => {
      const skinned = result.meshes.filter((m) => m.skeleton !== null);
      expect(skinned).toHaveLength(1);
      const weights = skinned[0].getVerticesData("matricesWeights")!;
      expect(weights.length).toBe(4 * skinned[0].getTotalVertices());
      let worst = 0;
      for (let v = 0; v < weights.length; v += 4) {
        worst = Math.max(worst, Math.abs(weights[v] + weights[v + 1] + weights[v + 2] + weights[v + 3] - 1));
      }
      expect(worst).toBeLessThan(1e-6);
    });

    it(`turns joints when ${expected.moving.clip} plays`, () => {
      for (const group of result.animationGroups) group.stop();
      scene.useConstantAnimationDeltaTime = true;
      const node = scene.getTransformNodeByName(expected.moving.joint)!;
      const clip = result.animationGroups.find((g) => g.name === expected.moving.clip)!;
      clip.start(true);
      scene.render();
      const before = node.rotationQuaternion!.clone();
      for (let i = 0; i < 10; i++) scene.render();
      const after = node.rotationQuaternion!;
      expect(clip.isPlaying).toBe(true);
      expect(1 - Math.abs(before.dot(after))).toBeGreaterThan(1e-5);
      clip.stop();
    });
  });
});

describe("proportions", () => {
  const worldY = (doc: Document, name: string) => nodeNamed(doc, name).getWorldTranslation()[1];

  function meshBounds(doc: Document): { min: number[]; max: number[] } {
    const positions = doc.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute("POSITION")!;
    return { min: positions.getMin([]), max: positions.getMax([]) };
  }

  /** Every joint with a left/right partner sits at the mirror image of it across x = 0. */
  function expectMirrored(doc: Document, left: RegExp, toRight: (name: string) => string): number {
    let pairs = 0;
    for (const node of doc.getRoot().listNodes()) {
      if (!left.test(node.getName())) continue;
      const [x, y, z] = node.getWorldTranslation();
      const mirror = nodeNamed(doc, toRight(node.getName())).getWorldTranslation();
      expect(x, node.getName()).toBeGreaterThan(0);
      expect(mirror[0]).toBeCloseTo(-x, 5);
      expect(mirror[1]).toBeCloseTo(y, 5);
      expect(mirror[2]).toBeCloseTo(z, 5);
      pairs++;
    }
    return pairs;
  }

  it("mannequin: 1.75 m tall, hips at 0.95 m, feet on the ground, left mirrors right, facing +Z", async () => {
    const doc = await readDocument(committed("mannequin.glb"));
    expect(worldY(doc, "HeadTop_End")).toBeGreaterThan(1.7);
    expect(worldY(doc, "HeadTop_End")).toBeLessThan(1.8);
    expect(worldY(doc, "Hips")).toBeCloseTo(0.95, 2);
    const { min, max } = meshBounds(doc);
    expect(max[1]).toBeGreaterThan(1.7);
    expect(max[1]).toBeLessThan(1.8);
    expect(min[1]).toBeGreaterThan(-0.01);
    expect(min[1]).toBeLessThan(0.02);
    expect(Math.abs(min[0] + max[0])).toBeLessThan(1e-3);
    expect(worldY(doc, "LeftToe_End")).toBeLessThan(0.05);
    expect(nodeNamed(doc, "LeftToe_End").getWorldTranslation()[2]).toBeGreaterThan(0.1);
    expect(nodeNamed(doc, "LeftHand").getWorldTranslation()[0]).toBeGreaterThan(0.3);
    expect(expectMirrored(doc, /^Left/, (n) => n.replace(/^Left/, "Right"))).toBe(29);
  });

  it("creature: feet on the ground around a body above it, left mirrors right", async () => {
    const doc = await readDocument(committed("creature.glb"));
    for (const side of ["L", "R"]) {
      for (const n of [1, 2, 3]) {
        const y = worldY(doc, `Leg.${side}${n}.Foot`);
        expect(y).toBeGreaterThanOrEqual(0);
        expect(y).toBeLessThan(0.03);
      }
    }
    expect(worldY(doc, "Body")).toBeGreaterThan(0.25);
    expect(meshBounds(doc).min[1]).toBeGreaterThan(-0.01);
    expect(expectMirrored(doc, /^Leg\.L/, (n) => n.replace(/^Leg\.L/, "Leg.R"))).toBe(12);
  });

  it("figure: 1.70 m, a T-pose with exactly straight limbs, identity rest rotations, feet ending in _end sites", async () => {
    const doc = await readDocument(committed("figure.glb"));
    const at = (name: string) => nodeNamed(doc, name).getWorldTranslation();
    const { min, max } = meshBounds(doc);
    expect(max[1]).toBeGreaterThan(1.65);
    expect(max[1]).toBeLessThan(1.75);
    expect(min[1]).toBeGreaterThan(-1e-4);
    expect(min[1]).toBeLessThan(0.005);
    const joints = doc.getRoot().listSkins()[0].listJoints();
    for (const joint of joints) expect(joint.getRotation(), joint.getName()).toEqual([0, 0, 0, 1]);
    for (const side of ["left", "right"]) {
      // Shoulder to hand tip on one horizontal line, hip to ankle on one vertical line: no bend at all.
      const arm = ["UpperArm", "LowerArm", "Hand", "Hand_end"].map((n) => at(`${side}${n}`));
      const leg = ["UpperLeg", "LowerLeg", "Foot"].map((n) => at(`${side}${n}`));
      for (const p of arm) expect([p[1], p[2]]).toEqual([arm[0][1], arm[0][2]]);
      for (const p of leg) expect([p[0], p[2]]).toEqual([leg[0][0], leg[0][2]]);
      // The toe tip: an end site ahead of the ankle near the ground, a node outside the skin.
      const end = nodeNamed(doc, `${side}Foot_end`);
      expect(end.getParentNode()?.getName()).toBe(`${side}Foot`);
      expect(joints).not.toContain(end);
      expect(end.getWorldTranslation()[1]).toBeLessThan(0.03);
      expect(end.getWorldTranslation()[2]).toBeGreaterThan(0.1);
    }
    expect(at("leftHand")[0]).toBeGreaterThan(0.6);
    expect(expectMirrored(doc, /^left/, (n) => n.replace(/^left/, "right"))).toBe(9);
  });

  it("tentacle: rises from the origin, over 20 bones, tapering", async () => {
    const doc = await readDocument(committed("tentacle.glb"));
    expect(nodeNamed(doc, "Tentacle.00").getWorldTranslation()).toEqual([0, 0, 0]);
    expect(worldY(doc, "Tentacle.24")).toBeGreaterThan(1.2);
    const primitive = doc.getRoot().listMeshes()[0].listPrimitives()[0];
    const p = primitive.getAttribute("POSITION")!.getArray()!;
    const joints = primitive.getAttribute("JOINTS_0")!.getArray()!;
    const skinJoints = doc.getRoot().listSkins()[0].listJoints();
    // Widest distance from the joint's own axis, per dominant joint: it must shrink toward the tip.
    const widest = new Map<string, number>();
    for (let v = 0; v < p.length / 3; v++) {
      const joint = skinJoints[joints[4 * v]];
      const [x, , z] = joint.getWorldTranslation();
      const r = Math.hypot(p[3 * v] - x, p[3 * v + 2] - z);
      widest.set(joint.getName(), Math.max(widest.get(joint.getName()) ?? 0, r));
    }
    expect(widest.get("Tentacle.02")!).toBeGreaterThan(widest.get("Tentacle.12")!);
    expect(widest.get("Tentacle.12")!).toBeGreaterThan(widest.get("Tentacle.22")!);
  });
});

describe("walk cycles", () => {
  let engine: NullEngine;
  beforeAll(() => {
    engine = new NullEngine();
  });
  afterAll(() => engine.dispose());

  /** Loads a character, poses it at `seconds` into a clip, and gives world positions of named joints. */
  async function posed(file: string, clip: string, seconds: number, joints: readonly string[]) {
    const scene = new Scene(engine);
    try {
      const result = await ImportMeshAsync(committed(file), scene, { pluginExtension: ".glb" });
      for (const group of result.animationGroups) group.stop();
      const group = result.animationGroups.find((g) => g.name === clip)!;
      group.start(false);
      group.goToFrame(seconds * 60);
      group.pause();
      return joints.map((name) => {
        const node = scene.getTransformNodeByName(name) as TransformNode;
        node.computeWorldMatrix(true);
        return node.getAbsolutePosition().clone();
      });
    } finally {
      scene.dispose();
    }
  }

  it("mannequin: the feet take turns in front", async () => {
    const feet = ["LeftFoot", "RightFoot"];
    const [leftAhead, rightBehind] = await posed("mannequin.glb", "Walk", 0.25, feet);
    const [leftBehind, rightAhead] = await posed("mannequin.glb", "Walk", 0.75, feet);
    expect(leftAhead.z - rightBehind.z).toBeGreaterThan(0.3);
    expect(rightAhead.z - leftBehind.z).toBeGreaterThan(0.3);
  });

  it("creature: one tripod is lifted while the other stands", async () => {
    const tripodA = ["Leg.L1.Foot", "Leg.R2.Foot", "Leg.L3.Foot"];
    const tripodB = ["Leg.R1.Foot", "Leg.L2.Foot", "Leg.R3.Foot"];
    for (const [seconds, lifted, standing] of [
      [0.25, tripodA, tripodB],
      [0.75, tripodB, tripodA],
    ] as const) {
      const heights = (await posed("creature.glb", "Walk", seconds, [...lifted, ...standing])).map(
        (p) => p.y,
      );
      for (const y of heights.slice(0, 3)) expect(y).toBeGreaterThan(0.05);
      for (const y of heights.slice(3)) expect(y).toBeLessThan(0.02);
    }
  });
});
