import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CHARACTER_URLS } from "../assets.js";
import { addCharacter, loadContainer } from "../stage/character.js";
import { createFloor } from "../stage/floor.js";
import { createStage } from "../stage/stage.js";
import { TargetHandles } from "../targets/targetHandles.js";
import type { SceneDefinition } from "./types.js";

/** The mannequin breathing through its Idle clip, with both hands and the head on draggable targets. */
export const poseScene: SceneDefinition = {
  id: "pose",
  title: "Pose",
  async create({ engine, canvas }) {
    const stage = createStage(engine, canvas, { target: new Vector3(0, 1.1, 0), radius: 3.3 });
    createFloor(stage.scene);
    const container = await loadContainer(stage.scene, CHARACTER_URLS.mannequin);
    const character = addCharacter(stage, container, { name: "mannequin", play: "Idle" });
    const handles = new TargetHandles(stage.scene, 0.075);
    // Roles, not bone names: the same three lines work on any humanoid the behavior recognises.
    handles.add("leftHand", character.ik, "leftHand", new Vector3(-0.24, 1.2, 0.36));
    handles.add("rightHand", character.ik, "rightHand", new Vector3(0.42, 1.74, 0.14));
    handles.add("head", character.ik, "head", new Vector3(0.06, 1.58, 0.09));
    // Until the user takes over, the raised hand waves: the page is alive before anyone touches it.
    const wave = handles.get("rightHand")!.mesh;
    const center = wave.position.clone();
    let time = 0;
    const waving = stage.scene.onBeforeRenderObservable.add(
      () => {
        if (handles.touched) {
          waving.remove();
          return;
        }
        time += stage.scene.deltaTime / 1000;
        wave.position.set(
          center.x + 0.09 * Math.sin(time * 3),
          center.y + 0.03 * Math.cos(time * 6),
          center.z,
        );
      },
      undefined,
      true,
    );
    return {
      stage,
      character,
      characters: [character],
      handles,
      hint: "Drag a sphere to move a hand or the head; click one for axis arrows.",
      dispose() {
        handles.dispose();
        stage.scene.dispose();
      },
    };
  },
};
