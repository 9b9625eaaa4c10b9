// The character corpus run (not a test file): every character of ../shared/assets and assets/, default
// behavior settings, targets from smooth limit-respecting joint motion. Shared by corpus.test.ts.
import { existsSync, readdirSync } from "node:fs";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { FabrikBehavior, type FabrikBehaviorOptions } from "../../plugin/babylon/fabrikBehavior.js";
import { deformingJoints, modelSpaceUp } from "../../plugin/babylon/characterHeight.js";
import { forwardKinematics } from "../../plugin/rig/forwardKinematics.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { buildSkeletonRigs } from "../../plugin/babylon/skeletonRig.js";
import { FabrikError } from "../../plugin/solver/errors.js";
import { quatMultiply } from "../../plugin/solver/quaternion.js";
import { JUMP, StabilityCounter, turnBetween } from "../robustness/stability.js";
import { ASSETS_DIR, OWN_CHARACTERS, type Character, type Loaded } from "./characters.js";
import { LimitedWalk, type HangingArm } from "./corpusMotion.js";

/** Every character folder of the shared assets (its first .glb or .gltf), then the project's own. */
export function corpusCharacters(): { shared: Character[]; own: readonly Character[] } {
  const shared: Character[] = [];
  if (existsSync(ASSETS_DIR)) {
    for (const folder of readdirSync(ASSETS_DIR, { withFileTypes: true })) {
      if (!folder.isDirectory()) continue;
      const file = readdirSync(`${ASSETS_DIR}${folder.name}`).find((f) => /\.(glb|gltf)$/i.test(f));
      if (file === undefined) continue;
      const path = `${ASSETS_DIR}${folder.name}/${file}`;
      shared.push({ folder: folder.name, file, path, present: true });
    }
  }
  return { shared, own: OWN_CHARACTERS };
}

/**
 * A character's walk seed, from its name (the same with or without the other characters present); `walk`
 * picks another walk of the same character.
 */
export function seedOf(name: string, walk = 0): number {
  let h = 2166136261;
  for (let k = 0; k < name.length; k++) h = Math.imul(h ^ name.charCodeAt(k), 16777619);
  return ((h >>> 0) + walk) % 1000003;
}

/** The role effectors a user reaches with first; their default chains. */
const ROLE_EFFECTORS = ["leftHand", "rightHand", "leftFoot", "rightFoot", "head"] as const;

/** What one character's run measured. */
export interface CorpusRow {
  readonly name: string;
  readonly joints: number;
  /** Effector names (with chain lengths), and roles whose default chain the rig refused, with why. */
  readonly effectors: string[];
  /** Frames on which each effector (in `effectors` order) ended further than 1e-3 × height from its target. */
  readonly misses: number[];
  readonly refused: string[];
  readonly height: number;
  readonly frames: number;
  /** Frames with every target within 1e-3 × height. */
  readonly met: number;
  /** Largest residual of any effector on any frame, in heights. */
  readonly worst: number;
  /** Joint-frames turning more than 10° / 150° since the previous frame. */
  readonly steps: number;
  readonly flips: number;
  readonly largestStep: number;
  /** Where the steps are: frame, joint and turn (radians) of each joint-frame counted in `steps`. */
  readonly stepsAt: readonly CorpusStep[];
  /** Largest change of a bone's length, in heights; joints outside the chains that changed; NaN seen. */
  readonly boneError: number;
  readonly touched: number;
  readonly nan: number;
  readonly meanIterations: number;
  readonly maxIterations: number;
  /** Mean time from the behavior's before-solve event to its solved event (targets, solve, write-back), µs. */
  readonly solveMicros: number;
}

/**
 * One joint turning more than 10° between frames: the walk's frame it ends on (0-based, as LimitedWalk counts
 * them), the joint, the turn (radians).
 */
export interface CorpusStep {
  readonly frame: number;
  readonly joint: string;
  readonly turn: number;
}

/** Steps as text, one frame a line: "frame 244: Neck 43.2°, Spine2 14.3°". */
export function describeSteps(steps: readonly CorpusStep[]): string[] {
  const lines: string[] = [];
  for (let i = 0; i < steps.length;) {
    const frame = steps[i].frame;
    const joints: string[] = [];
    for (; i < steps.length && steps[i].frame === frame; i++)
      joints.push(`${steps[i].joint} ${((steps[i].turn * 180) / Math.PI).toFixed(1)}°`);
    lines.push(`frame ${frame}: ${joints.join(", ")}`);
  }
  return lines;
}

/** Within 1e-3 × height, as the bar counts it (float64 all the way; a hair for round-off). */
export const MET = 1e-3 * (1 + 1e-9);

/**
 * Effectors: the hands, feet and head of a humanoid with their default chains (a role whose chain the rig
 * refuses, such as feet kept under the root for Blender's IK, is listed in `refused`), then every leaf no
 * such chain covers: tails, necks, ears, legs of creatures, each up to the nearest joint where the skeleton
 * branches. Control bones are skipped: leaves that neither carry the body nor hang from a joint that does,
 * and one- or two-bone chains hanging beside the body from the joint above it (feet and pole targets for
 * Blender's IK).
 */
function pickEffectors(ik: FabrikBehavior, targets: Vector3[], refused: string[]): void {
  const rig = ik.rig!;
  const parents = rig.parents;
  const children = new Int32Array(rig.jointCount);
  for (let j = 0; j < rig.jointCount; j++) if (parents[j] >= 0) children[parents[j]]++;
  const covered = new Uint8Array(rig.jointCount);
  const cover = (top: number) => {
    for (let j = 0; j < rig.jointCount; j++) {
      for (let k = j; k >= 0; k = parents[k]) {
        if (k === top) covered[j] = 1;
      }
    }
  };
  const deforming = deformingJoints(rig);
  // Deforming joints per subtree (children come after their parents, so one pass from the end adds up).
  const carried = Int32Array.from(deforming);
  for (let k = rig.jointCount - 1; k >= 0; k--) if (parents[k] >= 0) carried[parents[k]] += carried[k];
  const total = deforming.reduce((sum, d) => sum + d, 0);
  // Control bones hang a joint or two below the armature, beside the body (another child of the armature
  // carries most of it), or neither carry the body nor hang from a joint that does.
  const isControl = (j: number, length: number) => {
    let below = j;
    for (let k = 1; k < length; k++) below = parents[below];
    const base = parents[below];
    // The armature: a root, or a joint above every one that carries the body.
    const armature = parents[base] < 0 || carried[base] === total;
    for (let k = 0; k < rig.jointCount && length <= 2 && armature; k++) {
      if (parents[k] === base && k !== below && 2 * carried[k] > total) return true;
    }
    return !deforming[j] && !deforming[parents[j]];
  };
  for (const role of ROLE_EFFECTORS) {
    if (ik.roles[role] === undefined) continue;
    // A foot kept under the root for Blender's IK is placed through its leg (the shin bends so its end meets
    // the target, and the foot bone is moved there): the walk's joint rotations do not describe that, and the
    // feature has tests of its own (fabrikBehavior.shinEnd).
    if (ik.shinOf(role) >= 0) {
      refused.push(`${role}: placed at its shin's end, not a chain of its own`);
      continue;
    }
    const target = new Vector3();
    try {
      ik.setTarget(role, target);
    } catch (error) {
      if (!(error instanceof FabrikError)) throw error;
      refused.push(`${role}: ${error.message.replace(/^FabrikIK setTarget\("\w+"\): /, "").slice(0, 60)}…`);
      continue;
    }
    const plan = ik.plan!;
    const e = plan.effectorCount - 1;
    if (isControl(plan.effectorJoints[e], plan.chainLengths[e])) {
      ik.removeTarget(role);
      refused.push(`${role}: "${rig.names[plan.effectorJoints[e]]}" is a control bone`);
      continue;
    }
    targets.push(target);
    // Fingers (also on palms beside the hand's), toes, a head's end site and ears go with the effector.
    cover(role === "head" ? plan.effectorJoints[e] : parents[plan.effectorJoints[e]]);
  }
  for (let j = 0; j < rig.jointCount; j++) {
    const p = parents[j];
    if (children[j] > 0 || covered[j] || p < 0) continue;
    let length = 1;
    for (let base = p; parents[base] >= 0 && children[base] === 1; base = parents[base]) length++;
    if (isControl(j, length)) continue;
    const target = new Vector3();
    ik.setTarget(j, target, { chainLength: length });
    targets.push(target);
  }
}

/** The arms to hang along the body for part of the run, when the rig has both joints of an arm. */
function hangingArms(ik: FabrikBehavior): HangingArm[] {
  const arms: HangingArm[] = [];
  for (const side of ["left", "right"] as const) {
    const upperArm = ik.roles[`${side}UpperArm`],
      lowerArm = ik.roles[`${side}LowerArm`];
    if (upperArm !== undefined && lowerArm !== undefined)
      arms.push({ upperArm, lowerArm, below: [lowerArm] });
  }
  return arms;
}

/**
 * Runs one character for `frames` frames at default settings (`options` is for studies of other settings;
 * the test gives none). Its animations are stopped before they ever play, so its joints hold the file's node
 * transforms (the bind pose), which the behavior starts every frame from (it puts the written rotations back
 * after each frame). The targets of each frame are the effectors' positions in the pose the walk gives, so
 * all of them are reachable together.
 */
export function runCorpus(
  loaded: Loaded,
  name: string,
  frames: number,
  seed: number,
  options: FabrikBehaviorOptions = {},
  holdConfiguration = true,
): CorpusRow {
  const scene = loaded.scene;
  for (const group of scene.animationGroups) group.stop();
  const groups = buildSkeletonRigs(loaded.root);
  // A node holding unrelated skeletons needs one named; that is a choice of character, not a setting.
  const ik = new FabrikBehavior(
    groups.length > 1 ? { ...options, skeleton: groups[0].skeletons[0] } : options,
  );
  loaded.root.addBehavior(ik, true);
  ik.holdConfiguration = holdConfiguration;
  const rig = ik.rig!;
  const targets: Vector3[] = [];
  const refused: string[] = [];
  pickEffectors(ik, targets, refused);
  const plan = ik.plan!;
  const height = ik.height;
  const n = rig.jointCount;

  const reader = new PoseReader(rig);
  const restPositions = reader.positions.slice();
  const restOrientations = reader.orientations.slice();
  const restLocals = { t: reader.localTranslations.slice(), r: reader.localRotations.slice() };
  const scales = reader.localScales.slice();
  // Held joints (carrying another chain: plugin/solver/carriedChains.ts) keep their rotation in a solve.
  const moving = Array.from(new Set(plan.rotatingJoints)).filter((j) => plan.scratch.held[j] !== 1);
  const walk = new LimitedWalk(ik.limits!, moving, frames, seed, {
    arms: hangingArms(ik),
    restPositions,
    restOrientations,
    up: modelSpaceUp(rig),
  });
  const deltas = new Float64Array(4 * moving.length);
  const rotations = restLocals.r.slice();
  const fk = { p: new Float64Array(3 * n), o: new Float64Array(4 * n), b: new Float64Array(9 * n) };
  const goal = new Float64Array(3 * plan.effectorCount);
  const written = new Set(ik.writtenJoints);
  const restBone = boneLengths(rig.parents, restPositions);

  const misses = new Array<number>(plan.effectorCount).fill(0);
  const counter = new StabilityCounter();
  const stepsAt: CorpusStep[] = [];
  let previous: Float64Array | null = null;
  let frame = 0;
  let met = 0,
    worst = 0,
    boneError = 0,
    touched = 0,
    nan = 0,
    iterations = 0,
    maxIterations = 0,
    solves = 0,
    started = 0,
    solveTime = 0;
  const starting = ik.onBeforeSolveObservable.add(() => {
    started = performance.now();
  });
  const solved = ik.onSolvedObservable.add(({ report }) => {
    solveTime += performance.now() - started;
    solves++;
    iterations += report.iterations;
    maxIterations = Math.max(maxIterations, report.iterations);
  });
  // Before the behavior solves: this frame's targets, from the walk's pose by forward kinematics.
  const before = scene.onBeforeRenderObservable.add(
    () => {
      walk.deltas(frame, deltas);
      rotations.set(restLocals.r);
      moving.forEach((j, i) => quatMultiply(rotations, 4 * j, ik.limits!.restLocal, 4 * j, deltas, 4 * i));
      forwardKinematics(rig.parents, restLocals.t, rotations, scales, fk.p, fk.o, fk.b);
      const m = reader.modelToWorld;
      for (let e = 0; e < plan.effectorCount; e++) {
        const j3 = 3 * plan.effectorJoints[e];
        const [x, y, z] = [fk.p[j3], fk.p[j3 + 1], fk.p[j3 + 2]];
        goal.set([x, y, z], 3 * e);
        targets[e].set(
          x * m[0] + y * m[4] + z * m[8] + m[12],
          x * m[1] + y * m[5] + z * m[9] + m[13],
          x * m[2] + y * m[6] + z * m[10] + m[14],
        );
      }
    },
    undefined,
    true,
  );
  // After rendering, before the behavior puts the rest pose back: the written pose, read from the nodes.
  const after = scene.onAfterRenderObservable.add(
    () => {
      frame++;
      reader.read();
      const p = reader.positions;
      let frameWorst = 0;
      for (let e = 0; e < plan.effectorCount; e++) {
        const j3 = 3 * plan.effectorJoints[e];
        const r = Math.hypot(p[j3] - goal[3 * e], p[j3 + 1] - goal[3 * e + 1], p[j3 + 2] - goal[3 * e + 2]);
        frameWorst = Math.max(frameWorst, r / height);
        if (r / height > MET) misses[e]++;
      }
      worst = Math.max(worst, frameWorst);
      const lengths = boneLengths(rig.parents, p);
      for (let j = 0; j < n; j++) {
        boneError = Math.max(boneError, Math.abs(lengths[j] - restBone[j]) / height);
        let same = true;
        for (let i = 0; i < 4; i++) {
          const v = reader.localRotations[4 * j + i];
          if (!Number.isFinite(v)) nan++;
          if (v !== restLocals.r[4 * j + i]) same = false;
        }
        for (let i = 0; i < 3; i++) {
          if (reader.localTranslations[3 * j + i] !== restLocals.t[3 * j + i]) same = false;
        }
        if (!same && !written.has(j)) touched++;
      }
      if (frameWorst <= MET) met++;
      const locals = reader.localRotations.slice();
      counter.record(locals, frameWorst <= MET);
      for (let j = 0; j < n && previous !== null; j++) {
        const turn = turnBetween(previous, 4 * j, locals, 4 * j);
        if (turn > JUMP) stepsAt.push({ frame: frame - 1, joint: rig.names[j], turn });
      }
      previous = locals;
    },
    undefined,
    true,
  );
  for (let frame = 0; frame < frames; frame++) scene.render();
  for (const o of [before, after]) o.remove();
  solved.remove();
  starting.remove();
  loaded.root.removeBehavior(ik);

  const c = counter.counts;
  return {
    name,
    joints: n,
    effectors: Array.from(plan.effectorJoints, (j, e) => `${rig.names[j]}/${plan.chainLengths[e]}`),
    misses,
    refused,
    height,
    frames: frame,
    met,
    worst,
    steps: c.jumps,
    flips: c.flips,
    largestStep: c.largest,
    stepsAt,
    boneError,
    touched,
    nan,
    meanIterations: solves > 0 ? iterations / solves : 0,
    maxIterations,
    solveMicros: solves > 0 ? (1000 * solveTime) / solves : 0,
  };
}

function boneLengths(parents: Int32Array, positions: Float64Array): Float64Array {
  return Float64Array.from(parents, (p, j) =>
    p < 0
      ? 0
      : Math.hypot(
          positions[3 * j] - positions[3 * p],
          positions[3 * j + 1] - positions[3 * p + 1],
          positions[3 * j + 2] - positions[3 * p + 2],
        ),
  );
}

/** The table of rows as Markdown, for the console and docs/convergence.md. */
export function corpusTable(rows: readonly CorpusRow[]): string {
  const head =
    "| character | joints | effectors | frames | met ≤ 1e-3 h | worst (h) | steps > 10° | flips | largest step | " +
    "bone error (h) | untouched moved | NaN | iterations mean / max | µs per frame |";
  const lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"];
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${r.joints} | ${r.effectors.length} | ${r.frames} | ` +
        `${((100 * r.met) / r.frames).toFixed(1)} % | ${r.worst.toExponential(1)} | ${r.steps} | ${r.flips} | ` +
        `${((r.largestStep * 180) / Math.PI).toFixed(1)}° | ${r.boneError.toExponential(0)} | ${r.touched} | ` +
        `${r.nan} | ${r.meanIterations.toFixed(1)} / ${r.maxIterations} | ${r.solveMicros.toFixed(0)} |`,
    );
  }
  return lines.join("\n");
}
