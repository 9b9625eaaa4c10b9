import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { FloatArray } from "@babylonjs/core/types.js";

/*
 * Writing a Babylon vector or quaternion from a Float64Array slot. `v.set(a[o], …)` passes doubles to a call,
 * and V8 boxes them (an allocation per component) whenever it does not inline Babylon's setter, which it
 * skips once a large caller has used up its inlining budget; `FromArrayToRef` takes the array and an index,
 * so nothing is boxed whichever way V8 decides. Babylon's types name only number[] and Float32Array for
 * it; the code reads any indexable.
 */

/** v = values[o..o+2]. */
export function vectorFromArray(v: Vector3, values: Float64Array, o: number): Vector3 {
  return Vector3.FromArrayToRef(values as unknown as FloatArray, o, v);
}

/** q = values[o..o+3] (x y z w). */
export function quaternionFromArray(q: Quaternion, values: Float64Array, o: number): Quaternion {
  return Quaternion.FromArrayToRef(values as unknown as FloatArray, o, q);
}
