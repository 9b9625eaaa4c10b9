import type { Color4 } from "@babylonjs/core/Maths/math.color.js";
import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";

/*
 * Writing model-space points into the debug view's polylines. Points are passed as (array, offset), never
 * as numbers: doubles handed to a function V8 does not inline are boxed, and these run for every vertex of
 * every frame.
 */

/** v = model point p[o..o+2] in world space (Babylon's row-vector matrix layout). */
export function toWorld(v: Vector3, m: Float64Array, p: Float64Array, o: number): void {
  const x = p[o],
    y = p[o + 1],
    z = p[o + 2];
  v.x = x * m[0] + y * m[4] + z * m[8] + m[12];
  v.y = x * m[1] + y * m[5] + z * m[9] + m[13];
  v.z = x * m[2] + y * m[6] + z * m[10] + m[14];
}

/** Puts every point of a polyline on model point p[o..o+2]: a line with nothing to show. */
export function collapse(line: Vector3[], m: Float64Array, p: Float64Array, o: number): void {
  for (let i = 0; i < line.length; i++) toWorld(line[i], m, p, o);
}

/** Gives every vertex of a polyline one colour. */
export function paint(colors: Color4[], color: Color4): void {
  for (let i = 0; i < colors.length; i++) colors[i].copyFrom(color);
}
