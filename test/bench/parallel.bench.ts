import { bench, describe } from "vitest";
import {
  createDeltaRobot,
  createPlatformPose,
  deltaForwardKinematics,
  deltaInverseKinematics,
  stewartForwardKinematics,
  stewartInverseKinematics,
} from "../../plugin/index.js";
import { classicPlatform, compareWithNewton, randomCases, type StewartCase } from "../rig/stewartCases.js";
import { DELTA, trilaterate } from "../rig/deltaReference.js";
import { matFromQuat, newtonForward, random } from "../rig/stewartReference.js";
import { allocationPerCall, formatTable, machineName, median } from "./harness.js";

// Parallel mechanisms (issue 20): Stewart–Gough forward kinematics by FABRIK passes against an independent
// Newton solver on the closure equations, over random in-range actuations (leg lengths from random reachable
// poses), every solve from the platform's home at default settings. Beside it in the same run: plain passes
// (no mixing) and the Newton reference's own time.
const COUNT = 2000;
const ROUNDS = 3;

const platform = classicPlatform();
const sets: { label: string; cases: StewartCase[] }[] = [
  { label: "±0.4 size, ≤ 20°", cases: randomCases(platform, COUNT, 101, 0.4, (20 * Math.PI) / 180) },
  { label: "±0.75 size, ≤ 40°", cases: randomCases(platform, COUNT, 102) },
  { label: "±1 size, ≤ 60°", cases: randomCases(platform, COUNT, 103, 1, Math.PI / 3) },
];

function newtonMicroseconds(cases: readonly StewartCase[]): { us: number; iterations: number } {
  const home = matFromQuat(platform.home.orientation);
  const t0 = performance.now();
  let iterations = 0;
  for (const c of cases) {
    const r = newtonForward(
      platform.baseAnchors,
      platform.platformAnchors,
      c.lengths,
      platform.home.position,
      home,
      1e-10 * platform.size,
    );
    iterations += r.iterations;
  }
  return { us: (1000 * (performance.now() - t0)) / cases.length, iterations: iterations / cases.length };
}

const pct = (n: number, of: number) => `${n}/${of} (${((100 * n) / of).toFixed(2)} %)`;
let agreeAll = 0,
  countAll = 0;
const rows = sets.map(({ label, cases }) => {
  const runs = Array.from({ length: ROUNDS }, () => compareWithNewton(platform, cases));
  const ours = runs[0];
  const plain = compareWithNewton(platform, cases, { accelerate: false });
  const newton = Array.from({ length: ROUNDS }, () => newtonMicroseconds(cases));
  agreeAll += ours.agree;
  countAll += ours.count;
  return [
    label,
    pct(ours.agree, ours.count),
    pct(ours.recovered, ours.count),
    `${ours.meanError.toExponential(1)} / ${ours.maxError.toExponential(1)}`,
    ours.maxLegResidual.toExponential(1),
    `${ours.meanIterations.toFixed(1)} / ${ours.maxIterations}`,
    median(runs.map((r) => r.us)).toFixed(1),
    `${pct(plain.converged, plain.count)}, ${plain.meanIterations.toFixed(0)}, ${plain.us.toFixed(1)}`,
    `${newton[0].iterations.toFixed(1)}, ${median(newton.map((n) => n.us)).toFixed(1)}`,
  ];
});

// Following a moving platform: each frame's lengths solved from the last frame's pose.
const follow = (() => {
  const lengths = new Float64Array(6);
  const target = createPlatformPose();
  const pose = createPlatformPose(platform.home.position, platform.home.orientation);
  let iterations = 0,
    time = 0;
  const frames = 2000;
  for (let frame = 0; frame < frames; frame++) {
    const t = frame / 60;
    target.position.set([
      0.2 * Math.sin(t),
      0.15 * Math.cos(1.3 * t),
      platform.home.position[2] + 0.1 * Math.sin(2 * t),
    ]);
    const s = Math.sin(0.15 * Math.sin(0.7 * t));
    target.orientation.set([0.6 * s, 0, 0.8 * s, Math.sqrt(1 - s * s)]);
    stewartInverseKinematics(platform, target, lengths);
    const t0 = performance.now();
    iterations += stewartForwardKinematics(platform, lengths, pose).iterations;
    time += performance.now() - t0;
  }
  return { iterations: iterations / frames, us: (1000 * time) / frames };
})();

const ikUs = (() => {
  const lengths = new Float64Array(6);
  const poses = sets[1].cases.map((c) => ({ position: c.position, orientation: c.orientation }));
  const t0 = performance.now();
  for (let round = 0; round < 50; round++)
    for (const p of poses) stewartInverseKinematics(platform, p, lengths);
  return (1000 * (performance.now() - t0)) / (50 * poses.length);
})();

const c0 = sets[1].cases[0];
const allocationPose = createPlatformPose();
const allocation = await allocationPerCall(() => {
  allocationPose.position.set(platform.home.position);
  allocationPose.orientation.set(platform.home.orientation);
  stewartForwardKinematics(platform, c0.lengths, allocationPose);
}, 20000);

// Delta robot: random reachable positions → motor angles (inverse kinematics), then forward kinematics
// from home against the closed-form intersection of the three forearm spheres.
const delta = (() => {
  const robot = createDeltaRobot(DELTA);
  const phis = Array.from(robot.armAngles);
  const rand = random(104);
  const cases: Float64Array[] = [];
  while (cases.length < COUNT) {
    const angles = new Float64Array(3);
    const at = [0.6 * (rand() - 0.5), 0.6 * (rand() - 0.5), robot.home[2] + 0.5 * (rand() - 0.5)];
    if (deltaInverseKinematics(robot, at, angles)) cases.push(angles);
  }
  const position = new Float64Array(3);
  let agree = 0,
    meanError = 0,
    maxError = 0,
    passes = 0,
    most = 0;
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let time = 0;
    agree = meanError = maxError = passes = most = 0;
    for (const angles of cases) {
      position.set(robot.home);
      const t0 = performance.now();
      const report = deltaForwardKinematics(robot, angles, position);
      time += performance.now() - t0;
      passes += report.iterations / COUNT;
      most = Math.max(most, report.iterations);
      const reference = trilaterate(DELTA, phis, angles)!;
      const error =
        Math.hypot(position[0] - reference[0], position[1] - reference[1], position[2] - reference[2]) /
        robot.size;
      meanError += error / COUNT;
      maxError = Math.max(maxError, error);
      if (report.converged && error <= 1e-6) agree++;
    }
    times.push((1000 * time) / COUNT);
  }
  const t0 = performance.now();
  for (const angles of cases) trilaterate(DELTA, phis, angles);
  const referenceUs = (1000 * (performance.now() - t0)) / COUNT;
  const ikAngles = new Float64Array(3);
  const t1 = performance.now();
  for (let round = 0; round < 20; round++)
    for (let i = 0; i < COUNT; i++) deltaInverseKinematics(robot, robot.home, ikAngles);
  const ikUs = (1000 * (performance.now() - t1)) / (20 * COUNT);
  return { agree, meanError, maxError, passes, most, us: median(times), referenceUs, ikUs };
})();

process.stdout.write(
  `\nmachine: ${machineName()}\nStewart platform (classic 6-6: base radius 1, platform radius 0.6 = size, legs ` +
    `0.9–1.6), ${COUNT} random in-range actuations per row, forward kinematics from home, default settings ` +
    `(tolerance 1e-10 x size, cap 500)\n` +
    formatTable(
      [
        "poses (shift, turn)",
        "agree with Newton to 1e-6 size",
        "found the generating pose",
        "pose error vs Newton mean / max (of size)",
        "max leg residual (of size)",
        "passes mean / max",
        "µs / solve",
        "plain passes: converged, mean passes, µs",
        "Newton reference: iterations, µs",
      ],
      rows,
    ) +
    `\nfollowing a moving platform from the last pose: ${follow.iterations.toFixed(1)} passes, ` +
    `${follow.us.toFixed(1)} µs per solve; inverse kinematics ${ikUs.toFixed(2)} µs per pose; ` +
    `forward kinematics allocates ${allocation.bytesPerCall.toFixed(1)} bytes per solve (${allocation.gcRuns} GCs)\n` +
    `\ndelta robot (base radius 0.2, platform radius 0.05, upper arm 0.3, forearm 0.8; size 0.8), ${COUNT} ` +
    `random in-range motor angles, forward kinematics from home:\n` +
    formatTable(
      [
        "agree with trilateration to 1e-6 size",
        "error mean / max (of size)",
        "passes mean / max",
        "µs / solve",
        "trilateration µs",
        "inverse kinematics µs",
      ],
      [
        [
          pct(delta.agree, COUNT),
          `${delta.meanError.toExponential(1)} / ${delta.maxError.toExponential(1)}`,
          `${delta.passes.toFixed(1)} / ${delta.most}`,
          delta.us.toFixed(1),
          delta.referenceUs.toFixed(2),
          delta.ikUs.toFixed(2),
        ],
      ],
    ) +
    `\nbar (≥ 99.9 % of random in-range actuations agree with the reference to 1e-6 of the platform size): ` +
    `${pct(agreeAll, countAll)} ${agreeAll >= 0.999 * countAll ? "MET" : "NOT MET"}\n\n`,
);

describe("Stewart platform", () => {
  bench(
    "forward kinematics from home, one pass over 2000 actuations",
    () => void compareWithNewton(platform, sets[0].cases.slice(0, 200)),
    {
      time: 0,
      iterations: 1,
    },
  );
});
