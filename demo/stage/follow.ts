import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Stage } from "./stage.js";

/**
 * Keeps the camera on a moving node, `height` above it, easing over bumps so the view does not jitter
 * with every step. The user can still orbit and zoom.
 */
export function followWithCamera(stage: Stage, node: TransformNode, height: number): void {
  const scene = stage.scene;
  const anchor = new TransformNode("camera-anchor", scene);
  const goal = new Vector3();
  const place = (k: number) => {
    goal.copyFrom(node.position);
    goal.y += height;
    Vector3.LerpToRef(anchor.position, goal, k, anchor.position);
  };
  place(1);
  stage.camera.setTarget(anchor, false, false, true);
  scene.onBeforeRenderObservable.add(() => place(1 - Math.exp(-scene.deltaTime / 1000 / 0.35)));
}
