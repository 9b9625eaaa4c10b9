import { bench, describe } from "vitest";
import { createPose, solvePlan } from "../../plugin/index.js";
import {
  UR5,
  PUMA_560,
  buildKnown,
  goalCase,
  kindLabel,
  planFor,
  random,
  randomCases,
  randomValues,
  type DHCase,
  type RandomArmKind,
} from "../rig/dhArms.js";
import { formatTable, machineName, median } from "./harness.js";

// Robot arms from DH tables (issue 20): random arms of each kind, one goal each from random in-range joint
// values, solved from the home pose at default settings but for a tolerance of 1e-3 of the arm's reach;
// beside it plain FABRIK (no limits: the base, rails and tool turn freely too) on the same rig and targets.
const COUNT = 200;
const ROUNDS = 3;
const QUARTER = Math.PI / 2;

const sets: { label: string; cases: DHCase[] }[] = [];
for (const planar of [true, false])
  for (const joints of [2, 3, 4, 6, 8, 10]) {
    const kind: RandomArmKind = { joints, range: QUARTER, planar };
    sets.push({ label: kindLabel(kind), cases: randomCases(kind, COUNT, 1000 + joints + (planar ? 0 : 50)) });
  }
for (const kind of [
  { joints: 4, range: (5 * Math.PI) / 6, planar: false },
  { joints: 6, range: (5 * Math.PI) / 6, planar: false },
  { joints: 6, range: QUARTER, planar: false, offsets: true },
  { joints: 6, range: QUARTER, planar: false, offsets: true, prismatic: true },
  { joints: 6, range: QUARTER, planar: false, convention: "modified" },
] satisfies RandomArmKind[])
  sets.push({ label: kindLabel(kind), cases: randomCases(kind, COUNT, 2000 + kind.joints) });
for (const known of [UR5, PUMA_560])
  for (const oriented of [false, true]) {
    const arm = buildKnown(known);
    const rand = random(77);
    sets.push({
      label: `${known.name}${oriented ? ", tool orientation too" : ""}`,
      cases: Array.from({ length: COUNT }, () => goalCase(arm, randomValues(arm, rand), oriented)),
    });
  }

interface Row {
  solved: number;
  meanError: number;
  meanIterations: number;
  us: number;
}

function run(cases: readonly DHCase[], limited: boolean): Row {
  const plans = cases.map((c) => planFor(c.arm, c.oriented, limited));
  const poses = cases.map((c) => createPose(c.arm.rig));
  const times: number[] = [];
  let solved = 0,
    error = 0,
    iterations = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let time = 0;
    solved = error = iterations = 0;
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i];
      poses[i].positions.set(c.arm.rig.restPositions);
      poses[i].orientations.set(c.arm.rig.restOrientations);
      const t0 = performance.now();
      const report = solvePlan(plans[i], poses[i], c.targets, { tolerance: 1e-3 * c.arm.reach });
      time += performance.now() - t0;
      const relative = report.maxResidual / c.arm.reach;
      if (relative <= 1e-3) solved++;
      error += relative;
      iterations += report.iterations;
    }
    times.push((1000 * time) / cases.length);
  }
  return {
    solved,
    meanError: error / cases.length,
    meanIterations: iterations / cases.length,
    us: median(times),
  };
}

const rows = sets.map(({ label, cases }) => {
  const ours = run(cases, true);
  const plain = run(cases, false);
  return [
    label,
    `${ours.solved}/${cases.length} (${((100 * ours.solved) / cases.length).toFixed(1)} %)`,
    ours.meanError.toExponential(2),
    ours.meanIterations.toFixed(2),
    ours.us.toFixed(1),
    `${plain.solved}/${cases.length}, ${plain.meanIterations.toFixed(2)}, ${plain.us.toFixed(1)}`,
  ];
});
const barCases = sets.slice(0, 12);
const bar = barCases.reduce(
  (acc, s) => {
    const r = run(s.cases, true);
    return { solved: acc.solved + r.solved, count: acc.count + s.cases.length };
  },
  { solved: 0, count: 0 },
);
process.stdout.write(
  `\nmachine: ${machineName()}\nDH arms: ${COUNT} goals per row from random in-range joint values, from home, ` +
    `tolerance 1e-3 x reach, default iteration cap\n` +
    formatTable(
      [
        "arms",
        "solved",
        "mean error (of reach)",
        "mean iterations",
        "µs / solve",
        "plain FABRIK, no limits: solved, iterations, µs",
      ],
      rows,
    ) +
    `\nbar (random arms, planar and non-planar, 2–10 joints, ±90°): ${bar.solved}/${bar.count} ` +
    `(${((100 * bar.solved) / bar.count).toFixed(2)} %) ${bar.solved >= 0.999 * bar.count ? "MET" : "NOT MET (99.9 %)"}\n\n`,
);

describe("DH arms", () => {
  const ur5 = sets.find((s) => s.label === "UR5, tool orientation too")!;
  bench("UR5, tool position and orientation, one pass over the goals", () => void run(ur5.cases, true), {
    time: 0,
    iterations: 1,
  });
});
