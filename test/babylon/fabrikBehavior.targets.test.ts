import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { HUMANOID_ROLES, jointDepths } from "../../plugin/rig/index.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import {
  CHARACTERS,
  OWN_CHARACTERS,
  characterNamed,
  loadCharacter,
  noteIfMissing,
  type Character,
  type Loaded,
} from "./characters.js";
import {
  ReachableTargets,
  attach,
  babylonWorldPositions,
  captureLocals,
  limitViolation,
  playFirstAnimation,
  worldScale,
} from "./fabrikHarness.js";

const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;
const robot = characterNamed("RobotExpressive");

async function loadPlaying(c: Character): Promise<Loaded> {
  const loaded = await loadCharacter(c);
  playFirstAnimation(loaded.scene);
  for (let i = 0; i < 3; i++) loaded.scene.render();
  return loaded;
}

/** Angle (radians) between two rotations, whatever their sign. */
function angleBetween(a: Quaternion, b: Quaternion): number {
  const d = Quaternion.Inverse(a.normalizeToNew()).multiply(b.normalizeToNew());
  return 2 * Math.atan2(Math.hypot(d.x, d.y, d.z), Math.abs(d.w));
}

const HUMANOIDS = [
  ...CHARACTERS.filter((c) => ["RiggedFigure", "CesiumMan", "RobotExpressive"].includes(c.folder)),
  mannequin,
];

describe.each(HUMANOIDS.filter((c) => !noteIfMissing(c)))("roles on $folder", (c) => {
  let loaded: Loaded;
  beforeEach(async () => (loaded = await loadPlaying(c)));
  afterEach(() => loaded?.engine.dispose());

  it("resolves role names, and gives hands, feet and head their limb's chain, not the spine", () => {
    const ik = attach(loaded);
    const rig = ik.rig!;
    const depth = jointDepths(rig.parents);
    for (const role of HUMANOID_ROLES) {
      const j = ik.roles[role];
      if (j !== undefined) expect(ik.jointIndex(role)).toBe(j);
    }
    for (const role of ["hips", "head", "leftHand", "rightHand", "leftFoot", "rightFoot"] as const) {
      expect(ik.roles[role], role).toBeTypeOf("number");
    }
    const chain = (joint: string) => {
      ik.clearTargets();
      ik.setTarget(joint, new Vector3(0, 1, 0));
      return { length: ik.plan!.chainLengths[0], turned: Array.from(ik.plan!.rotatingJoints) };
    };
    for (const side of ["left", "right"] as const) {
      const hand = chain(`${side}Hand`);
      expect(hand.length).toBe(depth[ik.roles[`${side}Hand`]!] - depth[ik.roles[`${side}UpperArm`]!]);
      expect(hand.turned).toEqual([ik.roles[`${side}UpperArm`], ik.roles[`${side}LowerArm`]]);
      // The bone's own name gets the same chain as its role.
      expect(chain(rig.names[ik.roles[`${side}Hand`]!]).length).toBe(hand.length);
    }
    const head = chain("head");
    const chest = ik.roles.upperChest ?? ik.roles.chest ?? ik.roles.spine!;
    expect(head.length).toBe(depth[ik.roles.head!] - depth[chest]);
    expect(head.turned[0]).toBe(chest);
    if (c.folder === "RobotExpressive") {
      // Blender-IK rig: the feet hang off the root, each where its shin ends. The shin is pulled, the thigh
      // turns (see shinEndTarget.test.ts); an explicit chain length targets the foot bone itself.
      const foot = chain("leftFoot");
      expect(ik.plan!.effectorJoints[0]).toBe(ik.roles.leftLowerLeg);
      expect(foot.length).toBe(1);
      expect(foot.turned).toEqual([ik.roles.leftUpperLeg]);
      ik.clearTargets();
      ik.setTarget("leftFoot", new Vector3(0, 0, 0), { chainLength: 1 });
      expect(ik.plan!.chainLengths[0]).toBe(1);
    } else {
      const foot = chain("leftFoot");
      expect(foot.length).toBe(depth[ik.roles.leftFoot!] - depth[ik.roles.leftUpperLeg!]);
      expect(foot.turned).toEqual([ik.roles.leftUpperLeg, ik.roles.leftLowerLeg]);
    }
  });
});

describe("a partial humanoid (the creature: knees and feet named, no thighs)", () => {
  it("treats its role-named joints like any bone: chain to the root", async () => {
    const loaded = await loadCharacter(OWN_CHARACTERS.find((c) => c.folder === "creature")!);
    const ik = attach(loaded);
    expect(ik.roles.leftToes).toBe(ik.jointIndex("Leg.L1.Foot"));
    ik.setTarget("Leg.L1.Foot", new Vector3(0.3, 0, 0.3));
    expect(ik.plan!.chainLengths[0]).toBe(jointDepths(ik.rig!.parents)[ik.jointIndex("Leg.L1.Foot")]);
    loaded.engine.dispose();
  });
});

describe.skipIf(!mannequin.present)("targets on the mannequin", () => {
  let loaded: Loaded;
  beforeEach(async () => (loaded = await loadPlaying(mannequin)));
  afterEach(() => loaded?.engine.dispose());

  it("gives a plain bone a chain to the root unless told otherwise", () => {
    const ik = attach(loaded);
    const tip = ik.jointIndex("LeftHandIndex4");
    ik.setTarget("LeftHandIndex4", new Vector3(0.5, 1, 0));
    expect(ik.plan!.chainLengths[0]).toBe(jointDepths(ik.rig!.parents)[tip]);
    ik.setTarget("LeftHandIndex4", new Vector3(0.5, 1, 0), { chainLength: 3 });
    expect(ik.plan!.chainLengths[0]).toBe(3);
    expect(ik.hasTarget("LeftHandIndex4")).toBe(true);
  });

  it("removeTarget hands a chain back to its animation; clearTargets stops solving", () => {
    const ik = attach(loaded);
    const nodes = ik.rig!.nodes;
    const targets = new ReachableTargets(loaded.scene, ik, [{ joint: "leftHand" }, { joint: "rightHand" }]);
    loaded.scene.render();
    const arm = [ik.jointIndex("leftUpperArm"), ik.jointIndex("leftLowerArm")];
    expect(Array.from(ik.writtenJoints)).toEqual(expect.arrayContaining(arm));
    expect(ik.removeTarget("leftHand")).toBe(true);
    expect(ik.removeTarget("leftHand")).toBe(false);
    expect(Array.from(ik.writtenJoints)).not.toEqual(expect.arrayContaining([arm[0]]));
    let animated: Float64Array = new Float64Array(0);
    let written: Float64Array = new Float64Array(0);
    loaded.scene.onBeforeRenderObservable.add(() => (animated = captureLocals(nodes)), undefined, true);
    const solved = ik.onSolvedObservable.add(() => (written = captureLocals(nodes)));
    loaded.scene.render();
    for (const j of arm)
      expect(written.subarray(10 * j, 10 * j + 10)).toEqual(animated.subarray(10 * j, 10 * j + 10));
    ik.clearTargets();
    expect(ik.plan).toBeNull();
    written = new Float64Array(0);
    loaded.scene.render();
    expect(written.length).toBe(0);
    solved.remove();
    targets.dispose();
  });

  it("skips a function or node target that turns NaN for the frame, writing no NaN", () => {
    const ik = attach(loaded);
    const nodes = ik.rig!.nodes;
    const reachable = new ReachableTargets(loaded.scene, ik, [{ joint: "rightHand" }]);
    let bad = false;
    const point = new Vector3(0.3, 1.1, 0.3);
    ik.setTarget("leftHand", () => (bad ? new Vector3(NaN, 0, 0) : point));
    const node = new TransformNode("footTarget", loaded.scene);
    node.position.set(0.1, 0.2, 0.1);
    ik.setTarget("leftFoot", node, { pole: () => (bad ? new Vector3(0, NaN, 0) : new Vector3(0, 0.5, 1)) });
    let animated: Float64Array = new Float64Array(0);
    let written: Float64Array = new Float64Array(0);
    let report = { residual: NaN };
    loaded.scene.onBeforeRenderObservable.add(() => (animated = captureLocals(nodes)), undefined, true);
    ik.onSolvedObservable.add(({ report: r }) => {
      written = captureLocals(nodes);
      report = { residual: r.residuals[0] };
    });
    loaded.scene.render();
    expect(written.length).toBeGreaterThan(0);
    bad = true;
    node.position.x = NaN;
    loaded.scene.render();
    expect(written.every(Number.isFinite)).toBe(true);
    for (const role of ["leftUpperArm", "leftLowerArm", "leftUpperLeg", "leftLowerLeg"]) {
      const j = ik.jointIndex(role);
      expect(written.subarray(10 * j, 10 * j + 10), role).toEqual(animated.subarray(10 * j, 10 * j + 10));
    }
    // The other hand still reaches.
    expect(report.residual).toBeLessThanOrEqual(ik.tolerance * ik.height);
    reachable.dispose();
  });

  it("bends the knee toward the pole", () => {
    const ik = attach(loaded, { limits: "none" });
    const rig = ik.rig!;
    const [hip, knee, foot] = ["leftUpperLeg", "leftLowerLeg", "leftFoot"].map((r) => ik.jointIndex(r));
    const reader = new PoseReader(rig);
    reader.read();
    const at = (j: number) => reader.getWorldPositionToRef(j, new Vector3());
    const legLength = Vector3.Distance(at(hip), at(knee)) + Vector3.Distance(at(knee), at(foot));
    // Raise the foot by a third of the leg: the knee has to bend one way or the other.
    const target = at(foot).add(new Vector3(0, legLength / 3, 0));
    for (const side of [1, -1]) {
      const pole = at(knee).add(new Vector3(0, 0, side * legLength));
      ik.setTarget("leftFoot", target, { pole });
      let kneeSide = 0;
      const o = ik.onSolvedObservable.add(({ report }) => {
        expect(report.converged).toBe(true);
        reader.read();
        const h = at(hip),
          f = at(foot),
          k = at(knee);
        const axis = f.subtract(h).normalize();
        const off = k.subtract(h);
        const perpendicular = off.subtract(axis.scale(Vector3.Dot(off, axis)));
        kneeSide = Math.sign(Vector3.Dot(perpendicular, pole.subtract(h)));
      });
      loaded.scene.animationGroups[0].pause();
      loaded.scene.render();
      o.remove();
      expect(kneeSide).toBe(1);
    }
  });

  it("writes a chain carried by another chain where the solver put it (head turns the chest, arms follow)", () => {
    const ik = attach(loaded, { limits: "none" });
    const reader = new PoseReader(ik.rig!);
    const targets = new ReachableTargets(loaded.scene, ik, [
      { joint: "head" },
      { joint: "leftHand" },
      { joint: "rightHand" },
    ]);
    // The arms hang below the chest the head's chain turns: one component with it.
    const plan = ik.plan!;
    const componentOf = (e: number) => {
      let c = 0;
      while (plan.componentEffectorStart[c + 1] <= Array.from(plan.componentEffectors).indexOf(e)) c++;
      return c;
    };
    expect(new Set([0, 1, 2].map(componentOf)).size).toBe(1);
    const gaps: number[] = [];
    ik.onSolvedObservable.add(({ report }) => {
      reader.read();
      targets.joints.forEach((j, e) => {
        const world = reader.getWorldPositionToRef(j, new Vector3());
        // Whatever the solver reached, the written pose shows exactly that.
        gaps.push(
          Math.abs(Vector3.Distance(world, targets.points[e]) - report.residuals[e] * worldScale(reader)),
        );
      });
    });
    for (let i = 0; i < 5; i++) loaded.scene.render();
    expect(gaps.length).toBe(15);
    for (const gap of gaps) expect(gap).toBeLessThan(1e-9);
    targets.dispose();
  });

  it("limits can be edited at runtime: a fixed elbow keeps its animated rotation", () => {
    const ik = attach(loaded);
    const nodes = ik.rig!.nodes;
    const elbow = ik.jointIndex("leftLowerArm");
    const original = ik.getLimit("leftLowerArm");
    const targets = new ReachableTargets(loaded.scene, ik, [{ joint: "leftHand" }], 0.2);
    ik.setLimit("leftLowerArm", { fixed: true });
    expect(ik.getLimit("LeftForeArm")).toEqual({ fixed: true });
    let animated: Float64Array = new Float64Array(0);
    let written: Float64Array = new Float64Array(0);
    loaded.scene.onBeforeRenderObservable.add(() => (animated = captureLocals(nodes)), undefined, true);
    ik.onSolvedObservable.add(() => (written = captureLocals(nodes)));
    loaded.scene.render();
    const q = (a: Float64Array) => Quaternion.FromArray(a, 10 * elbow);
    expect(angleBetween(q(written), q(animated))).toBeLessThan(1e-9);
    ik.setLimit("leftLowerArm", original);
    expect(ik.getLimit("leftLowerArm")).toEqual(original);
    loaded.scene.render();
    expect(angleBetween(q(written), q(animated))).toBeGreaterThan(1e-6);
    // getLimit hands out a copy.
    ik.getLimit("leftLowerArm")!.hinge!.max = 0;
    expect(ik.getLimit("leftLowerArm")).toEqual(original);
    targets.dispose();
  });

  it("writes a quaternion on a node rotated by Euler angles, and gives its Euler angles back", () => {
    for (const group of loaded.scene.animationGroups) group.stop();
    const ik = attach(loaded, { limits: "none" });
    const elbow = ik.rig!.nodes[ik.jointIndex("leftLowerArm")]!;
    const euler = elbow.rotationQuaternion!.toEulerAngles();
    elbow.rotationQuaternion = null;
    elbow.rotation.copyFrom(euler);
    const targets = new ReachableTargets(loaded.scene, ik, [{ joint: "leftHand" }], 0.2);
    let during: Quaternion | null = null;
    ik.onSolvedObservable.add(() => (during = elbow.rotationQuaternion?.clone() ?? null));
    loaded.scene.render();
    expect(during).not.toBeNull();
    expect(angleBetween(during!, Quaternion.FromEulerVector(euler))).toBeGreaterThan(1e-6);
    expect(elbow.rotationQuaternion).toBeNull();
    expect([elbow.rotation.x, elbow.rotation.y, elbow.rotation.z]).toEqual([euler.x, euler.y, euler.z]);
    targets.dispose();
  });
});

/** Checks after each frame's solve that the hand's world rotation is the target's (Babylon's convention). */
function expectMatchedOrientation(
  loaded: Loaded,
  ik: FabrikBehavior,
  joint: string,
  rotation: () => Quaternion,
) {
  const node = ik.rig!.nodes[ik.jointIndex(joint)]!;
  const errors: number[] = [];
  const o = ik.onSolvedObservable.add(() => {
    loaded.scene.incrementRenderId();
    node.computeWorldMatrix(true);
    errors.push(angleBetween(node.absoluteRotationQuaternion, rotation()));
  });
  for (let i = 0; i < 3; i++) loaded.scene.render();
  o.remove();
  expect(errors.length).toBe(3);
  for (const e of errors) expect(e).toBeLessThan(1e-5);
}

describe.each([mannequin, robot].filter((c) => !noteIfMissing(c)))("matchOrientation on $folder", (c) => {
  let loaded: Loaded;
  beforeEach(async () => (loaded = await loadPlaying(c)));
  afterEach(() => loaded?.engine.dispose());

  it("gives the hand the target node's world rotation, mirrored root and all", () => {
    const ik = attach(loaded, { limits: "none" });
    const targets = new ReachableTargets(loaded.scene, ik, [{ joint: "leftHand" }]);
    const node = new TransformNode("grip", loaded.scene);
    node.rotationQuaternion = Quaternion.RotationYawPitchRoll(0.4, -0.3, 1.1);
    loaded.scene.onBeforeRenderObservable.add(
      () => node.position.copyFrom(targets.points[0]),
      undefined,
      true,
    );
    ik.setTarget("leftHand", node, { matchOrientation: true });
    expectMatchedOrientation(loaded, ik, "leftHand", () => node.rotationQuaternion!);
    // A joint's own absoluteRotationQuaternion, copied to the target, is reproduced.
    const head = ik.rig!.nodes[ik.jointIndex("head")]!;
    loaded.scene.incrementRenderId();
    node.rotationQuaternion = head.computeWorldMatrix(true) && head.absoluteRotationQuaternion.clone();
    expectMatchedOrientation(loaded, ik, "leftHand", () => node.rotationQuaternion!);
    targets.dispose();
  });

  it("follows a node target through its parent, moved in place after resting, frame after frame", () => {
    // The pose holds still, so two fixed points stay reachable: the animated hand, and a point 10 % of the
    // chain away from it.
    for (const group of loaded.scene.animationGroups) group.pause();
    const ik = attach(loaded, { limits: "none" });
    const hand = ik.jointIndex("leftHand");
    const reader = new PoseReader(ik.rig!);
    const atHand = reader.getWorldPositionToRef(hand, new Vector3());
    const targets = new ReachableTargets(loaded.scene, ik, [{ joint: "leftHand" }]);
    const aside = targets.points[0].clone();
    targets.dispose();
    // A mesh (a door handle, say): every render computes its world matrix and its parent's, clearing their flags.
    const holder = new TransformNode("holder", loaded.scene);
    const grip = new Mesh("grip", loaded.scene);
    grip.parent = holder;
    grip.position.set(0.01, 0, 0);
    holder.position.copyFrom(aside).subtractInPlace(grip.position);
    ik.setTarget("leftHand", grip);
    const misses: string[] = [];
    let frame = 0;
    loaded.scene.onAfterRenderObservable.add(
      () => {
        reader.read();
        const reached = babylonWorldPositions(loaded.scene, ik.rig!.nodes)[hand];
        // Not asked of Babylon, which would clear the flags the behavior reads (holder is unrotated, unscaled).
        const wanted = holder.position.add(grip.position);
        const tolerance = ik.tolerance * ik.height * worldScale(reader) * 1.001;
        const r = Vector3.Distance(reached, wanted);
        if (r > tolerance) misses.push(`frame ${frame}: ${r} > ${tolerance}`);
      },
      undefined,
      true,
    );
    // Each move comes after a render (which cleared Babylon's flags) and after 20 frames at rest (long enough
    // for the behavior to keep the target's matrix): in place, then in place and computed by Babylon.
    for (; frame < 60; frame++) {
      loaded.scene.render();
      if (frame === 20) holder.position.copyFrom(atHand).subtractInPlace(grip.position);
      if (frame === 40) {
        holder.position.copyFrom(aside).subtractInPlace(grip.position);
        holder.computeWorldMatrix(true);
      }
    }
    expect(misses).toEqual([]);
  });

  it("takes a rotation given as an option, and keeps it within the wrist's limits", () => {
    const ik = attach(loaded, { limits: "none" });
    const targets = new ReachableTargets(loaded.scene, ik, [{ joint: "leftHand" }]);
    const rotation = Quaternion.RotationAxis(new Vector3(1, 2, 3).normalize(), 2);
    ik.setTarget("leftHand", targets.points[0], { rotation });
    expectMatchedOrientation(loaded, ik, "leftHand", () => rotation);
    ik.setLimit("leftHand", {
      swing: { up: 0.2, right: 0.2, down: 0.2, left: 0.2 },
      twist: { min: -0.1, max: 0.1 },
    });
    const hand = ik.jointIndex("leftHand");
    const violations: number[] = [];
    ik.onSolvedObservable.add(() => {
      const q = ik.rig!.nodes[hand]!.rotationQuaternion!;
      violations.push(limitViolation(ik.limits!, hand, [q.x, q.y, q.z, q.w]));
    });
    loaded.scene.render();
    expect(violations.length).toBe(1);
    expect(violations[0]).toBeLessThan(1e-6);
    targets.dispose();
  });
});

describe.skipIf(noteIfMissing(robot))(
  "RobotExpressive (armature ×100, rotated, two skins, mirrored __root__)",
  () => {
    let loaded: Loaded;
    beforeEach(async () => (loaded = await loadPlaying(robot)));
    afterEach(() => loaded?.engine.dispose());

    it("is one rig over both skins, measured in its own model space", () => {
      const ik = attach(loaded);
      expect(ik.rig!.skeletons.length).toBe(2);
      expect(ik.rig!.modelRoot!.name).toBe("RobotArmature");
      // The ×100 armature scale sits above the model root: the rig is small in its own space.
      expect(ik.height).toBeLessThan(0.1);
    });

    it("still reaches when __root__ is moved, turned and scaled at runtime, also in place", () => {
      const ik = attach(loaded, { limits: "none" });
      const targets = new ReachableTargets(loaded.scene, ik, [{ joint: "leftHand" }, { joint: "head" }]);
      const reader = new PoseReader(ik.rig!);
      const root = loaded.root;
      const misses: string[] = [];
      loaded.scene.onAfterRenderObservable.add(
        () => {
          reader.read();
          const world = babylonWorldPositions(loaded.scene, ik.rig!.nodes);
          const tolerance = ik.tolerance * ik.height * worldScale(reader) * 1.001;
          targets.joints.forEach((j, e) => {
            const r = Vector3.Distance(world[j], targets.points[e]);
            if (r > tolerance) misses.push(`${ik.rig!.names[j]}: ${r} > ${tolerance}`);
          });
        },
        undefined,
        true,
      );
      loaded.scene.render();
      root.position.set(3, -1, 2);
      root.rotationQuaternion = root.rotationQuaternion!.multiply(
        Quaternion.RotationAxis(new Vector3(0.3, 1, 0.2).normalize(), 0.8),
      );
      root.scaling.set(2, 2, -2);
      loaded.scene.render();
      for (let i = 0; i < 3; i++) {
        root.position.x += 0.5;
        root.rotationQuaternion!.multiplyInPlace(Quaternion.RotationAxis(Vector3.Up(), 0.3));
        root.scaling.scaleInPlace(1.3);
        loaded.scene.render();
      }
      expect(misses).toEqual([]);
      targets.dispose();
    });
  },
);

describe("a skeleton without linked TransformNodes", () => {
  it("writes the Bones' local rotations and puts them back after the frame", async () => {
    const { NullEngine } = await import("@babylonjs/core/Engines/nullEngine.js");
    const { Scene } = await import("@babylonjs/core/scene.js");
    const { FreeCamera } = await import("@babylonjs/core/Cameras/freeCamera.js");
    const engine = new NullEngine();
    const scene = new Scene(engine);
    new FreeCamera("camera", new Vector3(0, 1, -5), scene);
    const mesh = new Mesh("body", scene);
    const skeleton = new Skeleton("bones", "bones", scene);
    let parent: Bone | null = null;
    for (let i = 0; i < 4; i++) {
      parent = new Bone(`b${i}`, skeleton, parent, Matrix.Translation(0, i === 0 ? 0 : 1, 0));
    }
    mesh.skeleton = skeleton;
    mesh.position.set(1, 0, 0);
    const ik = new FabrikBehavior();
    mesh.addBehavior(ik, true);
    expect(ik.rig!.nodes.every((n) => n === null)).toBe(true);
    const target = new Vector3(2.2, 2.2, 0.3);
    ik.setTarget("b3", target);
    const before = skeleton.bones.map((b) => b.rotationQuaternion.clone());
    let reached = Infinity;
    ik.onSolvedObservable.add(() => {
      skeleton.computeAbsoluteMatrices(true);
      reached = Vector3.Distance(skeleton.bones[3].getAbsolutePosition(mesh), target);
    });
    scene.render();
    expect(reached).toBeLessThan(ik.tolerance * ik.height * 1.001);
    skeleton.bones.forEach((b, i) =>
      expect(angleBetween(b.rotationQuaternion, before[i])).toBeLessThan(1e-7),
    );
    engine.dispose();
  });
});
