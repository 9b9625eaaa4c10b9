import { PBRMaterial } from "@babylonjs/core/Materials/PBR/pbrMaterial.js";
import type { Color3 } from "@babylonjs/core/Maths/math.color.js";
import type { Scene } from "@babylonjs/core/scene.js";

/** A plain non-metal surface lit like the glTF characters (PBR), so props and characters match. */
export function matte(scene: Scene, name: string, color: Color3, roughness = 0.6): PBRMaterial {
  const material = new PBRMaterial(name, scene);
  material.albedoColor = color;
  material.metallic = 0;
  material.roughness = roughness;
  return material;
}

export function glossy(scene: Scene, name: string, color: Color3): PBRMaterial {
  return matte(scene, name, color, 0.25);
}
