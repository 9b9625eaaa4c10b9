import { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera.js";
import type { AbstractEngine } from "@babylonjs/core/Engines/abstractEngine.js";
import { DirectionalLight } from "@babylonjs/core/Lights/directionalLight.js";
import { HemisphericLight } from "@babylonjs/core/Lights/hemisphericLight.js";
import { ShadowGenerator } from "@babylonjs/core/Lights/Shadows/shadowGenerator.js";
import "@babylonjs/core/Lights/Shadows/shadowGeneratorSceneComponent.js";
import { Color3, Color4 } from "@babylonjs/core/Maths/math.color.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { Scene } from "@babylonjs/core/scene.js";

/** The parts every demo scene shares: one look (sky colour, fog, key and fill light, soft shadows). */
export interface Stage {
  readonly scene: Scene;
  readonly camera: ArcRotateCamera;
  readonly sun: DirectionalLight;
  readonly shadows: ShadowGenerator;
  /** Makes meshes cast shadows (characters, props); receivers opt in with `receiveShadows`. */
  castShadows(meshes: readonly AbstractMesh[]): void;
}

export const SKY = new Color3(0.105, 0.13, 0.165);

export interface StageOptions {
  /** Where the camera looks and from how far; alpha π/2 puts it in front of a character facing +Z. */
  readonly target?: Vector3;
  readonly radius?: number;
  readonly alpha?: number;
  readonly beta?: number;
  /** Fog density: larger scenes fade their far edge into the sky. */
  readonly fog?: number;
}

export function createStage(
  engine: AbstractEngine,
  canvas: HTMLCanvasElement,
  options: StageOptions = {},
): Stage {
  const scene = new Scene(engine);
  scene.clearColor = Color4.FromColor3(SKY, 1);
  scene.ambientColor = new Color3(0.25, 0.27, 0.3);
  scene.fogMode = Scene.FOGMODE_EXP2;
  scene.fogColor = SKY;
  scene.fogDensity = options.fog ?? 0.06;

  const camera = new ArcRotateCamera(
    "camera",
    options.alpha ?? Math.PI / 2 - 0.45,
    options.beta ?? 1.25,
    options.radius ?? 3.6,
    options.target ?? new Vector3(0, 1, 0),
    scene,
  );
  camera.attachControl(canvas, true);
  camera.wheelDeltaPercentage = 0.02;
  camera.pinchDeltaPercentage = 0.004;
  camera.lowerRadiusLimit = 0.4;
  camera.upperRadiusLimit = 40;
  // Never under the floor: the scenes are all about what touches the ground.
  camera.upperBetaLimit = Math.PI / 2 - 0.03;
  camera.minZ = 0.02;
  camera.panningSensibility = 1500;

  const fill = new HemisphericLight("fill", new Vector3(0.2, 1, -0.3), scene);
  fill.intensity = 0.55;
  fill.diffuse = new Color3(0.85, 0.9, 1);
  fill.groundColor = new Color3(0.3, 0.27, 0.24);
  fill.specular = Color3.Black();

  const sun = new DirectionalLight("sun", new Vector3(-0.45, -1, 0.55).normalize(), scene);
  sun.position = new Vector3(4, 9, -5);
  sun.intensity = 2.1;
  sun.diffuse = new Color3(1, 0.95, 0.86);

  const shadows = new ShadowGenerator(2048, sun);
  shadows.usePercentageCloserFiltering = true;
  shadows.filteringQuality = ShadowGenerator.QUALITY_MEDIUM;
  shadows.bias = 0.0015;
  shadows.normalBias = 0.01;
  shadows.darkness = 0.25;
  // The frustum follows the casters (the characters), so shadows stay sharp wherever they walk.
  sun.autoUpdateExtends = true;
  sun.autoCalcShadowZBounds = true;

  return {
    scene,
    camera,
    sun,
    shadows,
    castShadows(meshes) {
      for (const mesh of meshes) shadows.addShadowCaster(mesh, false);
    },
  };
}
