import { Ray } from "@babylonjs/core/Culling/ray.js";
import type { Texture } from "@babylonjs/core/Materials/Textures/texture.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { VertexBuffer } from "@babylonjs/core/Buffers/buffer.js";
import { VertexData } from "@babylonjs/core/Meshes/mesh.vertexData.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { gridMaterial } from "./floor.js";

export interface TerrainOptions {
  /** Side length in metres. */
  readonly size: number;
  /** Peak-to-trough scale of the bumps, metres. */
  readonly amplitude: number;
  /** Typical distance between bumps, metres. */
  readonly wavelength: number;
  readonly base: string;
  readonly line: string;
}

/** Uneven ground that the walking scenes plant feet on, and the downward ray-cast they find it with. */
export interface Terrain {
  readonly mesh: Mesh;
  /**
   * Ground height under (x, z) found by a downward ray-cast against the mesh (as a game would against its
   * level geometry), with the surface normal in `normal` when given; NaN off the terrain.
   */
  heightAt(x: number, z: number, normal?: Vector3): number;
}

/** A fixed, smooth bump field: a few crossed sine waves at unrelated frequencies, so it never looks tiled. */
function bumps(x: number, z: number, amplitude: number, wavelength: number): number {
  const k = (2 * Math.PI) / wavelength;
  return (
    amplitude *
    (0.5 * Math.sin(k * x * 0.83 + 0.4) * Math.cos(k * z * 0.71 - 1.1) +
      0.3 * Math.sin(k * (0.61 * x + 1.13 * z) + 2.3) +
      0.2 * Math.sin(k * (1.71 * x - 1.37 * z) - 0.6))
  );
}

export function createTerrain(scene: Scene, options: TerrainOptions): Terrain {
  const { size, amplitude, wavelength } = options;
  const subdivisions = Math.min(160, Math.ceil((size / wavelength) * 16));
  const mesh = CreateGround("terrain", { width: size, height: size, subdivisions, updatable: true }, scene);
  const positions = mesh.getVerticesData(VertexBuffer.PositionKind)!;
  for (let i = 0; i < positions.length; i += 3) {
    positions[i + 1] = bumps(positions[i], positions[i + 2], amplitude, wavelength);
  }
  const indices = mesh.getIndices()!;
  const normals = new Array<number>(positions.length);
  VertexData.ComputeNormals(positions, indices, normals);
  mesh.updateVerticesData(VertexBuffer.PositionKind, positions);
  mesh.updateVerticesData(VertexBuffer.NormalKind, normals);
  mesh.refreshBoundingInfo();
  // Strips of rows as sub-meshes: a vertical ray then tests only the one or two strips it passes through.
  mesh.subdivide(subdivisions / 4);

  const material = gridMaterial(scene, "terrain", options.base, options.line);
  const texture = material.diffuseTexture as Texture;
  texture.uScale = texture.vScale = size;
  mesh.material = material;
  mesh.receiveShadows = true;
  mesh.isPickable = false;
  mesh.freezeWorldMatrix();

  const top = 2 * amplitude + 10;
  const ray = new Ray(Vector3.Zero(), new Vector3(0, -1, 0), 2 * top);
  return {
    mesh,
    heightAt(x, z, normal) {
      ray.origin.set(x, top, z);
      const hit = mesh.intersects(ray, false);
      if (!hit.hit || hit.pickedPoint === null) return NaN;
      if (normal !== undefined) normal.copyFrom(hit.getNormal(true) ?? Vector3.UpReadOnly);
      return hit.pickedPoint.y;
    },
  };
}
