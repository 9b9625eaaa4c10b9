// Temporal stability measurement shared by stability.test.ts and the stability bench (not a test file):
// a target on a smooth closed path, and how far each joint turns from one frame to the next.
import {
  compilePlan,
  createJointLimits,
  createPose,
  setJointLimit,
  solvePlan,
  type JointLimits,
  type Rig,
  type SolveSettings,
} from "../../plugin/index.js";
import { hand, limitedHumanoidArm, straightChain } from "../solver/fixtures.js";

/** One of the counts a run reports. */
export interface StabilityCounts {
  frames: number;
  /** Joint-frames where a joint's local rotation changed by more than `JUMP` since the previous frame. */
  jumps: number;
  /** Joint-frames where it changed by more than `FLIP`: a half-turn flip, up to one frame's motion. */
  flips: number;
  /** Largest per-frame change of any joint, radians. */
  largest: number;
  /** Frames whose effectors ended within tolerance. */
  converged: number;
}

export const JUMP = (10 * Math.PI) / 180;
export const FLIP = (150 * Math.PI) / 180;

/**
 * A Lissajous curve through `center` with per-axis amplitudes, frequencies 3, 2 and 5 over `frames` frames
 * (so it closes), phase-shifted by `phase`: smooth, self-crossing, every direction of motion.
 */
export function lissajous(
  center: readonly [number, number, number],
  amplitude: readonly [number, number, number],
  frames: number,
  frame: number,
  out: Float64Array,
  offset = 0,
  phase = 0,
): void {
  const t = (2 * Math.PI * frame) / frames;
  out[offset] = center[0] + amplitude[0] * Math.sin(3 * t + phase);
  out[offset + 1] = center[1] + amplitude[1] * Math.sin(2 * t + 0.5 + phase);
  out[offset + 2] = center[2] + amplitude[2] * Math.sin(5 * t + 1 + phase);
}

/** Angle (radians) between two unit quaternions at `a[ao]` and `b[bo]`, exact for small angles. */
export function turnBetween(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): number {
  // Relative rotation r = a⁻¹ b; its angle is 2 atan2(|r.xyz|, |r.w|).
  const ax = -a[ao],
    ay = -a[ao + 1],
    az = -a[ao + 2],
    aw = a[ao + 3];
  const bx = b[bo],
    by = b[bo + 1],
    bz = b[bo + 2],
    bw = b[bo + 3];
  const x = aw * bx + ax * bw + ay * bz - az * by,
    y = aw * by - ax * bz + ay * bw + az * bx,
    z = aw * bz + ax * by - ay * bx + az * bw,
    w = aw * bw - ax * bx - ay * by - az * bz;
  return 2 * Math.atan2(Math.hypot(x, y, z), Math.abs(w));
}

/**
 * Counts jumps and flips frame after frame from local rotations (4 per joint) handed to {@link record}.
 * The first recorded frame only sets the reference.
 */
export class StabilityCounter {
  readonly counts: StabilityCounts = { frames: 0, jumps: 0, flips: 0, largest: 0, converged: 0 };
  private _previous: Float64Array | null = null;

  record(locals: Float64Array, converged: boolean): void {
    const previous = this._previous;
    if (previous !== null) {
      const c = this.counts;
      c.frames++;
      if (converged) c.converged++;
      for (let o = 0; o < locals.length; o += 4) {
        const turn = turnBetween(previous, o, locals, o);
        if (turn > JUMP) c.jumps++;
        if (turn > FLIP) c.flips++;
        if (turn > c.largest) c.largest = turn;
      }
      previous.set(locals);
    } else {
      this._previous = locals.slice();
    }
  }
}

/** Local rotations (parent⁻¹ · joint) of a model-space pose's orientations, into `out`. */
export function localRotations(
  parents: Int32Array,
  orientations: Float64Array,
  out: Float64Array,
): Float64Array {
  for (let j = 0; j < parents.length; j++) {
    const p = parents[j];
    const j4 = 4 * j;
    if (p < 0) {
      for (let i = 0; i < 4; i++) out[j4 + i] = orientations[j4 + i];
      continue;
    }
    const p4 = 4 * p;
    const ax = -orientations[p4],
      ay = -orientations[p4 + 1],
      az = -orientations[p4 + 2],
      aw = orientations[p4 + 3];
    const bx = orientations[j4],
      by = orientations[j4 + 1],
      bz = orientations[j4 + 2],
      bw = orientations[j4 + 3];
    out[j4] = aw * bx + ax * bw + ay * bz - az * by;
    out[j4 + 1] = aw * by - ax * bz + ay * bw + az * bx;
    out[j4 + 2] = aw * bz + ax * by - ay * bx + az * bw;
    out[j4 + 3] = aw * bw - ax * bx - ay * by - az * bz;
  }
  return out;
}

export function formatCounts(c: StabilityCounts): string {
  return (
    `${c.jumps} joint-frames over 10°, ${c.flips} flips over 150°, largest ${((c.largest * 180) / Math.PI).toFixed(2)}°, ` +
    `${c.converged}/${c.frames} frames converged`
  );
}

export const FRAMES = 1000;

export interface Scenario {
  readonly name: string;
  readonly rig: Rig;
  readonly limits?: JointLimits;
  readonly effectors: { joint: number | string; chainLength?: number }[];
  /** Path center and amplitudes per effector (phase-shifted copies of one curve). */
  readonly center: readonly [number, number, number];
  readonly amplitude: readonly [number, number, number];
  readonly tolerance: number;
}

/** The humanoid arm of the limit tests: shoulder cone, elbow hinge, wrist cone (T-pose along +X). */
const limitedArm = limitedHumanoidArm;

/** A straight 10-bone chain with a 1-rad cone and ±0.6 rad twist on every joint (the limits bench's chain). */
function limitedChain(): { rig: Rig; limits: JointLimits } {
  const rig = straightChain(10);
  const limits = createJointLimits(rig);
  for (let j = 0; j < 10; j++)
    setJointLimit(limits, j, {
      swing: { up: 1, right: 1, down: 1, left: 1 },
      twist: { min: -0.6, max: 0.6 },
    });
  return { rig, limits };
}

const arm = limitedArm();
const chain = limitedChain();
export const SCENARIOS: readonly Scenario[] = [
  {
    name: "10-bone chain, free",
    rig: straightChain(10),
    effectors: [{ joint: 10 }],
    center: [0, 5, 0],
    amplitude: [3, 2.5, 3],
    tolerance: 1e-2,
  },
  {
    name: "10-bone chain, 1-rad cones and ±0.6 rad twist on every joint",
    rig: chain.rig,
    limits: chain.limits,
    effectors: [{ joint: 10 }],
    center: [0, 8, 0],
    amplitude: [2, 1, 2],
    tolerance: 1e-2,
  },
  {
    name: "humanoid arm: shoulder cone, elbow hinge, wrist cone",
    rig: arm.rig,
    limits: arm.limits,
    effectors: [{ joint: "fingertips", chainLength: 4 }],
    // In front of the shoulder, at most 0.57 from it (the arm reaches 0.70).
    center: [0.5, 1.35, 0.25],
    amplitude: [0.08, 0.1, 0.08],
    tolerance: 1e-3,
  },
  // At and beyond full reach the elbow is straight on its hinge limit, where the plane it bends in is
  // undefined: the shoulder used to roll by up to its whole twist range (137°) between frames there.
  {
    name: "humanoid arm reaching out to the side, mostly out of reach",
    rig: arm.rig,
    limits: arm.limits,
    effectors: [{ joint: "fingertips", chainLength: 4 }],
    // 0.68 to 0.91 from the shoulder.
    center: [0.95, 1.45, 0.1],
    amplitude: [0.1, 0.15, 0.15],
    tolerance: 1e-3,
  },
  {
    name: "humanoid arm at full reach to the side, in and out of reach",
    rig: arm.rig,
    limits: arm.limits,
    effectors: [{ joint: "fingertips", chainLength: 4 }],
    // 0.63 to 0.77 from the shoulder: the elbow straightens and bends again, half of the frames each.
    center: [0.85, 1.45, 0.05],
    amplitude: [0.05, 0.2, 0.2],
    tolerance: 1e-3,
  },
  {
    name: "humanoid arm reaching down, mostly out of reach",
    rig: arm.rig,
    limits: arm.limits,
    effectors: [{ joint: "fingertips", chainLength: 4 }],
    // 0.68 to 0.87 from the shoulder.
    center: [0.25, 0.7, 0.1],
    amplitude: [0.12, 0.08, 0.15],
    tolerance: 1e-3,
  },
  {
    name: "humanoid arm reaching far in front, out of reach",
    rig: arm.rig,
    limits: arm.limits,
    effectors: [{ joint: "fingertips", chainLength: 4 }],
    // 0.82 to 1.11 from the shoulder: the arm follows the target's direction, held straight.
    center: [0.5, 1.45, 0.9],
    amplitude: [0.15, 0.15, 0.1],
    tolerance: 1e-3,
  },
  {
    name: "hand: five fingertips meeting at the palm",
    rig: hand(),
    effectors: ["thumb3", "index3", "middle3", "ring3", "pinky3"].map((joint) => ({ joint })),
    center: [0, 3.6, 0.15],
    amplitude: [0.2, 0.15, 0.2],
    tolerance: 1e-3,
  },
];

/** Runs a scenario for FRAMES frames from its first target's converged pose; returns the counts. */
export function runScenario(s: Scenario): StabilityCounts {
  const plan = compilePlan(s.rig, { effectors: s.effectors, limits: s.limits });
  const m = plan.effectorCount;
  const pose = createPose(s.rig);
  const targets = new Float64Array(3 * m);
  const aim = (frame: number) => {
    for (let e = 0; e < m; e++) {
      // Several effectors: the same curve around each one's rest position, phase-shifted.
      const j = plan.effectorJoints[e];
      const c: [number, number, number] =
        m === 1
          ? [s.center[0], s.center[1], s.center[2]]
          : [
              s.rig.restPositions[3 * j] + s.center[0],
              s.rig.restPositions[3 * j + 1] + s.center[1] - 3.6,
              s.rig.restPositions[3 * j + 2] + s.center[2],
            ];
      lissajous(c, s.amplitude, FRAMES, frame, targets, 3 * e, e * 0.15);
    }
  };
  const settings: SolveSettings = { tolerance: s.tolerance, maxIterations: 20 };
  // Settle on the start of the path first: the jump from rest to it is not under test.
  aim(0);
  solvePlan(plan, pose, targets, { tolerance: s.tolerance, maxIterations: 500 });
  const counter = new StabilityCounter();
  const locals = new Float64Array(4 * s.rig.jointCount);
  counter.record(localRotations(s.rig.parents, pose.orientations, locals), true);
  for (let frame = 1; frame <= FRAMES; frame++) {
    aim(frame);
    const report = solvePlan(plan, pose, targets, settings);
    counter.record(localRotations(s.rig.parents, pose.orientations, locals), report.converged);
  }
  return counter.counts;
}
