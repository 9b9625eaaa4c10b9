import { describe, expect, it } from "vitest";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import {
  FLAT_BODY,
  characterHeight,
  deformingJoints,
  modelSpaceUp,
} from "../../plugin/babylon/characterHeight.js";
import { buildSkeletonRig } from "../../plugin/babylon/skeletonRig.js";
import { OWN_CHARACTERS, characterNamed, loadCharacter, noteIfMissing } from "./characters.js";
import { corpusCharacters } from "./corpus.js";
import { attach } from "./fabrikHarness.js";

const ALL = (n: number) => new Uint8Array(n).fill(1);

describe("characterHeight", () => {
  // A stick figure, Y up: feet at 0, head at 1.7, hands 0.8 out to each side, a pole bone 3 in front.
  const figure = Float64Array.of(0, 1, 0, 0, 0, 0, 0, 1.7, 0, -0.8, 1.4, 0, 0.8, 1.4, 0, 0, 0.5, 3);

  it("is the body's extent along up, whatever the arm span, the scale of `up` or the axis it is", () => {
    const body = Uint8Array.of(1, 1, 1, 1, 1, 0);
    expect(characterHeight(figure, body, [0, 1, 0])).toBeCloseTo(1.7, 12);
    expect(characterHeight(figure, body, [0, 25, 0])).toBeCloseTo(1.7, 12);
    // The same figure lying in a Z-up file.
    const zUp = figure.map((v, i) => (i % 3 === 1 ? -figure[i + 1] : i % 3 === 2 ? figure[i - 1] : v));
    expect(characterHeight(zUp, body, [0, 0, 1])).toBeCloseTo(1.7, 12);
  });

  it("leaves out joints that carry no body (a pole bone far in front does not count)", () => {
    const lying = Float64Array.of(0, 0, 0, 0, 0.1, 0, 0, 0, 4);
    // Counted, the far joint makes the body 4 long and 0.1 tall: flat, so a quarter of its length.
    expect(characterHeight(lying, ALL(3), [0, 1, 0])).toBeCloseTo(FLAT_BODY * 4, 12);
    expect(characterHeight(lying, Uint8Array.of(1, 1, 0), [0, 1, 0])).toBeCloseTo(0.1, 12);
  });

  it("gives a body lying flat a quarter of its longest extent, and never 0", () => {
    // A snake: 2 long in x, 0.05 tall.
    const snake = Float64Array.of(0, 0, 0, 1, 0.05, 0, 2, 0, 0.2);
    expect(characterHeight(snake, ALL(3), [0, 1, 0])).toBeCloseTo(FLAT_BODY * 2, 12);
    expect(characterHeight(Float64Array.of(1, 2, 3, 1, 2, 3), ALL(2), [0, 1, 0])).toBe(1);
    expect(characterHeight(Float64Array.of(0, 0, 0, 0, 1, 0), ALL(2), [0, 0, 0])).toBe(1);
  });
});

describe("deformingJoints and the behavior's height", () => {
  it("mannequin: end sites carry no weight; the tolerance is 1e-3 of its height", async () => {
    const loaded = await loadCharacter(OWN_CHARACTERS.find((c) => c.folder === "mannequin")!);
    const rig = buildSkeletonRig(loaded.root);
    const deforming = deformingJoints(rig);
    const idle = rig.names.filter((_, j) => deforming[j] === 0);
    expect(idle).toContain("HeadTop_End");
    expect(idle).toContain("LeftToe_End");
    expect(idle.every((name) => /_End$|4$/.test(name))).toBe(true);
    const ik = attach(loaded);
    // Soles to the head joint: under the 1.75 m the mesh stands, far under the 2.2 m bounding diagonal.
    expect(ik.height).toBeGreaterThan(1.5);
    expect(ik.height).toBeLessThan(1.7);
    ik.setTarget("leftHand", new Vector3(0.5, 1.2, 0.2));
    expect(ik.solveSettings!.tolerance).toBeCloseTo(1e-3 * ik.height, 15);
    ik.tolerance = 2e-3;
    expect(ik.solveSettings!.tolerance).toBeCloseTo(2e-3 * ik.height, 15);
    loaded.engine.dispose();
  });

  const horse = corpusCharacters().shared.find((c) => c.folder === "QuaterniusHorse");
  if (horse === undefined)
    console.warn("[babylon tests] skipping QuaterniusHorse: ../shared/assets is absent");
  it.skipIf(horse === undefined)(
    "QuaterniusHorse: pole targets carry no weight and do not count toward the height",
    async () => {
      const loaded = await loadCharacter(horse!);
      const rig = buildSkeletonRig(loaded.root);
      const deforming = deformingJoints(rig);
      const poles = rig.names.flatMap((name, j) => (name.startsWith("PoleTarget") ? [j] : []));
      expect(poles.length).toBe(4);
      for (const j of poles) expect(deforming[j]).toBe(0);
      const up = modelSpaceUp(rig);
      const height = characterHeight(rig.restPositions, deforming, up);
      expect(height).toBeLessThan(characterHeight(rig.restPositions, ALL(rig.jointCount), up));
      loaded.engine.dispose();
    },
  );

  const robot = characterNamed("RobotExpressive");
  it.skipIf(noteIfMissing(robot))("RobotExpressive: joints carrying rigid parts count as body", async () => {
    const loaded = await loadCharacter(robot);
    const rig = buildSkeletonRig(loaded.root);
    const deforming = deformingJoints(rig);
    // Head and feet are meshes of their own hanging from the joints, not skinned.
    expect(deforming[rig.indexOf("Head")]).toBe(1);
    expect(deforming[rig.indexOf("Foot.L")]).toBe(1);
    expect(deforming[rig.indexOf("PoleTarget.L")]).toBe(0);
    loaded.engine.dispose();
  });
});
