import { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera.js";
import { PointerDragBehavior } from "@babylonjs/core/Behaviors/Meshes/pointerDragBehavior.js";
import { Engine } from "@babylonjs/core/Engines/engine.js";
import { HemisphericLight } from "@babylonjs/core/Lights/hemisphericLight.js";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { Color3, Color4 } from "@babylonjs/core/Maths/math.color.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import { CreateLineSystem } from "@babylonjs/core/Meshes/Builders/linesBuilder.js";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder.js";
import type { LinesMesh } from "@babylonjs/core/Meshes/linesMesh.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { Scene } from "@babylonjs/core/scene.js";
import { compilePlan, createPose, solvePlan, type Pose, type Rig, type SolvePlan } from "../plugin/index.js";
import { hand, tentacle } from "./rigs.js";

// The engine-free solver driven directly: each rig is drawn as lines and joint spheres, and each effector
// has a sphere you can drag. Characters (FabrikBehavior) join this demo as the adapter lands.

const canvas = document.getElementById("scene") as HTMLCanvasElement;
const hud = document.getElementById("hud") as HTMLDivElement;
const engine = new Engine(canvas, true, { preserveDrawingBuffer: true });
const scene = new Scene(engine);
scene.clearColor = new Color4(0.11, 0.13, 0.15, 1);
const camera = new ArcRotateCamera("camera", -Math.PI / 2, 1.2, 9, new Vector3(0, 1.8, 0), scene);
camera.attachControl(canvas, true);
camera.wheelPrecision = 40;
new HemisphericLight("light", new Vector3(0.3, 1, -0.4), scene);
const ground = CreateGround("ground", { width: 14, height: 8 }, scene);
ground.material = material("ground", new Color3(0.22, 0.25, 0.28));

interface Demo {
  label: string;
  rig: Rig;
  plan: SolvePlan;
  pose: Pose;
  targets: Float64Array;
  handles: Mesh[];
  lines: LinesMesh;
  joints: Mesh[];
  points: Vector3[][];
}

const demos = [
  makeDemo(
    "tentacle (20 bones, 1 effector)",
    tentacle(20, [-2.5, 0, 0]),
    ["segment20"],
    new Color3(0.95, 0.55, 0.2),
    [1.5, -1.4, 0],
  ),
  makeDemo(
    "hand (5 effectors, palm sub-base)",
    hand([2, 0.2, 0]),
    ["thumb3", "index3", "middle3", "ring3", "pinky3"],
    new Color3(0.3, 0.75, 0.95),
    [0, 0, 0],
  ),
];

function material(name: string, color: Color3): StandardMaterial {
  const m = new StandardMaterial(name, scene);
  m.diffuseColor = color;
  m.specularColor = Color3.Black();
  return m;
}

function makeDemo(
  label: string,
  rig: Rig,
  effectorNames: string[],
  color: Color3,
  start: [number, number, number],
): Demo {
  const plan = compilePlan(rig, { effectors: effectorNames.map((joint) => ({ joint })) });
  const pose = createPose(rig);
  const targets = new Float64Array(3 * plan.effectorCount);
  const jointMaterial = material(`${label}-joint`, color);
  const handleMaterial = material(`${label}-target`, new Color3(0.95, 0.95, 0.3));
  const joints: Mesh[] = [];
  for (let j = 0; j < rig.jointCount; j++) {
    const sphere = CreateSphere(`${label}-joint${j}`, { diameter: 0.09, segments: 8 }, scene);
    sphere.material = jointMaterial;
    sphere.isPickable = false;
    joints.push(sphere);
  }
  const handles = Array.from(plan.effectorJoints, (joint, e) => {
    const handle = CreateSphere(`${label}-target${e}`, { diameter: 0.2, segments: 12 }, scene);
    handle.material = handleMaterial;
    // Start every target off its effector (curled forward and down) so the first frame already bends.
    handle.position.set(
      rig.restPositions[3 * joint] * 0.85 + 0.15 * rig.restPositions[0] + 0.6 * start[0],
      rig.restPositions[3 * joint + 1] - 0.35 + start[1],
      rig.restPositions[3 * joint + 2] - 0.5 + start[2],
    );
    handle.addBehavior(new PointerDragBehavior());
    return handle;
  });
  const points: Vector3[][] = [];
  for (let j = 0; j < rig.jointCount; j++) {
    if (rig.parents[j] >= 0) points.push([Vector3.Zero(), Vector3.Zero()]);
  }
  const lines = CreateLineSystem(`${label}-bones`, { lines: points, updatable: true }, scene);
  lines.color = color;
  return { label, rig, plan, pose, targets, handles, lines, joints, points };
}

function update(demo: Demo): string {
  const { rig, plan, pose, targets, handles } = demo;
  const positions = pose.positions;
  handles.forEach((handle, e) => {
    targets[3 * e] = handle.position.x;
    targets[3 * e + 1] = handle.position.y;
    targets[3 * e + 2] = handle.position.z;
  });
  // Solving from last frame's pose keeps motion continuous, as a game would.
  const t0 = performance.now();
  const report = solvePlan(plan, pose, targets, { tolerance: 1e-3, maxIterations: 30 });
  const micros = (performance.now() - t0) * 1000;

  let line = 0;
  for (let j = 0; j < rig.jointCount; j++) {
    demo.joints[j].position.set(positions[3 * j], positions[3 * j + 1], positions[3 * j + 2]);
    const p = rig.parents[j];
    if (p < 0) continue;
    demo.points[line][0].set(positions[3 * p], positions[3 * p + 1], positions[3 * p + 2]);
    demo.points[line][1].set(positions[3 * j], positions[3 * j + 1], positions[3 * j + 2]);
    line++;
  }
  CreateLineSystem(demo.label, { lines: demo.points, instance: demo.lines });
  return (
    `${demo.label}\n  iterations ${report.iterations}, max residual ${report.maxResidual.toFixed(4)}, ` +
    `${report.converged ? "reached" : "out of reach"}, ${micros.toFixed(1)} µs`
  );
}

scene.onBeforeRenderObservable.add(() => {
  hud.textContent = `drag the yellow targets\n\n${demos.map(update).join("\n")}`;
});
engine.runRenderLoop(() => scene.render());
window.addEventListener("resize", () => engine.resize());
