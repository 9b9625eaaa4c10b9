import type { Stage } from "./stage.js";

/**
 * Shifts what the camera looks at to the middle of the free part of the canvas when the panel covers its
 * left side (desktop layouts), so characters are not framed half under the panel.
 */
export function frameBesidePanel(stage: Stage, panel: HTMLElement): void {
  const camera = stage.camera;
  const engine = stage.scene.getEngine();
  stage.scene.onBeforeRenderObservable.add(() => {
    const canvas = engine.getRenderingCanvas()?.getBoundingClientRect();
    const rect = panel.getBoundingClientRect();
    const covers =
      canvas !== undefined && rect.left < canvas.width * 0.2 && rect.height > canvas.height * 0.5;
    const fraction = covers ? rect.right / 2 / canvas!.width : 0;
    // The view-space width visible at the target's distance.
    const width = 2 * camera.radius * Math.tan(camera.fov / 2) * engine.getAspectRatio(camera);
    camera.targetScreenOffset.x = fraction * width;
  });
}
