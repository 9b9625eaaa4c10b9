import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildSkeletonRig,
  buildSkeletonRigs,
  discoverEndEffectors,
  findSkinnedMeshes,
  type SkeletonRig,
} from "../../plugin/babylon/index.js";
import { FabrikError } from "../../plugin/solver/errors.js";
import { CHARACTERS, characterNamed, loadCharacter, noteIfMissing, type Loaded } from "./characters.js";

/** The node whose space is model space, per character: the parent of the top joint's node. */
const MODEL_ROOTS: Record<string, string> = {
  RiggedSimple: "Armature",
  SimpleSkin: "__root__",
  RiggedFigure: "Armature",
  CesiumMan: "Armature",
  RobotExpressive: "RobotArmature",
  Fox: "root",
  QuaterniusSpider: "SpiderArmature",
  QuaterniusSnake: "SnakeArmature",
  RecursiveSkeletons: "__root__",
};

describe.each(CHARACTERS.filter((c) => !noteIfMissing(c)))("$folder", (c) => {
  let loaded: Loaded;
  beforeAll(async () => (loaded = await loadCharacter(c)));
  afterAll(() => loaded?.engine.dispose());

  it("uses the parent of the top joint's node as model root, and the same rig from the mesh or __root__", () => {
    const rigs = buildSkeletonRigs(loaded.root);
    for (const rig of rigs) expect(rig.modelRoot?.name).toBe(MODEL_ROOTS[c.folder]);
    const mesh = findSkinnedMeshes(loaded.root)[0];
    if (rigs.length === 1) expect(buildSkeletonRig(mesh).names).toEqual(rigs[0].names);
  });
});

const robot = characterNamed("RobotExpressive");
describe.skipIf(noteIfMissing(robot))("RobotExpressive: two skins over one joint set", () => {
  let loaded: Loaded;
  let rig: SkeletonRig;
  beforeAll(async () => {
    loaded = await loadCharacter(robot);
    rig = buildSkeletonRig(loaded.root);
  });
  afterAll(() => loaded?.engine.dispose());

  it("is one rig of 43 joints, each standing for a Bone of both skeletons, over the four hand meshes", () => {
    expect(loaded.scene.skeletons.length).toBe(2);
    expect(rig.jointCount).toBe(43);
    expect(rig.skeletons).toEqual(loaded.scene.skeletons);
    expect(rig.meshes.map((m) => m.name).sort()).toEqual(
      ["Hand.L_primitive0", "Hand.L_primitive1", "Hand.R_primitive0", "Hand.R_primitive1"].sort(),
    );
    rig.bones.forEach((bones, j) => {
      expect(bones.length).toBe(2);
      expect(bones[0].getTransformNode()).toBe(rig.nodes[j]);
      expect(bones[1].getTransformNode()).toBe(rig.nodes[j]);
    });
    // A single glTF skeleton keeps its bone order.
    expect(rig.names).toEqual(loaded.scene.skeletons[0].bones.map((b) => b.name));
  });

  it("finds the end sites outside the skin, and none where the leaf has only a mesh", () => {
    const effectors = discoverEndEffectors(rig);
    expect(effectors.length).toBe(15);
    for (const e of effectors) expect(e.endSite?.name).toBe(`${e.name}_end`);
    const foot = effectors.find((e) => e.name === "Foot.L")!;
    expect(foot.depth).toBe(1);
    // Foot.L also carries a rigid mesh named "Foot.L": not a joint, not an end site.
    expect(rig.nodes[foot.joint]!.getChildMeshes(true).map((m) => m.name)).toEqual(["Foot.L"]);
  });
});

const recursive = characterNamed("RecursiveSkeletons");
describe.skipIf(noteIfMissing(recursive))("RecursiveSkeletons: 84 nested skins", () => {
  let loaded: Loaded;
  beforeAll(async () => (loaded = await loadCharacter(recursive)));
  afterAll(() => loaded?.engine.dispose());

  it("groups the 84 skeletons into the 4 joint trees they nest into", () => {
    const rigs = buildSkeletonRigs(loaded.root);
    expect(loaded.scene.skeletons.length).toBe(84);
    expect(rigs.map((rig) => rig.jointCount)).toEqual([210, 210, 210, 210]);
    expect(rigs.map((rig) => rig.skeletons.length)).toEqual([21, 21, 21, 21]);
    for (const rig of rigs) {
      const effectors = discoverEndEffectors(rig);
      expect(effectors.length).toBe(16);
      expect(effectors.every((e) => e.depth === 29)).toBe(true);
    }
  });

  it("asks which tree to build from __root__, and builds the one holding a chosen skeleton", () => {
    expect(() => buildSkeletonRig(loaded.root)).toThrow(FabrikError);
    expect(() => buildSkeletonRig(loaded.root)).toThrow(/4 unrelated skeleton groups under "__root__"/);
    const nested = loaded.scene.skeletons[5];
    const rig = buildSkeletonRig(loaded.root, { skeleton: nested });
    expect(rig.jointCount).toBe(210);
    expect(rig.skeletons).toContain(nested);
    expect(buildSkeletonRig(loaded.root, { skeleton: nested.name }).names).toEqual(rig.names);
  });

  it("builds just one skin's 10 joints from its own mesh, in the space of the joint it hangs from", () => {
    const mesh = loaded.scene.meshes.find((m) => m.skeleton === loaded.scene.skeletons[1])!;
    const rig = buildSkeletonRig(mesh);
    expect(rig.jointCount).toBe(10);
    expect(rig.modelRoot?.name).toBe("node9");
  });
});
