// The benchmarks' moving targets (not a benchmark file): a limb's animated end turned about its base.

/**
 * A point the benchmark moves every frame (the behavior reads any { x, y, z }). Its own class, created with
 * non-integer numbers, so V8 keeps its fields as doubles updated in place: plain { x, y, z } literals share
 * one hidden-class tree with every such literal in the process (Babylon's included), whose fields end up
 * tagged once a small integer went in first, and then every double stored allocates a 16-byte heap number.
 * That would be the caller's cost, not the behavior's, but it would land in the allocation count. (A
 * Babylon Vector3 moved every frame can cost the same, for the same reason.)
 */
export class Point {
  x = 0.5;
  y = 0.5;
  z = 0.5;
}

/** A point with x, y and z fields (a Babylon Vector3 or a plain object). */
export interface XYZ {
  x: number;
  y: number;
  z: number;
}

/**
 * `out` = `end` turned about `base` by `theta` radians, about the axis across the line base→end and a fixed
 * slanted direction (world X when they are parallel), so it stays within the reach of a limb from `base`.
 */
export function turnAbout(end: XYZ, base: XYZ, theta: number, out: XYZ): void {
  const vx = end.x - base.x,
    vy = end.y - base.y,
    vz = end.z - base.z;
  let ax = vy * 0.5 - vz * 1,
    ay = vz * 0.3 - vx * 0.5,
    az = vx * 1 - vy * 0.3;
  let al = Math.sqrt(ax * ax + ay * ay + az * az);
  if (!(al > 1e-9)) {
    ax = 1;
    ay = az = 0;
    al = 1;
  }
  ax /= al;
  ay /= al;
  az /= al;
  // Rodrigues: v cos θ + (a × v) sin θ + a (a·v)(1 − cos θ).
  const cos = Math.cos(theta),
    sin = Math.sin(theta),
    dot = ax * vx + ay * vy + az * vz;
  out.x = base.x + vx * cos + (ay * vz - az * vy) * sin + ax * dot * (1 - cos);
  out.y = base.y + vy * cos + (az * vx - ax * vz) * sin + ay * dot * (1 - cos);
  out.z = base.z + vz * cos + (ax * vy - ay * vx) * sin + az * dot * (1 - cos);
}
