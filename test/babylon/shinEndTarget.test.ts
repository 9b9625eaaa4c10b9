// setTarget on a foot that sits at its shin's end (rigs made for Blender's IK keep the feet under the root):
// the leg bends so the shin ends on the target, the foot bone follows, and the body stays where it was.
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { FabrikError } from "../../plugin/solver/errors.js";
import { OWN_CHARACTERS, characterNamed, loadCharacter, noteIfMissing, type Loaded } from "./characters.js";
import { attach, babylonWorldPositions, captureLocals } from "./fabrikHarness.js";

interface Case {
  readonly folder: string;
  /** Feet as a user names them (role or bone name), with the shin each sits at the end of. */
  readonly feet: readonly (readonly [string, string])[];
  /** The body joint that must not move: the hips role, or the bone the legs hang from. */
  readonly body: string;
  readonly idle: string;
}

const CASES: readonly Case[] = [
  {
    folder: "QuaterniusTrex",
    feet: [
      ["BackFoot.L", "BackLowLeg.L"],
      ["BackFoot.R", "BackLowLeg.R"],
    ],
    body: "Body",
    idle: "Armature|TRex_Idle",
  },
  {
    folder: "RobotExpressive",
    feet: [
      ["leftFoot", "LowerLeg.L"],
      ["Foot.R", "LowerLeg.R"],
    ],
    body: "hips",
    idle: "Idle",
  },
  {
    folder: "QuaterniusSpider",
    feet: [
      ["leftFoot", "FrontLeg3.L"],
      ["BackFoot.R", "BackLeg3.R"],
    ],
    body: "Body",
    idle: "SpiderArmature|Spider_Idle",
  },
];

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[feet at their shins' ends]\n  ${notes.join("\n  ")}`);
});

/**
 * Targets relative to the foot's animated place, in fractions of the character's height (world x, y, z),
 * plus a fraction of the way to the hip: each shortens the leg, so it is in reach by bending the knee.
 */
const MOVES: readonly (readonly [number, number, number, number])[] = [
  [0, 0.06, 0, 0],
  [0, 0.12, 0.05, 0],
  [0.03, 0.08, -0.04, 0],
  [0, 0, 0, 0.25],
  [0.02, 0, 0, 0.15],
];

for (const c of CASES) {
  const character = characterNamed(c.folder);
  describe.skipIf(noteIfMissing(character))(`feet at their shins' ends on ${c.folder}`, () => {
    let loaded: Loaded;
    beforeEach(async () => {
      loaded = await loadCharacter(character);
      for (const group of loaded.scene.animationGroups) group.stop();
    });
    afterEach(() => loaded?.engine.dispose());

    /** Holds the idle clip at a fixed frame (or the rest pose when `idle` is false). */
    function pose(idle: boolean): void {
      if (!idle) return;
      const group = loaded.scene.animationGroups.find((g: AnimationGroup) => g.name === c.idle)!;
      group.start(true);
      group.goToFrame((group.from + group.to) / 3);
      group.pause();
    }

    for (const idle of [false, true]) {
      it(`moves each foot onto its target without moving the body (${idle ? "idle clip" : "rest pose"})`, () => {
        pose(idle);
        const ik = attach(loaded);
        const rig = ik.rig!;
        const nodes = rig.nodes;
        const scene = loaded.scene;
        const body = ik.jointIndex(c.body);
        const root = rig.parents.indexOf(-1);
        expect(body, c.body).toBeGreaterThanOrEqual(0);
        scene.render();
        const animated = babylonWorldPositions(scene, nodes);
        const ys = animated.map((p) => p.y);
        const height = Math.max(...ys) - Math.min(...ys);
        const locals = captureLocals(nodes);
        for (const [foot, shin] of c.feet) {
          const j = ik.jointIndex(foot);
          expect(ik.shinOf(foot), `${foot}'s shin`).toBe(rig.names.indexOf(shin));
          const hip = animated[rig.parents[rig.names.indexOf(shin)]];
          for (const [x, y, z, toHip] of MOVES) {
            const goal = Vector3.Lerp(animated[j], hip, toHip).add(new Vector3(x, y, z).scale(height));
            ik.setTarget(foot, goal);
            expect(ik.hasTarget(foot)).toBe(true);
            expect(Array.from(ik.plan!.effectorJoints)).toEqual([rig.names.indexOf(shin)]);
            let solved: Vector3[] = [];
            // Without matchOrientation the foot keeps its animated rotation, bit for bit, frame after frame.
            let turned = 0;
            const observer = ik.onSolvedObservable.add(() => {
              solved = babylonWorldPositions(scene, nodes);
              const q = nodes[j]!.rotationQuaternion!.asArray();
              for (let k = 0; k < 4; k++) turned = Math.max(turned, Math.abs(q[k] - locals[10 * j + k]));
            });
            for (let frame = 0; frame < 3; frame++) scene.render();
            observer.remove();
            expect(turned, `${foot}'s rotation changed by`).toBe(0);
            const miss = Vector3.Distance(solved[j], goal) / height;
            const moved = Math.max(
              Vector3.Distance(solved[root], animated[root]),
              Vector3.Distance(solved[body], animated[body]),
            );
            notes.push(
              `${c.folder} ${foot} ${idle ? "idle" : "rest"} (${x}, ${y}, ${z}, ${toHip}): foot ${(100 * miss).toFixed(3)} % ` +
                `of height from its target, body moved ${((100 * moved) / height).toFixed(3)} %`,
            );
            expect(miss, `${foot} to its target, in heights`).toBeLessThan(0.002);
            expect(moved / height, "root and body, in heights").toBeLessThan(0.05);
            // After the frame the animated pose is back, the foot bone included.
            expect(captureLocals(nodes)).toEqual(locals);
          }
          ik.removeTarget(foot);
        }
      });
    }

    it("turns the foot to a node target's rotation, keeps the shin for its foot, and takes no pole", () => {
      const ik = attach(loaded);
      const [foot, shin] = c.feet[0];
      const scene = loaded.scene;
      scene.render();
      const j = ik.jointIndex(foot);
      const node = new TransformNode("goal", scene);
      const start = babylonWorldPositions(scene, ik.rig!.nodes)[j];
      node.position.copyFrom(start.add(new Vector3(0, 0.02, 0)));
      node.rotationQuaternion = Quaternion.RotationAxis(new Vector3(1, 0, 0), 0.4);
      ik.setTarget(foot, node, { matchOrientation: true });
      let angle = NaN;
      const observer = ik.onSolvedObservable.add(() => {
        scene.incrementRenderId();
        const bone = ik.rig!.nodes[j]!;
        bone.computeWorldMatrix(true);
        // As the behavior promises under the mirrored glTF root: the absolute rotations are equal.
        const dot = Quaternion.Dot(bone.absoluteRotationQuaternion, node.rotationQuaternion!);
        angle = 2 * Math.acos(Math.min(1, Math.abs(dot)));
      });
      scene.render();
      observer.remove();
      expect(angle, "foot to target rotation (rad)").toBeLessThan(1e-3);

      expect(() => ik.setTarget(shin, new Vector3())).toThrow(FabrikError);
      expect(() => ik.setTarget(shin, new Vector3())).toThrow(/is the shin the target of .* bends/);
      expect(() => ik.setTarget(foot, new Vector3(), { pole: new Vector3() })).toThrow(/a pole has no chain/);
      // The refusals changed nothing.
      expect(ik.targets.map((t) => t.joint)).toEqual([j]);
      // An explicit chain length targets the foot bone itself.
      ik.setTarget(foot, new Vector3(), { chainLength: 1 });
      expect(Array.from(ik.plan!.effectorJoints)).toEqual([j]);
    });
  });
}

// A joint is taken for a Blender-IK foot only where it sits, at rest, on a child-less bone's axis (Blender's
// +Y). Before, any joint above a leg lying roughly below the end region of such a bone was: on the
// mannequin, a target on a shoulder moved `HeadTop_End`; on the figure, one on an upper leg moved a hand.
const CONTROLS: Record<string, readonly string[]> = {
  mannequin: [],
  figure: [],
  creature: [],
  tentacle: [],
  RobotExpressive: ["Foot.L", "Foot.R"],
  QuaterniusSnake: [],
  QuaterniusWorkerWoman: [],
  QuaterniusTrex: ["BackFoot.L", "BackFoot.R"],
  QuaterniusHorse: ["IKBackLeg.L", "IKFrontLeg.L", "IKBackLeg.R", "IKFrontLeg.R"],
};
for (const [folder, controls] of Object.entries(CONTROLS)) {
  const own = OWN_CHARACTERS.find((c) => c.folder === folder);
  const character = own ?? characterNamed(folder);
  it.skipIf(noteIfMissing(character))(
    `${folder}: only ${controls.length === 0 ? "no joint" : controls.join(", ")} taken for a foot at a shin's end`,
    async () => {
      const loaded = await loadCharacter(character);
      const ik = attach(loaded);
      const found = ik.rig!.names.filter((_, j) => ik.shinOf(j) >= 0);
      expect(found.sort()).toEqual([...controls].sort());
      loaded.engine.dispose();
    },
  );
}
