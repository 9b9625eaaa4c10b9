import { PointerDragBehavior } from "@babylonjs/core/Behaviors/Meshes/pointerDragBehavior.js";
import { GizmoManager } from "@babylonjs/core/Gizmos/gizmoManager.js";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { Color3 } from "@babylonjs/core/Maths/math.color.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { PointerEventTypes, type PointerInfoPre } from "@babylonjs/core/Events/pointerEvents.js";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { UtilityLayerRenderer } from "@babylonjs/core/Rendering/utilityLayerRenderer.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { FabrikBehavior, FabrikJoint, FabrikTargetOptions } from "../../plugin/index.js";
import { projectToPage } from "../stage/project.js";

/** One draggable IK target: a sphere that is the behavior's TransformNode target. */
export interface TargetHandle {
  readonly key: string;
  readonly mesh: Mesh;
  readonly ik: FabrikBehavior;
  readonly joint: FabrikJoint;
  readonly drag: PointerDragBehavior;
}

/** A press this close to a sphere's edge (CSS pixels) grabs it rather than turning the camera. */
const GRAB_MARGIN = 24;

function colorFor(key: string): Color3 {
  const k = key.toLowerCase();
  if (k.includes("head") || k.includes("neck")) return new Color3(1, 0.83, 0.25);
  if (k.startsWith("left") || k.includes(".l") || k.includes("_l")) return new Color3(0.3, 0.8, 1);
  if (k.startsWith("right") || k.includes(".r") || k.includes("_r")) return new Color3(1, 0.5, 0.3);
  return new Color3(0.85, 0.45, 1);
}

/**
 * Draggable targets: grab a sphere to drag it across the screen (in the plane facing the camera), or click
 * it for a position gizmo with axis arrows and plane handles for precise moves.
 */
export class TargetHandles {
  /** Whether the user (or a test) has moved a handle yet: scenes stop their own animation of targets then. */
  touched = false;
  private readonly _handles = new Map<string, TargetHandle>();
  private readonly _gizmos: GizmoManager;
  private readonly _layers: UtilityLayerRenderer[];
  private readonly _grab: Observer<PointerInfoPre>;

  /** `size`: sphere diameter in world units (scale it with the character). */
  constructor(
    private readonly _scene: Scene,
    private readonly _size: number,
  ) {
    // Explicit layers: the default utility layer belongs to whichever scene was created last.
    const layer = new UtilityLayerRenderer(_scene);
    const depthLayer = new UtilityLayerRenderer(_scene);
    depthLayer.utilityLayerScene.autoClearDepthAndStencil = false;
    this._layers = [layer, depthLayer];
    const gizmos = new GizmoManager(_scene, 1.5, layer, depthLayer);
    gizmos.positionGizmoEnabled = true;
    gizmos.usePointerToAttachGizmos = true;
    gizmos.clearGizmoOnEmptyPointerEvent = true;
    gizmos.attachableMeshes = [];
    gizmos.gizmos.positionGizmo!.scaleRatio = 0.8;
    gizmos.gizmos.positionGizmo!.onDragStartObservable.add(() => (this.touched = true));
    this._gizmos = gizmos;
    this._grab = _scene.onPrePointerObservable.add(
      (info) => this._grabNearby(info),
      PointerEventTypes.POINTERDOWN,
    );
  }

  /**
   * A press just beside a sphere drags that sphere, as a press on it does, instead of orbiting the camera:
   * a moving target is easy to miss by a few pixels.
   */
  private _grabNearby(info: PointerInfoPre): void {
    const event = info.event as PointerEvent;
    if (event.button !== 0 || this._handles.size === 0) return;
    let best: TargetHandle | null = null;
    let bestGap = GRAB_MARGIN;
    for (const handle of this._handles.values()) {
      const center = handle.mesh.getAbsolutePosition();
      const at = projectToPage(this._scene, center);
      const camera = this._scene.activeCamera;
      if (at === null || camera === null) continue;
      // The sphere's radius on the page: project a point one radius away, square to the view.
      const side = Vector3.Cross(camera.getForwardRay().direction, camera.upVector).normalize();
      const edge = projectToPage(this._scene, center.add(side.scale(this._size / 2)));
      const radius = edge === null ? 0 : Math.hypot(edge.x - at.x, edge.y - at.y);
      const gap = Math.hypot(event.clientX - at.x, event.clientY - at.y) - radius;
      // On the sphere itself the drag behavior takes the press.
      if (gap <= 0) return;
      if (gap < bestGap) {
        bestGap = gap;
        best = handle;
      }
    }
    if (best === null) return;
    info.skipOnPointerObservable = true;
    const ray = this._scene.createPickingRay(
      this._scene.pointerX,
      this._scene.pointerY,
      Matrix.Identity(),
      this._scene.activeCamera,
    );
    best.drag.startDrag(event.pointerId, ray, best.mesh.getAbsolutePosition());
  }

  get keys(): string[] {
    return [...this._handles.keys()];
  }

  get(key: string): TargetHandle | undefined {
    return this._handles.get(key);
  }

  /** Adds (or moves) the handle `key` at `at`, and makes it `joint`'s target. Throws what setTarget throws. */
  add(
    key: string,
    ik: FabrikBehavior,
    joint: FabrikJoint,
    at: Vector3,
    options: FabrikTargetOptions = {},
  ): TargetHandle {
    this.remove(key);
    const mesh = CreateSphere(`target:${key}`, { diameter: this._size, segments: 16 }, this._scene);
    mesh.position.copyFrom(at);
    const material = new StandardMaterial(`target:${key}`, this._scene);
    material.emissiveColor = colorFor(key);
    material.diffuseColor = Color3.Black();
    material.specularColor = Color3.Black();
    material.disableLighting = true;
    material.alpha = 0.92;
    mesh.material = material;
    // Drawn after the scene with its own depth: a target inside the body stays visible and grabbable.
    mesh.renderingGroupId = 1;
    const drag = new PointerDragBehavior();
    drag.dragDeltaRatio = 1;
    drag.onDragStartObservable.add(() => (this.touched = true));
    mesh.addBehavior(drag);
    try {
      ik.setTarget(joint, mesh, options);
    } catch (error) {
      mesh.dispose(false, true);
      throw error;
    }
    this._gizmos.attachableMeshes!.push(mesh);
    const handle = { key, mesh, ik, joint, drag };
    this._handles.set(key, handle);
    return handle;
  }

  /** Removes the handle and its target; false when there was none. */
  remove(key: string): boolean {
    const handle = this._handles.get(key);
    if (handle === undefined) return false;
    if (handle.ik.attachedNode !== null) handle.ik.removeTarget(handle.joint);
    const list = this._gizmos.attachableMeshes!;
    list.splice(list.indexOf(handle.mesh), 1);
    if (this._gizmos.gizmos.positionGizmo?.attachedMesh === handle.mesh) this._gizmos.attachToMesh(null);
    handle.mesh.dispose(false, true);
    this._handles.delete(key);
    return true;
  }

  setPosition(key: string, x: number, y: number, z: number): boolean {
    const handle = this._handles.get(key);
    handle?.mesh.position.set(x, y, z);
    this.touched = true;
    return handle !== undefined;
  }

  /** Shows the position gizmo on a handle (or hides it). */
  select(key: string | null): void {
    this._gizmos.attachToMesh(key === null ? null : (this._handles.get(key)?.mesh ?? null));
  }

  /** Where a handle appears on the page, CSS pixels. */
  screenPosition(key: string): { x: number; y: number } | null {
    const handle = this._handles.get(key);
    return handle === undefined ? null : projectToPage(this._scene, handle.mesh.getAbsolutePosition());
  }

  dispose(): void {
    this._grab.remove();
    for (const key of this.keys) this.remove(key);
    this._gizmos.dispose();
    for (const layer of this._layers) layer.dispose();
  }
}
