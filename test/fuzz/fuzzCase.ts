// One fuzz case of the solver, reproducible from its seed (not a test file). A case builds a random rig,
// limits and effector set, solves one to four frames and checks every invariant the solver promises; about
// one case in four also feeds one bad input to one entry point and checks it is refused and changes nothing.
import {
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_TOLERANCE,
  FabrikError,
  compilePlan,
  createJointLimits,
  createPose,
  createRig,
  setEffectorWeight,
  setJointLimit,
  solvePlan,
  type EffectorSpec,
  type JointLimits,
  type Pose,
  type Rig,
  type SolvePlan,
  type SolveSettings,
} from "../../plugin/index.js";
import { random } from "../solver/fixtures.js";
import { conj, deltaOf, limitViolation, mul, rotate, rotationDistance } from "../solver/limitChecks.js";
import {
  boundsSize,
  chance,
  generateEffectors,
  generateLimitSpec,
  generateRig,
  int,
  parentFrameBoneAxis,
  perturbPose,
  pick,
  uniform,
  unitVector,
  type PlainRig,
  type Rand,
} from "./generate.js";
import { LIMIT_FIXED, LIMIT_ROTATION, LIMIT_STRETCH } from "../../plugin/solver/limits.js";

/** Bone lengths and parent-frame offsets hold to this (relative), as the solver promises. */
const LENGTH_TOLERANCE = 1e-9;
/** Limits hold to this many radians. */
const LIMIT_TOLERANCE = 1e-6;
/** Rounding of a coordinate of magnitude m is about m × 2⁻⁵²; differences of positions carry a few of those. */
const ROUNDING = 1e-14;

export interface CaseResult {
  readonly seed: number;
  readonly joints: number;
  readonly effectors: number;
  readonly solves: number;
  /** Bad inputs fed to the API and checked. */
  readonly rejections: number;
  readonly converged: number;
  readonly failures: string[];
  readonly known: KnownIssue[];
}

/**
 * Known issues: broken promises already reported, counted and printed by the fuzz tests but only failing
 * them under FUZZ_STRICT=1, so the suite stays a regression guard for everything else until they are fixed.
 */
export const KNOWN_ISSUES = {
  iterationCap:
    "report.iterations exceeds settings.maxIterations: a limited plain chain runs the plain passes and then " +
    "the oriented ones, each up to the cap (fabrik.ts solveComponent, commit 374576d)",
  halfTurnArc:
    "a joint turned by almost exactly half a turn is off its bone by up to ~1e-16 / (π - angle) rad: the " +
    "shortest arc (v × n, 1 + v·n) loses precision near opposite vectors (chainPasses.ts " +
    "orientChainFromPositions, threshold 1e-12; quaternion.ts quatFromUnitVectors, threshold 1e-12 on 1 + d)",
  reversedBoneTwist:
    "a twist-limited joint (free to swing, or with a cone reaching the reversed direction) solved to turn its " +
    "bone exactly around can end outside its twist limit: projectRotation's swing-twist split is singular " +
    "there (along ≈ 0, w ≈ 0 → twist taken as identity, swing 'toward up'), so projecting is not idempotent " +
    "(jointLimitProjection.ts); 10 in a million cases",
} as const;
export type KnownIssue = keyof typeof KNOWN_ISSUES;

export class Failures {
  readonly list: string[] = [];
  readonly known = new Set<KnownIssue>();
  constructor(readonly seed: number) {}
  add(message: string): void {
    if (this.list.length < 8) this.list.push(`seed ${this.seed}: ${message}`);
  }
  /** A failure of a known issue: recorded by kind; a failure proper under FUZZ_STRICT. */
  addKnown(issue: KnownIssue, message: string): void {
    this.known.add(issue);
    if (process.env.FUZZ_STRICT) this.add(`${message} [known issue: ${issue}]`);
  }
}

/** Flat copies of numeric state, compared bit for bit (NaN equals NaN) to prove a refusal changed nothing. */
function snapshot(...parts: ArrayLike<number>[]): number[] {
  const out: number[] = [];
  for (const part of parts) {
    out.push(part.length);
    for (let i = 0; i < part.length; i++) out.push(part[i]);
  }
  return out;
}

function sameSnapshot(a: number[], b: number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

function limitsState(limits: JointLimits): () => string {
  return () =>
    JSON.stringify([
      snapshot(
        limits.flags,
        limits.restLocal,
        limits.boneAxis,
        limits.upAxis,
        limits.rightAxis,
        limits.swing,
        limits.swingCosMin,
        limits.twist,
        limits.hinge,
        limits.stretch,
        limits.hingeAxis,
      ),
      limits.specs,
    ]);
}

interface Expected {
  /** The `option` field of the error, exactly. */
  readonly option?: string;
  /** The `joint` field of the error, when the fault is one joint's. */
  readonly joint?: number;
  readonly message: RegExp;
}

/**
 * Calls `call`, which must throw a FabrikError matching `expected`; `state` must read the same before and
 * after (the refusal changed nothing).
 */
export function expectRefusal(
  failures: Failures,
  label: string,
  call: () => unknown,
  expected: Expected,
  state: () => string,
): void {
  const before = state();
  try {
    call();
    failures.add(`${label}: accepted, expected a FabrikError matching ${expected.message}`);
  } catch (error) {
    if (!(error instanceof FabrikError) || error.name !== "FabrikError") {
      failures.add(`${label}: threw ${String(error)} instead of a FabrikError`);
    } else {
      if (!expected.message.test(error.message))
        failures.add(`${label}: message "${error.message}" does not match ${expected.message}`);
      if (expected.option !== undefined && error.option !== expected.option)
        failures.add(`${label}: option ${String(error.option)}, expected ${expected.option}`);
      if (expected.joint !== undefined && error.joint !== expected.joint)
        failures.add(`${label}: joint ${String(error.joint)}, expected ${expected.joint}`);
    }
  }
  if (state() !== before) failures.add(`${label}: the refusal changed state`);
}

const copyRig = (d: PlainRig): PlainRig => structuredClone(d);

/** `joint 3` or `joint 3 ("j3")`, as the solver names joints. */
function jointPattern(j: number): string {
  return `joint ${j}( \\("[^"]*"\\))?`;
}

/** One bad rig description, made from a good one; returns what createRig must say. */
function rigFault(rand: Rand, good: PlainRig): { bad: PlainRig; expected: Expected; label: string } {
  const bad = copyRig(good);
  const n = good.parents.length;
  const j = int(rand, 0, n - 1);
  const kinds = [
    "parentAfter",
    "parentFraction",
    "parentBelow",
    "positionsLength",
    "positionNaN",
    "positionString",
  ];
  if (n > 0) kinds.push("empty");
  if (good.restOrientations) kinds.push("orientationsLength", "orientationScale", "orientationNaN");
  if (good.names) kinds.push("namesLength", "nameNotString");
  const kind = pick(rand, kinds);
  switch (kind) {
    case "empty":
      bad.parents = [];
      return {
        bad,
        label: "rig: parents empty",
        expected: { option: "parents", message: /`parents` is empty/ },
      };
    case "parentAfter":
    case "parentFraction":
    case "parentBelow": {
      const value = kind === "parentAfter" ? j + int(rand, 0, 3) : kind === "parentFraction" ? 0.5 : -2;
      bad.parents[j] = value;
      // A root at 0 given parent 0.5 is caught at joint 0; otherwise at j.
      return {
        bad,
        label: `rig: ${kind} at joint ${j}`,
        expected: {
          option: "parents",
          joint: j,
          message: new RegExp(`^rig: ${jointPattern(j)} has parent ${value}; a parent must be -1`),
        },
      };
    }
    case "positionsLength":
      bad.restPositions = bad.restPositions.slice(0, 3 * n - int(rand, 1, 3));
      return {
        bad,
        label: "rig: restPositions too short",
        expected: { option: "restPositions", message: /`restPositions` must hold 3 numbers per joint/ },
      };
    case "positionNaN":
    case "positionString": {
      const value = kind === "positionNaN" ? pick(rand, [NaN, Infinity, -Infinity]) : "1";
      (bad.restPositions as unknown[])[3 * j + int(rand, 0, 2)] = value;
      return {
        bad,
        label: `rig: rest position ${String(value)} at joint ${j}`,
        expected: {
          option: "restPositions",
          joint: j,
          message: new RegExp(`^rig: rest position of ${jointPattern(j)} is not finite`),
        },
      };
    }
    case "orientationsLength":
      bad.restOrientations = bad.restOrientations!.slice(1);
      return {
        bad,
        label: "rig: restOrientations too short",
        expected: { option: "restOrientations", message: /`restOrientations` must hold 4 numbers per joint/ },
      };
    case "orientationScale":
    case "orientationNaN": {
      const o = bad.restOrientations!;
      if (kind === "orientationNaN") o[4 * j + int(rand, 0, 3)] = NaN;
      else {
        const s = pick(rand, [0, 0.5, 1.01, 2]);
        for (let i = 0; i < 4; i++) o[4 * j + i] *= s;
      }
      return {
        bad,
        label: `rig: ${kind} at joint ${j}`,
        expected: {
          option: "restOrientations",
          joint: j,
          message: new RegExp(`^rig: rest orientation of ${jointPattern(j)} is not a unit quaternion`),
        },
      };
    }
    case "namesLength":
      bad.names = chance(rand, 0.5) ? bad.names!.slice(1) : [...bad.names!, "extra"];
      return {
        bad,
        label: "rig: names of the wrong length",
        expected: { option: "names", message: /`names` must hold one name per joint/ },
      };
    default:
      (bad.names as unknown[])[j] = pick(rand, [3, null, undefined]);
      return {
        bad,
        label: `rig: name of joint ${j} not a string`,
        expected: {
          option: "names",
          joint: j,
          message: new RegExp(`^rig: name of joint ${j} is not a string`),
        },
      };
  }
}

/** One bad limit call on a good rig; returns the call and what it must say. */
function limitFault(
  rand: Rand,
  rig: Rig,
  limits: JointLimits,
): { call: () => void; expected: Expected; label: string } {
  const n = rig.jointCount;
  const j = int(rand, 0, n - 1);
  const who = `limits of ${jointPattern(j)}`;
  const set = (spec: unknown) => () => setJointLimit(limits, j, spec as never);
  const at = (message: string, option?: string): Expected => ({
    joint: j,
    option,
    message: new RegExp(`^${who}: ${message}`),
  });
  const kinds = [
    "jointOut",
    "notObject",
    "fixedNotBoolean",
    "fixedAndSwing",
    "hingeAndSwing",
    "swingAngle",
    "upAxisZero",
    "upAxisShape",
    "twistOrder",
    "twistRange",
    "hingeAxisZero",
    "stretchNegative",
    "stretchOrder",
    "upAxisAlongBone",
  ];
  if (rig.parents[j] < 0) kinds.push("stretchRoot");
  const kind = pick(rand, kinds);
  const swing = { up: 1, right: 1, down: 1, left: 1 };
  switch (kind) {
    case "jointOut": {
      const bad = pick(rand, [n, -1, 0.5, n + 100]);
      return {
        label: `limits: joint ${bad}`,
        call: () => setJointLimit(limits, bad, { fixed: true }),
        expected: { option: "joint", message: /^limits: joint index .* is outside the rig/ },
      };
    }
    case "notObject":
      return {
        label: "limits: spec null",
        call: set(pick(rand, [null, 3, "fixed"])),
        expected: at("must be an object", "limits"),
      };
    case "fixedNotBoolean":
      return {
        label: "limits: fixed 1",
        call: set({ fixed: 1 }),
        expected: at("fixed must be true or false", "fixed"),
      };
    case "fixedAndSwing":
      return {
        label: "limits: fixed + swing",
        call: set({ fixed: true, swing }),
        expected: at("a fixed joint cannot also have swing, twist or hinge limits", "fixed"),
      };
    case "hingeAndSwing":
      return {
        label: "limits: hinge + twist",
        call: set({ hinge: { axis: [0, 0, 1], min: -1, max: 1 }, twist: { min: 0, max: 0 } }),
        expected: at("a hinge already fixes swing and twist", "hinge"),
      };
    case "swingAngle": {
      const side = pick(rand, ["up", "right", "down", "left"] as const);
      const value = pick(rand, [-0.1, 3.2, NaN, Infinity]);
      return {
        label: `limits: swing.${side} = ${value}`,
        call: set({ swing: { ...swing, [side]: value } }),
        expected: {
          joint: j,
          message: new RegExp(`^${who}: swing\\.${side} must be an angle in \\[0, π\\] radians`),
        },
      };
    }
    case "upAxisZero":
      return {
        label: "limits: upAxis 0",
        call: set({ swing: { ...swing, upAxis: [0, 0, 0] } }),
        expected: at("swing.upAxis has zero length"),
      };
    case "upAxisShape":
      return {
        label: "limits: upAxis [1, 0]",
        call: set({ swing: { ...swing, upAxis: pick(rand, [[1, 0], [NaN, 0, 1], "up"]) } }),
        expected: at("swing.upAxis must be three finite numbers"),
      };
    case "upAxisAlongBone":
      return {
        label: "limits: upAxis along the bone",
        call: set({ swing: { ...swing, upAxis: parentFrameBoneAxis(limits, j) } }),
        expected: at('swing.upAxis is parallel to the bone, so it defines no "up"', "swing.upAxis"),
      };
    case "twistOrder":
      return {
        label: "limits: twist min > max",
        call: set({ twist: { min: 0.5, max: -0.5 } }),
        expected: at("twist is inverted: min 0.5 > max -0.5"),
      };
    case "twistRange":
      return {
        label: "limits: twist.max = 4",
        call: set({ twist: { min: 0, max: 4 } }),
        expected: at("twist.max must be a number in \\[-π, π\\], got 4"),
      };
    case "hingeAxisZero":
      return {
        label: "limits: hinge axis 0",
        call: set({ hinge: { axis: [0, 0, 0], min: 0, max: 1 } }),
        expected: at("hinge.axis has zero length"),
      };
    case "stretchNegative":
      return {
        label: "limits: stretch.min -1",
        call: set({ stretch: { min: -1, max: 1 } }),
        expected: at("stretch.min must be a number in \\[0, Infinity\\], got -1"),
      };
    case "stretchOrder":
      return {
        label: "limits: stretch inverted",
        call: set({ stretch: { min: 2, max: 1 } }),
        expected: at("stretch is inverted: min 2 > max 1"),
      };
    default:
      return {
        label: "limits: stretch on a root",
        call: set({ stretch: { min: 0, max: 1 } }),
        expected: at("a root has no bone to stretch", "stretch"),
      };
  }
}

/** One bad compilePlan call, made from good options; returns the call and what it must say. */
function planFault(
  rand: Rand,
  rig: Rig,
  limits: JointLimits,
  effectors: EffectorSpec[],
  pinned: number[],
): { call: () => unknown; expected: Expected; label: string } | null {
  const n = rig.jointCount;
  const roots: number[] = [];
  for (let j = 0; j < n; j++) if (rig.parents[j] < 0) roots.push(j);
  const m = effectors.length;
  const e = m > 0 ? int(rand, 0, m - 1) : 0;
  const withEffector = (spec: unknown) => () =>
    compilePlan(rig, {
      effectors: effectors.map((s, i) => (i === e ? (spec as EffectorSpec) : s)),
      pinned,
      limits,
    });
  const joint = (spec: EffectorSpec) =>
    typeof spec.joint === "number" ? spec.joint : rig.names!.indexOf(spec.joint);
  const whoE = m > 0 ? `^effector ${e} \\(${jointPattern(joint(effectors[e]))}\\): ` : "";
  const kinds = ["effectorsNotArray", "pinnedNotArray", "pinnedUnknown", "otherLimits"];
  if (m > 0)
    kinds.push(
      "effectorNull",
      "unknownName",
      "indexOut",
      "root",
      "duplicate",
      "pinnedEffector",
      "chainLength",
      "weight",
      "pole",
    );
  const kind = pick(rand, kinds);
  switch (kind) {
    case "effectorsNotArray":
      return {
        label: "plan: effectors not an array",
        call: () => compilePlan(rig, { effectors: pick(rand, [null, {}, "hand"]) as never }),
        expected: { option: "effectors", message: /^plan: `effectors` must be an array/ },
      };
    case "pinnedNotArray":
      return {
        label: "plan: pinned not an array",
        call: () => compilePlan(rig, { effectors, pinned: 3 as never, limits }),
        expected: { option: "pinned", message: /^plan: `pinned` must be an array/ },
      };
    case "pinnedUnknown":
      return {
        label: "plan: pinned unknown",
        call: () => compilePlan(rig, { effectors, pinned: [pick(rand, [n, -1, "nope"])], limits }),
        expected: {
          option: "pinned",
          message: /^pinned: (joint index .* is outside the rig|no joint named "nope")/,
        },
      };
    case "otherLimits":
      return {
        label: "plan: limits of another rig",
        call: () =>
          compilePlan(rig, {
            effectors,
            limits: createJointLimits(createRig({ parents: [-1], restPositions: [0, 0, 0] })),
          }),
        expected: { option: "limits", message: /^plan: `limits` were created for another rig/ },
      };
    case "effectorNull":
      return {
        label: "plan: effector null",
        call: withEffector(pick(rand, [null, 3, "j1"])),
        expected: { option: "effectors", message: new RegExp(`^effector ${e}: must be an object`) },
      };
    case "unknownName":
      return {
        label: "plan: unknown effector name",
        call: withEffector({ joint: "no such joint" }),
        expected: {
          option: `effector ${e}`,
          message: new RegExp(`^effector ${e}: no joint named "no such joint" in the rig`),
        },
      };
    case "indexOut": {
      const bad = pick(rand, [n, -1, 1.5]);
      return {
        label: `plan: effector index ${bad}`,
        call: withEffector({ joint: bad }),
        expected: {
          option: `effector ${e}`,
          message: new RegExp(`^effector ${e}: joint index ${bad} is outside the rig`),
        },
      };
    }
    case "root": {
      const r = pick(rand, roots);
      if (pinned.includes(r)) return null;
      return {
        label: `plan: effector on root ${r}`,
        call: withEffector({ joint: r }),
        expected: {
          option: "joint",
          joint: r,
          message: new RegExp(
            `^effector ${e} \\(${jointPattern(r)}\\): the joint is a root, which never moves`,
          ),
        },
      };
    }
    case "duplicate": {
      const first = effectors[0];
      const j = joint(first);
      return {
        label: "plan: effector twice",
        call: () => compilePlan(rig, { effectors: [...effectors, { joint: j }], pinned, limits }),
        expected: {
          option: "joint",
          joint: j,
          message: new RegExp(`^effector ${m} \\(${jointPattern(j)}\\): the joint is already effector 0`),
        },
      };
    }
    case "pinnedEffector": {
      const j = joint(effectors[e]);
      return {
        label: "plan: effector pinned",
        call: () => compilePlan(rig, { effectors, pinned: [...pinned, j], limits }),
        expected: {
          option: "joint",
          joint: j,
          message: new RegExp(`${whoE}the joint is pinned, so it cannot move toward a target`),
        },
      };
    }
    case "chainLength": {
      const bad = pick(rand, [0, -1, 1.5, NaN, "2"]);
      return {
        label: `plan: chainLength ${String(bad)}`,
        call: withEffector({ ...effectors[e], chainLength: bad }),
        expected: {
          option: "chainLength",
          message: new RegExp(`${whoE}chainLength must be a whole number >= 1`),
        },
      };
    }
    case "weight": {
      const bad = pick(rand, [0, -1, NaN, Infinity, "1"]);
      return {
        label: `plan: weight ${String(bad)}`,
        call: withEffector({ ...effectors[e], weight: bad }),
        expected: { option: "weight", message: new RegExp(`${whoE}weight must be a finite number > 0`) },
      };
    }
    default:
      return {
        label: "plan: pole 'yes'",
        call: withEffector({ ...effectors[e], pole: "yes" }),
        expected: { option: "pole", message: new RegExp(`${whoE}pole must be true or false`) },
      };
  }
}

/** One bad solve call; returns the call and what it must say. The pose, targets and report must not change. */
function solveFault(
  rand: Rand,
  plan: SolvePlan,
  pose: Pose,
  targets: Float64Array,
  settings: SolveSettings,
): { call: () => unknown; expected: Expected; label: string } {
  const n = plan.rig.jointCount;
  const m = plan.effectorCount;
  const solve = (p: unknown, t: unknown, s: unknown) => () =>
    solvePlan(plan, p as Pose, t as Float64Array, s as SolveSettings);
  const kinds = ["pose", "positions", "orientations", "targetsShort", "tolerance", "maxIterations"];
  if (m > 0) kinds.push("targetNaN", "positionNaN", "orientationBad");
  if (Array.from(plan.effectorHasPole).some((h) => h === 1)) kinds.push("polesMissing", "poleNaN");
  const kind = pick(rand, kinds);
  switch (kind) {
    case "pose":
      return {
        label: "solve: pose null",
        call: solve(null, targets, settings),
        expected: { option: "pose", message: /^solve: pose must be \{ positions, orientations \}/ },
      };
    case "positions":
      return {
        label: "solve: positions wrong",
        call: solve(
          {
            positions: pick(rand, [
              new Float64Array(3 * n + 3),
              Array.from(pose.positions),
              new Float32Array(3 * n),
            ]),
            orientations: pose.orientations,
          },
          targets,
          settings,
        ),
        expected: {
          option: "positions",
          message: /^solve: positions must be a Float64Array of 3 numbers per joint/,
        },
      };
    case "orientations":
      return {
        label: "solve: orientations wrong",
        call: solve(
          { positions: pose.positions, orientations: new Float64Array(Math.max(0, 4 * n - 4)) },
          targets,
          settings,
        ),
        expected: {
          option: "orientations",
          message: /^solve: orientations must be a Float64Array of 4 numbers per joint/,
        },
      };
    case "targetsShort":
      return {
        label: "solve: targets short",
        call: solve(pose, m > 0 ? targets.slice(0, 3 * m - 1) : [], settings),
        expected: {
          option: "targets",
          message: /^solve: targets must be a Float64Array of 3 numbers per effector/,
        },
      };
    case "tolerance": {
      const bad = pick(rand, [-1, NaN, Infinity, "0.1"]);
      return {
        label: `solve: tolerance ${String(bad)}`,
        call: solve(pose, targets, { ...settings, tolerance: bad }),
        expected: { option: "tolerance", message: /^solve: tolerance must be a finite number >= 0/ },
      };
    }
    case "maxIterations": {
      const bad = pick(rand, [0, -5, 2.5, NaN, Infinity]);
      return {
        label: `solve: maxIterations ${bad}`,
        call: solve(pose, targets, { ...settings, maxIterations: bad }),
        expected: { option: "maxIterations", message: /^solve: maxIterations must be a whole number >= 1/ },
      };
    }
    case "targetNaN": {
      const e = int(rand, 0, m - 1);
      const bad = targets.slice();
      bad[3 * e + int(rand, 0, 2)] = pick(rand, [NaN, Infinity, -Infinity]);
      const j = plan.effectorJoints[e];
      return {
        label: `solve: target ${e} not finite`,
        call: solve(pose, bad, settings),
        expected: {
          option: "targets",
          joint: j,
          message: new RegExp(`^solve: target of effector ${e} \\(${jointPattern(j)}\\) is not finite`),
        },
      };
    }
    case "positionNaN":
    case "orientationBad": {
      // A joint the solve reads: an active one.
      const j = plan.activeJoints[int(rand, 0, plan.activeJoints.length - 1)];
      const bad = { positions: pose.positions.slice(), orientations: pose.orientations.slice() };
      if (kind === "positionNaN") bad.positions[3 * j + int(rand, 0, 2)] = NaN;
      else for (let i = 0; i < 4; i++) bad.orientations[4 * j + i] *= pick(rand, [0, 1.5, NaN]);
      const what = kind === "positionNaN" ? "position" : "orientation";
      return {
        label: `solve: ${what} of joint ${j} bad`,
        call: solve(bad, targets, settings),
        expected: {
          option: `${what}s`,
          joint: j,
          message: new RegExp(
            `^solve: ${what} of ${jointPattern(j)} is not ${kind === "positionNaN" ? "finite" : "a unit quaternion"}`,
          ),
        },
      };
    }
    case "polesMissing":
      return {
        label: "solve: poles missing",
        call: solve(pose, targets, { ...settings, poles: undefined }),
        expected: {
          option: "poles",
          message: /has a pole, so settings\.poles must hold a finite x y z for it/,
        },
      };
    default: {
      const e = Array.from(plan.effectorHasPole).indexOf(1);
      const poles = new Float64Array(3 * m);
      poles[3 * e] = NaN;
      const j = plan.effectorJoints[e];
      return {
        label: "solve: pole NaN",
        call: solve(pose, targets, { ...settings, poles }),
        expected: {
          option: "poles",
          joint: j,
          message: new RegExp(`^solve: effector ${e} \\(${jointPattern(j)}\\) has a pole`),
        },
      };
    }
  }
}

export interface SolveContext {
  readonly rig: Rig;
  readonly limits: JointLimits;
  readonly plan: SolvePlan;
  readonly scale: number;
}

/** Local rotation of joint j (parent⁻¹ · joint) in a pose. */
function localRotation(rig: Rig, pose: Pose, j: number): number[] {
  const p = rig.parents[j];
  const q = pose.orientations.subarray(4 * j, 4 * j + 4);
  return p >= 0 ? mul(conj(pose.orientations.subarray(4 * p, 4 * p + 4)), q) : Array.from(q);
}

function boneVector(rig: Rig, pose: Pose, j: number): [number, number, number] {
  const p = rig.parents[j];
  const x = pose.positions;
  return [x[3 * j] - x[3 * p], x[3 * j + 1] - x[3 * p + 1], x[3 * j + 2] - x[3 * p + 2]];
}

function magnitude(x: Float64Array, a: number, b: number): number {
  let m = 0;
  for (let i = 0; i < 3; i++) m = Math.max(m, Math.abs(x[3 * a + i]), Math.abs(x[3 * b + i]));
  return m;
}

/** Every promise of a solve, from the pose before (`input`) to the pose after (`output`). */
export function checkSolve(
  failures: Failures,
  context: SolveContext,
  input: Pose,
  output: Pose,
  targets: Float64Array,
  settings: SolveSettings,
  label: string,
): void {
  const { rig, limits, plan } = context;
  const n = rig.jointCount;
  const report = plan.report;
  const tolerance = settings.tolerance ?? DEFAULT_TOLERANCE;
  const maxIterations = settings.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  const fail = (message: string) => failures.add(`${label}: ${message}`);

  for (let i = 0; i < 3 * n; i++)
    if (!Number.isFinite(output.positions[i])) return fail(`position ${i} is ${output.positions[i]}`);
  for (let j = 0; j < n; j++) {
    const q = output.orientations.subarray(4 * j, 4 * j + 4);
    const len = Math.hypot(q[0], q[1], q[2], q[3]);
    if (!(Math.abs(len - 1) <= 1e-9)) return fail(`orientation of joint ${j} has length ${len}`);
  }

  if (!Number.isInteger(report.iterations) || report.iterations < 0 || report.iterations > 2 * maxIterations)
    fail(`report.iterations ${report.iterations} outside [0, 2 × ${maxIterations}]`);
  else if (report.iterations > maxIterations)
    failures.addKnown(
      "iterationCap",
      `${label}: report.iterations ${report.iterations} > maxIterations ${maxIterations}`,
    );
  let max = 0;
  for (let e = 0; e < plan.effectorCount; e++) {
    const j = plan.effectorJoints[e];
    const d = Math.hypot(
      output.positions[3 * j] - targets[3 * e],
      output.positions[3 * j + 1] - targets[3 * e + 1],
      output.positions[3 * j + 2] - targets[3 * e + 2],
    );
    const r = report.residuals[e];
    if (!(Math.abs(r - d) <= 1e-9 * (d + context.scale))) fail(`residual ${e} is ${r}, distance ${d}`);
    max = Math.max(max, r);
  }
  if (!Object.is(report.maxResidual, max) && plan.effectorCount > 0)
    fail(`maxResidual ${report.maxResidual}, max ${max}`);
  if (report.converged !== max <= tolerance)
    fail(`converged ${report.converged} with max residual ${max}, tolerance ${tolerance}`);

  const passive = new Uint8Array(n);
  for (const j of plan.passiveJoints) passive[j] = 1;
  const rotating = new Uint8Array(n);
  for (const j of plan.rotatingJoints) rotating[j] = 1;

  for (let j = 0; j < n; j++) {
    const active = plan.activeIndex[j] >= 0;
    if (!active && !passive[j]) {
      for (let i = 0; i < 3; i++)
        if (!Object.is(output.positions[3 * j + i], input.positions[3 * j + i])) {
          fail(`joint ${j}, outside the plan, moved`);
          break;
        }
      if (!rotating[j])
        for (let i = 0; i < 4; i++)
          if (!Object.is(output.orientations[4 * j + i], input.orientations[4 * j + i])) {
            fail(`joint ${j}, outside the plan, turned`);
            break;
          }
    }
    const p = rig.parents[j];
    if (p < 0) continue;

    // The bone keeps its length and its direction in the parent's frame (orientations agree with positions).
    const before = rotate(conj(input.orientations.subarray(4 * p, 4 * p + 4)), boneVector(rig, input, j));
    const after = rotate(conj(output.orientations.subarray(4 * p, 4 * p + 4)), boneVector(rig, output, j));
    const lenBefore = Math.hypot(...before),
      lenAfter = Math.hypot(...after);
    const slack = ROUNDING * (magnitude(input.positions, j, p) + magnitude(output.positions, j, p));
    if (limits.flags[j] & LIMIT_STRETCH) {
      const min = limits.stretch[2 * j],
        max = limits.stretch[2 * j + 1];
      const changed = Math.abs(lenAfter - lenBefore) > LENGTH_TOLERANCE * lenBefore + slack;
      if (
        changed &&
        !(
          lenAfter >= min - LENGTH_TOLERANCE * max - slack && lenAfter <= max + LENGTH_TOLERANCE * max + slack
        )
      )
        fail(`stretch bone ${j}: length ${lenBefore} -> ${lenAfter}, outside [${min}, ${max}]`);
      if (lenBefore > 0 && lenAfter > 0) {
        // Directions of short bones far from the origin carry the positions' rounding, divided by the length.
        const d = Math.hypot(...before.map((v, i) => v / lenBefore - after[i] / lenAfter));
        if (d > LENGTH_TOLERANCE + 2 * slack * (1 / lenBefore + 1 / lenAfter))
          fail(`stretch bone ${j} changed direction in its parent's frame by ${d}`);
      }
    } else {
      if (!(Math.abs(lenAfter - lenBefore) <= LENGTH_TOLERANCE * lenBefore + slack))
        fail(
          `bone ${j}: length ${lenBefore} -> ${lenAfter} (${(lenAfter - lenBefore) / lenBefore} relative)`,
        );
      const d = Math.hypot(...before.map((v, i) => v - after[i]));
      if (!(d <= LENGTH_TOLERANCE * lenBefore + slack)) {
        const message = `${label}: bone ${j} moved by ${d / lenBefore} (relative) in its parent's frame`;
        if (halfTurnArc(rig, input, output, j)) failures.addKnown("halfTurnArc", message);
        else failures.add(message);
      }
    }
  }

  // Joints the plan does not turn keep their local rotations; turned joints end within their limits (when
  // the input was within them, or when the solve changed them: a solve that did not need to move leaves a
  // pose as it got it).
  for (let j = 0; j < n; j++) {
    const turned = localRotationChange(rig, input, output, j);
    const flags = limits.flags[j];
    if (!rotating[j] || flags & LIMIT_FIXED) {
      if (turned > 1e-9)
        fail(`joint ${j} (${rotating[j] ? "fixed" : "not turned by the plan"}) turned by ${turned} rad`);
      continue;
    }
    if (!(flags & LIMIT_ROTATION)) continue;
    if (turned <= 1e-12 && limitViolation(limits, input, j) > LIMIT_TOLERANCE) continue;
    const v = limitViolation(limits, output, j);
    if (!(v <= LIMIT_TOLERANCE)) {
      const message = `${label}: joint ${j} is ${v} rad outside its limits (flags ${flags})`;
      if (reversesBone(limits, output, j)) failures.addKnown("reversedBoneTwist", message);
      else failures.add(message);
    }
  }

  // A component solved with the oriented passes (limits or branches) from a pose that keeps every limit never
  // ends further from its targets (their summed distance, the solver's measure) than it started: the input is
  // its first candidate. Only components no earlier one carries along, as those start where they were carried.
  // A component that ends with every effector within tolerance has its answer, whatever the sum: with several
  // effectors it may exceed the input's, whose farthest effector was out of tolerance (the million-case run
  // found five such seeds).
  const oriented = plan.scratch.componentOriented;
  for (let c = 0; c < plan.componentCount; c++) {
    if (oriented[c] !== 1 || plan.componentParent[c] >= 0 || !keepsLimits(context, input, c)) continue;
    let before = 0,
      after = 0,
      farthest = 0;
    for (let k = plan.componentEffectorStart[c]; k < plan.componentEffectorStart[c + 1]; k++) {
      const e = plan.componentEffectors[k];
      const j3 = 3 * plan.effectorJoints[e];
      const target = targets.subarray(3 * e, 3 * e + 3);
      before += Math.hypot(...input.positions.subarray(j3, j3 + 3).map((v, i) => v - target[i]));
      const distance = Math.hypot(...output.positions.subarray(j3, j3 + 3).map((v, i) => v - target[i]));
      after += distance;
      farthest = Math.max(farthest, distance);
    }
    if (farthest <= tolerance) continue;
    if (after > before + ROUNDING * (before + context.scale))
      fail(
        `component ${c} started within its limits ${before} from its targets and ended ${after} from them`,
      );
  }
}

/** Whether every joint component c turns, and every bone it may stretch, is within its limits in `pose`. */
function keepsLimits(context: SolveContext, pose: Pose, c: number): boolean {
  const { rig, limits, plan } = context;
  for (let ri = plan.rotatingStart[c]; ri < plan.rotatingStart[c + 1]; ri++) {
    const r = plan.rotatingJoints[ri];
    const flags = limits.flags[r];
    if (flags & LIMIT_ROTATION && !(flags & LIMIT_FIXED) && limitViolation(limits, pose, r) > 1e-10)
      return false;
  }
  for (let k = plan.componentStart[c]; k < plan.componentStart[c + 1]; k++) {
    const j = plan.activeJoints[k];
    if (!(limits.flags[j] & LIMIT_STRETCH)) continue;
    const length = Math.hypot(...boneVector(rig, pose, j));
    if (length < limits.stretch[2 * j] * (1 - 1e-10) || length > limits.stretch[2 * j + 1] * (1 + 1e-10))
      return false;
  }
  return true;
}

/**
 * Whether the solve had to turn bone j (parent p) by almost exactly half a turn: its old direction, carried
 * by the grandparent's turn as the solver carries it, ends within 1e-3 rad of opposite its new direction.
 */
function halfTurnArc(rig: Rig, a: Pose, b: Pose, j: number): boolean {
  const g = rig.parents[rig.parents[j]];
  const change =
    g >= 0
      ? mul(b.orientations.subarray(4 * g, 4 * g + 4), conj(a.orientations.subarray(4 * g, 4 * g + 4)))
      : [0, 0, 0, 1];
  const old = rotate(change, boneVector(rig, a, j));
  const now = boneVector(rig, b, j);
  const cos =
    (old[0] * now[0] + old[1] * now[1] + old[2] * now[2]) / (Math.hypot(...old) * Math.hypot(...now));
  return cos < Math.cos(Math.PI - 1e-3);
}

/** Whether joint j's rotation from rest turns its bone axis to within 1e-6 rad of the opposite direction. */
function reversesBone(limits: JointLimits, pose: Pose, j: number): boolean {
  const axis = limits.boneAxis.subarray(3 * j, 3 * j + 3);
  const turned = rotate(deltaOf(limits, pose, j), axis);
  return turned[0] * axis[0] + turned[1] * axis[1] + turned[2] * axis[2] < -1 + 5e-13;
}

function localRotationChange(rig: Rig, a: Pose, b: Pose, j: number): number {
  return rotationDistance(localRotation(rig, a, j), localRotation(rig, b, j));
}

/** Targets for the plan's effectors, one kind per effector: reachable, far, on a joint, at the root, in a ball. */
export function generateTargets(rand: Rand, context: SolveContext, pose: Pose): Float64Array {
  const { rig, limits, plan } = context;
  const m = plan.effectorCount;
  const targets = new Float64Array(3 * m);
  const reachable = perturbPose(
    rig,
    limits,
    pose,
    rand,
    uniform(rand, 0.05, Math.PI),
    chance(rand, 0.7),
    plan.rotatingJoints,
  );
  const size = boundsSize(pose.positions, context.scale);
  for (let e = 0; e < m; e++) {
    const j = plan.effectorJoints[e];
    const k = rand();
    let from: Float64Array = reachable.positions,
      at = j;
    if (k < 0.35) {
      // reachable: the effector in a pose its plan can take
    } else if (k < 0.5) {
      const [x, y, z] = unitVector(rand);
      const d = size * 10 ** uniform(rand, 0.3, 6);
      targets.set(
        [pose.positions[3 * j] + x * d, pose.positions[3 * j + 1] + y * d, pose.positions[3 * j + 2] + z * d],
        3 * e,
      );
      continue;
    } else if (k < 0.65) {
      from = pose.positions;
      at = int(rand, 0, rig.jointCount - 1);
    } else if (k < 0.75) {
      from = pose.positions;
      let r = j;
      if (chance(rand, 0.5)) while (rig.parents[r] >= 0) r = rig.parents[r];
      else for (let b = 0; b < plan.chainLengths[e]; b++) r = rig.parents[r];
      at = r;
    } else if (k < 0.8) {
      from = pose.positions;
    } else {
      const [x, y, z] = unitVector(rand);
      const d = size * Math.cbrt(rand());
      targets.set([pose.positions[0] + x * d, pose.positions[1] + y * d, pose.positions[2] + z * d], 3 * e);
      continue;
    }
    targets.set(from.subarray(3 * at, 3 * at + 3), 3 * e);
  }
  return targets;
}

/** Pole points: anywhere, on the target, on the chain's base, on the line between them, on the effector. */
export function generatePoles(
  rand: Rand,
  context: SolveContext,
  pose: Pose,
  targets: Float64Array,
): Float64Array {
  const { rig, plan } = context;
  const m = plan.effectorCount;
  const poles = new Float64Array(3 * m);
  const size = boundsSize(pose.positions, context.scale);
  for (let e = 0; e < m; e++) {
    const j = plan.effectorJoints[e];
    let base = j;
    for (let b = 0; b < plan.chainLengths[e]; b++) base = rig.parents[base];
    const t = targets.subarray(3 * e, 3 * e + 3);
    const b = pose.positions.subarray(3 * base, 3 * base + 3);
    const k = rand();
    if (k < 0.5) {
      const [x, y, z] = unitVector(rand);
      poles.set([b[0] + x * size, b[1] + y * size, b[2] + z * size], 3 * e);
    } else if (k < 0.65) poles.set(t, 3 * e);
    else if (k < 0.75) poles.set(b, 3 * e);
    else if (k < 0.9) {
      const s = uniform(rand, -1, 2);
      poles.set(
        [0, 1, 2].map((i) => b[i] + s * (t[i] - b[i])),
        3 * e,
      );
    } else poles.set(pose.positions.subarray(3 * j, 3 * j + 3), 3 * e);
  }
  return poles;
}

const copyPose = (pose: Pose): Pose => ({
  positions: pose.positions.slice(),
  orientations: pose.orientations.slice(),
});

/** What a case is about to solve, for a debugger re-running one seed. */
export interface SolveTrace {
  readonly frame: number;
  readonly plan: SolvePlan;
  readonly input: Pose;
  readonly targets: Float64Array;
  readonly settings: SolveSettings;
}

/**
 * Runs the case of one seed. Never throws: anything unexpected is a failure naming the seed. `trace` sees
 * every solve before it runs (to investigate a failing seed).
 */
export function runCase(seed: number, trace?: (solve: SolveTrace) => void): CaseResult {
  const failures = new Failures(seed);
  let joints = 0,
    effectorCount = 0,
    solves = 0,
    rejections = 0,
    converged = 0;
  try {
    const rand = random(seed);
    const { description, scale } = generateRig(rand);
    joints = description.parents.length;
    const faultStage = chance(rand, 0.25)
      ? pick(rand, ["rig", "limits", "plan", "solve", "weight"] as const)
      : null;

    if (faultStage === "rig") {
      const { bad, expected, label } = rigFault(rand, description);
      const state = () =>
        JSON.stringify(bad, (_, v: unknown) =>
          typeof v === "number" && !Number.isFinite(v) ? String(v) : v,
        );
      expectRefusal(failures, label, () => createRig(bad), expected, state);
      rejections++;
    }
    const rig = createRig(description);
    const limits = createJointLimits(rig);
    if (chance(rand, 0.6)) {
      const density = rand();
      for (let j = 0; j < rig.jointCount; j++) {
        if (!chance(rand, density)) continue;
        const spec = generateLimitSpec(rand, rig, limits, j);
        try {
          setJointLimit(limits, j, spec);
        } catch (error) {
          // The one refusal a generated spec may meet: an up axis (or a universal joint's first axis) along
          // the bone. Check it, then go on without.
          const along = /(swing\.upAxis|universal\.axis) is parallel to the bone/.test(
            (error as Error).message,
          );
          if (!(error instanceof FabrikError) || !along) throw error;
          if (spec.swing !== undefined) delete spec.swing.upAxis;
          if (spec.universal !== undefined) delete spec.universal.axis;
          setJointLimit(limits, j, spec);
        }
      }
    }
    if (faultStage === "limits") {
      const { call, expected, label } = limitFault(rand, rig, limits);
      expectRefusal(failures, label, call, expected, limitsState(limits));
      rejections++;
    }

    const effectors = generateEffectors(rand, rig);
    effectorCount = effectors.length;
    const effectorJoints = new Set(
      effectors.map((s) => (typeof s.joint === "number" ? s.joint : rig.names!.indexOf(s.joint))),
    );
    let pinned: number[] = [];
    if (chance(rand, 0.3)) {
      const count = int(rand, 1, 3);
      for (let i = 0; i < count; i++) {
        const j = int(rand, 0, rig.jointCount - 1);
        if (!effectorJoints.has(j)) pinned.push(j);
      }
    }
    let plan: SolvePlan;
    try {
      plan = compilePlan(rig, { effectors, pinned, limits });
    } catch (error) {
      // A random pin may lie below a joint an effector moves: refused by name; then solve without pins.
      if (
        !(error instanceof FabrikError) ||
        error.option !== "pinned" ||
        !/^pinned: joint \d+.* lies below joint \d+/.test(error.message)
      )
        throw error;
      pinned = [];
      plan = compilePlan(rig, { effectors, pinned, limits });
    }
    if (faultStage === "plan") {
      const fault = planFault(rand, rig, limits, effectors, pinned);
      if (fault !== null) {
        expectRefusal(failures, fault.label, fault.call, fault.expected, () =>
          JSON.stringify([limitsState(limits)(), snapshot(rig.parents, rig.restPositions)]),
        );
        rejections++;
      }
    }
    const context: SolveContext = { rig, limits, plan, scale };

    const start = rand();
    let pose: Pose =
      start < 0.3
        ? createPose(rig)
        : perturbPose(rig, limits, createPose(rig), rand, uniform(rand, 0, Math.PI), start < 0.8);
    let targets = generateTargets(rand, context, pose);
    const settings: SolveSettings = {};
    const t = rand();
    if (t < 0.1) settings.tolerance = 0;
    else if (t < 0.6) settings.tolerance = 10 ** uniform(rand, -9, -1) * scale;
    const it = rand();
    if (it < 0.3) settings.maxIterations = int(rand, 1, 5);
    else if (it < 0.7) settings.maxIterations = int(rand, 1, rig.jointCount > 60 ? 30 : 60);
    if (Array.from(plan.effectorHasPole).some((h) => h === 1))
      settings.poles = generatePoles(rand, context, pose, targets);

    const frames = chance(rand, 0.3) ? int(rand, 2, 4) : 1;
    for (let frame = 0; frame < frames; frame++) {
      if (faultStage === "solve" && frame === 0) {
        const { call, expected, label } = solveFault(rand, plan, pose, targets, settings);
        const r = plan.report;
        const state = () =>
          JSON.stringify([
            snapshot(pose.positions, pose.orientations, targets, r.residuals, r.onLimit, [
              r.iterations,
              r.maxResidual,
              r.escapes,
              r.converged ? 1 : 0,
            ]),
          ]);
        expectRefusal(failures, label, call, expected, state);
        rejections++;
      }
      if (faultStage === "weight" && frame === 0) {
        const m = plan.effectorCount;
        const badIndex = chance(rand, 0.5) || m === 0;
        const e = badIndex ? pick(rand, [m, -1, 0.5]) : int(rand, 0, m - 1);
        const weight = badIndex ? 1 : pick(rand, [0, -1, NaN, Infinity]);
        const expected: Expected = badIndex
          ? {
              option: "effector",
              message: new RegExp(`^setEffectorWeight: no effector ${e} \\(plan has ${m}\\)`),
            }
          : {
              option: "weight",
              joint: plan.effectorJoints[e],
              message: new RegExp(
                `^effector ${e} \\(${jointPattern(plan.effectorJoints[e])}\\): weight must be a finite number > 0`,
              ),
            };
        expectRefusal(
          failures,
          `setEffectorWeight(${e}, ${weight})`,
          () => setEffectorWeight(plan, e, weight),
          expected,
          () => JSON.stringify(snapshot(plan.effectorWeights, plan.scratch.branchWeight)),
        );
        rejections++;
      }

      // Every later frame starts from the last one's answer, which is what tracking assumes; half the seeds
      // track (from the seed, so the random stream and every other case stay as they were).
      settings.tracking = frame > 0 && seed % 2 === 0;
      const input = copyPose(pose);
      trace?.({ frame, plan, input, targets, settings });
      const report = solvePlan(plan, pose, targets, settings);
      solves++;
      if (report.converged) converged++;
      checkSolve(failures, context, input, pose, targets, settings, `frame ${frame}`);
      if (chance(rand, 0.1)) {
        // Deterministic: the same input solves to the same bits.
        const again = copyPose(input);
        solvePlan(plan, again, targets, settings);
        if (
          !sameSnapshot(
            snapshot(again.positions, again.orientations),
            snapshot(pose.positions, pose.orientations),
          )
        )
          failures.add(`frame ${frame}: a second solve of the same input differs`);
      }
      if (failures.list.length > 0) break;

      // The next frame starts from this one's result, with the targets moved a little and maybe a new weight.
      targets = targets.map((v) => v + uniform(rand, -0.05, 0.05) * scale);
      if (plan.effectorCount > 0 && chance(rand, 0.3))
        setEffectorWeight(plan, int(rand, 0, plan.effectorCount - 1), 10 ** uniform(rand, -3, 2));
      if (chance(rand, 0.2)) pose = copyPose(pose);
    }
  } catch (error) {
    failures.add(`threw ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
  return {
    seed,
    joints,
    effectors: effectorCount,
    solves,
    rejections,
    converged,
    failures: failures.list,
    known: [...failures.known],
  };
}
