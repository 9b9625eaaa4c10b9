import { DynamicTexture } from "@babylonjs/core/Materials/Textures/dynamicTexture.js";
import { Texture } from "@babylonjs/core/Materials/Textures/texture.js";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { Color3 } from "@babylonjs/core/Maths/math.color.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import type { GroundMesh } from "@babylonjs/core/Meshes/groundMesh.js";
import type { Scene } from "@babylonjs/core/scene.js";

/**
 * A tiling floor texture: a flat tone with a fine 10 cm grid and a stronger 1 m line, drawn once on a
 * canvas. Lines make scale and (on terrain) every bump readable, which plain shading in fog does not.
 */
export function gridMaterial(scene: Scene, name: string, base: string, line: string): StandardMaterial {
  const size = 512;
  const texture = new DynamicTexture(`${name}-grid`, size, scene, true);
  const ctx = texture.getContext();
  ctx.fillStyle = base;
  ctx.fillRect(0, 0, size, size);
  ctx.strokeStyle = line;
  for (let i = 0; i < 10; i++) {
    const major = i === 0;
    ctx.globalAlpha = major ? 0.9 : 0.22;
    ctx.lineWidth = major ? 6 : 2;
    const at = (i * size) / 10;
    ctx.beginPath();
    ctx.moveTo(at, 0);
    ctx.lineTo(at, size);
    ctx.moveTo(0, at);
    ctx.lineTo(size, at);
    ctx.stroke();
  }
  texture.update();
  texture.anisotropicFilteringLevel = 8;
  texture.wrapU = texture.wrapV = Texture.WRAP_ADDRESSMODE;

  const material = new StandardMaterial(name, scene);
  material.diffuseTexture = texture;
  material.specularColor = new Color3(0.05, 0.05, 0.05);
  return material;
}

/** A flat floor `size` wide at height `y`, one grid tile per `tile` (1 m by default), receiving shadows. */
export function createFloor(scene: Scene, size = 80, y = 0, tile = 1): GroundMesh {
  const floor = CreateGround("floor", { width: size, height: size, subdivisions: 2 }, scene);
  floor.position.y = y;
  const material = gridMaterial(scene, "floor", "#3a434e", "#9fb3c8");
  const texture = material.diffuseTexture as Texture;
  texture.uScale = texture.vScale = size / tile;
  floor.material = material;
  floor.receiveShadows = true;
  floor.isPickable = false;
  return floor;
}
