import { PointerDragBehavior } from "@babylonjs/core/Behaviors/Meshes/pointerDragBehavior.js";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { Color3 } from "@babylonjs/core/Maths/math.color.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { TrackedBody } from "../../plugin/index.js";
import { CHARACTER_URLS } from "../assets.js";
import { addCharacter, loadContainer } from "../stage/character.js";
import { createFloor, gridMaterial } from "../stage/floor.js";
import { createStage } from "../stage/stage.js";
import { createSample, samplePath } from "../tracking/recordedPath.js";
import { enableXrTracking, type XrTracking } from "../tracking/xrTrackers.js";
import type { SceneDefinition } from "./types.js";

/** A draggable sphere standing for a tracker (not an IK target: the TrackedBody reads it). */
function trackerSphere(scene: Scene, name: string, color: Color3, onDrag: () => void, diameter = 0.09): Mesh {
  const mesh = CreateSphere(`tracker:${name}`, { diameter, segments: 16 }, scene);
  const material = new StandardMaterial(`tracker:${name}`, scene);
  material.emissiveColor = color;
  material.disableLighting = true;
  mesh.material = material;
  mesh.renderingGroupId = 1;
  const drag = new PointerDragBehavior();
  drag.onDragStartObservable.add(onDrag);
  mesh.addBehavior(drag);
  return mesh;
}

/**
 * The mannequin driven by three tracked points (head and hands) through TrackedBody: a recorded path (walk,
 * turn, crouch, bow, reach up) until the user drags a sphere; in VR, the headset and controllers, mirrored.
 * Two small spheres ride on the elbows; dragged, each becomes that elbow's hint (weight 1).
 */
export const trackedScene: SceneDefinition = {
  id: "tracked",
  title: "Tracked body",
  async create({ engine, canvas }) {
    const stage = createStage(engine, canvas, {
      target: new Vector3(0, 1, 0.7),
      radius: 5,
      alpha: 1.1,
      beta: 1.25,
    });
    const scene = stage.scene;
    const floor = createFloor(scene);
    // A 15 cm platform beside the recorded path: drag the head over it and the feet step up onto it.
    const platform = CreateBox("platform", { width: 0.8, height: 0.15, depth: 1.6 }, scene);
    platform.position.set(1.1, 0.075, 0.6);
    platform.material = gridMaterial(scene, "platform", "#4a5563", "#9fb3c8");
    platform.isPickable = false;
    platform.receiveShadows = true;
    const container = await loadContainer(scene, CHARACTER_URLS.mannequin);
    const character = addCharacter(stage, container, { name: "mannequin", play: null });
    // The path bows to the knees and reaches overhead: the collarbones join the arms' chains for that.
    // The feet land on the floor and the platform (the tracker spheres are not ground).
    const body = new TrackedBody(character.ik, {
      collarbones: true,
      ground: (mesh) => mesh === floor || mesh === platform,
    });
    let dragged = false;
    const touch = () => (dragged = true);
    const head = trackerSphere(scene, "head", new Color3(1, 0.83, 0.25), touch);
    const left = trackerSphere(scene, "leftHand", new Color3(0.3, 0.8, 1), touch);
    const right = trackerSphere(scene, "rightHand", new Color3(1, 0.5, 0.3), touch);
    // Elbow hints: off (weight 0, the sphere riding on the elbow) until their sphere is dragged.
    const hints = [body.leftElbow, body.rightElbow];
    const elbowJoints = [character.ik.jointIndex("leftLowerArm"), character.ik.jointIndex("rightLowerArm")];
    const elbows = hints.map((hint, i) =>
      trackerSphere(
        scene,
        hint.name,
        new Color3(0.6, 1, 0.5).scale(1 - 0.3 * i),
        () => (hint.weight = 1),
        0.06,
      ),
    );
    const sample = createSample();
    const handRotation = new Quaternion();
    let time = 0;
    let xr: XrTracking | null = null;
    const headJoint = character.ik.jointIndex("head");
    const handJoints = [character.ik.jointIndex("leftHand"), character.ik.jointIndex("rightHand")];
    const errors = { head: 0, hands: 0 };
    // insertFirst: the trackers are set before the behavior (added earlier) runs its frame.
    scene.onBeforeRenderObservable.add(
      () => {
        if (xr?.active === true) return;
        // The path plays at most 1/30 s a frame: a slow machine plays it slower rather than in jumps.
        time += Math.min(scene.deltaTime / 1000, 1 / 30);
        if (!dragged) {
          samplePath(time, sample);
          head.position.copyFrom(sample.head);
          left.position.copyFrom(sample.left);
          right.position.copyFrom(sample.right);
          body.head.rotation.copyFrom(sample.headRotation);
        }
        body.head.position.copyFrom(head.position);
        body.leftHand.position.copyFrom(left.position);
        body.rightHand.position.copyFrom(right.position);
        hints.forEach((hint, i) => {
          if (hint.weight > 0) hint.position.copyFrom(elbows[i].position);
        });
        // Controllers point the way the head faces, level.
        const yaw = body.head.rotation.toEulerAngles().y;
        Quaternion.RotationYawPitchRollToRef(yaw, 0, 0, handRotation);
        body.leftHand.rotation.copyFrom(handRotation);
        body.rightHand.rotation.copyFrom(handRotation);
      },
      undefined,
      true,
    );
    // After the frame: how far the solved head and hands are from their trackers (for the status line and tests).
    const measure = character.ik.onSolvedObservable.add(() => {
      const at = (j: number) => character.jointWorldPosition(j) ?? Vector3.Zero();
      errors.head = at(headJoint).subtract(body.head.position).length();
      errors.hands = Math.max(
        at(handJoints[0]).subtract(body.leftHand.position).length(),
        at(handJoints[1]).subtract(body.rightHand.position).length(),
      );
      hints.forEach((hint, i) => {
        if (hint.weight === 0) character.jointWorldPosition(elbowJoints[i], elbows[i].position);
      });
    });
    void enableXrTracking(scene, floor, body).then((tracking) => (xr = tracking));
    return {
      stage,
      character,
      characters: [character],
      handles: null,
      hint: "TrackedBody drives the whole body from the head and hands: they follow a recorded path (walk, turn, crouch, bow, reach up) until you drag a sphere (drag the head over the platform: the feet step up onto it). The small green spheres on the elbows are elbow hints: drag one to point its elbow. With a VR headset, Enter VR: the avatar mirrors you.",
      metrics: () => ({
        headError: errors.head,
        handError: errors.hands,
        steps: body.steps,
        xr: xr === null ? 0 : 1,
      }),
      dispose() {
        measure.remove();
        xr?.dispose();
        body.dispose();
        scene.dispose();
      },
    };
  },
};
