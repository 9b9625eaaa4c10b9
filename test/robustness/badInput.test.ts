import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ImportMeshAsync } from "@babylonjs/core/Loading/sceneLoader.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import * as prettier from "prettier";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  FabrikBehavior,
  FabrikError,
  PoseReader,
  compilePlan,
  createJointLimits,
  createPose,
  createRig,
  createSolveWorkspace,
  setEffectorWeight,
  copyJointLimits,
  createRigFromDH,
  dhForwardKinematics,
  TwoHandGrip,
  markJointLimitsShared,
  readDHJointValues,
  setJointLimit,
  setPlanLimits,
  solvePlan,
  type DHRow,
  type Pose,
  type RigDescription,
  type SolvePlan,
  TrackedBody,
  TrackedHint,
  TrackedPoint,
} from "../../plugin/index.js";
import { OWN_CHARACTERS, loadCharacter, type Loaded } from "../babylon/characters.js";
import { captureLocals, playFirstAnimation } from "../babylon/fabrikHarness.js";
import { DELTA_ROWS, PARALLEL_ROWS } from "./parallelRows.js";

/*
 * Every kind of bad input the public API can receive, and what it gets. Each row of docs/errors.md is one
 * test below: the message shown in the table (where "…" stands for any text) must be the message thrown,
 * the error must be a FabrikError with the `option` and `joint` fields given, and the state the call could
 * have touched must read the same afterwards. The last test checks the page is this table, so the
 * documentation cannot drift from the code; regenerate it with UPDATE_BAD_INPUT=1.
 */

const TABLE_PATH = fileURLToPath(new URL("../../docs/errors.md", import.meta.url));
const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;

interface Row {
  /** The entry point, as the table shows it. */
  readonly api: string;
  /** The bad input, in words (markdown). */
  readonly input: string;
  /** What it gets: a FabrikError message ("…" is any text), or, for `outcome` rows, a sentence. */
  readonly result: string;
  /** The error's `option` and `joint` fields (undefined: the field is not set). */
  readonly option?: string;
  readonly joint?: number | (() => number);
  /** Makes the bad call. */
  readonly call?: () => unknown;
  /** Everything the call could change, compared before and after. */
  readonly state?: () => string;
  /** Rows that are not refusals check their outcome themselves. */
  readonly outcome?: () => void | Promise<void>;
  /** Rows needing the mannequin character. */
  readonly character?: boolean;
}

/** Stable text of any value: typed arrays as arrays, NaN and ±Infinity spelled out, object identity by id. */
const ids = new WeakMap<object, number>();
let nextId = 0;
function identity(o: object | null): string {
  if (o === null) return "null";
  if (!ids.has(o)) ids.set(o, ++nextId);
  return `#${ids.get(o)}`;
}
function text(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => {
    if (typeof v === "number" && !Number.isFinite(v)) return String(v);
    if (ArrayBuffer.isView(v))
      return Array.from(v as unknown as ArrayLike<number>, (x) => (Number.isFinite(x) ? x : String(x)));
    return v;
  });
}

function pattern(shown: string): RegExp {
  const escaped = shown
    .split("…")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[\\s\\S]*");
  return new RegExp(`^${escaped}$`);
}

// ---------------------------------------------------------------------------------------------------------
// The solver: a four-joint arm, as in the README.

const armDescription = (): RigDescription & { parents: number[]; restPositions: number[] } => ({
  parents: [-1, 0, 1, 2],
  restPositions: [0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0],
  names: ["shoulder", "elbow", "wrist", "hand"],
});
const arm = createRig(armDescription());
const armLimits = createJointLimits(arm);
setJointLimit(armLimits, 1, { hinge: { axis: [0, 0, 1], min: 0, max: 2.5 } });
const limitsState = () =>
  text([
    armLimits.flags,
    armLimits.swing,
    armLimits.twist,
    armLimits.hinge,
    armLimits.stretch,
    armLimits.upAxis,
    armLimits.hingeAxis,
    armLimits.specs,
  ]);
const sharedArmLimits = copyJointLimits(armLimits);
markJointLimitsShared(sharedArmLimits);
const armPlan: SolvePlan = compilePlan(arm, {
  effectors: [{ joint: "hand", chainLength: 3, pole: true }, { joint: "elbow" }],
  limits: armLimits,
});
const pose: Pose = createPose(arm);
const targets = Float64Array.of(1.2, 1.5, 0.4, 0.5, 0.5, 0);
const poles = Float64Array.of(0, 1, 1, 0, 0, 0);
const solveState = () => {
  const r = armPlan.report;
  return text([
    pose,
    targets,
    poles,
    r.iterations,
    r.maxResidual,
    r.residuals,
    r.onLimit,
    armPlan.effectorWeights,
  ]);
};
const plan = (options: unknown) => () => compilePlan(arm, options as never);
const planState = () => text([arm, limitsState()]);
const rig = (change: (d: ReturnType<typeof armDescription>) => void) => {
  const description = armDescription();
  change(description);
  return { call: () => createRig(description), state: () => text(description) };
};
const limit = (joint: number, spec: unknown) => ({
  call: () => setJointLimit(armLimits, joint, spec as never),
  state: limitsState,
});
const solve = (p: unknown, t: unknown, settings: unknown) => ({
  call: () => solvePlan(armPlan, p as Pose, t as Float64Array, settings as never),
  state: solveState,
});
const settings = { poles };
const fork = createRig({
  parents: [-1, 0, 0],
  restPositions: [0, 0, 0, 0, 1, 0, 1, 0, 0],
  names: ["root", "up", "side"],
});
const twoNames = createRig({
  parents: [-1, 0, 0],
  restPositions: [0, 0, 0, 0, 1, 0, 1, 0, 0],
  names: ["root", "tip", "tip"],
});

const SOLVER_ROWS: Row[] = [
  {
    api: "`createRig`",
    input: "`parents` missing or not an array",
    result: "rig: `parents` must be an array of parent indices",
    option: "parents",
    ...rig((d) => ((d as { parents: unknown }).parents = null)),
  },
  {
    api: "`createRig`",
    input: "`parents` empty",
    result: "rig: `parents` is empty; a rig needs at least one joint",
    option: "parents",
    ...rig((d) => (d.parents = [])),
  },
  {
    api: "`createRig`",
    input: "a parent not listed before its child (or itself, or < -1)",
    result:
      'rig: joint 2 ("wrist") has parent 3; a parent must be -1 (a root) or an earlier joint, since joints are listed parents first',
    option: "parents",
    joint: 2,
    ...rig((d) => (d.parents[2] = 3)),
  },
  {
    api: "`createRig`",
    input: "a parent that is not a whole number",
    result: 'rig: joint 1 ("elbow") has parent 0.5; …',
    option: "parents",
    joint: 1,
    ...rig((d) => (d.parents[1] = 0.5)),
  },
  {
    api: "`createRig`",
    input: "`restPositions` of the wrong length",
    result: "rig: `restPositions` must hold 3 numbers per joint (12), got 11",
    option: "restPositions",
    ...rig((d) => d.restPositions.pop()),
  },
  {
    api: "`createRig`",
    input: "a rest position NaN, ±Infinity or not a number",
    result: 'rig: rest position of joint 2 ("wrist") is not finite (NaN)',
    option: "restPositions",
    joint: 2,
    ...rig((d) => (d.restPositions[7] = NaN)),
  },
  {
    api: "`createRig`",
    input: "`restOrientations` of the wrong length",
    result: "rig: `restOrientations` must hold 4 numbers per joint (16), got 15",
    option: "restOrientations",
    ...rig((d) => (d.restOrientations = new Array<number>(15).fill(0))),
  },
  {
    api: "`createRig`",
    input: "a rest orientation not a unit quaternion (off by more than 1e-3; float32 noise is normalised)",
    result: 'rig: rest orientation of joint 1 ("elbow") is not a unit quaternion (length 2)',
    option: "restOrientations",
    joint: 1,
    ...rig((d) => (d.restOrientations = [0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1])),
  },
  {
    api: "`createRig`",
    input: "`names` of the wrong length",
    result: "rig: `names` must hold one name per joint (4)",
    option: "names",
    ...rig((d) => (d.names = ["shoulder", "elbow"])),
  },
  {
    api: "`createRig`",
    input: "a name that is not a string",
    result: "rig: name of joint 3 is not a string",
    option: "names",
    joint: 3,
    ...rig((d) => (d.names = ["shoulder", "elbow", "wrist", 7 as never])),
  },
  {
    api: "`setJointLimit`",
    input: "a joint index outside the rig",
    result: "limits: joint index 9 is outside the rig (0..3)",
    option: "joint",
    ...limit(9, { fixed: true }),
  },
  {
    api: "`setJointLimit`",
    input: "a spec that is not an object",
    result: 'limits of joint 2 ("wrist"): must be an object',
    option: "limits",
    joint: 2,
    ...limit(2, 42),
  },
  {
    api: "`setJointLimit`",
    input: "a swing angle NaN or outside [0, π]",
    result: 'limits of joint 0 ("shoulder"): swing.left must be an angle in [0, π] radians, got 4',
    option: 'limits of joint 0 ("shoulder"): swing.left',
    joint: 0,
    ...limit(0, { swing: { up: 1, right: 1, down: 1, left: 4 } }),
  },
  {
    api: "`setJointLimit`",
    input: "`swing.upAxis` along the bone",
    result: 'limits of joint 0 ("shoulder"): swing.upAxis is parallel to the bone, so it defines no "up"',
    option: "swing.upAxis",
    joint: 0,
    ...limit(0, { swing: { up: 1, right: 1, down: 1, left: 1, upAxis: [0, 2, 0] } }),
  },
  {
    api: "`setJointLimit`",
    input: "an axis of zero length, or not three finite numbers",
    result: 'limits of joint 1 ("elbow"): hinge.axis has zero length',
    option: 'limits of joint 1 ("elbow"): hinge.axis',
    joint: 1,
    ...limit(1, { hinge: { axis: [0, 0, 0], min: 0, max: 1 } }),
  },
  {
    api: "`setJointLimit`",
    input: "a twist or hinge range outside [-π, π]",
    result: 'limits of joint 2 ("wrist"): twist.max must be a number in [-π, π], got 4',
    option: 'limits of joint 2 ("wrist"): twist',
    joint: 2,
    ...limit(2, { twist: { min: 0, max: 4 } }),
  },
  {
    api: "`setJointLimit`",
    input: "an inverted range (min > max) of twist, hinge or stretch",
    result: 'limits of joint 2 ("wrist"): twist is inverted: min 0.5 > max -0.5',
    option: 'limits of joint 2 ("wrist"): twist',
    joint: 2,
    ...limit(2, { twist: { min: 0.5, max: -0.5 } }),
  },
  {
    api: "`setJointLimit`",
    input: "a hinge together with swing or twist",
    result:
      'limits of joint 1 ("elbow"): a hinge already fixes swing and twist; give either hinge or swing/twist',
    option: "hinge",
    joint: 1,
    ...limit(1, { hinge: { axis: [0, 0, 1], min: 0, max: 1 }, twist: { min: 0, max: 0 } }),
  },
  {
    api: "`setJointLimit`",
    input: "`fixed` together with any other rotation limit, or not a boolean",
    result: 'limits of joint 1 ("elbow"): a fixed joint cannot also have swing, twist or hinge limits',
    option: "fixed",
    joint: 1,
    ...limit(1, { fixed: true, swing: { up: 1, right: 1, down: 1, left: 1 } }),
  },
  {
    api: "`setJointLimit`",
    input: "`universal` or `pivot` together with another rotation limit",
    result:
      'limits of joint 1 ("elbow"): a joint is one kind of joint; got swing/twist and universal (a universal or pivot joint takes no other rotation limit)',
    option: "universal",
    joint: 1,
    ...limit(1, {
      universal: { first: { min: 0, max: 1 }, second: { min: 0, max: 1 } },
      twist: { min: 0, max: 0 },
    }),
  },
  {
    api: "`setJointLimit`",
    input: "a universal joint's second range outside [-π/2, π/2] (its first: outside [-π, π])",
    result: 'limits of joint 1 ("elbow"): universal.second.max must be a number in [-π/2, π/2], got 2',
    option: 'limits of joint 1 ("elbow"): universal.second',
    joint: 1,
    ...limit(1, { universal: { first: { min: 0, max: 1 }, second: { min: 0, max: 2 } } }),
  },
  {
    api: "`setJointLimit`",
    input: "`universal.axis` along the bone",
    result:
      'limits of joint 0 ("shoulder"): universal.axis is parallel to the bone, so it cannot swing the bone',
    option: "universal.axis",
    joint: 0,
    ...limit(0, { universal: { axis: [0, 2, 0], first: { min: 0, max: 1 }, second: { min: 0, max: 1 } } }),
  },
  {
    api: "`setJointLimit`",
    input: "an inverted pivot range, or one outside [-π, π]",
    result: 'limits of joint 2 ("wrist"): pivot is inverted: min 1 > max 0',
    option: 'limits of joint 2 ("wrist"): pivot',
    joint: 2,
    ...limit(2, { pivot: { min: 1, max: 0 } }),
  },
  {
    api: "`setJointLimit`",
    input: "`stretch` on a root, or a negative length",
    result: 'limits of joint 0 ("shoulder"): a root has no bone to stretch',
    option: "stretch",
    joint: 0,
    ...limit(0, { stretch: { min: 0, max: 2 } }),
  },
  {
    api: "`setJointLimit`",
    input: "a limit set shared by copies of one model (a behavior's `ik.limits`)",
    result:
      'limits of joint 2 ("wrist"): this limit set is shared by characters with identical limits and cannot be ' +
      "edited; use FabrikBehavior.setLimit, or edit a copy (copyJointLimits)",
    option: "limits",
    joint: 2,
    call: () => setJointLimit(sharedArmLimits, 2, { twist: { min: -0.5, max: 0.5 } }),
    state: () => text([sharedArmLimits.flags, sharedArmLimits.twist, sharedArmLimits.specs]),
  },
  {
    api: "`compilePlan`",
    input: "`effectors` missing or not an array",
    result: "plan: `effectors` must be an array",
    option: "effectors",
    call: plan({ effectors: { joint: "hand" } }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "an effector that is not an object",
    result: "effector 0: must be an object { joint, chainLength?, weight?, pole? }",
    option: "effectors",
    call: plan({ effectors: ["hand"] }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "an unknown joint name",
    result: 'effector 0: no joint named "hnad" in the rig',
    option: "effector 0",
    call: plan({ effectors: [{ joint: "hnad" }] }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "a joint index outside the rig, or not whole",
    result: "effector 0: joint index 4 is outside the rig (0..3)",
    option: "effector 0",
    call: plan({ effectors: [{ joint: 4 }] }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "a name two joints share",
    result: 'effector 0: joint name "tip" is ambiguous (joints 1 and 2); use an index',
    option: "effector 0",
    joint: 2,
    call: () => compilePlan(twoNames, { effectors: [{ joint: "tip" }] }),
    state: () => text(twoNames),
  },
  {
    api: "`compilePlan`",
    input: "an effector on a root",
    result: 'effector 0 (joint 0 ("shoulder")): the joint is a root, which never moves',
    option: "joint",
    joint: 0,
    call: plan({ effectors: [{ joint: 0 }] }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "an effector on a pinned joint",
    result: 'effector 0 (joint 3 ("hand")): the joint is pinned, so it cannot move toward a target',
    option: "joint",
    joint: 3,
    call: plan({ effectors: [{ joint: "hand" }], pinned: ["hand"] }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "the same joint twice",
    result: 'effector 1 (joint 3 ("hand")): the joint is already effector 0',
    option: "joint",
    joint: 3,
    call: plan({ effectors: [{ joint: "hand" }, { joint: 3 }] }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "`chainLength` not a whole number ≥ 1",
    result: 'effector 0 (joint 3 ("hand")): chainLength must be a whole number >= 1, got 1.5',
    option: "chainLength",
    joint: 3,
    call: plan({ effectors: [{ joint: "hand", chainLength: 1.5 }] }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "`weight` not a finite number > 0",
    result: 'effector 0 (joint 3 ("hand")): weight must be a finite number > 0, got 0',
    option: "weight",
    joint: 3,
    call: plan({ effectors: [{ joint: "hand", weight: 0 }] }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "`pole` not a boolean",
    result: 'effector 0 (joint 3 ("hand")): pole must be true or false',
    option: "pole",
    joint: 3,
    call: plan({ effectors: [{ joint: "hand", pole: "elbow" }] }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "`pinned` not an array, or naming an unknown joint",
    result: 'pinned: no joint named "wirst" in the rig',
    option: "pinned",
    call: plan({ effectors: [{ joint: "hand" }], pinned: ["wirst"] }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: '`passiveJoints` other than `"all"` / `"carriers"`',
    result: 'plan: passiveJoints must be "all" or "carriers", got "none"',
    option: "passiveJoints",
    call: plan({ effectors: [{ joint: "hand" }], passiveJoints: "none" }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "a pinned joint below a joint an effector moves or turns",
    result:
      'pinned: joint 3 ("hand") lies below joint 2 ("wrist"), which an effector moves; shorten that effector\'s chainLength or pin an ancestor instead',
    option: "pinned",
    joint: 3,
    call: plan({ effectors: [{ joint: "wrist" }], pinned: ["hand"] }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "`limits` created for another rig",
    result: "plan: `limits` were created for another rig",
    option: "limits",
    call: plan({ effectors: [{ joint: "hand" }], limits: createJointLimits(twoNames) }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "a `workspace` made for rigs of another joint count",
    result: "plan: `workspace` was made for rigs of 5 joints, this rig has 4",
    option: "workspace",
    call: plan({ effectors: [{ joint: "hand" }], workspace: createSolveWorkspace(5) }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "a `workspace` not made by `createSolveWorkspace` (or with an array replaced)",
    result: "plan: `workspace` must come from createSolveWorkspace",
    option: "workspace",
    call: plan({ effectors: [{ joint: "hand" }], workspace: { boneLength: new Float64Array(4) } }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "`shareLayoutWith` a plan of another rig (or not a plan)",
    result: "plan: `shareLayoutWith` must be a plan compiled for the same rig",
    option: "shareLayoutWith",
    call: plan({
      effectors: [{ joint: "hand" }],
      shareLayoutWith: compilePlan(twoNames, { effectors: [{ joint: 1 }] }),
    }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "`continuumSections` not an array",
    result: "plan: `continuumSections` must be an array",
    option: "continuumSections",
    call: plan({ effectors: [{ joint: "hand" }], continuumSections: {} }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "a continuum section of fewer than two joints (or not an object)",
    result: "continuumSections[0]: joints must list at least two joints, the section's base and its tip",
    option: "continuumSections",
    call: plan({ effectors: [{ joint: "hand" }], continuumSections: [{ joints: ["elbow"], maxBend: 1 }] }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "a continuum section's `maxBend` outside (0, 2π), NaN or not a number",
    result: "continuumSections[0]: maxBend must be a number in (0, 2π), got 7",
    option: "continuumSections",
    call: plan({
      effectors: [{ joint: "hand" }],
      continuumSections: [{ joints: ["shoulder", "elbow"], maxBend: 7 }],
    }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "a continuum section's joint unknown (or outside the rig)",
    result: 'continuumSections: no joint named "elbw" in the rig',
    option: "continuumSections",
    call: plan({
      effectors: [{ joint: "hand" }],
      continuumSections: [{ joints: ["shoulder", "elbw"], maxBend: 1 }],
    }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "a continuum section's joints not parent to child",
    result:
      'continuumSections[0]: joint 2 ("wrist") is not a child of joint 0 ("shoulder"); a section\'s joints run parent to child',
    option: "continuumSections",
    joint: 2,
    call: plan({
      effectors: [{ joint: "hand" }],
      continuumSections: [{ joints: ["shoulder", "wrist"], maxBend: 1 }],
    }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "two continuum sections sharing a bone",
    result: 'continuumSections[1]: the bone to joint 2 ("wrist") is already in section 0',
    option: "continuumSections",
    joint: 2,
    call: plan({
      effectors: [{ joint: "hand" }],
      continuumSections: [
        { joints: ["shoulder", "elbow", "wrist"], maxBend: 1 },
        { joints: ["elbow", "wrist", "hand"], maxBend: 1 },
      ],
    }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "a continuum section's bone that no effector's chain moves",
    result: 'continuumSections[0]: joint 1 ("elbow") is not moved by any effector\'s chain',
    option: "continuumSections",
    joint: 1,
    call: plan({
      effectors: [{ joint: "hand", chainLength: 1 }],
      continuumSections: [{ joints: ["shoulder", "elbow", "wrist"], maxBend: 1 }],
    }),
    state: planState,
  },
  {
    api: "`compilePlan`",
    input: "a continuum section branching (a joint above its tip with several moving children)",
    result: 'continuumSections[0]: joint 0 ("root") has 2 moving children; a section cannot branch',
    option: "continuumSections",
    joint: 0,
    call: () =>
      compilePlan(fork, {
        effectors: [{ joint: 1 }, { joint: 2 }],
        continuumSections: [{ joints: [0, 1], maxBend: 1 }],
      }),
    state: () => text(fork),
  },
  {
    api: "`compilePlan`",
    input: "an effector inside a continuum section (not its base or tip)",
    result: 'continuumSections[0]: joint 1 ("elbow") is an effector; only a section\'s base and tip can be',
    option: "continuumSections",
    joint: 1,
    call: plan({
      effectors: [{ joint: "hand" }, { joint: "elbow" }],
      continuumSections: [{ joints: ["shoulder", "elbow", "wrist"], maxBend: 1 }],
    }),
    state: planState,
  },
  {
    api: "`createSolveWorkspace`",
    input: "a joint count that is not a whole number >= 1",
    result: "createSolveWorkspace: jointCount must be a whole number >= 1, got 0",
    option: "jointCount",
    call: () => createSolveWorkspace(0),
    // Nothing exists before the call that it could change.
    state: () => "",
  },
  {
    api: "`setEffectorWeight`",
    input: "an effector index the plan does not have",
    result: "setEffectorWeight: no effector 2 (plan has 2)",
    option: "effector",
    call: () => setEffectorWeight(armPlan, 2, 1),
    state: solveState,
  },
  {
    api: "`setEffectorWeight`",
    input: "a weight not finite and > 0",
    result: 'effector 0 (joint 3 ("hand")): weight must be a finite number > 0, got NaN',
    option: "weight",
    joint: 3,
    call: () => setEffectorWeight(armPlan, 0, NaN),
    state: solveState,
  },
  {
    api: "`setPlanLimits`",
    input: "limits created for another rig (even one of the same shape)",
    result: "plan: `limits` were created for another rig",
    option: "limits",
    call: () => setPlanLimits(armPlan, createJointLimits(createRig(armDescription()))),
    state: () => identity(armPlan.limits),
  },
  {
    api: "`solvePlan`",
    input: "a pose that is not `{ positions, orientations }`",
    result: "solve: pose must be { positions, orientations }",
    option: "pose",
    ...solve(undefined, targets, settings),
  },
  {
    api: "`solvePlan`",
    input: "positions or orientations not a `Float64Array` of the rig's size",
    result: "solve: positions must be a Float64Array of 3 numbers per joint (12)",
    option: "positions",
    ...solve({ positions: Array.from(pose.positions), orientations: pose.orientations }, targets, settings),
  },
  {
    api: "`solvePlan`",
    input: "targets not a `Float64Array` of 3 numbers per effector",
    result: "solve: targets must be a Float64Array of 3 numbers per effector (6)",
    option: "targets",
    ...solve(pose, Float32Array.from(targets), settings),
  },
  {
    api: "`solvePlan`",
    input: "a target NaN or ±Infinity",
    result: 'solve: target of effector 1 (joint 1 ("elbow")) is not finite (0.5, NaN, 0)',
    option: "targets",
    joint: 1,
    ...solve(pose, Float64Array.of(1.2, 1.5, 0.4, 0.5, NaN, 0), settings),
  },
  {
    api: "`solvePlan`",
    input: "no finite pole for an effector compiled with `pole: true`",
    result:
      'solve: effector 0 (joint 3 ("hand")) has a pole, so settings.poles must hold a finite x y z for it (3 numbers per effector)',
    option: "poles",
    joint: 3,
    ...solve(pose, targets, {}),
  },
  {
    api: "`solvePlan`",
    input: "a joint position the solve reads NaN or ±Infinity",
    result: 'solve: position of joint 2 ("wrist") is not finite (0, Infinity, 0)',
    option: "positions",
    joint: 2,
    ...solve(
      {
        positions: Float64Array.of(0, 0, 0, 0, 1, 0, 0, Infinity, 0, 0, 3, 0),
        orientations: pose.orientations,
      },
      targets,
      settings,
    ),
  },
  {
    api: "`solvePlan`",
    input: "an orientation the solve reads not a unit quaternion",
    result: 'solve: orientation of joint 1 ("elbow") is not a unit quaternion (0, 0, 0, 0)',
    option: "orientations",
    joint: 1,
    ...solve(
      {
        positions: pose.positions,
        orientations: Float64Array.of(0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1),
      },
      targets,
      settings,
    ),
  },
  {
    api: "`solvePlan`",
    input: "`tolerance` negative, NaN or infinite",
    result: "solve: tolerance must be a finite number >= 0, got -1",
    option: "tolerance",
    ...solve(pose, targets, { ...settings, tolerance: -1 }),
  },
  {
    api: "`solvePlan`",
    input: "`maxIterations` not a whole number ≥ 1",
    result: "solve: maxIterations must be a whole number >= 1, got 0",
    option: "maxIterations",
    ...solve(pose, targets, { ...settings, maxIterations: 0 }),
  },
];

// ---------------------------------------------------------------------------------------------------------
// FabrikBehavior, on the project's own mannequin (Hips is its root; LeftHand has the role leftHand).

let loaded: Loaded;
let ik: FabrikBehavior;
let handTarget: Vector3;
let stage: TransformNode;
const rightHand = () => ik.jointIndex("rightHand");

/** What a refused behavior call could have changed. */
const behaviorState = () =>
  text([
    identity(ik.attachedNode),
    identity(ik.plan),
    ik.writtenJoints,
    ik.hasTarget("leftHand"),
    ik.hasTarget("rightHand"),
    ik.getLimit("leftLowerArm"),
    ik.targets.map((t) => [t.joint, t.weight]),
    [ik.weight, ik.tolerance, ik.maxIterations, ik.enabled],
  ]);
/** What a refused `addPass` could have changed: the behavior, and its passes. */
const passState = () => text([behaviorState(), ik.passes.length]);
const constructing = (options: unknown) => ({
  call: () => new FabrikBehavior(options as never),
  state: () => "nothing to change",
});
/** Attaching a behavior with these continuum sections to the mannequin. */
const attachingSections = (sections: unknown) => ({
  call: () => loaded.root.addBehavior(new FabrikBehavior({ continuumSections: sections as never }), true),
  state: () => text([loaded.root.behaviors.length, loaded.scene.onBeforeRenderObservable.observers.length]),
  character: true,
});
const target = (joint: string, source: unknown, options?: unknown) => ({
  call: () => ik.setTarget(joint, source as never, options as never),
  state: behaviorState,
  character: true,
});

/** Renders a frame and returns the left arm's local rotations before the behavior ran and after it wrote. */
function renderFrame(): { animated: Float64Array; written: Float64Array } {
  const nodes = ik.rig!.nodes;
  let animated: Float64Array = new Float64Array(0),
    written: Float64Array = new Float64Array(0);
  const before = loaded.scene.onBeforeRenderObservable.add(
    () => (animated = captureLocals(nodes)),
    undefined,
    true,
  );
  const after = loaded.scene.onAfterRenderObservable.add(
    () => (written = captureLocals(nodes)),
    undefined,
    true,
  );
  loaded.scene.render();
  before.remove();
  after.remove();
  return { animated, written };
}

/** The left arm's chain nodes keep their animated values bit for bit, and nothing anywhere is NaN. */
function expectLeftArmAnimated(frame: { animated: Float64Array; written: Float64Array }): void {
  const rig = ik.rig!;
  for (const value of frame.written) expect(Number.isFinite(value)).toBe(true);
  for (const role of ["leftUpperArm", "leftLowerArm", "leftHand"]) {
    const j = ik.jointIndex(role);
    for (let k = 0; k < 4; k++)
      expect(Object.is(frame.written[10 * j + k], frame.animated[10 * j + k])).toBe(true);
  }
  expect(rig.jointCount).toBeGreaterThan(3);
}

const BEHAVIOR_ROWS: Row[] = [
  {
    api: "`new FabrikBehavior`",
    input: "options that are not an object",
    result: "FabrikIK: options must be an object, got 5",
    ...constructing(5),
  },
  {
    api: "`new FabrikBehavior`",
    input: "an unknown option (a typo)",
    result:
      'FabrikIK: unknown option "tolerence" (options are stage, tolerance, maxIterations, limits, ' +
      "fitLimitsToAnimations, skeleton, continuumSections)",
    option: "tolerence",
    ...constructing({ tolerence: 1e-3 }),
  },
  {
    api: "`new FabrikBehavior`",
    input: "`stage` other than `beforeRender` / `afterAnimations`",
    result: 'FabrikIK: stage must be "beforeRender" or "afterAnimations", got "later"',
    option: "stage",
    ...constructing({ stage: "later" }),
  },
  {
    api: "`new FabrikBehavior`",
    input: "`limits` other than `humanoid` / `none`",
    result: 'FabrikIK: limits must be "humanoid" or "none", got "robot"',
    option: "limits",
    ...constructing({ limits: "robot" }),
  },
  {
    api: "`new FabrikBehavior`",
    input: "`fitLimitsToAnimations` not true / false",
    result: 'FabrikIK: fitLimitsToAnimations must be true or false, got the string "yes"',
    option: "fitLimitsToAnimations",
    ...constructing({ fitLimitsToAnimations: "yes" }),
  },
  {
    api: "`new FabrikBehavior`",
    input: "`skeleton` neither a Skeleton nor a name",
    result: "FabrikIK: skeleton must be a Skeleton or a skeleton name, got 3",
    option: "skeleton",
    ...constructing({ skeleton: 3 }),
  },
  {
    api: "`new FabrikBehavior`, `.tolerance =`",
    input: "`tolerance` negative, NaN or infinite",
    result: "FabrikIK: tolerance must be a finite number >= 0 (a fraction of the character's height), got -1",
    option: "tolerance",
    ...constructing({ tolerance: -1 }),
  },
  {
    api: "`new FabrikBehavior`, `.maxIterations =`",
    input: "`maxIterations` not a whole number ≥ 1",
    result: "FabrikIK: maxIterations must be a whole number >= 1, got 2.5",
    option: "maxIterations",
    call: () => (ik.maxIterations = 2.5),
    state: behaviorState,
    character: true,
  },
  {
    api: "`.weight =`",
    input: "a global weight outside [0, 1] or NaN",
    result: "FabrikIK: weight must be a number in [0, 1], got 1.5",
    option: "weight",
    call: () => (ik.weight = 1.5),
    state: behaviorState,
    character: true,
  },
  {
    api: "`attach` (`addBehavior`)",
    input: "something that is not a node (`undefined`, a number, a Skeleton…)",
    result: "FabrikIK: attach needs a TransformNode or mesh, got undefined",
    call: () => new FabrikBehavior().attach(undefined as never),
    state: () => "nothing to change",
  },
  {
    api: "`attach` (`addBehavior`)",
    input: "a node with no skinned mesh at or under it",
    result:
      'FabrikIK: cannot attach to "empty": skeleton: no skinned mesh (a mesh with a skeleton) at or under TransformNode "empty"; attach to the character\'s skinned mesh or to a node above it, such as the glTF `__root__`',
    option: "node",
    call: () => new TransformNode("empty", loaded.scene).addBehavior(new FabrikBehavior(), true),
    state: () =>
      text([
        loaded.scene.onBeforeRenderObservable.observers.length,
        loaded.scene.onAfterRenderObservable.observers.length,
      ]),
    character: true,
  },
  {
    api: "`attach` (`addBehavior`)",
    input: "a node holding several unrelated skeletons, without the `skeleton` option",
    result:
      'FabrikIK: cannot attach to "stage": skeleton: 2 unrelated skeleton groups under "stage": "…" (… joints), "…" (… joints); pass { skeleton } to pick one, or use buildSkeletonRigs',
    option: "skeleton",
    call: () => stage.addBehavior(new FabrikBehavior(), true),
    state: () => text([loaded.scene.onBeforeRenderObservable.observers.length, stage.behaviors.length]),
    character: true,
  },
  {
    api: "`attach` (`addBehavior`)",
    input: "a `skeleton` option naming no skeleton under the node",
    result:
      'FabrikIK: cannot attach to "__root__": skeleton: no skeleton "nope" among the skinned meshes under "__root__"',
    option: "skeleton",
    call: () => loaded.root.addBehavior(new FabrikBehavior({ skeleton: "nope" }), true),
    state: () => text([loaded.root.behaviors.length, loaded.scene.onBeforeRenderObservable.observers.length]),
    character: true,
  },
  {
    api: "`new FabrikBehavior`",
    input: "`continuumSections` not an array",
    result: 'FabrikIK: continuumSections must be an array of { bones, maxBend? }, got the string "Tail"',
    option: "continuumSections",
    ...constructing({ continuumSections: "Tail" }),
  },
  {
    api: "`new FabrikBehavior`",
    input: "a continuum section whose `bones` list fewer than two joints and are not `{ from, to }`",
    result:
      "FabrikIK: continuumSections[0]: bones must list at least two joints (the base first, the tip last) or be { from, to }",
    option: "continuumSections",
    ...constructing({ continuumSections: [{ bones: ["Spine"] }] }),
  },
  {
    api: "`new FabrikBehavior`",
    input: "a continuum section with an unknown key (a typo)",
    result: 'FabrikIK: continuumSections[0]: unknown key "maxbend" (keys are bones, maxBend)',
    option: "continuumSections",
    ...constructing({ continuumSections: [{ bones: ["Spine", "Spine1"], maxbend: 1 }] }),
  },
  {
    api: "`new FabrikBehavior`",
    input: "a continuum section's `maxBend` outside (0, 2π), NaN or not a number",
    result: "FabrikIK: continuumSections[0]: maxBend must be a number in (0, 2π) radians, got 7",
    option: "continuumSections",
    ...constructing({ continuumSections: [{ bones: ["Spine", "Spine1"], maxBend: 7 }] }),
  },
  {
    api: "`attach` (`addBehavior`)",
    input: "a continuum section naming a bone the rig does not have",
    result:
      'FabrikIK: continuumSections[0].bones[1]: no bone or humanoid role named "Spine9" The rig has 65 joints (…) and roles …',
    option: "continuumSections",
    ...attachingSections([{ bones: ["Spine", "Spine9"] }]),
  },
  {
    api: "`attach` (`addBehavior`)",
    input: "a continuum section's `bones` not parent to child",
    result:
      'FabrikIK: continuumSections[0]: "Spine2" is not a child of "Spine"; a section\'s bones run parent to child',
    option: "continuumSections",
    joint: () => ik.jointIndex("Spine2"),
    ...attachingSections([{ bones: ["Spine", "Spine2"] }]),
  },
  {
    api: "`attach` (`addBehavior`)",
    input: "a continuum section `{ from, to }` whose `to` does not hang below `from`",
    result:
      'FabrikIK: continuumSections[0]: "LeftHand" does not hang below "Neck"; a section runs from its base down to its tip',
    option: "continuumSections",
    joint: () => ik.jointIndex("LeftHand"),
    ...attachingSections([{ bones: { from: "Neck", to: "LeftHand" } }]),
  },
  {
    api: "`attach` (`addBehavior`)",
    input: "two continuum sections sharing a bone",
    result: 'FabrikIK: continuumSections[1]: the bone to "Spine2" is already in continuumSections[0]',
    option: "continuumSections",
    joint: () => ik.jointIndex("Spine2"),
    ...attachingSections([
      { bones: { from: "Hips", to: "Spine2" } },
      { bones: ["Spine1", "Spine2", "Neck"] },
    ]),
  },
  {
    api: "`setContinuumSections`",
    input: "a set the constructor or `attach` would refuse (here a bone the rig does not have)",
    result:
      'FabrikIK setContinuumSections(): continuumSections[0].bones[1]: no bone or humanoid role named "Tentacle.99" …',
    option: "continuumSections",
    call: () => tentacleIk.setContinuumSections([{ bones: ["Tentacle.00", "Tentacle.99"] }]),
    state: () => text([tentacleIk.continuumSections, identity(tentacleIk.plan)]),
    character: true,
  },
  {
    api: "`setContinuumMaxBend`",
    input: "a section the behavior does not have",
    result: "FabrikIK setContinuumMaxBend(0): no continuum section 0 (the behavior has none)",
    option: "section",
    call: () => ik.setContinuumMaxBend(0, 1),
    state: behaviorState,
    character: true,
  },
  {
    api: "`setContinuumMaxBend`",
    input: "a bend limit outside (0, 2π), NaN or not a number",
    result: "FabrikIK setContinuumMaxBend(0): maxBend must be a number in (0, 2π) radians, got NaN",
    option: "maxBend",
    call: () => tentacleIk.setContinuumMaxBend(0, NaN),
    state: () => text([tentacleIk.continuumSections, identity(tentacleIk.plan)]),
    character: true,
  },
  {
    api: "`attach` (`addBehavior`)",
    input: "a second node while attached",
    result:
      'FabrikIK: already attached to "__root__"; detach it (node.removeBehavior) before attaching it to "other"',
    option: "node",
    call: () => ik.attach(new TransformNode("other", loaded.scene)),
    state: behaviorState,
    character: true,
  },
  {
    api: "`setTarget`, `setLimit`, `getLimit`, `removeTarget`, `setTargetWeight`",
    input: "called before the behavior is attached",
    result:
      'FabrikIK setTarget("leftHand"): the behavior is not attached; add it to the character first (mesh.addBehavior(ik, true): without `true`, Babylon defers attaching while the scene is loading)',
    call: () => new FabrikBehavior().setTarget("leftHand", new Vector3()),
    state: () => "nothing to change",
  },
  {
    api: "`setTarget`, `setLimit`, `getLimit`, `removeTarget`, `setTargetWeight`",
    input: "an unknown bone or role name",
    result:
      'FabrikIK setTarget("lefthnad"): no bone or humanoid role named "lefthnad" The rig has 65 joints (Hips, Spine, Spine1, Spine2, Neck, Head, …) and roles spine, chest, …',
    option: "joint",
    ...target("lefthnad", new Vector3()),
  },
  {
    api: "`setTarget`, `setLimit`, `getLimit`, `removeTarget`, `setTargetWeight`",
    input: "a name differing only in case: the close names are suggested",
    result:
      'FabrikIK setLimit("lefthand"): no bone or humanoid role named "lefthand"; did you mean role "leftHand" or "LeftHand" or "LeftHandThumb1" or "LeftHandThumb2"? The rig has 65 joints (…) and roles …',
    option: "joint",
    call: () => ik.setLimit("lefthand", undefined),
    state: behaviorState,
    character: true,
  },
  {
    api: "`setTarget`, `setLimit`, `getLimit`, `removeTarget`, `setTargetWeight`",
    input: "a node or Bone that is not a joint of this rig",
    result: 'FabrikIK removeTarget("stray"): a TransformNode is not a joint of this rig',
    option: "joint",
    call: () => ik.removeTarget(new TransformNode("stray", loaded.scene)),
    state: behaviorState,
    character: true,
  },
  {
    api: "`setTarget`, `setLimit`, `getLimit`, `removeTarget`, `setTargetWeight`",
    input: "a joint index outside the rig, or not a whole number",
    result: "FabrikIK setTarget(65): joint index 65 is outside the rig (the rig's joints are 0..64)",
    option: "joint",
    call: () => ik.setTarget(65, new Vector3()),
    state: behaviorState,
    character: true,
  },
  {
    api: "`setTargetWeight`",
    input: "a weight NaN, outside [0, 1] or not a number",
    result: 'FabrikIK setTargetWeight("leftHand"): weight must be a number in [0, 1], got NaN',
    option: "weight",
    joint: () => ik.jointIndex("leftHand"),
    call: () => ik.setTargetWeight("leftHand", NaN),
    state: behaviorState,
    character: true,
  },
  {
    api: "`setTargetWeight`",
    input: "a joint that has no target",
    result:
      'FabrikIK setTargetWeight("rightHand"): "RightHand" has no target; give it one with setTarget first',
    option: "joint",
    joint: rightHand,
    call: () => ik.setTargetWeight("rightHand", 0.5),
    state: behaviorState,
    character: true,
  },
  {
    api: "`addPass`",
    input: "called before the behavior is attached",
    result:
      "FabrikIK addPass(): the behavior is not attached; add it to the character first (mesh.addBehavior(ik, true): without `true`, Babylon defers attaching while the scene is loading)",
    call: () => new FabrikBehavior().addPass({}),
    state: () => "nothing to change",
  },
  {
    api: "`addPass`",
    input: "a pass that is not an object",
    result: "FabrikIK addPass(): a pass is an object with beforeSolve and/or afterSolve, got null",
    option: "pass",
    call: () => ik.addPass(null as never),
    state: passState,
    character: true,
  },
  {
    api: "`addPass`",
    input: "`order` not a finite number",
    result: "FabrikIK addPass(): order must be a finite number, got NaN",
    option: "order",
    call: () => ik.addPass({}, { order: NaN }),
    state: passState,
    character: true,
  },
  {
    api: "`addPass`",
    input: "an unknown joint in `joints`",
    result: 'FabrikIK addPass(): no bone or humanoid role named "Nope" The rig has 65 joints (…) and roles …',
    option: "joint",
    call: () => ik.addPass({ joints: ["Nope"] }),
    state: passState,
    character: true,
  },
  {
    api: "`setTarget`",
    input: "the root joint",
    result: 'FabrikIK setTarget("Hips"): (joint 0 ("Hips")): the joint is a root, which never moves',
    option: "joint",
    joint: 0,
    ...target("Hips", new Vector3()),
  },
  {
    api: "`setTarget`",
    input: "a Vector3 target NaN or ±Infinity",
    result: 'FabrikIK setTarget("rightHand"): the target is not a finite point (NaN, 1, 0)',
    option: 'FabrikIK setTarget("rightHand")',
    ...target("rightHand", new Vector3(NaN, 1, 0)),
  },
  {
    api: "`setTarget`",
    input: "a target node whose world position is not finite",
    result: 'FabrikIK setTarget("rightHand"): node "lost" has a non-finite world position',
    option: 'FabrikIK setTarget("rightHand")',
    call: () => {
      const node = new TransformNode("lost", loaded.scene);
      node.position.set(Infinity, 0, 0);
      ik.setTarget("rightHand", node);
    },
    state: behaviorState,
    character: true,
  },
  {
    api: "`setTarget`",
    input: "a target that is no Vector3, node or function",
    result:
      'FabrikIK setTarget("rightHand"): a target must be a Vector3, a TransformNode or a function returning a Vector3, got the string "up"',
    option: 'FabrikIK setTarget("rightHand")',
    ...target("rightHand", "up"),
  },
  {
    api: "`setTarget`",
    input: "options that are not an object, or an unknown option",
    result:
      'FabrikIK setTarget("rightHand"): unknown option "chainlength" (options are weight, chainLength, matchOrientation, rotation, pole)',
    joint: rightHand,
    option: "chainlength",
    ...target("rightHand", new Vector3(), { chainlength: 2 }),
  },
  {
    api: "`setTarget`",
    input: "`weight` outside [0, 1] or NaN",
    result: 'FabrikIK setTarget("rightHand"): weight must be a number in [0, 1], got 2',
    joint: rightHand,
    option: "weight",
    ...target("rightHand", new Vector3(), { weight: 2 }),
  },
  {
    api: "`setTarget`",
    input: "`chainLength` not a whole number ≥ 1",
    result: 'FabrikIK setTarget("rightHand"): chainLength must be a whole number >= 1, got 0',
    joint: rightHand,
    option: "chainLength",
    ...target("rightHand", new Vector3(), { chainLength: 0 }),
  },
  {
    api: "`setTarget`",
    input: "`matchOrientation` not a boolean",
    result: 'FabrikIK setTarget("rightHand"): matchOrientation must be true or false',
    joint: rightHand,
    option: "matchOrientation",
    ...target("rightHand", new Vector3(), { matchOrientation: "yes" }),
  },
  {
    api: "`setTarget`",
    input: "`matchOrientation` with a Vector3 or function target and no `rotation`",
    result:
      'FabrikIK setTarget("rightHand"): matchOrientation needs a TransformNode target, or the rotation option, to take a rotation from',
    joint: rightHand,
    option: "matchOrientation",
    ...target("rightHand", new Vector3(), { matchOrientation: true }),
  },
  {
    api: "`setTarget`",
    input: "`rotation` not a quaternion, or of zero length or NaN",
    result: 'FabrikIK setTarget("rightHand"): rotation is not a usable quaternion (0, 0, 0, 0)',
    joint: rightHand,
    option: "rotation",
    ...target("rightHand", new Vector3(), { rotation: new Quaternion(0, 0, 0, 0) }),
  },
  {
    api: "`setTarget`",
    input: "a `pole` that is not a finite point (same kinds as a target)",
    result: 'FabrikIK setTarget("rightHand"): pole: the target is not a finite point (0, NaN, 0)',
    option: 'FabrikIK setTarget("rightHand"): pole',
    ...target("rightHand", new Vector3(), { pole: new Vector3(0, NaN, 0) }),
  },
  {
    api: "`setLimit`",
    input: "any bad limit spec (as `setJointLimit`)",
    result:
      'FabrikIK setLimit("leftLowerArm"): limits of joint 9 ("LeftForeArm"): swing.left must be an angle in [0, π] radians, got 5',
    option: 'limits of joint 9 ("LeftForeArm"): swing.left',
    joint: () => ik.jointIndex("leftLowerArm"),
    call: () => ik.setLimit("leftLowerArm", { swing: { up: 1, right: 1, down: 1, left: 5 } }),
    state: behaviorState,
    character: true,
  },
  {
    api: "`setTarget` (each frame)",
    input: "a function target returning NaN, null or nothing",
    result:
      "no error: that effector is skipped for the frame (its chain shows the animation); nothing NaN is written",
    character: true,
    outcome: () => {
      ik.setTarget("leftHand", () => new Vector3(NaN, 0, 0));
      expectLeftArmAnimated(renderFrame());
      ik.setTarget("leftHand", (() => null) as never);
      expectLeftArmAnimated(renderFrame());
      ik.setTarget("leftHand", handTarget);
    },
  },
  {
    api: "`setTarget` (each frame)",
    input: "a target node that later gets a non-finite world position",
    result: "no error: that effector is skipped while its target is not finite",
    character: true,
    outcome: () => {
      const node = new TransformNode("drifting", loaded.scene);
      node.position.copyFrom(handTarget);
      ik.setTarget("leftHand", node);
      node.position.x = NaN;
      expectLeftArmAnimated(renderFrame());
      node.position.copyFrom(handTarget);
      const frame = renderFrame();
      expect(
        Object.is(
          frame.written[10 * ik.jointIndex("leftUpperArm")],
          frame.animated[10 * ik.jointIndex("leftUpperArm")],
        ),
      ).toBe(false);
      ik.setTarget("leftHand", handTarget);
      node.dispose();
    },
  },
  {
    api: "`setTarget` (each frame)",
    input: "a pole that later yields a non-finite point",
    result: "no error: the pole is ignored for the frame; the target is still reached",
    character: true,
    outcome: () => {
      let report: { converged: boolean } | null = null;
      const observer = ik.onSolvedObservable.add((event) => (report = { converged: event.report.converged }));
      ik.setTarget("leftHand", handTarget, { pole: () => new Vector3(Infinity, 0, 0) });
      const frame = renderFrame();
      observer.remove();
      for (const value of frame.written) expect(Number.isFinite(value)).toBe(true);
      expect(report).toEqual({ converged: true });
      ik.setTarget("leftHand", handTarget);
    },
  },
  {
    api: "each frame",
    input: "a joint node given a non-finite position or rotation by other code",
    result:
      "no error: the frame is skipped (nothing written) and one warning is logged: `FabrikIK: frame skipped: solve: position of joint … is not finite …`",
    character: true,
    outcome: () => {
      const warn = vi.spyOn(Logger, "Warn").mockImplementation(() => {});
      const upper = ik.rig!.nodes[ik.jointIndex("leftUpperArm")]!;
      const saved = upper.position.clone();
      let written = -1;
      const observer = ik.onSolvedObservable.add((event) => (written = event.written));
      const hook = loaded.scene.onBeforeRenderObservable.add(() => (upper.position.y = NaN), undefined, true);
      renderFrame();
      renderFrame();
      hook.remove();
      observer.remove();
      upper.position.copyFrom(saved);
      const messages = warn.mock.calls.map((c) => String(c[0]));
      warn.mockRestore();
      expect(written).toBe(-1);
      expect(messages.length).toBe(1);
      expect(messages[0]).toMatch(
        pattern("FabrikIK: frame skipped: solve: position of joint … is not finite …"),
      );
      // Back to normal on the next frame.
      const frame = renderFrame();
      for (const value of frame.written) expect(Number.isFinite(value)).toBe(true);
    },
  },
  {
    api: "`PoseReader.readOnly`",
    input: "a joint index outside the rig or not a whole number",
    result: "PoseReader.readOnly: joint index 1.5 is not a joint of this rig (0 .. 64)",
    option: "joints",
    character: true,
    call: () => readerForRows().readOnly([0, 1.5]),
    // The reader keeps reading every joint: one animated frame later it matches a fresh reader exactly.
    state: () => {
      const reader = readerForRows();
      loaded.scene.render();
      reader.read();
      const fresh = new PoseReader(ik.rig!);
      return text([Array.from(reader.positions).map((v, i) => v === fresh.positions[i])]);
    },
  },
];

// ---------------------------------------------------------------------------------------------------------
// Robot arms from DH tables: a two-joint arm.

const dhRows = (): DHRow[] => [
  { a: 1, alpha: Math.PI / 2, min: -1, max: 1 },
  { a: 0.5, alpha: 0, d: 0.2 },
];
const dhArm = createRigFromDH(dhRows(), { names: ["shoulder", "elbow"] });
const dhPose = createPose(dhArm.rig);
const dh = (change: (rows: DHRow[]) => unknown, options: unknown = {}) => {
  const rows = dhRows();
  change(rows);
  return { call: () => createRigFromDH(rows, options as never), state: () => text([rows, options]) };
};

const DH_ROWS: Row[] = [
  {
    api: "`createRigFromDH`",
    input: "no rows, or not an array",
    result: "createRigFromDH: rows must be a non-empty array of DH rows",
    option: "rows",
    ...dh((rows) => rows.splice(0)),
  },
  {
    api: "`createRigFromDH`",
    input: "`a`, `alpha`, `d`, `theta`, `offset`, `min` or `max` NaN, ±Infinity or not a number",
    result: 'createRigFromDH: row 1 ("joint2"): a must be a finite number, got NaN',
    option: "rows[1].a",
    ...dh((rows) => (rows[1].a = NaN)),
  },
  {
    api: "`createRigFromDH`",
    input: "a range with min > max",
    result: 'createRigFromDH: row 0 ("joint1"): range is inverted, min 1 > max -1',
    option: "rows[0].min",
    ...dh((rows) => Object.assign(rows[0], { min: 1, max: -1 })),
  },
  {
    api: "`createRigFromDH`",
    input: "a joint type other than `revolute` / `prismatic`",
    result: 'createRigFromDH: row 1 ("joint2"): joint must be "revolute" or "prismatic", got "spherical"',
    option: "rows[1].joint",
    ...dh((rows) => ((rows[1] as { joint: unknown }).joint = "spherical")),
  },
  {
    api: "`createRigFromDH`",
    input: "a prismatic joint without `min` and `max`",
    result: 'createRigFromDH: row 1 ("joint2"): a prismatic joint needs its range, min and max',
    option: "rows[1].min",
    ...dh((rows) => (rows[1].joint = "prismatic")),
  },
  {
    api: "`createRigFromDH`",
    input: "`convention` other than `standard` / `modified`",
    result: 'createRigFromDH: convention must be "standard" or "modified", got "craig"',
    option: "convention",
    ...dh(() => undefined, { convention: "craig" }),
  },
  {
    api: "`createRigFromDH`",
    input: "`home` of the wrong length, or a home value outside its range",
    result: 'createRigFromDH: row 0 ("joint1"): home value 2 is outside the range [-1, 1]',
    option: "home",
    ...dh(() => undefined, { home: [2, 0] }),
  },
  {
    api: "`createRigFromDH`",
    input: "a revolute range narrower than a turn that reaches more than π from home",
    result:
      'createRigFromDH: row 1 ("joint2"): range [0, 4] reaches more than π from the home value 0; a hinge measures its angle within π of home, so choose a home nearer the middle of the range',
    option: "home",
    ...dh((rows) => Object.assign(rows[1], { min: 0, max: 4 })),
  },
  {
    api: "`createRigFromDH`",
    input: "`names` of the wrong length, repeated, empty, or one the rig uses (`base`, `tool`, …)",
    result:
      'createRigFromDH: name of row 1 must be a non-empty string used once and not one of base, tool, tool.x, tool.z; got "tool"',
    option: "names",
    ...dh(() => undefined, { names: ["arm", "tool"] }),
  },
  {
    api: "`createRigFromDH`",
    input: "`toolOffset` not three finite numbers; `markerDistance` not a finite number > 0",
    result: "createRigFromDH: markerDistance must be a finite number > 0, got 0",
    option: "markerDistance",
    ...dh(() => undefined, { markerDistance: 0 }),
  },
  {
    api: "`createRigFromDH`",
    input: "an arm of no length (every `a`, `d` and the tool offset 0)",
    result: "createRigFromDH: the arm has no length (every a, d and the tool offset are 0)",
    option: "rows",
    ...dh((rows) => rows.forEach((row) => Object.assign(row, { a: 0, d: 0 }))),
  },
  {
    api: "`dhForwardKinematics`",
    input: "values not one finite number per row",
    result: 'dhForwardKinematics: value of row 1 ("elbow") is not finite (NaN)',
    option: "values",
    call: () => dhForwardKinematics(dhArm, [0, NaN], dhPose),
    state: () => text(dhPose),
  },
  {
    api: "`dhForwardKinematics`, `readDHJointValues`",
    input: "a pose not sized for the arm's rig",
    result: "readDHJointValues: pose must be { positions, orientations } of the arm's rig (6 joints)",
    option: "pose",
    call: () => readDHJointValues(dhArm, createPose(arm), new Float64Array(2)),
    state: () => text(dhPose),
  },
  {
    api: "`readDHJointValues`",
    input: "`out` not a `Float64Array` of one value per row",
    result: "readDHJointValues: out must be a Float64Array of 2 values",
    option: "out",
    call: () => readDHJointValues(dhArm, dhPose, new Float64Array(1)),
    state: () => text(dhPose),
  },
];

// ---------------------------------------------------------------------------------------------------------
// TrackedBody: the constructor's options, a tracker's weight and node, calibration. These rows come last: the
// body they build adds targets and a pass to the shared behavior.

let trackedBody: TrackedBody | null = null;
/** One TrackedBody for the rows that need one, made on first use. */
function trackedForRows(): TrackedBody {
  if (trackedBody === null || trackedBody.behavior.rig !== ik.rig) trackedBody = new TrackedBody(ik);
  return trackedBody;
}
const tracked = (options: unknown) => ({
  call: () => new TrackedBody(ik, options as never),
  state: () => text([behaviorState(), ik.passes.length, loaded.root.scaling.asArray()]),
  character: true,
});
const point = new TrackedPoint("leftHand", 1);
const hint = new TrackedHint("leftElbow");

const TRACKED_ROWS: Row[] = [
  {
    api: "`new TrackedBody`",
    input: "a behavior not attached to a character",
    result:
      "TrackedBody: the behavior is not attached; add it to the character first (mesh.addBehavior(ik, true))",
    call: () => new TrackedBody(new FabrikBehavior()),
    state: () => "nothing to change",
  },
  {
    api: "`new TrackedBody`",
    input: "an unknown option",
    result: 'TrackedBody: unknown option "steps" (options are height, fadeTime, …)',
    option: "steps",
    ...tracked({ steps: 2 }),
  },
  {
    api: "`new TrackedBody`",
    input: "a step, fade or follow setting out of its range (`stepTime` 0, `hipsFollow` 2, NaN)",
    result: "TrackedBody: stepTime must be a number > 0 and <= 10, got 0",
    option: "stepTime",
    ...tracked({ stepTime: 0 }),
  },
  {
    api: "`new TrackedBody`",
    input: "a ground setting out of its range (`maxStepUp` 0, `maxStepDown` -1, `maxTilt` 2)",
    result: "TrackedBody: maxStepUp must be a number > 0 and <= 10, got 0",
    option: "maxStepUp",
    ...tracked({ maxStepUp: 0 }),
  },
  {
    api: "`new TrackedBody`",
    input: "`ground` not a function",
    result: "TrackedBody: ground must be a function (mesh) => boolean, got true",
    option: "ground",
    ...tracked({ ground: true }),
  },
  {
    api: "`new TrackedBody`",
    input: "`height` outside 0.5 .. 3 m",
    result: "TrackedBody: height must be a number of metres in [0.5, 3], got 12",
    option: "height",
    ...tracked({ height: 12 }),
  },
  {
    api: "`TrackedPoint.weight`",
    input: "outside 0 .. 1 or not a number",
    result: "TrackedBody: leftHand.weight must be a number in [0, 1], got 1.5",
    option: "leftHand.weight",
    call: () => (point.weight = 1.5),
    state: () => text([point.weight]),
  },
  {
    api: "`TrackedPoint.follow`",
    input: "not a TransformNode (nor null)",
    result: "TrackedBody: leftHand.follow() takes a TransformNode or null, got 3",
    option: "leftHand",
    call: () => point.follow(3 as never),
    state: () => text([identity(point.node)]),
  },
  {
    api: "`TrackedHint.position`",
    input: "not a Vector3 of finite numbers (NaN, ±Infinity, null)",
    result: "TrackedBody: leftElbow.position must be a Vector3 of finite numbers, got (NaN, 1, 0)",
    option: "leftElbow.position",
    call: () => (hint.position = new Vector3(Number.NaN, 1, 0)),
    state: () => text([hint.position.asArray(), hint.weight]),
  },
  {
    api: "`TrackedHint.weight`",
    input: "outside 0 .. 1 or not a number",
    result: "TrackedBody: leftElbow.weight must be a number in [0, 1], got -0.5",
    option: "leftElbow.weight",
    call: () => (hint.weight = -0.5),
    state: () => text([hint.position.asArray(), hint.weight]),
  },
  {
    api: "`TrackedHint.follow`",
    input: "not a TransformNode (nor null)",
    result: "TrackedBody: leftElbow.follow() takes a TransformNode or null, got [object Object]",
    option: "leftElbow",
    call: () => hint.follow({} as never),
    state: () => text([identity(hint.node)]),
  },
  {
    api: "`TrackedBody.calibrate`",
    input: "a height outside 0.5 .. 3 m",
    result: "TrackedBody calibrate(): height must be a number of metres in [0.5, 3], got 0.1",
    option: "height",
    character: true,
    call: () => trackedForRows().calibrate(0.1),
    state: () => text([trackedForRows().scale, loaded.root.scaling.asArray()]),
  },
  {
    api: "`TrackedBody.calibrate`",
    input: "no height, and the head tracker not where a standing avatar's head can be",
    result:
      "TrackedBody calibrate(): the head tracker is 0.000 above the ground; stand straight (between … for this avatar)",
    option: "head",
    character: true,
    call: () => trackedForRows().calibrate(),
    state: () => text([trackedForRows().scale, loaded.root.scaling.asArray()]),
  },
];

let rowReader: PoseReader | null = null;
/** One reader for the PoseReader rows, made on first use (the character loads before the rows run). */
function readerForRows(): PoseReader {
  if (rowReader === null || rowReader.rig !== ik.rig) rowReader = new PoseReader(ik.rig!);
  return rowReader;
}

// ---------------------------------------------------------------------------------------------------------
// TwoHandGrip, on the mannequin (and, for a character without arms, the project's tentacle).

let tentacleIk: FabrikBehavior;
const handles = () => ({
  left: { position: new Vector3(0.2, 0, 0) },
  right: { position: new Vector3(-0.2, 0, 0) },
});
const crate = () => new TransformNode("crate", loaded.scene);
const grip = (options: () => unknown, behavior = () => ik) => ({
  call: () => new TwoHandGrip(behavior(), options() as never),
  state: passState,
  character: true,
});

const GRIP_ROWS: Row[] = [
  {
    api: "`new TwoHandGrip`",
    input: "an unknown option (a typo)",
    result: 'TwoHandGrip: unknown option "leftWieght" (options are …)',
    option: "leftWieght",
    ...grip(() => ({ object: crate(), ...handles(), leftWieght: 1 })),
  },
  {
    api: "`new TwoHandGrip`",
    input: "a character without a humanoid's arms",
    result: 'TwoHandGrip: the character has no "leftUpperArm" role; two-hand grips need a humanoid\'s arms',
    option: "leftUpperArm",
    ...grip(
      () => ({ object: crate(), ...handles() }),
      () => tentacleIk,
    ),
  },
  {
    api: "`new TwoHandGrip`",
    input: "`object` not a node",
    result: "TwoHandGrip: object must be a TransformNode (a mesh or a node)",
    option: "object",
    ...grip(() => ({ object: new Vector3(), ...handles() })),
  },
  {
    api: "`new TwoHandGrip`",
    input: "`object` disposed",
    result: 'TwoHandGrip: object "crate" is disposed',
    option: "object",
    ...grip(() => {
      const object = crate();
      object.dispose();
      return { object, ...handles() };
    }),
  },
  {
    api: "`new TwoHandGrip`",
    input: "`object` with a parent",
    result:
      'TwoHandGrip: object "crate" has a parent; the grip places it in world space, so it must have none',
    option: "object",
    ...grip(() => {
      const object = crate();
      object.parent = stage;
      return { object, ...handles() };
    }),
  },
  {
    api: "`new TwoHandGrip`, `setHandle`",
    input: "a handle's `position` missing or not finite",
    result: "TwoHandGrip: left.position must be a finite point, got (NaN, 0, 0)",
    option: "left.position",
    ...grip(() => ({ object: crate(), ...handles(), left: { position: new Vector3(NaN, 0, 0) } })),
  },
  {
    api: "`new TwoHandGrip`, `setHandle`",
    input: "a handle's `rotation` not a finite unit quaternion",
    result: "TwoHandGrip: right.rotation must be a finite unit quaternion, got (0, 0, 0, 2)",
    option: "right.rotation",
    ...grip(() => ({
      object: crate(),
      ...handles(),
      right: { position: new Vector3(), rotation: new Quaternion(0, 0, 0, 2) },
    })),
  },
  {
    api: "`new TwoHandGrip`, its setters",
    input: "`leftWeight`, `rightWeight` or `targetWeight` outside [0, 1] or not a number",
    result: "TwoHandGrip: leftWeight must be a number in [0, 1], got 1.5",
    option: "leftWeight",
    ...grip(() => ({ object: crate(), ...handles(), leftWeight: 1.5 })),
  },
  {
    api: "`new TwoHandGrip`, `target`",
    input: "`target` not a live node (or null)",
    result: "TwoHandGrip: target must be a live TransformNode or null",
    option: "target",
    ...grip(() => ({ object: crate(), ...handles(), target: new Vector3() })),
  },
];

const ROWS: Row[] = [
  ...SOLVER_ROWS,
  ...DH_ROWS,
  ...PARALLEL_ROWS,
  ...DELTA_ROWS,
  ...BEHAVIOR_ROWS,
  ...GRIP_ROWS,
  ...TRACKED_ROWS,
];

/** Inline code that may itself hold backticks. */
const code = (s: string) => (s.includes("`") ? `\`\` ${s} \`\`` : `\`${s}\``);

/** The page docs/errors.md: formatted by the project's prettier, so `npm run lint` agrees. */
async function renderTable(rows: readonly Row[]): Promise<string> {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  const lines = ["| entry point | bad input | what it gets |", "| --- | --- | --- |"];
  for (const row of rows) {
    const result = row.outcome ? row.result : code(row.result);
    lines.push(`| ${cell(row.api)} | ${cell(row.input)} | ${cell(result)} |`);
  }
  const markdown =
    "# Errors\n\n" +
    "<!-- Generated by test/robustness/badInput.test.ts (UPDATE_BAD_INPUT=1 rewrites it); every row is a test. -->\n\n" +
    "What each public entry point does with bad input. Every row below is a test in " +
    "`test/robustness/badInput.test.ts`, and the test also checks that this page matches it.\n\n" +
    "Every refusal is a `FabrikError` (its `option` and, where one joint is at fault, `joint` fields name the " +
    "culprit too) thrown before anything is written: the rig, limits, plan, pose, targets and behavior are " +
    "unchanged. `…` stands for text that depends on the rig.\n\n" +
    "```ts\n" +
    "try {\n" +
    '  ik.setTarget("leftHand", target, { chainLength: 0 });\n' +
    "} catch (error) {\n" +
    "  if (!(error instanceof FabrikError)) throw error;\n" +
    "  console.warn(error.message, error.option, error.joint);\n" +
    "}\n" +
    "```\n\n" +
    "Problems that only show up while frames run (a target that turns NaN, a bone moved to a non-finite " +
    "place by other code) are not thrown: the frame skips what it cannot use, as the last rows say.\n\n" +
    lines.join("\n") +
    "\n";
  const config = await prettier.resolveConfig(TABLE_PATH);
  return prettier.format(markdown, { ...config, filepath: TABLE_PATH });
}

describe("bad input: what each refusal says, and that it changes nothing", () => {
  beforeAll(async () => {
    if (!mannequin.present) return;
    loaded = await loadCharacter(mannequin);
    playFirstAnimation(loaded.scene);
    loaded.scene.animationGroups[0]?.pause();
    for (let i = 0; i < 3; i++) loaded.scene.render();
    // Two more mannequins under a common parent, for the several-skeletons row.
    stage = new TransformNode("stage", loaded.scene);
    for (let i = 0; i < 2; i++) {
      const copy = await ImportMeshAsync(new Uint8Array(readFileSync(mannequin.path)), loaded.scene, {
        pluginExtension: ".glb",
      });
      copy.meshes[0].parent = stage;
    }
    ik = new FabrikBehavior();
    loaded.root.addBehavior(ik, true);
    const tentacle = OWN_CHARACTERS.find((c) => c.folder === "tentacle")!;
    const tentacleRoot = await ImportMeshAsync(new Uint8Array(readFileSync(tentacle.path)), loaded.scene, {
      pluginExtension: ".glb",
    });
    // Its first eight bones in a continuum section, for the setContinuumMaxBend rows.
    tentacleIk = new FabrikBehavior({
      continuumSections: [{ bones: { from: "Tentacle.00", to: "Tentacle.08" }, maxBend: 2 }],
    });
    tentacleRoot.meshes[0].addBehavior(tentacleIk, true);
    const hand = ik.rig!.nodes[ik.jointIndex("leftHand")]!;
    loaded.scene.incrementRenderId();
    handTarget = hand
      .computeWorldMatrix(true)
      .getTranslation()
      .add(new Vector3(0, 0.03, 0.03));
    ik.setTarget("leftHand", handTarget);
  });
  afterAll(() => loaded?.engine.dispose());

  for (const row of ROWS) {
    const name = `${row.api}: ${row.input}`;
    it.skipIf(row.character === true && !mannequin.present)(name, async () => {
      if (row.outcome) {
        await row.outcome();
        return;
      }
      const before = row.state!();
      let thrown: unknown = undefined;
      try {
        row.call!();
      } catch (error) {
        thrown = error;
      }
      expect(thrown, "the call must throw").toBeInstanceOf(FabrikError);
      const error = thrown as FabrikError;
      expect(error.name).toBe("FabrikError");
      expect(error.message).toMatch(pattern(row.result));
      expect(error.option).toBe(row.option);
      expect(error.joint).toBe(typeof row.joint === "function" ? row.joint() : row.joint);
      expect(row.state!()).toBe(before);
    });
  }

  it("docs/errors.md is this table", async () => {
    const table = await renderTable(ROWS);
    if (process.env.UPDATE_BAD_INPUT) writeFileSync(TABLE_PATH, table);
    expect(ROWS.length).toBeGreaterThanOrEqual(20);
    expect(readFileSync(TABLE_PATH, "utf8")).toBe(table);
  });
});
