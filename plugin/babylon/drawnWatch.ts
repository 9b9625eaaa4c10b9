import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { SkeletonRig } from "./skeletonRig.js";

/**
 * Whether Babylon drew any of a character's meshes since the last look (FabrikBehavior.skipWhenHidden): each
 * mesh raises a flag from its `onBeforeRenderObservable`, which fires whenever a camera or render target draws
 * it, and not for a mesh outside every view, culled, disabled or not visible. The meshes are the rig's skinned
 * meshes and every mesh below its joint nodes (rigid parts, a held prop) when the watch starts, those with
 * vertices (an empty mesh is never drawn). A rig without any counts as drawn: there is nothing to tell.
 */
export class DrawnWatch {
  private _drawn = true;
  private readonly _observers: Observer<Mesh>[] = [];
  private readonly _mark = (): void => {
    this._drawn = true;
  };

  constructor(rig: SkeletonRig) {
    const meshes = new Set<AbstractMesh>(rig.meshes);
    for (const node of rig.nodes)
      if (node !== null) for (const mesh of node.getChildMeshes()) meshes.add(mesh);
    for (const mesh of meshes) {
      if (!(mesh.getTotalVertices() > 0)) continue;
      // Skinned meshes are Meshes; an InstancedMesh (a rigid part drawn as an instance) has no such observable.
      const observable = (mesh as unknown as Partial<Mesh>).onBeforeRenderObservable;
      if (observable !== undefined) this._observers.push(observable.add(this._mark));
    }
  }

  /** True when a mesh was drawn since the last call (or since the watch began), or there are none to watch. */
  takeDrawn(): boolean {
    const drawn = this._drawn || this._observers.length === 0;
    this._drawn = false;
    return drawn;
  }

  /** Removes the observers from the meshes. Idempotent. */
  dispose(): void {
    for (const observer of this._observers) observer.remove();
    this._observers.length = 0;
  }
}
