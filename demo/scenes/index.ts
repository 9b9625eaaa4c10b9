import { crowdScene } from "./crowd.js";
import { droppedScene } from "./dropped.js";
import { gripScene } from "./grip.js";
import { creatureScene } from "./creature.js";
import { poseScene } from "./pose.js";
import { reachScene } from "./reach.js";
import { robotArmScene } from "./robotArm.js";
import { solverScene } from "./solver.js";
import { stewartPlatformScene } from "./stewartPlatform.js";
import { tentaclesScene } from "./tentacles.js";
import { trackedScene } from "./tracked.js";
import { walkScene } from "./walk.js";
import type { SceneDefinition } from "./types.js";

/** The scenes in panel order; the first one opens by default. "Your model" appears after a drop. */
export const SCENES: readonly SceneDefinition[] = [
  poseScene,
  walkScene,
  reachScene,
  gripScene,
  trackedScene,
  creatureScene,
  tentaclesScene,
  crowdScene,
  solverScene,
  robotArmScene,
  stewartPlatformScene,
  droppedScene,
];
