import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";

/**
 * How fast an in-place walk clip slides its planted feet backwards (m/s along the character's +Z), which is
 * the speed to move the character at so that planted feet stay put. Measured from the clip itself, frame
 * by frame, over the samples where each foot is near its lowest: the median of their backward speeds.
 * Leaves the clip playing from its start.
 */
export function treadmillSpeed(
  walk: AnimationGroup,
  feet: readonly TransformNode[],
  holder: TransformNode,
): number {
  const fps = walk.targetedAnimations[0]?.animation.framePerSecond ?? 60;
  const frames = Math.max(2, Math.round(walk.to - walk.from));
  const toLocal = new Matrix();
  const local = new Vector3();
  const samples = feet.map(() => [] as { y: number; z: number }[]);
  walk.start(true);
  const scene = holder.getScene();
  for (let f = 0; f <= frames; f++) {
    walk.goToFrame(walk.from + f);
    scene.incrementRenderId();
    holder.computeWorldMatrix(true).invertToRef(toLocal);
    feet.forEach((foot, i) => {
      Vector3.TransformCoordinatesToRef(foot.computeWorldMatrix(true).getTranslation(), toLocal, local);
      samples[i].push({ y: local.y, z: local.z });
    });
  }
  walk.goToFrame(walk.from);
  const speeds: number[] = [];
  for (const foot of samples) {
    const ys = foot.map((s) => s.y);
    const low = Math.min(...ys);
    const threshold = low + 0.15 * (Math.max(...ys) - low);
    for (let f = 1; f < foot.length; f++) {
      if (foot[f].y <= threshold && foot[f - 1].y <= threshold)
        speeds.push((foot[f - 1].z - foot[f].z) * fps);
    }
  }
  speeds.sort((a, b) => a - b);
  return speeds.length === 0 ? 0 : speeds[Math.floor(speeds.length / 2)];
}
