import { Color3 } from "@babylonjs/core/Maths/math.color.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder.js";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { CHARACTER_URLS } from "../assets.js";
import { addCharacter, loadContainer } from "../stage/character.js";
import { createFloor } from "../stage/floor.js";
import { glossy, matte } from "../stage/materials.js";
import { createStage } from "../stage/stage.js";
import { ReachScript, type Errand } from "../reaching/reachScript.js";
import type { SceneDefinition } from "./types.js";

const TABLE_TOP = 0.9;
const TABLE_Z = 0.36;

/** A table in front of the mannequin and two things on it, each carried back and forth by one hand. */
export const reachScene: SceneDefinition = {
  id: "reach",
  title: "Reach",
  async create({ engine, canvas }) {
    // From the side and a little in front: the lean of the body into a far reach reads best there.
    const stage = createStage(engine, canvas, {
      target: new Vector3(0, 1.0, 0.2),
      radius: 3.1,
      alpha: Math.PI / 2 - 1.05,
      beta: 1.25,
    });
    const scene = stage.scene;
    createFloor(scene);
    const table = CreateBox("table", { width: 1.3, depth: 0.42, height: 0.06 }, scene);
    table.position.set(0, TABLE_TOP - 0.03, TABLE_Z + 0.1);
    table.material = matte(scene, "wood", new Color3(0.42, 0.26, 0.15), 0.7);
    const legs = [-0.6, 0.6].map((x, i) => {
      const leg = CreateBox(`table-leg${i}`, { width: 0.06, depth: 0.36, height: TABLE_TOP - 0.06 }, scene);
      leg.position.set(x, (TABLE_TOP - 0.06) / 2, TABLE_Z + 0.1);
      leg.material = table.material;
      return leg;
    });
    const cup = CreateCylinder("cup", { height: 0.12, diameterTop: 0.09, diameterBottom: 0.07 }, scene);
    cup.material = glossy(scene, "cup", new Color3(0.15, 0.55, 0.85));
    const ball = CreateSphere("ball", { diameter: 0.1, segments: 16 }, scene);
    ball.material = glossy(scene, "ball", new Color3(0.95, 0.4, 0.2));
    const things: [Mesh, number][] = [
      [cup, 0.06],
      [ball, 0.05],
    ];
    for (const [mesh, half] of things) mesh.position.y = TABLE_TOP + half;
    cup.position.x = -0.42;
    cup.position.z = TABLE_Z;
    ball.position.x = 0.42;
    ball.position.z = TABLE_Z;
    for (const mesh of [table, ...legs, cup, ball]) {
      mesh.receiveShadows = true;
      mesh.isPickable = false;
    }
    stage.castShadows([table, ...legs, cup, ball]);

    const container = await loadContainer(scene, CHARACTER_URLS.mannequin);
    const character = addCharacter(stage, container, { name: "mannequin", play: "Idle" });
    // The two spots each thing moves between: out to the side and close in front of the body.
    const errands: Errand[] = [
      {
        hand: "leftHand",
        thing: cup,
        rest: 0.06,
        from: new Vector3(-0.42, 0, TABLE_Z),
        to: new Vector3(-0.12, 0, TABLE_Z - 0.04),
      },
      {
        hand: "rightHand",
        thing: ball,
        rest: 0.05,
        from: new Vector3(0.42, 0, TABLE_Z),
        to: new Vector3(0.12, 0, TABLE_Z - 0.04),
      },
    ];
    const script = new ReachScript(character, errands, TABLE_TOP);
    // insertFirst: targets and weights must be set before the behavior (added earlier) solves this frame.
    scene.onBeforeRenderObservable.add(() => script.advance(scene.deltaTime / 1000), undefined, true);
    return {
      stage,
      character,
      characters: [character],
      handles: null,
      hint: "The Reach helper eases each hand's target weight in, the hand carries a thing to its other spot, then the weight eases out.",
      metrics: () => ({ weight: script.weight, handError: script.handError, moved: script.moved }),
      dispose() {
        script.dispose();
        scene.dispose();
      },
    };
  },
};
