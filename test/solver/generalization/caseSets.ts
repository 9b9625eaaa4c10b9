// The generalization suite's case sets, with their sizes and seeds in one place: the test asserts the
// issue's bars on them and the bench prints what it measures on the same cases.
import type { IkCase } from "./ikCase.js";
import { nearLineCases } from "./nearLine.js";
import { flipReproducer, foldedChainCases, nearLineReproducer, planarArmReproducer } from "./reproducers.js";
import { fixedPlanarArmCases, randomPlanarArmCases, twistedArmCases } from "./revoluteArms.js";
import { loweredHipsLeg, tPoseArmCases, tPoseArmReproducer } from "./straightLimbs.js";

export interface CaseSet {
  readonly name: string;
  /** No joint limits: plain FABRIK applies and runs beside the solver. */
  readonly unlimited: boolean;
  readonly cases: () => IkCase[];
}

const HALF_PI = Math.PI / 2;
/** The wider hinge range of the second set of twisted arms: ±150°. */
export const WIDE_RANGE = (5 * Math.PI) / 6;

export const PLANAR_3 = "planar 3-hinge (4,4,4) ±90°";
export const TWISTED_2 = "twisted 2-link ±90°";

export const CASE_SETS: readonly CaseSet[] = [
  { name: PLANAR_3, unlimited: false, cases: () => fixedPlanarArmCases([4, 4, 4], 1000, 1801) },
  { name: "planar 6-hinge ±90°", unlimited: false, cases: () => randomPlanarArmCases(6, 1000, 1806) },
  { name: "planar 8-hinge ±90°", unlimited: false, cases: () => randomPlanarArmCases(8, 1000, 1808) },
  { name: "planar 10-hinge ±90°", unlimited: false, cases: () => randomPlanarArmCases(10, 1000, 1810) },
  { name: TWISTED_2, unlimited: false, cases: () => twistedArmCases(2, HALF_PI, 100, 1822) },
  { name: "twisted 3-link ±90°", unlimited: false, cases: () => twistedArmCases(3, HALF_PI, 100, 1823) },
  { name: "twisted 4-link ±90°", unlimited: false, cases: () => twistedArmCases(4, HALF_PI, 100, 1824) },
  { name: "twisted 6-link ±90°", unlimited: false, cases: () => twistedArmCases(6, HALF_PI, 100, 1826) },
  { name: "twisted 2-link ±150°", unlimited: false, cases: () => twistedArmCases(2, WIDE_RANGE, 100, 1842) },
  { name: "twisted 4-link ±150°", unlimited: false, cases: () => twistedArmCases(4, WIDE_RANGE, 100, 1844) },
  {
    name: "near-line, tol 0.01, 1000 it",
    unlimited: true,
    cases: () => nearLineCases(1811, { tolerance: 0.01, maxIterations: 1000 }),
  },
  {
    name: "near-line, tol 0.01, default it",
    unlimited: true,
    cases: () => nearLineCases(1811, { tolerance: 0.01 }),
  },
  { name: "T-pose arm, 500 random, default", unlimited: false, cases: () => tPoseArmCases(500, 1804) },
  {
    name: "leg, hips −10 cm, knee 0–45°",
    unlimited: false,
    cases: () => [0, 5, 15, 25, 35, 45].map(loweredHipsLeg),
  },
  { name: "folded chains (flips)", unlimited: true, cases: () => foldedChainCases(1805) },
  {
    name: "reproducers 1, 3, 4, 5",
    unlimited: false,
    cases: () => [
      nearLineReproducer(),
      planarArmReproducer(),
      tPoseArmReproducer(),
      loweredHipsLeg(0),
      flipReproducer(),
    ],
  },
];

export function caseSet(name: string): CaseSet {
  const set = CASE_SETS.find((s) => s.name === name);
  if (set === undefined) throw new Error(`no case set named ${name}`);
  return set;
}
