import { CHARACTER_URLS } from "../assets.js";
import { GroundedWalk } from "../locomotion/groundedWalk.js";
import { addCharacter, loadContainer } from "../stage/character.js";
import { followWithCamera } from "../stage/follow.js";
import { createStage } from "../stage/stage.js";
import { createTerrain } from "../stage/terrain.js";
import type { SceneDefinition } from "./types.js";

/** The mannequin's in-place Walk clip, moved round a circle over bumpy ground with both feet planted. */
export const walkScene: SceneDefinition = {
  id: "walk",
  title: "Walk",
  async create({ engine, canvas }) {
    const stage = createStage(engine, canvas, { radius: 4.2, beta: 1.3, alpha: 0.97, fog: 0.07 });
    const scene = stage.scene;
    const terrain = createTerrain(scene, {
      size: 60,
      amplitude: 0.24,
      wavelength: 4.5,
      base: "#3d4a3f",
      line: "#b8d1b0",
    });
    const container = await loadContainer(scene, CHARACTER_URLS.mannequin);
    const character = addCharacter(stage, container, { name: "mannequin", play: null });
    const walk = new GroundedWalk(character, terrain, {
      clip: "Walk",
      radius: 6,
      tilt: false,
      smoothing: 0.25,
    });
    followWithCamera(stage, character.holder, 0.95);
    return {
      stage,
      character,
      characters: [character],
      handles: null,
      hint: "The Walk clip is made in place on flat ground; FootPlacement puts each foot on the terrain under it and lowers the hips where a leg cannot reach.",
      metrics: () => ({ footError: walk.footError, speed: walk.speed, hipsDrop: walk.feet.hipsOffset }),
      dispose() {
        walk.feet.dispose();
        scene.dispose();
      },
    };
  },
};
