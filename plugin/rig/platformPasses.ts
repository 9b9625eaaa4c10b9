import { quatNormalize } from "../solver/quaternion.js";
import {
  createPassAcceleration,
  decodePose,
  encodePose,
  mixPasses,
  restartAcceleration,
  type PassAcceleration,
} from "./platformAcceleration.js";

/*
 * Forward kinematics of a parallel mechanism by FABRIK passes. Every leg holds its platform anchor on a
 * sphere: about its base anchor for a Stewart leg of given length, about its elbow for a delta arm's rod.
 * One iteration is the two FABRIK half-passes of a closed loop: each leg pulls its anchor to the nearest
 * point of its sphere (the leg reaching out to the platform), then the platform, the one link every leg
 * shares, is refit rigidly to the pulled anchors (the platform giving each leg back a place it can keep).
 * A pose where every anchor already lies on its sphere is left where it is, so the passes stop exactly on a
 * closure of the loops, the one the start pose leads to.
 *
 * The refit is the best rigid fit of the anchors to the pulled points: the translation matches centroids
 * and the rotation maximises tr(Rᵀ·M) over the points' cross-covariance M. The rotation is found by
 * turning the current one about the axis Σ rₖ × mₖ (columns of R and M) by the angle that axis's length
 * over tr(Rᵀ·M) gives, twice per pass: started from the last rotation it is already near the answer, and
 * the next pass refines it further, so no eigen- or singular-value decomposition is needed. A fit left a
 * little short only slows the passes; it cannot move their end, where the fit's turn is 0.
 */

/** What a forward-kinematics solve did; one object per mechanism, refilled by each solve. */
export interface PlatformSolveReport {
  /** Every leg ended within tolerance of its length. */
  converged: boolean;
  /** Passes run (0 when the start pose already closed every leg). */
  iterations: number;
  /** The largest difference between a leg's length in the result and its given length, in model units. */
  residual: number;
  /** Every given actuation (leg length, motor angle) lies within its range; solved as given either way. */
  inRange: boolean;
}

/** Settings of a forward-kinematics solve. */
export interface PlatformSolveOptions {
  /**
   * Largest leg-length residual accepted, as a fraction of the mechanism's size. Default
   * {@link PLATFORM_TOLERANCE}.
   */
  tolerance?: number;
  /** Default {@link PLATFORM_MAX_ITERATIONS}. */
  maxIterations?: number;
  /**
   * Mix the last passes (Anderson acceleration) instead of running plain passes. Default true; plain passes
   * reach the same pose, but may need many times more iterations near singular poses.
   */
  accelerate?: boolean;
}

/** Default forward-kinematics tolerance, as a fraction of the platform's size. */
export const PLATFORM_TOLERANCE = 1e-10;
/** Default cap on forward-kinematics passes. */
export const PLATFORM_MAX_ITERATIONS = 500;

/** Turns of the rotation refit per pass, and the turn below which it stops early (radians). */
const FIT_TURNS = 2;
const FIT_SETTLED = 1e-15;
/** Pulled anchors move this much further than the sphere (over-relaxation): a quarter fewer passes than 1. */
const RELAX = 1.8;

/** Buffers of one mechanism's passes, allocated once. */
export interface PlatformPasses {
  readonly legs: number;
  /** Sphere centre per leg (3 per leg), written before each solve. */
  readonly centres: Float64Array;
  /** Sphere radius per leg, written before each solve. */
  readonly radii: Float64Array;
  /** Anchors in the platform frame minus their centroid (3 per leg). */
  readonly local: Float64Array;
  /** Centroid of the anchors in the platform frame. */
  readonly localCentroid: Float64Array;
  /** The pulled anchors (3 per leg). */
  readonly pulled: Float64Array;
  /** Rotation matrix (row-major), cross-covariance, turn quaternion, pulled centroid, start pose. */
  readonly work: Float64Array;
  readonly acceleration: PassAcceleration;
  readonly report: PlatformSolveReport;
}

const R = 0,
  M = 9,
  TURN = 18,
  CENTROID = 22,
  START = 25,
  RESIDUAL = 32;

export function createPlatformPasses(platformAnchors: Float64Array, size: number): PlatformPasses {
  const legs = platformAnchors.length / 3;
  const localCentroid = new Float64Array(3);
  for (let i = 0; i < legs; i++)
    for (let k = 0; k < 3; k++) localCentroid[k] += platformAnchors[3 * i + k] / legs;
  const local = new Float64Array(3 * legs);
  for (let i = 0; i < 3 * legs; i++) local[i] = platformAnchors[i] - localCentroid[i % 3];
  return {
    legs,
    centres: new Float64Array(3 * legs),
    radii: new Float64Array(legs),
    local,
    localCentroid,
    pulled: new Float64Array(3 * legs),
    work: new Float64Array(33),
    acceleration: createPassAcceleration(size),
    report: { converged: false, iterations: 0, residual: 0, inRange: true },
  };
}

/** Row-major rotation matrix of the unit quaternion q (x y z w) into work[R..R+8]. */
function toMatrix(w: Float64Array, q: Float64Array): void {
  const x = q[0],
    y = q[1],
    z = q[2],
    s = q[3];
  w[R] = 1 - 2 * (y * y + z * z);
  w[R + 1] = 2 * (x * y - s * z);
  w[R + 2] = 2 * (x * z + s * y);
  w[R + 3] = 2 * (x * y + s * z);
  w[R + 4] = 1 - 2 * (x * x + z * z);
  w[R + 5] = 2 * (y * z - s * x);
  w[R + 6] = 2 * (x * z - s * y);
  w[R + 7] = 2 * (y * z + s * x);
  w[R + 8] = 1 - 2 * (x * x + y * y);
}

/**
 * Pulls every anchor of the platform at (position, orientation) toward its sphere into `pulled` and writes
 * the largest distance of an anchor from its sphere (the legs' length residual) to work[RESIDUAL]: a double
 * returned from a call V8 does not inline is boxed, which would allocate on every pass.
 */
function pullAnchors(p: PlatformPasses, position: Float64Array, orientation: Float64Array): void {
  const { legs, centres, radii, local, localCentroid: c, pulled, work: w } = p;
  toMatrix(w, orientation);
  let residual = 0;
  for (let i = 0; i < legs; i++) {
    const o = 3 * i;
    const lx = local[o] + c[0],
      ly = local[o + 1] + c[1],
      lz = local[o + 2] + c[2];
    const ax = w[R] * lx + w[R + 1] * ly + w[R + 2] * lz + position[0];
    const ay = w[R + 3] * lx + w[R + 4] * ly + w[R + 5] * lz + position[1];
    const az = w[R + 6] * lx + w[R + 7] * ly + w[R + 8] * lz + position[2];
    let dx = ax - centres[o],
      dy = ay - centres[o + 1],
      dz = az - centres[o + 2];
    let length = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(length > 1e-300)) {
      // The anchor sits on its sphere's centre: no nearest point, so push it along the platform's z.
      dx = w[R + 2];
      dy = w[R + 5];
      dz = w[R + 8];
      length = 0;
    } else {
      dx /= length;
      dy /= length;
      dz /= length;
    }
    const miss = radii[i] - length;
    if (Math.abs(miss) > residual) residual = Math.abs(miss);
    pulled[o] = ax + RELAX * miss * dx;
    pulled[o + 1] = ay + RELAX * miss * dy;
    pulled[o + 2] = az + RELAX * miss * dz;
  }
  w[RESIDUAL] = residual;
}

/** Refits the platform rigidly to the pulled anchors; with `rotates` false only its position moves. */
function refit(p: PlatformPasses, position: Float64Array, orientation: Float64Array, rotates: boolean): void {
  const { legs, local, localCentroid: c, pulled, work: w } = p;
  let gx = 0,
    gy = 0,
    gz = 0;
  for (let i = 0; i < legs; i++) {
    gx += pulled[3 * i];
    gy += pulled[3 * i + 1];
    gz += pulled[3 * i + 2];
  }
  gx /= legs;
  gy /= legs;
  gz /= legs;
  if (rotates) {
    w.fill(0, M, M + 9);
    for (let i = 0; i < legs; i++) {
      const o = 3 * i;
      const qx = pulled[o] - gx,
        qy = pulled[o + 1] - gy,
        qz = pulled[o + 2] - gz;
      const lx = local[o],
        ly = local[o + 1],
        lz = local[o + 2];
      w[M] += qx * lx;
      w[M + 1] += qx * ly;
      w[M + 2] += qx * lz;
      w[M + 3] += qy * lx;
      w[M + 4] += qy * ly;
      w[M + 5] += qy * lz;
      w[M + 6] += qz * lx;
      w[M + 7] += qz * ly;
      w[M + 8] += qz * lz;
    }
    let size = 0;
    for (let k = 0; k < 9; k++) size += Math.abs(w[M + k]);
    for (let turn = 0; turn < FIT_TURNS && size > 0; turn++) {
      toMatrix(w, orientation);
      // Σ over columns k of (R column k) × (M column k), and Σ (R column k)·(M column k) = tr(Rᵀ·M).
      let ox = 0,
        oy = 0,
        oz = 0,
        trace = 0;
      for (let k = 0; k < 3; k++) {
        const rx = w[R + k],
          ry = w[R + 3 + k],
          rz = w[R + 6 + k];
        const mx = w[M + k],
          my = w[M + 3 + k],
          mz = w[M + 6 + k];
        ox += ry * mz - rz * my;
        oy += rz * mx - rx * mz;
        oz += rx * my - ry * mx;
        trace += rx * mx + ry * my + rz * mz;
      }
      // tr(Rᵀ·M) is the fit's curvature along the turn; the floor keeps the step finite when it vanishes.
      const scale = 1 / (Math.abs(trace) + 1e-9 * size);
      ox *= scale;
      oy *= scale;
      oz *= scale;
      const angle = Math.sqrt(ox * ox + oy * oy + oz * oz);
      if (!(angle > FIT_SETTLED)) break;
      const half = 0.5 * Math.min(angle, Math.PI);
      const s = Math.sin(half) / angle;
      w[TURN] = ox * s;
      w[TURN + 1] = oy * s;
      w[TURN + 2] = oz * s;
      w[TURN + 3] = Math.cos(half);
      turnBy(orientation, w);
      quatNormalize(orientation, 0);
    }
  }
  toMatrix(w, orientation);
  // The platform origin is the pulled centroid minus the rotated anchor centroid.
  w[CENTROID] = gx;
  w[CENTROID + 1] = gy;
  w[CENTROID + 2] = gz;
  for (let k = 0; k < 3; k++)
    position[k] = w[CENTROID + k] - (w[R + 3 * k] * c[0] + w[R + 3 * k + 1] * c[1] + w[R + 3 * k + 2] * c[2]);
}

/** orientation = turn · orientation, the turn held in work[TURN..TURN+3]. */
function turnBy(q: Float64Array, w: Float64Array): void {
  const ax = w[TURN],
    ay = w[TURN + 1],
    az = w[TURN + 2],
    aw = w[TURN + 3];
  const bx = q[0],
    by = q[1],
    bz = q[2],
    bw = q[3];
  q[0] = aw * bx + ax * bw + ay * bz - az * by;
  q[1] = aw * by - ax * bz + ay * bw + az * bx;
  q[2] = aw * bz + ax * by - ay * bx + az * bw;
  q[3] = aw * bw - ax * bx - ay * by - az * bz;
}

/**
 * Runs passes from the platform pose (position, unit orientation), moving it in place, until every leg is
 * within `settings[0]` (model units) of its sphere or `settings[1]` passes ran; mixing the passes when
 * `settings[2]` is 1. Allocates nothing.
 */
export function solvePlatformPasses(
  p: PlatformPasses,
  position: Float64Array,
  orientation: Float64Array,
  rotates: boolean,
  settings: Float64Array,
): PlatformSolveReport {
  const report = p.report;
  const w = p.work;
  const tolerance = settings[0],
    maxIterations = settings[1],
    accelerate = settings[2] === 1;
  for (let k = 0; k < 3; k++) w[START + k] = position[k];
  for (let k = 0; k < 4; k++) w[START + 3 + k] = orientation[k];
  let iterations = 0;
  pullAnchors(p, position, orientation);
  let residual = w[RESIDUAL];
  const start = residual;
  const a = p.acceleration;
  if (accelerate) restartAcceleration(a, orientation);
  while (residual > tolerance && iterations < maxIterations) {
    if (accelerate) encodePose(a, position, orientation, a.x);
    refit(p, position, orientation, rotates);
    iterations++;
    if (accelerate) {
      encodePose(a, position, orientation, a.g);
      if (mixPasses(a)) {
        decodePose(a, a.x, position, orientation);
        pullAnchors(p, position, orientation);
        // A mixed pose is kept only when it does not raise the residual.
        if (w[RESIDUAL] <= residual) {
          residual = w[RESIDUAL];
          continue;
        }
        // The mixing overshot: go on from the plain pass, forgetting the passes behind it.
        decodePose(a, a.g, position, orientation);
        restartAcceleration(a, orientation);
      }
    }
    pullAnchors(p, position, orientation);
    residual = w[RESIDUAL];
  }
  if (!Number.isFinite(residual)) {
    // Never hand back a pose that is not a pose: keep the start instead.
    for (let k = 0; k < 3; k++) position[k] = w[START + k];
    for (let k = 0; k < 4; k++) orientation[k] = w[START + 3 + k];
    residual = start;
  }
  report.iterations = iterations;
  report.residual = residual;
  report.converged = residual <= tolerance;
  return report;
}
