// WebXR for the tracked-body scene: the headset and the controllers drive the body, seen as in a mirror.
// Guarded: without `navigator.xr` or an immersive-vr session it does nothing at all.
import "@babylonjs/core/Helpers/sceneHelpers.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { WebXRDefaultExperience } from "@babylonjs/core/XR/webXRDefaultExperience.js";
import { WebXRState } from "@babylonjs/core/XR/webXRTypes.js";
import type { TrackedBody, TrackedPoint } from "../../plugin/index.js";

/** The player stands this far (metres, along +Z) from the avatar, facing it: the mirror is half-way. */
export const MIRROR_DISTANCE = 2.4;

/** A world pose reflected in the mirror plane z = MIRROR_DISTANCE / 2, written to a tracker. */
function mirrorInto(p: Vector3, q: Quaternion, point: TrackedPoint, scratch: Vector3[]): void {
  point.position.set(p.x, p.y, MIRROR_DISTANCE - p.z);
  const [forward, up, right] = scratch;
  new Vector3(0, 0, 1).applyRotationQuaternionToRef(q, forward);
  new Vector3(0, 1, 0).applyRotationQuaternionToRef(q, up);
  forward.z = -forward.z;
  up.z = -up.z;
  // A reflection turns the frame's handedness: rebuild it from forward and up.
  Vector3.CrossToRef(up, forward, right);
  right.normalize();
  Vector3.CrossToRef(forward, right, up);
  Quaternion.RotationQuaternionFromAxisToRef(right, up, forward, point.rotation);
}

export interface XrTracking {
  /** Whether an immersive session is running (the trackers follow the headset and controllers). */
  readonly active: boolean;
  dispose(): void;
}

/**
 * Offers "Enter VR" when the browser has an immersive-vr session. In VR the headset drives the head and the
 * controllers' grips the hands, reflected (the right controller moves the avatar's left hand, as in a mirror),
 * so the avatar faces the player. Resolves to null, having done nothing, without WebXR.
 */
export async function enableXrTracking(
  scene: Scene,
  floor: AbstractMesh,
  body: TrackedBody,
): Promise<XrTracking | null> {
  const xrSystem = (navigator as Navigator & { xr?: { isSessionSupported(mode: string): Promise<boolean> } })
    .xr;
  if (xrSystem === undefined || typeof scene.createDefaultXRExperienceAsync !== "function") return null;
  let supported: boolean;
  try {
    supported = await xrSystem.isSessionSupported("immersive-vr");
  } catch {
    supported = false;
  }
  if (!supported) return null;
  let xr: WebXRDefaultExperience;
  try {
    xr = await scene.createDefaultXRExperienceAsync({ floorMeshes: [floor], disableTeleportation: true });
  } catch {
    return null;
  }
  const grips = new Map<string, TransformNode>();
  xr.input.onControllerAddedObservable.add((source) => {
    const hand = source.inputSource.handedness;
    if (hand === "left" || hand === "right") grips.set(hand, source.grip ?? source.pointer);
  });
  xr.input.onControllerRemovedObservable.add((source) => grips.delete(source.inputSource.handedness));
  xr.baseExperience.onInitialXRPoseSetObservable.add((camera) => {
    // Start facing the avatar from the far side of the mirror.
    camera.position.set(0, camera.position.y, MIRROR_DISTANCE);
    camera.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), Math.PI);
    // The trackers jump from the recorded path to the headset: the body starts afresh there.
    body.reset();
  });
  xr.baseExperience.onStateChangedObservable.add((state) => {
    // And back to the path when the session ends.
    if (state === WebXRState.NOT_IN_XR) body.reset();
  });
  const scratch = [new Vector3(), new Vector3(), new Vector3()];
  let active = false;
  const frame = scene.onBeforeRenderObservable.add(
    () => {
      active = xr.baseExperience.state === WebXRState.IN_XR;
      if (!active) return;
      // The headset sits at the eyes, ahead of and above the head joint.
      body.head.offset.set(0, -0.08, -0.08);
      const camera = xr.baseExperience.camera;
      mirrorInto(camera.globalPosition, camera.absoluteRotation, body.head, scratch);
      // The mirror swaps sides: the right controller is the reflection's left hand.
      for (const [point, hand] of [
        [body.leftHand, "right"],
        [body.rightHand, "left"],
      ] as const) {
        const grip = grips.get(hand);
        point.weight = grip === undefined ? 0 : 1;
        if (grip === undefined) continue;
        grip.computeWorldMatrix(true);
        mirrorInto(grip.absolutePosition, grip.absoluteRotationQuaternion, point, scratch);
      }
    },
    undefined,
    true,
  );
  return {
    get active() {
      return active;
    },
    dispose() {
      frame?.remove();
      xr.dispose();
    },
  };
}
