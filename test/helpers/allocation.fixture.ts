// Measures per-frame allocation of the helpers outside vitest (run with `node --import tsx`): vitest's
// module transform turns every imported binding into a getter, which blocks inlining and boxes doubles
// that a bundled build never boxes. Prints one JSON line: bytes per update, ours and Babylon's.
import { Ray } from "@babylonjs/core/Culling/ray.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { Session } from "node:inspector/promises";
import { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { FootPlacement } from "../../plugin/helpers/footPlacement.js";
import { LookAt } from "../../plugin/helpers/lookAt.js";
import { Reach } from "../../plugin/helpers/reach.js";
import { TwoHandGrip } from "../../plugin/helpers/twoHandGrip.js";
import { TrackedBody } from "../../plugin/helpers/trackedBody.js";
import { CHARACTERS, OWN_CHARACTERS, loadCharacter } from "../babylon/characters.js";
import { createSlope } from "./helperHarness.js";

interface Sample {
  readonly own: number;
  readonly total: number;
  /** Allocated by functions of plugin/helpers/ alone. */
  readonly helpers: number;
  readonly sites: string[];
}

function measuredCalls(work: () => void, calls: number): void {
  for (let i = 0; i < calls; i++) work();
}

/**
 * The least of three samplings: allocation-free code measures 0 in a window where V8 happens not to be
 * re-optimising it (a tier-up or deopt inside one window allocates its own bookkeeping), while a real
 * per-call allocation shows up in every window. Least by `by`: all of the frame's allocation, or the
 * helpers' alone where the solver's varies from window to window by more than that.
 */
async function measure(
  work: () => void,
  calls = 20000,
  warmup = 20000,
  by: "total" | "helpers" = "total",
): Promise<Sample> {
  let best: Sample | undefined;
  for (let round = 0; round < 3; round++) {
    const sample = await measureOnce(work, calls, warmup);
    if (best === undefined || sample[by] < best[by]) best = sample;
    if (best[by] < 1) break;
  }
  return best!;
}

async function measureOnce(work: () => void, calls: number, warmup: number): Promise<Sample> {
  measuredCalls(work, warmup);
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 32,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
  measuredCalls(work, calls);
  const { profile } = await session.post("HeapProfiler.stopSampling");
  session.disconnect();
  let own = 0;
  let total = 0;
  let helpers = 0;
  const sites = new Map<string, number>();
  const walk = (node: typeof profile.head, inside: boolean, path: string[]): void => {
    const frame = node.callFrame;
    const here = `${frame.functionName || "(anonymous)"} ${frame.url.replace(/^.*\/(node_modules|plugin)\//, "$1/")}:${frame.lineNumber + 1}`;
    const within = inside || frame.functionName === "measuredCalls";
    if (within && node.selfSize > 0) {
      total += node.selfSize;
      if (frame.url.includes("/plugin/helpers/")) helpers += node.selfSize;
      if (!frame.url.includes("node_modules")) {
        own += node.selfSize;
        const key = [...path, here].slice(-3).join(" < ");
        sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
      }
    }
    for (const child of node.children) walk(child, within, within ? [...path, here] : path);
  };
  walk(profile.head, false, []);
  // The helpers' own sites first: they are what a helper's test is about.
  const top = [...sites.entries()]
    .sort(
      (a, b) =>
        Number(b[0].includes("plugin/helpers/")) - Number(a[0].includes("plugin/helpers/")) || b[1] - a[1],
    )
    .slice(0, 5);
  return {
    own: own / calls,
    total: total / calls,
    helpers: helpers / calls,
    sites: top.map(([k, v]) => `${(v / calls).toFixed(1)} B ${k}`),
  };
}

const loaded = await loadCharacter(OWN_CHARACTERS[0]);
const ik = new FabrikBehavior();
loaded.root.addBehavior(ik, true);
createSlope(loaded.scene, 10);
const scene = loaded.scene;
for (const g of scene.animationGroups) g.stop();

const only = process.argv[2];

/**
 * One frame of a helper without rendering: its update, then the behavior's pipeline (read, passes, solve,
 * write) and the restore, through the scene's observables. A helper is a pass of that pipeline: its update
 * only sets the frame's time step, the work runs in the frame.
 */
function helperFrame(target: Scene, helper: { update(dt: number): void }): () => void {
  return () => {
    helper.update(1 / 60);
    target.onBeforeRenderObservable.notifyObservers(target);
    target.onAfterRenderObservable.notifyObservers(target);
  };
}
const result: Record<string, Sample> = {};

if (only === undefined || only === "footPlacement") {
  // The body's tilt on (two legs leave it off by default): its turn, carried legs and plane run each frame.
  const feet = new FootPlacement(ik, { autoUpdate: false, tiltBody: 1 });
  for (let i = 0; i < 10; i++) {
    feet.update(1 / 60);
    scene.render();
  }
  const foot = await measure(helperFrame(scene, feet));
  // Once more with Babylon's picking replaced by its last result: what is left is ours alone.
  const ray = new Ray(new Vector3(0.09, 0.5, 0), new Vector3(0, -1, 0), 2);
  const cached = scene.pickWithRay(ray)!;
  const cachedNormal = cached.getNormal(true, false);
  scene.pickWithRay = () => cached;
  cached.getNormal = () => cachedNormal;
  const footWithoutPicking = await measure(helperFrame(scene, feet));
  feet.dispose();
  result.footPlacement = foot;
  result.footWithoutPicking = footWithoutPicking;
}

if (only === undefined || only === "lookAt") {
  const look = new LookAt(ik, { autoUpdate: false, chest: true });
  look.target = new Vector3(1, 1.7, 1);
  for (let i = 0; i < 30; i++) {
    look.update(1 / 60);
    scene.render();
  }
  result.lookAt = await measure(helperFrame(scene, look));
  look.dispose();
}

if (only === undefined || only === "reach") {
  const reach = new Reach(ik, { autoUpdate: false });
  reach.reach(new Vector3(0.3, 1.2, 0.3), { duration: 0.1 });
  for (let i = 0; i < 30; i++) {
    reach.update(1 / 60);
    scene.render();
  }
  result.reachHold = await measure(() => reach.update(1 / 60));
  // Easing in for a very long time: the weight changes on every update.
  reach.reach(new Vector3(-0.3, 1.2, 0.3), { hand: "leftHand", duration: 1e9 });
  for (let i = 0; i < 30; i++) {
    reach.update(1 / 60);
    scene.render();
  }
  result.reachEase = await measure(() => reach.update(1 / 60));
}

if (only === "twoHandGrip") {
  // A bar held between the hands where they are, following a target node that moves every frame.
  scene.render();
  const hand = (side: string) => ik.rig!.nodes[ik.jointIndex(`${side}Hand` as never)]!;
  const [left, right] = [hand("left"), hand("right")];
  const object = new TransformNode("bar", scene);
  const target = new TransformNode("bar target", scene);
  target.rotationQuaternion = new Quaternion();
  const mid = left.absolutePosition.add(right.absolutePosition).scale(0.5);
  target.position.copyFrom(mid);
  const grip = new TwoHandGrip(ik, {
    object,
    target,
    left: { position: left.absolutePosition.subtract(mid), rotation: left.absoluteRotationQuaternion },
    right: { position: right.absolutePosition.subtract(mid), rotation: right.absoluteRotationQuaternion },
  });
  // The target's places, made beforehand: the frame itself only copies one.
  const places = Array.from({ length: 60 }, (_, i) =>
    mid.add(new Vector3(0, 0.05 * Math.sin(i / 10), 0.1 + 0.05 * Math.cos(i / 10))),
  );
  const step = new Int32Array(1);
  const frame = () => {
    step[0] = (step[0] + 1) % places.length;
    target.position.copyFrom(places[step[0]]);
    scene.onBeforeRenderObservable.notifyObservers(scene);
    scene.onAfterRenderObservable.notifyObservers(scene);
  };
  for (let i = 0; i < 30; i++) scene.render();
  result.twoHandGrip = await measure(frame, 1000);
  // The same places, with rotations the wrists cannot take (turned half round): the swivel search runs in
  // full on both elbow bends.
  const flip = Quaternion.RotationAxis(new Vector3(1, 0, 0), Math.PI);
  grip.setHandle("left", {
    position: left.absolutePosition.subtract(mid),
    rotation: left.absoluteRotationQuaternion.multiply(flip),
  });
  grip.setHandle("right", {
    position: right.absolutePosition.subtract(mid),
    rotation: right.absoluteRotationQuaternion.multiply(flip),
  });
  for (let i = 0; i < 30; i++) scene.render();
  result.twoHandGripSearch = await measure(frame, 1000);
  grip.dispose();
}

/**
 * A tracked body's trackers for a slow walk forward and a turn, moved every frame, with elbow and knee hints;
 * with `floor`, the head also goes down to lying behind the feet and back up every 9 s. Returns the frame's
 * update.
 */
function trackedWalk(body: TrackedBody, floor: boolean): (dt: number) => void {
  body.leftElbow.weight = body.rightElbow.weight = body.leftKnee.weight = body.rightKnee.weight = 1;
  let t = 0;
  return (dt: number) => {
    t += dt;
    const z = 0.5 * Math.sin(0.3 * t),
      a = 0.5 * Math.sin(0.2 * t),
      down = floor ? 0.5 - 0.5 * Math.cos(0.7 * t) : 0;
    body.head.position.set(0, 1.6 - 1.35 * down, z - 0.6 * down * down);
    body.head.rotation.set(0, Math.sin(a / 2), 0, Math.cos(a / 2));
    body.leftHand.position.set(-0.22, 1.05, z + 0.35);
    body.rightHand.position.set(0.22, 1.05 + 0.1 * Math.sin(t), z + 0.35);
    body.leftElbow.position.set(-0.5, 1.2 + 0.1 * Math.sin(t), z);
    body.rightElbow.position.set(0.5, 1.0, z + 0.1);
    body.leftKnee.position.set(-0.3, 0.5, z + 0.3);
    body.rightKnee.position.set(0.3, 0.5, z + 0.3 + 0.05 * Math.sin(t));
    body.update(dt);
  };
}

if (only === "trackedBody") {
  // Head and hands moving every frame (a slow walk forward and a turn), so the hips move, the feet step and
  // every target is written; the frame's update, pipeline and restore are measured. Then again with the
  // hands' heading on (the hands held ahead while the head turns, so the blend runs every frame). Elbow and
  // knee hints move with the body, so both limbs are swivelled and the drift learned every frame.
  for (const handsTurn of [0, 1]) {
    const body = new TrackedBody(ik, { autoUpdate: false, handsTurn });
    const frame = helperFrame(scene, { update: trackedWalk(body, false) });
    for (let i = 0; i < 60; i++) frame();
    const before = body.steps;
    // A frame solves the whole body (a millisecond or so): fewer calls than the light helpers, warmed up as long.
    result[handsTurn === 0 ? "trackedBody" : "trackedBodyHands"] = await measure(frame, 2000, 3000);
    if (!(body.steps > before)) throw new Error(`the body took no step while measured (${body.steps} steps)`);
    body.dispose();
  }
}

if (only === "trackedBodyFloor") {
  // The walk above, the head going down to lying behind the feet and back up every 9 s: the floor's code
  // works (the hips sitting down behind the planted feet, lying back, the legs unfolding; then up, stepping
  // again), and the steps' lead meets its cap as the body drops.
  const body = new TrackedBody(ik, { autoUpdate: false });
  const move = trackedWalk(body, true);
  // Once down and up, looked at between the write and the restore: the hips go down to the floor.
  const reader = new PoseReader(ik.rig!),
    hips = new Vector3();
  let lowest = Infinity,
    highest = -Infinity;
  for (let i = 0; i < 600; i++) {
    move(1 / 60);
    scene.onBeforeRenderObservable.notifyObservers(scene);
    reader.read();
    const y = reader.getWorldPositionToRef(ik.jointIndex("hips"), hips).y;
    lowest = Math.min(lowest, y);
    highest = Math.max(highest, y);
    scene.onAfterRenderObservable.notifyObservers(scene);
  }
  if (!(lowest < 0.4 * highest))
    throw new Error(`the hips did not go down (${lowest} m, ${highest} m at most)`);
  const before = body.steps;
  // Least by the helpers' own: the solver's hard frames (lying, the head out of the spine's reach) allocate
  // thousands of bytes a frame, more or less by where in the cycle a window falls.
  result.trackedBodyFloor = await measure(helperFrame(scene, { update: move }), 2000, 3000, "helpers");
  if (!(body.steps > before)) throw new Error(`the body took no step while measured (${body.steps} steps)`);
  body.dispose();
}

if (only === "footPlacementRobot") {
  // Feet at their shins' ends (RobotExpressive): the knees are placed before the solve and the feet moved
  // after it, so a frame is the update, the behavior's solve and the restore after rendering (run through
  // the scene's observables, without rendering's own allocations); picking is stubbed out.
  const robot = CHARACTERS.find((c) => c.folder === "RobotExpressive")!;
  if (robot.present) {
    const r = await loadCharacter(robot);
    const robotIk = new FabrikBehavior();
    r.root.addBehavior(robotIk, true);
    createSlope(r.scene, 10, Vector3.Zero(), 100);
    for (const g of r.scene.animationGroups) g.stop();
    r.scene.getAnimationGroupByName("Idle")!.start(true);
    const feet = new FootPlacement(robotIk, { autoUpdate: false });
    for (let i = 0; i < 10; i++) {
      feet.update(1 / 60);
      r.scene.render();
    }
    const frame = helperFrame(r.scene, feet);
    let solved = 0;
    robotIk.onSolvedObservable.add(() => solved++);
    const ray = new Ray(new Vector3(0.2, 2, 0), new Vector3(0, -1, 0), 4);
    const cached = r.scene.pickWithRay(ray, (mesh) => mesh.name === "slope")!;
    const cachedNormal = cached.getNormal(true, false);
    r.scene.pickWithRay = () => cached;
    cached.getNormal = () => cachedNormal;
    result.footRobot = await measure(frame, 20000);
    // The frames measured did solve and move the feet.
    if (!(solved > 5000 && feet.legs.every((l) => l.shin >= 0 && l.weight === 1))) {
      throw new Error(`the robot's frames did not solve (${solved} solves)`);
    }
    feet.dispose();
    r.engine.dispose();
  }
}

if (only === "shinEndTarget") {
  // setTarget on feet at their shins' ends (RobotExpressive): the behavior places the knees before its
  // solve and moves the foot bones after its write; one foot also takes a node's rotation.
  const robot = CHARACTERS.find((c) => c.folder === "RobotExpressive")!;
  if (robot.present) {
    const r = await loadCharacter(robot);
    const robotIk = new FabrikBehavior();
    r.root.addBehavior(robotIk, true);
    for (const g of r.scene.animationGroups) g.stop();
    r.scene.getAnimationGroupByName("Idle")!.start(true);
    r.scene.render();
    const left = robotIk.rig!.nodes[robotIk.jointIndex("leftFoot")]!.getAbsolutePosition().clone();
    robotIk.setTarget("leftFoot", left.add(new Vector3(0, 0.1, 0.05)));
    const node = new TransformNode("right foot target", r.scene);
    node.position.copyFrom(robotIk.rig!.nodes[robotIk.jointIndex("rightFoot")]!.getAbsolutePosition());
    node.position.y += 0.08;
    node.rotationQuaternion = Quaternion.RotationAxis(new Vector3(1, 0, 0), 0.3);
    robotIk.setTarget("Foot.R", node, { matchOrientation: true, weight: 0.7 });
    const frame = () => {
      r.scene.onBeforeRenderObservable.notifyObservers(r.scene);
      r.scene.onAfterRenderObservable.notifyObservers(r.scene);
    };
    for (let i = 0; i < 30; i++) r.scene.render();
    let solved = 0;
    robotIk.onSolvedObservable.add(() => solved++);
    result.shinEnd = await measure(frame, 5000);
    if (!(solved > 5000 && robotIk.plan!.effectorCount === 2)) {
      throw new Error(`the robot's frames did not solve (${solved} solves)`);
    }
    r.engine.dispose();
  }
}

console.log(JSON.stringify(result));
loaded.engine.dispose();
