import { PointerDragBehavior } from "@babylonjs/core/Behaviors/Meshes/pointerDragBehavior.js";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { Color3 } from "@babylonjs/core/Maths/math.color.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateLineSystem } from "@babylonjs/core/Meshes/Builders/linesBuilder.js";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder.js";
import type { LinesMesh } from "@babylonjs/core/Meshes/linesMesh.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { Scene } from "@babylonjs/core/scene.js";
import {
  compilePlan,
  createPose,
  solvePlan,
  type Pose,
  type Rig,
  type SolvePlan,
} from "../../plugin/index.js";
import { createFloor } from "../stage/floor.js";
import { createStage } from "../stage/stage.js";
import { hand, tentacle } from "./solverRigs.js";
import type { SceneDefinition } from "./types.js";

/**
 * The engine-free solver on its own, no Babylon skeleton: each rig is drawn as lines and joint spheres and
 * solved every frame from its previous pose, with a sphere per effector to drag.
 */
export const solverScene: SceneDefinition = {
  id: "solver",
  title: "Solver only",
  async create({ engine, canvas }) {
    const stage = createStage(engine, canvas, {
      target: new Vector3(0, 1.8, 0),
      radius: 7,
      alpha: Math.PI / 2 + 0.15,
      fog: 0.02,
    });
    const scene = stage.scene;
    createFloor(scene);
    const rigs = [
      makeRig(
        scene,
        "tentacle",
        tentacle(20, [-2.5, 0, 0]),
        ["segment20"],
        new Color3(0.95, 0.55, 0.2),
        [1.5, -1.4, 0],
      ),
      makeRig(
        scene,
        "hand",
        hand([2, 0.2, 0]),
        ["thumb3", "index3", "middle3", "ring3", "pinky3"],
        new Color3(0.3, 0.75, 0.95),
        [0, 0, 0],
      ),
    ];
    const stats = { iterations: 0, micros: 0 };
    scene.onBeforeRenderObservable.add(() => {
      let iterations = 0;
      const t0 = performance.now();
      for (const rig of rigs) iterations += update(rig);
      stats.micros = (performance.now() - t0) * 1000;
      stats.iterations = iterations;
    });
    for (const rig of rigs) stage.castShadows(rig.joints);
    return {
      stage,
      character: null,
      characters: [],
      handles: null,
      hint: "The bare solver on two rigs (a 20-bone tentacle, a hand with five effectors): drag the yellow spheres.",
      metrics: () => ({ ...stats }),
      dispose() {
        scene.dispose();
      },
    };
  },
};

interface SolverRig {
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

function material(scene: Scene, name: string, color: Color3, emissive = false): StandardMaterial {
  const m = new StandardMaterial(name, scene);
  m.diffuseColor = color;
  m.specularColor = new Color3(0.2, 0.2, 0.2);
  if (emissive) m.emissiveColor = color.scale(0.6);
  return m;
}

function makeRig(
  scene: Scene,
  label: string,
  rig: Rig,
  effectorNames: string[],
  color: Color3,
  start: [number, number, number],
): SolverRig {
  const plan = compilePlan(rig, { effectors: effectorNames.map((joint) => ({ joint })) });
  const pose = createPose(rig);
  const targets = new Float64Array(3 * plan.effectorCount);
  const jointMaterial = material(scene, `${label}-joint`, color);
  const handleMaterial = material(scene, `${label}-target`, new Color3(0.95, 0.85, 0.3), true);
  const joints: Mesh[] = [];
  for (let j = 0; j < rig.jointCount; j++) {
    const sphere = CreateSphere(`${label}-joint${j}`, { diameter: 0.11, segments: 8 }, scene);
    sphere.material = jointMaterial;
    sphere.isPickable = false;
    joints.push(sphere);
  }
  const handles = Array.from(plan.effectorJoints, (joint, e) => {
    const handle = CreateSphere(`${label}-target${e}`, { diameter: 0.22, segments: 12 }, scene);
    handle.material = handleMaterial;
    // Every target starts off its effector (curled forward and down), so the first frame already bends.
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

/** Solves one rig toward its handles (from last frame's pose, as a game would) and redraws it. */
function update(demo: SolverRig): number {
  const { rig, plan, pose, targets, handles } = demo;
  const positions = pose.positions;
  handles.forEach((handle, e) => {
    targets[3 * e] = handle.position.x;
    targets[3 * e + 1] = handle.position.y;
    targets[3 * e + 2] = handle.position.z;
  });
  const report = solvePlan(plan, pose, targets, { tolerance: 1e-3, maxIterations: 30 });
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
  return report.iterations;
}
