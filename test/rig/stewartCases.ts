import {
  createPlatformPose,
  createStewartPlatform,
  stewartForwardKinematics,
  stewartInverseKinematics,
  type PlatformSolveOptions,
  type StewartPlatform,
} from "../../plugin/index.js";
import {
  classicLayout,
  lengthsOf,
  matFromQuat,
  newtonForward,
  poseError,
  random,
} from "./stewartReference.js";

/*
 * Random in-range actuations of Stewart platforms and the comparison of the plugin's forward kinematics
 * with the Newton reference, shared by test/rig/stewartPlatform.test.ts and test/bench/parallel.bench.ts.
 */

/** Agreement bar: platform poses within this fraction of the platform's size. */
export const AGREE = 1e-6;

/** The classic 6-6 platform (base radius 1, platform radius 0.6), legs 0.9–1.6. */
export function classicPlatform(): StewartPlatform {
  const { base, top } = classicLayout();
  return createStewartPlatform({ baseAnchors: base, platformAnchors: top, minLength: 0.9, maxLength: 1.6 });
}

export interface StewartCase {
  readonly lengths: Float64Array;
  /** The pose the lengths were made from. */
  readonly position: Float64Array;
  readonly orientation: Float64Array;
}

/**
 * `count` actuations from random reachable poses: the home shifted up to `shift` (fraction of the platform
 * size) along each axis and turned up to `turn` radians about a random axis, kept when every leg is in range.
 */
export function randomCases(
  platform: StewartPlatform,
  count: number,
  seed: number,
  shift = 0.75,
  turn = (40 * Math.PI) / 180,
): StewartCase[] {
  const rand = random(seed);
  const cases: StewartCase[] = [];
  const pose = createPlatformPose();
  while (cases.length < count) {
    const axis = [rand() - 0.5, rand() - 0.5, rand() - 0.5];
    const norm = Math.hypot(axis[0], axis[1], axis[2]);
    const angle = rand() * turn;
    const s = Math.sin(angle / 2) / norm;
    pose.orientation.set([axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)]);
    for (let k = 0; k < 3; k++)
      pose.position[k] = platform.home.position[k] + shift * platform.size * (2 * rand() - 1);
    const lengths = new Float64Array(6);
    if (!stewartInverseKinematics(platform, pose, lengths)) continue;
    cases.push({ lengths, position: pose.position.slice(), orientation: pose.orientation.slice() });
  }
  return cases;
}

export interface Comparison {
  count: number;
  /** Forward kinematics and the Newton reference from the same start agree to {@link AGREE} of the size. */
  agree: number;
  /** Forward kinematics found the pose the lengths were made from (rather than another assembly). */
  recovered: number;
  converged: number;
  referenceConverged: number;
  meanError: number;
  maxError: number;
  meanIterations: number;
  maxIterations: number;
  /** Largest |leg length − given length| of a converged result, as a fraction of the size. */
  maxLegResidual: number;
  /** Mean time of one forward-kinematics solve (µs). */
  us: number;
}

/** Solves every case from the platform's home, with the plugin and with the reference, and compares. */
export function compareWithNewton(
  platform: StewartPlatform,
  cases: readonly StewartCase[],
  options?: PlatformSolveOptions,
): Comparison {
  const out: Comparison = {
    count: cases.length,
    agree: 0,
    recovered: 0,
    converged: 0,
    referenceConverged: 0,
    meanError: 0,
    maxError: 0,
    meanIterations: 0,
    maxIterations: 0,
    maxLegResidual: 0,
    us: 0,
  };
  const home = platform.home;
  const homeMatrix = matFromQuat(home.orientation);
  const pose = createPlatformPose();
  const size = platform.size;
  let time = 0;
  for (const c of cases) {
    pose.position.set(home.position);
    pose.orientation.set(home.orientation);
    const t0 = performance.now();
    const report = stewartForwardKinematics(platform, c.lengths, pose, options);
    time += performance.now() - t0;
    const ours = matFromQuat(pose.orientation);
    if (report.converged) {
      out.converged++;
      const legs = lengthsOf(platform.baseAnchors, platform.platformAnchors, pose.position, ours);
      for (let i = 0; i < 6; i++)
        out.maxLegResidual = Math.max(out.maxLegResidual, Math.abs(legs[i] - c.lengths[i]) / size);
    }
    out.meanIterations += report.iterations / cases.length;
    out.maxIterations = Math.max(out.maxIterations, report.iterations);
    const reference = newtonForward(
      platform.baseAnchors,
      platform.platformAnchors,
      c.lengths,
      home.position,
      homeMatrix,
      1e-13 * size,
    );
    if (reference.converged) out.referenceConverged++;
    const error = poseError(pose.position, ours, reference.t, reference.r, size);
    out.meanError += error / cases.length;
    out.maxError = Math.max(out.maxError, error);
    if (error <= AGREE) out.agree++;
    if (poseError(pose.position, ours, c.position, matFromQuat(c.orientation), size) <= AGREE)
      out.recovered++;
  }
  out.us = (1000 * time) / cases.length;
  return out;
}
