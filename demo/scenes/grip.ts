import { PointerDragBehavior } from "@babylonjs/core/Behaviors/Meshes/pointerDragBehavior.js";
import { Color3 } from "@babylonjs/core/Maths/math.color.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { TwoHandGrip, type GripHandle } from "../../plugin/index.js";
import { CHARACTER_URLS } from "../assets.js";
import { addCharacter, loadContainer } from "../stage/character.js";
import { createFloor } from "../stage/floor.js";
import { glossy, matte } from "../stage/materials.js";
import { createStage } from "../stage/stage.js";
import type { SceneDefinition } from "./types.js";

/** Where the box starts: in front of the mannequin's belly (it faces +Z), and its handles at its two ends. */
const START = new Vector3(0, 1.0, 0.33);
const HALF_WIDTH = 0.2;
/** Frames the hands are given to settle on the handles (position targets only) before the grip takes over. */
const SETTLE_FRAMES = 3;

/**
 * A box carried in two hands, following a draggable sphere: TwoHandGrip solves the box's pose with both arms,
 * so the hands stay on its handles wherever the box can go, and the box stops where the arms run out.
 */
export const gripScene: SceneDefinition = {
  id: "grip",
  title: "Two-hand grip",
  async create({ engine, canvas }) {
    const stage = createStage(engine, canvas, {
      target: new Vector3(0, 1.0, 0.2),
      radius: 3,
      alpha: Math.PI / 2 - 0.8,
      beta: 1.25,
    });
    const scene = stage.scene;
    createFloor(scene);
    const box = CreateBox("box", { width: 2 * HALF_WIDTH - 0.06, height: 0.26, depth: 0.3 }, scene);
    box.material = matte(scene, "cardboard", new Color3(0.62, 0.45, 0.27), 0.8);
    box.position.copyFrom(START);
    box.rotationQuaternion = new Quaternion();
    box.isPickable = false;
    const sphere = CreateSphere("box-target", { diameter: 0.09, segments: 16 }, scene);
    sphere.material = glossy(scene, "box-target", new Color3(0.95, 0.85, 0.3));
    sphere.position.copyFrom(START);
    sphere.rotationQuaternion = new Quaternion();
    sphere.addBehavior(new PointerDragBehavior());
    // Drawn over the box it sits in, so it can be seen and grabbed.
    sphere.renderingGroupId = 1;
    stage.castShadows([box]);

    const container = await loadContainer(scene, CHARACTER_URLS.mannequin);
    const character = addCharacter(stage, container, { name: "mannequin", play: "Idle" });
    const ik = character.ik;
    // The handles' rotations: first the hands are put on the handle points by position alone, then the
    // rotations they took there become the grip (so the box is held the way the arms hold it naturally).
    const sides = ["leftHand", "rightHand"] as const;
    const x = [-HALF_WIDTH, HALF_WIDTH];
    const points = x.map((px) => START.add(new Vector3(px, 0, 0)));
    sides.forEach((hand, i) => ik.setTarget(hand, points[i]));
    let grip: TwoHandGrip | null = null;
    let frames = 0;
    // insertFirst: read the solved pose before the behavior puts the animation back after rendering.
    const settle = scene.onAfterRenderObservable.add(
      () => {
        if (++frames < SETTLE_FRAMES) return;
        settle.remove();
        const handles = sides.map((hand): GripHandle => {
          const node = ik.rig!.nodes[ik.jointIndex(hand)] as TransformNode;
          node.computeWorldMatrix(true);
          return {
            position: node.absolutePosition.subtract(START),
            rotation: node.absoluteRotationQuaternion.clone(),
          };
        });
        sides.forEach((hand) => ik.removeTarget(hand));
        grip = new TwoHandGrip(ik, { object: box, target: sphere, left: handles[0], right: handles[1] });
      },
      undefined,
      true,
    )!;
    return {
      stage,
      character,
      characters: [character],
      handles: null,
      hint: "Drag the yellow sphere: the box follows it in both hands (TwoHandGrip), as far as the arms reach.",
      metrics: () => ({
        gripError: grip === null ? NaN : Math.max(grip.errors[0], grip.errors[2]),
        gripAngle: grip === null ? NaN : Math.max(grip.errors[1], grip.errors[3]),
        boxToTarget: Vector3.Distance(box.position, sphere.position),
        reachable: grip?.reachable === true ? 1 : 0,
        targetX: sphere.position.x,
        targetY: sphere.position.y,
        targetZ: sphere.position.z,
      }),
      dispose() {
        settle.remove();
        grip?.dispose();
        scene.dispose();
      },
    };
  },
};
