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
import { FabrikBehavior } from "../../plugin/index.js";
import { ASSETS_DIR } from "../babylon/characters.js";
import { machineName, median } from "./harness.js";

/*
 * 100 RobotExpressive characters on NullEngine, each playing its own clip, every frame a real
 * `scene.render()` (animations, world matrices, skeletons, draw submission). Four limbs per character get a
 * target moving within reach every frame, solved by:
 *
 * - babylon-fabrik, the characters bench's effectors (issue 4): both hands on their default arm chains
 *   (shoulder and elbow turn), both lower legs with chainLength 1 (the thigh turns);
 * - babylon-fabrik on both hands and both feet by role (on this rig the feet hang from the root where the
 *   shins end: thigh and shin bend, the foot bone is moved after the solve);
 * - Babylon's BoneIKController on the same arms and legs (the forearm and the shin as its middle bone, the
 *   shin given the length to where the foot sits), updated in an onBeforeRender observer, in a right-handed
 *   scene (it misses glTF targets by metres in a left-handed one).
 *
 * Cost is CPU time (`process.cpuUsage`, user + system) over blocks of frames, the configurations taking
 * turns block by block in one process (rotated each round) so that the machine's drift hits them alike;
 * each configuration's cost is its block against the neighbouring blocks without IK, and the median over
 * rounds is reported. Every behavior and controller exists throughout; a configuration not being measured
 * is disabled (behaviors: `enabled = false`; controllers: not updated).
 */

Logger.LogLevels = Logger.ErrorLogLevel;
const FILE = `${ASSETS_DIR}RobotExpressive/RobotExpressive.glb`;
const CHARACTERS = Number(process.env.CROWD_CHARACTERS ?? 100);
const BLOCK = Number(process.env.CROWD_BLOCK ?? 10);
const ROUNDS = Number(process.env.CROWD_ROUNDS ?? 16);
const WARM_UP = 60;
const CLIPS = ["Idle", "Walking", "Running", "Dance", "Wave", "ThumbsUp"];
/** Frames of one period of every target's motion. */
const PERIOD = 150;

type Kind = "none" | "fabrik" | "fabrikFeet" | "boneIK";
const KINDS: readonly Kind[] = ["none", "fabrik", "fabrikFeet", "boneIK"];
const LABELS: Record<Kind, string> = {
  none: "no IK",
  fabrik: "babylon-fabrik: hands, lower legs (chainLength 1)",
  fabrikFeet: "babylon-fabrik: hands, feet by role",
  boneIK: "BoneIKController: arms, legs",
};

/** A target point the frame loop moves in place (a class of its own, so V8 keeps its fields unboxed). */
class Point {
  x = 0.5;
  y = 0.5;
  z = 0.5;
}

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
}

const LIMBS: readonly Limb[] = [
  { fabrik: "leftHand", role: "leftHand", middle: "LowerArm.L", end: "leftHand" },
  { fabrik: "rightHand", role: "rightHand", middle: "LowerArm.R", end: "rightHand" },
  { fabrik: "LowerLeg.L", chainLength: 1, role: "leftFoot", middle: "LowerLeg.L", end: "leftFoot" },
  { fabrik: "LowerLeg.R", chainLength: 1, role: "rightFoot", middle: "LowerLeg.R", end: "rightFoot" },
];

interface Character {
  readonly root: TransformNode;
  readonly fabrik: FabrikBehavior;
  readonly fabrikFeet: FabrikBehavior;
  readonly controllers: BoneIKController[];
  /** Per limb: the target of frame f at 3f (world), for babylon-fabrik's lower legs and for the rest. */
  readonly knees: Float64Array[];
  readonly ends: Float64Array[];
  /** Live targets: babylon-fabrik reads them each frame, the controllers get copies. */
  readonly kneePoints: Point[];
  readonly endPoints: Point[];
}

function bone(mesh: AbstractMesh, name: string): Bone {
  const found = mesh.skeleton!.bones.find((b) => b.name === name);
  if (found === undefined) throw new Error(`no bone ${name}`);
  return found;
}

/** One period of a point turned about `base` by up to 0.3 rad: a target that stays within the limb's reach. */
function path(base: Vector3, end: Vector3, phase: number): Float64Array {
  const out = new Float64Array(3 * PERIOD);
  const v = end.subtract(base);
  const axis = Vector3.Cross(v, new Vector3(0.3, 0.5, 1)).normalize();
  for (let f = 0; f < PERIOD; f++) {
    const theta = 0.3 * Math.sin((2 * Math.PI * f) / PERIOD + phase);
    const cos = Math.cos(theta),
      sin = Math.sin(theta);
    const cross = Vector3.Cross(axis, v);
    const p = v
      .scale(cos)
      .add(cross.scale(sin))
      .add(axis.scale(Vector3.Dot(axis, v) * (1 - cos)))
      .add(base);
    out.set([p.x, p.y, p.z], 3 * f);
  }
  return out;
}

function world(node: TransformNode): Vector3 {
  return node.computeWorldMatrix(true).getTranslation();
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
    const rig = fabrik.rig!;
    const node = (name: string) => rig.nodes[fabrik.jointIndex(name)]!;
    const mesh = rig.meshes.find((m) => m.skeleton !== null)!;
    const knees: Float64Array[] = [];
    const ends: Float64Array[] = [];
    const kneePoints: Point[] = [];
    const endPoints: Point[] = [];
    const controllers: BoneIKController[] = [];
    LIMBS.forEach((limb, k) => {
      const middle = node(limb.middle);
      const base = middle.parent as TransformNode;
      knees.push(path(world(base), world(middle), i + k));
      ends.push(path(world(base), world(node(limb.end)), i + k));
      kneePoints.push(new Point());
      endPoints.push(new Point());
      fabrik.setTarget(limb.fabrik, limb.chainLength === undefined ? endPoints[k] : kneePoints[k], {
        ...(limb.chainLength === undefined ? {} : { chainLength: limb.chainLength }),
      });
      fabrikFeet.setTarget(limb.role, endPoints[k]);
      const middleBone = bone(mesh, limb.middle);
      // A shin without a child joint (the foot hangs from the root): its length reaches where the foot sits.
      if (middleBone.getChildren().length === 0) {
        middleBone.length = Vector3.Distance(world(middle), world(node(limb.end))) / root.scaling.y;
      }
      const controller = new BoneIKController(mesh, middleBone);
      controllers.push(controller);
    });
    // Targets are set on the rest pose, where each foot sits at its shin's end (a clip may lift it off).
    const clip = entries.animationGroups.find((g) => g.name.startsWith(`${CLIPS[i % CLIPS.length]}#`))!;
    clip.start(true, 0.8 + 0.05 * (i % 9));
    clip.goToFrame(clip.from + ((i * 7) % Math.max(1, clip.to - clip.from)));
    characters.push({ root, fabrik, fabrikFeet, controllers, knees, ends, kneePoints, endPoints });
  }

  let active: Kind = "none";
  const setActive = (kind: Kind) => {
    active = kind;
    for (const c of characters) {
      c.fabrik.enabled = kind === "fabrik";
      c.fabrikFeet.enabled = kind === "fabrikFeet";
    }
  };
  scene.onBeforeRenderObservable.add(() => {
    if (active !== "boneIK") return;
    for (let i = 0; i < characters.length; i++) {
      const controllers = characters[i].controllers;
      for (let k = 0; k < controllers.length; k++) controllers[k].update();
    }
  });

  let f = 0;
  /** Moves every target to frame f of its path (plain stores: the loop allocates nothing). */
  const aim = () => {
    f = f + 1 === PERIOD ? 0 : f + 1;
    const o = 3 * f;
    for (let i = 0; i < characters.length; i++) {
      const c = characters[i];
      for (let k = 0; k < LIMBS.length; k++) {
        const knee = c.kneePoints[k],
          end = c.endPoints[k],
          kp = c.knees[k],
          ep = c.ends[k];
        knee.x = kp[o];
        knee.y = kp[o + 1];
        knee.z = kp[o + 2];
        end.x = ep[o];
        end.y = ep[o + 1];
        end.z = ep[o + 2];
        c.controllers[k].targetPosition.set(ep[o], ep[o + 1], ep[o + 2]);
      }
    }
  };
  /** CPU microseconds of `BLOCK` rendered frames of configuration `kind`. */
  const block = (kind: Kind): number => {
    setActive(kind);
    // One frame unmeasured: the switch itself (a restore, observers coming and going) is not the steady state.
    aim();
    scene.render();
    let cpu = 0;
    for (let i = 0; i < BLOCK; i++) {
      aim();
      const start = process.cpuUsage();
      scene.render();
      const used = process.cpuUsage(start);
      cpu += used.user + used.system;
    }
    return cpu / BLOCK;
  };

  for (const kind of KINDS) for (let i = 0; i < WARM_UP / KINDS.length; i++) block(kind);
  const costs: Record<Kind, number[]> = { none: [], fabrik: [], fabrikFeet: [], boneIK: [] };
  const frames: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // none, A, none, B, none, C, none: each configuration between two blocks without IK.
    const order = KINDS.slice(1);
    for (let r = 0; r < round % order.length; r++) order.push(order.shift()!);
    let before = block("none");
    frames.push(before);
    for (const kind of order) {
      const measured = block(kind);
      const after = block("none");
      frames.push(after);
      const baseline = (before + after) / 2;
      costs[kind].push((measured - baseline) / baseline);
      before = after;
    }
  }
  const frameUs = median(frames);
  const rows = KINDS.slice(1).map((kind) => {
    const sorted = costs[kind].slice().sort((a, b) => a - b);
    return {
      kind,
      median: median(costs[kind].slice()),
      low: sorted[Math.floor(0.25 * (sorted.length - 1))],
      high: sorted[Math.ceil(0.75 * (sorted.length - 1))],
    };
  });
  const boneIK = rows.find((r) => r.kind === "boneIK")!.median;
  const lines = [
    `machine: ${machineName()}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")} at the end; Babylon.js 9.28.0, NullEngine, right-handed scene`,
    `${CHARACTERS} RobotExpressive characters, each playing its own clip; scene.render() per frame: ` +
      `${(frameUs / 1000).toFixed(2)} ms CPU without IK (median block); ${ROUNDS} rounds of blocks of ${BLOCK} frames`,
    "",
    "| configuration | adds to scene.render() (median) | middle half of rounds | × BoneIKController's |",
    "| --- | --- | --- | --- |",
    ...rows.map(
      (r) =>
        `| ${LABELS[r.kind]} | **${(100 * r.median).toFixed(2)} %** | ${(100 * r.low).toFixed(2)} – ` +
        `${(100 * r.high).toFixed(2)} % | ${r.kind === "boneIK" ? "—" : (r.median / boneIK).toFixed(2)} |`,
    ),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  process.stdout.write(
    `${JSON.stringify({ frameUs, ...Object.fromEntries(rows.map((r) => [r.kind, r.median])) })}\n`,
  );
  engine.dispose();
}

await main();
