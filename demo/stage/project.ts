import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Scene } from "@babylonjs/core/scene.js";

/** Where a world point appears on the page, CSS pixels (for real pointer input in tests). */
export function projectToPage(scene: Scene, point: Vector3): { x: number; y: number } | null {
  const camera = scene.activeCamera;
  const engine = scene.getEngine();
  const canvas = engine.getRenderingCanvas();
  if (camera === null || canvas === null) return null;
  const width = engine.getRenderWidth();
  const height = engine.getRenderHeight();
  const p = Vector3.Project(
    point,
    Matrix.IdentityReadOnly,
    scene.getTransformMatrix(),
    camera.viewport.toGlobal(width, height),
  );
  if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) return null;
  const rect = canvas.getBoundingClientRect();
  return { x: rect.left + (p.x * rect.width) / width, y: rect.top + (p.y * rect.height) / height };
}
