import { Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { markModelTarget, type FabrikBehavior } from "../babylon/index.js";

/**
 * A target node living in the rig's model space: a child of the model root with a quaternion rotation.
 * Helpers compute in model space (where the animated pose is read), and a node there needs no handedness
 * conversion: the behavior reads its world frame and brings it back to model space, under the mirrored glTF
 * `__root__` too, and an effector matching its orientation takes exactly the quaternion written here.
 * Parented inside the character, it also follows the character's disposal.
 */
export function createModelTarget(ik: FabrikBehavior, scene: Scene, name: string): TransformNode {
  const node = new TransformNode(name, scene);
  node.doNotSerialize = true;
  node.rotationQuaternion = new Quaternion();
  node.parent = ik.rig!.modelRoot;
  markModelTarget(node);
  return node;
}
