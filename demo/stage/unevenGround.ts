import type { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import type { Texture } from "@babylonjs/core/Materials/Textures/texture.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { FabrikError } from "../../plugin/solver/index.js";
import { FootPlacement } from "../../plugin/helpers/index.js";
import type { Character } from "./character.js";
import { createTerrain } from "./terrain.js";

/**
 * Bumpy ground for a character nobody here has seen, and FootPlacement at its defaults on it: whatever legs
 * it finds by itself (a humanoid's feet, a horse's hooves, a spider's eight feet). Off, the flat floor shows
 * and the feet follow their animation.
 */
export interface UnevenGround {
  readonly feet: FootPlacement;
  on: boolean;
}

/**
 * Prepares the ground (hidden) around the character, `size` across, at height `y`, its bumps scaled to
 * `height` (the character's), its grid in `tile`s as the floor's; null when FootPlacement finds no legs on
 * this rig (a snake, a tentacle).
 */
export function unevenGround(
  scene: Scene,
  character: Character,
  floor: Mesh,
  size: number,
  y: number,
  height: number,
  tile: number,
): UnevenGround | null {
  const terrain = createTerrain(scene, {
    size,
    amplitude: 0.06 * height,
    wavelength: 0.8 * height,
    base: "#35404a",
    line: "#8fa6bd",
  });
  const mesh = terrain.mesh;
  const texture = (mesh.material as StandardMaterial).diffuseTexture as Texture;
  texture.uScale = texture.vScale = size / tile;
  mesh.unfreezeWorldMatrix();
  mesh.position.y = y;
  mesh.freezeWorldMatrix();
  mesh.setEnabled(false);
  let feet: FootPlacement;
  try {
    feet = new FootPlacement(character.ik, { ground: (m) => m === mesh });
  } catch (error) {
    if (!(error instanceof FabrikError)) throw error;
    mesh.dispose();
    return null;
  }
  feet.enabled = false;
  return {
    feet,
    get on() {
      return feet.enabled;
    },
    set on(on: boolean) {
      feet.enabled = on;
      mesh.setEnabled(on);
      floor.setEnabled(!on);
    },
  };
}
