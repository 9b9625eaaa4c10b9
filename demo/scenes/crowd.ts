import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { LookAt } from "../../plugin/helpers/index.js";
import { CHARACTER_URLS } from "../assets.js";
import { addCharacter, loadContainer, type Character } from "../stage/character.js";
import { createFloor } from "../stage/floor.js";
import { createStage } from "../stage/stage.js";
import type { SceneDefinition } from "./types.js";

const COUNT = 16;
const RING = 3.2;

/**
 * A ring of mannequins round the camera, each turning its head to it (LookAt). With `skipWhenHidden` on,
 * the ones behind the camera skip their IK: the status line counts the characters solved each frame.
 */
export const crowdScene: SceneDefinition = {
  id: "crowd",
  title: "Crowd",
  async create({ engine, canvas }) {
    // Inside the ring, looking across it: about a third of the ring is in view.
    const stage = createStage(engine, canvas, {
      target: new Vector3(0, 1.3, 0),
      radius: 0.6,
      alpha: Math.PI / 2,
      beta: 1.45,
      fog: 0.04,
    });
    const scene = stage.scene;
    createFloor(scene);
    const container = await loadContainer(scene, CHARACTER_URLS.mannequin);
    const looks: LookAt[] = [];
    const crowd: Character[] = [];
    let solving = 0;
    for (let i = 0; i < COUNT; i++) {
      const angle = (2 * Math.PI * i) / COUNT;
      // Culled by Babylon when out of view (standing in place, its limbs stay within the bind pose's bounds),
      // so skipWhenHidden can tell.
      const character = addCharacter(stage, container, { name: `m${i}`, clone: true, cullable: true });
      character.holder.position.set(RING * Math.sin(angle), 0, RING * Math.cos(angle));
      character.holder.rotation.y = angle + Math.PI; // facing the middle
      character.play("Idle");
      character.animations.find((g) => g.isPlaying)?.goToFrame(7 * i);
      character.ik.skipWhenHidden = true;
      character.ik.onSolvedObservable.add(() => solving++);
      const look = new LookAt(character.ik);
      look.target = () => stage.camera.position;
      looks.push(look);
      crowd.push(character);
    }
    // The count of the frame just drawn, taken as the next one starts.
    let solved = 0;
    scene.onBeforeRenderObservable.add(
      () => {
        solved = solving;
        solving = 0;
      },
      undefined,
      true,
    );
    let skip = true;
    return {
      stage,
      character: crowd[0],
      characters: crowd,
      handles: null,
      hint:
        `${COUNT} mannequins turn their heads to you. Drag to look round: with "Skip characters off screen" ` +
        "on, only those the camera drew last frame solve their IK (the status line counts them).",
      switches: [
        {
          id: "skip-hidden",
          label: "Skip characters off screen (skipWhenHidden)",
          get on() {
            return skip;
          },
          set(on: boolean) {
            skip = on;
            for (const c of crowd) c.ik.skipWhenHidden = on;
          },
        },
      ],
      metrics: () => ({ characters: COUNT, solved }),
      dispose() {
        for (const look of looks) look.dispose();
        scene.dispose();
      },
    };
  },
};
