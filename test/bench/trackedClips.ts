// The tracked body benchmark's pieces (not a bench file): tracker poses taken from a clip, and timed replays.
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { PoseReader, TrackedBodyRig } from "../../plugin/index.js";

/** A world rotation whose +Z and +Y are the model-space directions `forward` and `up` carried to world. */
function worldRotation(m: Float64Array, forward: Vector3, up: Vector3): Quaternion {
  const toWorld = (v: Vector3) =>
    new Vector3(
      v.x * m[0] + v.y * m[4] + v.z * m[8],
      v.x * m[1] + v.y * m[5] + v.z * m[9],
      v.x * m[2] + v.y * m[6] + v.z * m[10],
    ).normalize();
  const f = toWorld(forward),
    u = toWorld(up);
  const r = Vector3.Cross(u, f).normalize();
  const u2 = Vector3.Cross(f, r).normalize();
  return Quaternion.RotationQuaternionFromAxis(r, u2, f);
}

const quat = (a: ArrayLike<number>, o: number) => new Quaternion(a[o], a[o + 1], a[o + 2], a[o + 3]);
const vec = (a: ArrayLike<number>, o: number) => new Vector3(a[o], a[o + 1], a[o + 2]);

/**
 * Foot `i`'s ball in world space from the reader's last read (the foot joint carrying `TrackedBodyRig.ball`):
 * the point a planted foot stands on as its heel lifts.
 */
export function ballOf(body: TrackedBodyRig, reader: PoseReader, i: number): Vector3 {
  const j = body.sides[i].foot;
  const b = vec(body.ball, 3 * i).applyRotationQuaternion(quat(reader.orientations, 4 * j));
  const p = vec(reader.positions, 3 * j).add(b);
  const m = reader.modelToWorld;
  return new Vector3(
    p.x * m[0] + p.y * m[4] + p.z * m[8] + m[12],
    p.x * m[1] + p.y * m[5] + p.z * m[9] + m[13],
    p.x * m[2] + p.y * m[6] + p.z * m[10] + m[14],
  );
}

/**
 * The tracker rotations that make TrackedBody give the head and hands the clip's orientations: the inverse
 * of its mapping (the rest head turned as the tracker turned from level forward; the hand's rest pointing
 * axis to the controller's forward, the back of the hand to its outer side).
 */
export function trackersOf(body: TrackedBodyRig, reader: PoseReader, j: { head: number; hands: number[] }) {
  const o = reader.orientations;
  const m = reader.modelToWorld;
  const f0 = vec(body.frame, 0),
    u0 = vec(body.frame, 3);
  const dHead = quat(o, 4 * j.head).multiply(Quaternion.Inverse(quat(body.rest, 4)));
  const head = {
    position: reader.getWorldPositionToRef(j.head, new Vector3()),
    rotation: worldRotation(m, f0.applyRotationQuaternion(dHead), u0.applyRotationQuaternion(dHead)),
  };
  const hands = j.hands.map((hand, i) => {
    const d = quat(o, 4 * hand).multiply(Quaternion.Inverse(quat(body.rest, 8 + 4 * i)));
    const a = vec(body.handAxes, 6 * i);
    const b = vec(body.handAxes, 6 * i + 3);
    const back = b.subtract(a.scale(Vector3.Dot(a, b))).normalize();
    const forward = a.applyRotationQuaternion(d);
    const left = back.applyRotationQuaternion(d).scale(body.sides[i].out);
    const up = Vector3.Cross(forward, left);
    return {
      position: reader.getWorldPositionToRef(hand, new Vector3()),
      rotation: worldRotation(m, forward, up),
    };
  });
  return { head, hands };
}

/** A clip is replayed for its warm cost at least this many times, and over at least `TIMED_FRAMES` frames. */
const TIMED_REPLAYS = 5;
const TIMED_FRAMES = 1200;

/**
 * µs of the process's CPU time a frame, the least over the replays of `frames` frames (`run(f)` runs frame
 * f): CPU time leaves out the time another process holds the core, and the least replay the rest of the
 * machine's noise. Short clips are replayed more, so every clip's code runs about as long before it is timed.
 * `before` runs ahead of each replay, untimed.
 */
export function bestReplay(frames: number, run: (f: number) => void, before?: () => void): number {
  let best = Infinity;
  const replays = Math.max(TIMED_REPLAYS, Math.ceil(TIMED_FRAMES / frames));
  for (let r = 0; r < replays; r++) {
    before?.();
    const start = process.cpuUsage();
    for (let f = 0; f < frames; f++) run(f);
    const used = process.cpuUsage(start);
    best = Math.min(best, used.user + used.system);
  }
  return best / frames;
}

/** Degrees between two unit quaternions `a[ao..]` and `b[bo..]` (the angle of the turn from one to the other). */
export function angleBetween(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): number {
  const d = a[ao] * b[bo] + a[ao + 1] * b[bo + 1] + a[ao + 2] * b[bo + 2] + a[ao + 3] * b[bo + 3];
  return (360 / Math.PI) * Math.acos(Math.min(1, Math.abs(d)));
}

/**
 * A world turn `turn` as seen in the model space of a root whose matrix is `m` (Babylon layout; its inverse
 * `inv`): M⁻¹·T·M, a rotation even where the root mirrors (glTF's flipped root).
 */
export function turnInModel(m: Float64Array, inv: Float64Array, turn: Quaternion): Quaternion {
  const linear = (a: Float64Array, v: Vector3) =>
    new Vector3(
      v.x * a[0] + v.y * a[4] + v.z * a[8],
      v.x * a[1] + v.y * a[5] + v.z * a[9],
      v.x * a[2] + v.y * a[6] + v.z * a[10],
    );
  const rows = [Vector3.Right(), Vector3.Up(), Vector3.Forward()].map((e) =>
    linear(inv, linear(m, e).applyRotationQuaternion(turn)).normalize(),
  );
  const [x, y, z] = rows;
  const k = Matrix.FromValues(x.x, x.y, x.z, 0, y.x, y.y, y.z, 0, z.x, z.y, z.z, 0, 0, 0, 0, 1);
  return Quaternion.FromRotationMatrix(k).normalize();
}

/** Mean joint jerk, |p(t) − 3p(t−1) + 3p(t−2) − p(t−3)|, over frames and joints, times `scale`. */
export function meanJerk(poses: Vector3[][], scale: number): number {
  let sum = 0,
    n = 0;
  for (let f = 3; f < poses.length; f++) {
    for (let k = 0; k < poses[f].length; k++) {
      const d = poses[f][k]
        .subtract(poses[f - 1][k].scale(3))
        .add(poses[f - 2][k].scale(3))
        .subtract(poses[f - 3][k]);
      sum += d.length() * scale;
      n++;
    }
  }
  return n > 0 ? sum / n : 0;
}

/** A leg's joints: hip (upper leg), knee (lower leg), ankle (foot). */
export interface Leg {
  readonly upperLeg: number;
  readonly lowerLeg: number;
  readonly foot: number;
}

/**
 * How many of `legs` have their knee inverted in a pose (model-space joint `positions` and unit
 * `orientations`; `rest` the rest pose's orientations; `frame` the body's rest forward, up and left, 9
 * numbers). A knee off its hip–ankle line by more than `least` (model units) is inverted when it bends
 * backwards about its own hinge (the shin turned forward of the thigh about the knee's axis, the body's left
 * carried by the thigh's turn from rest), or when it points against its foot (the toes' way, carried by the
 * foot's turn from rest, square to the hip–ankle line): a leg twisted round under a foot that points the other
 * way. Not against the head's heading: a dancer's head leads a pirouette, or spots, by up to half a turn.
 */
export function invertedKnees(
  positions: ArrayLike<number>,
  orientations: ArrayLike<number>,
  rest: ArrayLike<number>,
  legs: readonly Leg[],
  frame: ArrayLike<number>,
  least: number,
): number {
  const forward = vec(frame, 0),
    left = vec(frame, 6);
  const turn = (j: number) => quat(orientations, 4 * j).multiply(Quaternion.Inverse(quat(rest, 4 * j)));
  let inverted = 0;
  for (const leg of legs) {
    const hip = vec(positions, 3 * leg.upperLeg),
      knee = vec(positions, 3 * leg.lowerLeg),
      ankle = vec(positions, 3 * leg.foot);
    const axis = ankle.subtract(hip).normalize();
    const off = knee.subtract(hip);
    const perp = off.subtract(axis.scale(Vector3.Dot(off, axis)));
    if (!(perp.length() > least)) continue;
    const thigh = knee.subtract(hip).normalize(),
      shin = ankle.subtract(knee).normalize();
    const hinge = left.applyRotationQuaternion(turn(leg.upperLeg));
    const toes = forward.applyRotationQuaternion(turn(leg.foot));
    const toesAcross = toes.subtract(axis.scale(Vector3.Dot(toes, axis)));
    if (Vector3.Dot(Vector3.Cross(thigh, shin), hinge) < 0 || Vector3.Dot(perp, toesAcross) < 0) inverted++;
  }
  return inverted;
}
