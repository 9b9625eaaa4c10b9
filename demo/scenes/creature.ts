import type { FootPlacementLeg } from "../../plugin/helpers/index.js";
import { CHARACTER_URLS } from "../assets.js";
import { GroundedWalk } from "../locomotion/groundedWalk.js";
import { addCharacter, loadContainer } from "../stage/character.js";
import { followWithCamera } from "../stage/follow.js";
import { createStage } from "../stage/stage.js";
import { createTerrain } from "../stage/terrain.js";
import type { SceneDefinition } from "./types.js";

/** Hip, knee and ankle turn (the hip stays on the body); a leg ends in a tip, with nothing to align. */
const LEGS: FootPlacementLeg[] = ["L1", "L2", "L3", "R1", "R2", "R3"].map((leg) => ({
  foot: `Leg.${leg}.Foot`,
  chainLength: 3,
  align: false,
}));

/** The six-legged creature's tripod walk over rough ground: six feet planted, the body tilting with the ground. */
export const creatureScene: SceneDefinition = {
  id: "creature",
  title: "Creature",
  async create({ engine, canvas }) {
    const stage = createStage(engine, canvas, { radius: 2.4, beta: 1.1, alpha: 0.9, fog: 0.12 });
    const scene = stage.scene;
    const terrain = createTerrain(scene, {
      size: 24,
      amplitude: 0.1,
      wavelength: 1.3,
      base: "#4a4236",
      line: "#d9c6a0",
    });
    const container = await loadContainer(scene, CHARACTER_URLS.creature);
    const character = addCharacter(stage, container, { name: "creature", play: null });
    const walk = new GroundedWalk(character, terrain, {
      clip: "Walk",
      legs: LEGS,
      radius: 3.2,
      tilt: true,
      smoothing: 0.3,
    });
    followWithCamera(stage, character.holder, 0.3);
    return {
      stage,
      character,
      characters: [character],
      handles: null,
      hint: "A tripod gait made on flat ground: FootPlacement ray-casts each of the six feet onto the rocks, and the body leans with the ground under them.",
      metrics: () => ({ footError: walk.footError, speed: walk.speed }),
      dispose() {
        walk.feet.dispose();
        scene.dispose();
      },
    };
  },
};
