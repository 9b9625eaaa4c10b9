import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";

/** One moment of a tracked player: head and hand positions, and where the head looks (yaw, pitch). */
export interface TrackedSample {
  readonly head: Vector3;
  readonly headRotation: Quaternion;
  readonly left: Vector3;
  readonly right: Vector3;
}

/** Key poses of the loop, in the player's own frame (facing +Z): seconds, head xyz, yaw, pitch, hands xyz. */
type Key = [number, number, number, number, number, number, number, number, number, number, number, number];

// Left is −X for the mannequin (glTF's mirrored root). Stand, walk ahead, turn round, crouch, bow to the
// floor, reach up, walk back, turn to face the camera again, hop (a dip, 30 cm up in a fifth of a second, down).
const KEYS: Key[] = [
  [0, 0, 1.6, 0, 0, 0, -0.22, 1.05, 0.3, 0.22, 1.05, 0.3],
  [1.5, 0, 1.6, 0, 0, 0, -0.22, 1.05, 0.3, 0.22, 1.05, 0.3],
  [3.5, 0, 1.6, 1.4, 0, 0, -0.22, 1.05, 1.7, 0.22, 1.05, 1.7],
  [4.5, 0, 1.6, 1.4, Math.PI / 2, 0, 0.3, 1.05, 1.4 + 0.22, 0.3, 1.05, 1.4 - 0.22],
  [5.5, 0, 1.6, 1.4, Math.PI, 0, 0.22, 1.05, 1.1, -0.22, 1.05, 1.1],
  [6.5, 0, 1.1, 1.35, Math.PI, 0.3, 0.22, 0.6, 1.05, -0.22, 0.6, 1.05],
  [7.5, 0, 1.1, 1.35, Math.PI, 0.3, 0.22, 0.6, 1.05, -0.22, 0.6, 1.05],
  [8.5, 0, 1.2, 1.0, Math.PI, 0.8, 0.2, 0.5, 0.8, -0.2, 0.5, 0.8],
  [9.5, 0, 1.6, 1.4, Math.PI, -0.4, 0.25, 1.95, 1.3, -0.25, 1.95, 1.3],
  [10.5, 0, 1.6, 1.4, Math.PI, 0, 0.22, 1.05, 1.1, -0.22, 1.05, 1.1],
  [12.5, 0, 1.6, 0, Math.PI, 0, 0.22, 1.05, -0.3, -0.22, 1.05, -0.3],
  [13.5, 0, 1.6, 0, 2 * Math.PI, 0, -0.22, 1.05, 0.3, 0.22, 1.05, 0.3],
  [14.5, 0, 1.6, 0, 2 * Math.PI, 0, -0.22, 1.05, 0.3, 0.22, 1.05, 0.3],
  [15.0, 0, 1.45, 0.05, 2 * Math.PI, 0.1, -0.25, 0.9, 0.25, 0.25, 0.9, 0.25],
  [15.2, 0, 1.9, 0, 2 * Math.PI, 0, -0.3, 1.5, 0.3, 0.3, 1.5, 0.3],
  [15.45, 0, 1.55, 0, 2 * Math.PI, 0, -0.22, 1.0, 0.3, 0.22, 1.0, 0.3],
  [16.5, 0, 1.6, 0, 2 * Math.PI, 0, -0.22, 1.05, 0.3, 0.22, 1.05, 0.3],
];

/** The loop's length in seconds. */
export const PATH_LENGTH = KEYS[KEYS.length - 1][0];

const smooth = (x: number): number => x * x * (3 - 2 * x);

/** The recorded player at time `t` (looped), eased between key poses, into `out`. */
export function samplePath(t: number, out: TrackedSample): TrackedSample {
  const time = ((t % PATH_LENGTH) + PATH_LENGTH) % PATH_LENGTH;
  let i = 0;
  while (i < KEYS.length - 2 && KEYS[i + 1][0] <= time) i++;
  const a = KEYS[i],
    b = KEYS[i + 1];
  const f = smooth(Math.min(1, (time - a[0]) / (b[0] - a[0])));
  const at = (k: number): number => a[k] + (b[k] - a[k]) * f;
  out.head.set(at(1), at(2), at(3));
  Quaternion.RotationYawPitchRollToRef(at(4), at(5), 0, out.headRotation);
  out.left.set(at(6), at(7), at(8));
  out.right.set(at(9), at(10), at(11));
  return out;
}

export function createSample(): TrackedSample {
  return { head: new Vector3(), headRotation: new Quaternion(), left: new Vector3(), right: new Vector3() };
}
