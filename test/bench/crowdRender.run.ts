// What the IK adds to a frame Babylon renders (run by crowdRender.bench.ts in a plain Node process, through
// tsx: vitest's module transform turns every imported binding into a getter call, which is not how a
// bundled application runs the library). Prints the tables and, last, one JSON line of the ratios.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { BoneIKController } from "@babylonjs/core/Bones/boneIKController.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { LoadAssetContainerAsync } from "@babylonjs/core/Loading/sceneLoader.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { Scene } from "@babylonjs/core/scene.js";
import "@babylonjs/loaders/glTF/2.0/index.js";
import { FabrikBehavior, FabrikSystem, PoseReader } from "../../plugin/index.js";
import { ASSETS_DIR } from "../babylon/characters.js";
import { Point, turnAbout } from "./turnAbout.js";
import { machineName, median } from "./harness.js";

/*
 * 100 RobotExpressive characters on NullEngine, each playing its own clip, every frame a real
 * `scene.render()` (animations, world matrices, skeletons, draw submission). Four limbs per character get a
 * target moving within reach every frame (as in the characters bench: the animated end of the limb turned
 * about the limb's base by up to 0.35 rad), solved by:
 *
 * - babylon-fabrik, the characters bench's effectors (issue 4): both hands on their default arm chains
 *   (shoulder and elbow turn), both lower legs with chainLength 1 (the thigh turns);
 * - babylon-fabrik on both hands and both feet by role (on this rig the feet hang from the root where the
 *   shins end: thigh and shin bend, the foot bone is moved after the solve);
 * - the first with `skipWhenHidden` on (a third behavior with the same targets): characters the camera did
 *   not draw in the last frame are skipped (the camera sees part of the crowd; the row says how many it
 *   solved a frame); once it has run, its draw observers stay on the meshes through every configuration's
 *   frames (an observer call per skinned mesh drawn);
 * - Babylon's BoneIKController on the same arms and legs (the forearm and the shin as its middle bone, the
 *   shin given the length to where the foot sits), updated in an onBeforeRender observer, in a right-handed
 *   scene (it misses glTF targets by metres in a left-handed one).
 *
 * Cost is CPU time (`process.cpuUsage`, user + system) of `scene.render()`, per frame, the configurations
 * (no IK included) taking turns in short blocks in one process, rotated each round, so that the machine's
 * drift hits them alike; each configuration's cost is its median frame against the median frame without
 * IK, and the same for each half of the run is printed beside it. Every behavior and controller exists
 * throughout; a configuration not being measured is out of the frame: its behaviors leave the scene's
 * FabrikSystem (a disabled behavior still costs its check each frame, which is not what the IK costs), its
 * controllers are not updated. Targets are computed between frames, outside the timing, from the animated
 * pose the frame left: the behaviors put it back after rendering; the controllers' limbs are put back by
 * the bench (their update saves the animated rotations, a few quaternion copies counted in their time;
 * BoneIKController itself never puts anything back).
 */

Logger.LogLevels = Logger.ErrorLogLevel;
const FILE = `${ASSETS_DIR}RobotExpressive/RobotExpressive.glb`;
const CHARACTERS = Number(process.env.CROWD_CHARACTERS ?? 100);
const BLOCK = Number(process.env.CROWD_BLOCK ?? 6);
const ROUNDS = Number(process.env.CROWD_ROUNDS ?? 40);
const WARM_UP = 60;
const CLIPS = ["Idle", "Walking", "Running", "Dance", "Wave", "ThumbsUp"];
/** Frames of one period of every target's motion (as in the characters bench). */
const PERIOD = 150;

type Kind = "none" | "fabrik" | "fabrikFeet" | "fabrikSkip" | "boneIK";
const KINDS: readonly Kind[] = ["none", "fabrik", "fabrikFeet", "fabrikSkip", "boneIK"];
const LABELS: Record<Kind, string> = {
  none: "no IK",
  fabrik: "babylon-fabrik: hands, lower legs (chainLength 1)",
  fabrikFeet: "babylon-fabrik: hands, feet by role",
  fabrikSkip: "the first row with `skipWhenHidden`",
  boneIK: "BoneIKController: arms, legs",
};

interface Limb {
  /** The joint babylon-fabrik pulls, and how. */
  readonly fabrik: string;
  readonly chainLength?: number;
  /** The role babylon-fabrik pulls in the feet configuration. */
  readonly role: string;
  /** BoneIKController's middle bone (it turns that bone and its parent). */
  readonly middle: string;
  /** The role of the joint whose position, turned about the limb's base, makes the target. */
  readonly end: string;
  /** The limb's base: the joint its targets turn about. */
  readonly base: string;
}

const LIMBS: readonly Limb[] = [
  { fabrik: "leftHand", role: "leftHand", middle: "LowerArm.L", end: "leftHand", base: "UpperArm.L" },
  { fabrik: "rightHand", role: "rightHand", middle: "LowerArm.R", end: "rightHand", base: "UpperArm.R" },
  {
    fabrik: "LowerLeg.L",
    chainLength: 1,
    role: "leftFoot",
    middle: "LowerLeg.L",
    end: "leftFoot",
    base: "UpperLeg.L",
  },
  {
    fabrik: "LowerLeg.R",
    chainLength: 1,
    role: "rightFoot",
    middle: "LowerLeg.R",
    end: "rightFoot",
    base: "UpperLeg.R",
  },
];

interface Character {
  readonly root: TransformNode;
  readonly fabrik: FabrikBehavior;
  readonly fabrikFeet: FabrikBehavior;
  /** The first's targets with `skipWhenHidden` on (a behavior of its own: its solves are counted). */
  readonly fabrikSkip: FabrikBehavior;
  readonly controllers: BoneIKController[];
  /** Reads the limbs' joints between frames, for the targets. */
  readonly reader: PoseReader;
  /** Per limb: its middle joint, the end of its target and its base (joint indices). */
  readonly middles: number[];
  readonly ends: number[];
  readonly bases: number[];
  /** Live targets: babylon-fabrik reads them each frame, the controllers get copies. */
  readonly kneePoints: Point[];
  readonly endPoints: Point[];
  /** The joints the controllers turn (each limb's middle and its parent), and their animated rotations. */
  readonly turned: TransformNode[];
  readonly saved: Float64Array;
}

function bone(mesh: AbstractMesh, name: string): Bone {
  const found = mesh.skeleton!.bones.find((b) => b.name === name);
  if (found === undefined) throw new Error(`no bone ${name}`);
  return found;
}

const scratchEnd = new Point(),
  scratchBase = new Point();

/**
 * `out` = the joint `end`, turned about `base` by up to 0.35 rad (the characters bench's targets: within the
 * limb's reach, moving on top of the animation), for frame `f`.
 */
function turned(reader: PoseReader, end: number, base: number, f: number, phase: number, out: Point): void {
  reader.getWorldPositionToRef(end, scratchEnd);
  reader.getWorldPositionToRef(base, scratchBase);
  turnAbout(scratchEnd, scratchBase, 0.35 * Math.sin((2 * Math.PI * f) / PERIOD + phase), out);
}

async function main(): Promise<void> {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  scene.useRightHandedSystem = process.env.CROWD_LEFT !== "1";
  new FreeCamera("camera", new Vector3(0, 3, 30), scene).setTarget(new Vector3(18, 1, 18));
  scene.useConstantAnimationDeltaTime = true;
  const container = await LoadAssetContainerAsync(new Uint8Array(readFileSync(FILE)), scene, {
    pluginExtension: ".glb",
  });
  const characters: Character[] = [];
  for (let i = 0; i < CHARACTERS; i++) {
    const entries = container.instantiateModelsToScene((name) => `${name}#${i}`, false, {
      doNotInstantiate: true,
    });
    const root = entries.rootNodes[0] as TransformNode;
    root.position.set((i % 10) * 4, 0, Math.floor(i / 10) * 4);
    for (const group of entries.animationGroups) group.stop();
    scene.incrementRenderId();
    const fabrik = new FabrikBehavior();
    root.addBehavior(fabrik, true);
    const fabrikFeet = new FabrikBehavior();
    root.addBehavior(fabrikFeet, true);
    const fabrikSkip = new FabrikBehavior();
    root.addBehavior(fabrikSkip, true);
    fabrikSkip.skipWhenHidden = true;
    const rig = fabrik.rig!;
    const joint = (name: string) => fabrik.jointIndex(name);
    const mesh = rig.meshes.find((m) => m.skeleton !== null)!;
    const c: Character = {
      root,
      fabrik,
      fabrikFeet,
      fabrikSkip,
      controllers: [],
      reader: new PoseReader(rig),
      middles: LIMBS.map((l) => joint(l.middle)),
      ends: LIMBS.map((l) => joint(l.end)),
      bases: LIMBS.map((l) => joint(l.base)),
      kneePoints: LIMBS.map(() => new Point()),
      endPoints: LIMBS.map(() => new Point()),
      turned: LIMBS.flatMap((l) => [
        rig.nodes[joint(l.middle)]!,
        rig.nodes[joint(l.middle)]!.parent as TransformNode,
      ]),
      saved: new Float64Array(4 * 2 * LIMBS.length),
    };
    c.reader.readOnly([...c.middles, ...c.ends, ...c.bases]);
    // Targets are set on the rest pose, where each foot sits at its shin's end (a clip may lift it off).
    LIMBS.forEach((limb, k) => {
      for (const ik of [fabrik, fabrikSkip])
        ik.setTarget(limb.fabrik, limb.chainLength === undefined ? c.endPoints[k] : c.kneePoints[k], {
          ...(limb.chainLength === undefined ? {} : { chainLength: limb.chainLength }),
        });
      fabrikFeet.setTarget(limb.role, c.endPoints[k]);
      const middleBone = bone(mesh, limb.middle);
      // A shin without a child joint (the foot hangs from the root): its length reaches where the foot sits.
      if (middleBone.getChildren().length === 0) {
        const p = (j: number) => rig.nodes[j]!.computeWorldMatrix(true).getTranslation();
        middleBone.length = Vector3.Distance(p(c.middles[k]), p(c.ends[k])) / root.scaling.y;
      }
      c.controllers.push(new BoneIKController(mesh, middleBone));
    });
    const clip = entries.animationGroups.find((g) => g.name.startsWith(`${CLIPS[i % CLIPS.length]}#`))!;
    clip.start(true, 0.8 + 0.05 * (i % 9));
    clip.goToFrame(clip.from + ((i * 7) % Math.max(1, clip.to - clip.from)));
    characters.push(c);
  }

  let active: Kind = "none";
  // A configuration not measured is out of the frame altogether: its characters leave the scene's system
  // (a disabled behavior still costs its check every frame, which is not the IK's cost).
  const system = FabrikSystem.of(scene);
  const pipelineOf = (ik: FabrikBehavior) =>
    (ik as unknown as { _character: { pipeline: Parameters<FabrikSystem["add"]>[0] } })._character.pipeline;
  for (const c of characters) {
    system.remove(pipelineOf(c.fabrik));
    system.remove(pipelineOf(c.fabrikFeet));
    system.remove(pipelineOf(c.fabrikSkip));
  }
  const setActive = (kind: Kind) => {
    if (kind === active) return;
    for (const c of characters) {
      if (active !== "none" && active !== "boneIK") system.remove(pipelineOf(c[active]));
      if (kind !== "none" && kind !== "boneIK") system.add(pipelineOf(c[kind]), "beforeRender");
    }
    active = kind;
  };
  /** Characters solved in the measured frames of `fabrikSkip` (those drawn the frame before). */
  let skipSolved = 0;
  for (const c of characters) c.fabrikSkip.onSolvedObservable.add(() => skipSolved++);
  scene.onBeforeRenderObservable.add(() => {
    if (active !== "boneIK") return;
    for (let i = 0; i < characters.length; i++) {
      const c = characters[i];
      // The animated rotations the controllers replace, put back after the frame (see the top of the file).
      const saved = c.saved;
      for (let t = 0; t < c.turned.length; t++) {
        const q = c.turned[t].rotationQuaternion!;
        saved[4 * t] = q.x;
        saved[4 * t + 1] = q.y;
        saved[4 * t + 2] = q.z;
        saved[4 * t + 3] = q.w;
      }
      const controllers = c.controllers;
      for (let k = 0; k < controllers.length; k++) controllers[k].update();
    }
  });

  const solves = {
    fabrik: { iterations: 0, converged: 0, count: 0 },
    fabrikFeet: { iterations: 0, converged: 0, count: 0 },
    fabrikSkip: { iterations: 0, converged: 0, count: 0 },
  };
  let f = 0;
  /**
   * Between frames: the controllers' limbs back to their animation, then every target for the next frame
   * from the animated pose (plain stores: the loop allocates nothing).
   */
  const aim = () => {
    f++;
    for (let i = 0; i < characters.length; i++) {
      const c = characters[i];
      if (active === "boneIK") {
        for (let t = 0; t < c.turned.length; t++) {
          const s = c.saved;
          c.turned[t].rotationQuaternion!.set(s[4 * t], s[4 * t + 1], s[4 * t + 2], s[4 * t + 3]);
        }
      }
      c.reader.read();
      for (let k = 0; k < LIMBS.length; k++) {
        turned(c.reader, c.middles[k], c.bases[k], f, i + k, c.kneePoints[k]);
        const end = c.endPoints[k];
        turned(c.reader, c.ends[k], c.bases[k], f, i + k, end);
        c.controllers[k].targetPosition.set(end.x, end.y, end.z);
      }
    }
  };
  /** Frame CPU times (µs) per configuration, and per half of the run (the halves show the drift). */
  const samples: Record<Kind, number[][]> = {
    none: [[], []],
    fabrik: [[], []],
    fabrikFeet: [[], []],
    fabrikSkip: [[], []],
    boneIK: [[], []],
  };
  let skipFrames = 0;
  /** `BLOCK` rendered frames of configuration `kind`, after one frame to switch (not counted). */
  const block = (kind: Kind, half: number | null): void => {
    aim();
    setActive(kind);
    const switchSolved = skipSolved;
    scene.render();
    skipSolved = switchSolved;
    for (let i = 0; i < BLOCK; i++) {
      aim();
      const solvedBefore = skipSolved;
      const start = process.cpuUsage();
      scene.render();
      const used = process.cpuUsage(start);
      if (half === null) {
        skipSolved = solvedBefore;
        continue;
      }
      if (kind === "fabrikSkip") skipFrames++;
      samples[kind][half].push(used.user + used.system);
      if (kind === "fabrik" || kind === "fabrikFeet") {
        for (const c of characters) {
          const report = c[kind].plan!.report;
          solves[kind].iterations += report.iterations;
          solves[kind].converged += report.converged ? 1 : 0;
          solves[kind].count++;
        }
      }
    }
  };

  for (let i = 0; i < WARM_UP / BLOCK; i++) for (const kind of KINDS) block(kind, null);
  for (let round = 0; round < ROUNDS; round++) {
    const order = KINDS.slice();
    for (let r = 0; r < round % order.length; r++) order.push(order.shift()!);
    for (const kind of order) block(kind, round < ROUNDS / 2 ? 0 : 1);
  }
  // Medians of frames: a frame the garbage collector stops (for Babylon's own allocations) says nothing of
  // the IK, and short blocks taking turns meet the machine's drift alike.
  const frameMedian = (kind: Kind, half: number | null) =>
    median(half === null ? [...samples[kind][0], ...samples[kind][1]] : samples[kind][half].slice());
  const frameUs = frameMedian("none", null);
  const cost = (kind: Kind, half: number | null) =>
    (frameMedian(kind, half) - frameMedian("none", half)) / frameMedian("none", half);
  const rows = KINDS.slice(1).map((kind) => {
    const halves = [cost(kind, 0), cost(kind, 1)].sort((x, y) => x - y);
    return { kind, median: cost(kind, null), low: halves[0], high: halves[1] };
  });
  const boneIK = rows.find((r) => r.kind === "boneIK")!.median;
  const lines = [
    `machine: ${machineName()}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")} at the end; Babylon.js 9.28.0, NullEngine, right-handed scene`,
    `${CHARACTERS} RobotExpressive characters, each playing its own clip; scene.render() per frame: ` +
      `${(frameUs / 1000).toFixed(2)} ms CPU without IK (median frame); ${ROUNDS} rounds of blocks of ${BLOCK} frames`,
    "",
    "| configuration | adds to scene.render() (median frame) | first and second half of the run | × BoneIKController's | iterations / solve | converged |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows.map((r) => {
      const stats = r.kind === "fabrik" || r.kind === "fabrikFeet" ? solves[r.kind] : null;
      const label =
        r.kind === "fabrikSkip"
          ? `${LABELS[r.kind]}: ${(skipSolved / Math.max(1, skipFrames)).toFixed(1)} of ${CHARACTERS} solved a frame`
          : LABELS[r.kind];
      return (
        `| ${label} | **${(100 * r.median).toFixed(2)} %** | ${(100 * r.low).toFixed(2)} – ` +
        `${(100 * r.high).toFixed(2)} % | ${r.kind === "boneIK" ? "—" : (r.median / boneIK).toFixed(2)} | ` +
        (stats === null
          ? "— | — |"
          : `${(stats.iterations / stats.count).toFixed(2)} | ${((100 * stats.converged) / stats.count).toFixed(1)} % |`)
      );
    }),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  process.stdout.write(
    `${JSON.stringify({ frameUs, ...Object.fromEntries(rows.map((r) => [r.kind, r.median])) })}\n`,
  );
  engine.dispose();
}

await main();
