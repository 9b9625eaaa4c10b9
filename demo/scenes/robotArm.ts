import { PointerDragBehavior } from "@babylonjs/core/Behaviors/Meshes/pointerDragBehavior.js";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { Color3 } from "@babylonjs/core/Maths/math.color.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder.js";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { Scene } from "@babylonjs/core/scene.js";
import {
  compilePlan,
  createPose,
  createRigFromDH,
  dhEffectors,
  dhTargets,
  readDHJointValues,
  solvePlan,
  type DHArm,
  type DHRow,
} from "../../plugin/index.js";
import { createFloor } from "../stage/floor.js";
import { createStage } from "../stage/stage.js";
import type { SceneDefinition } from "./types.js";

const DEG = Math.PI / 180;
/** Home: elbow up, tool pointing down. */
const HOME = [0, -90 * DEG, 90 * DEG, -90 * DEG, -90 * DEG, 0];
/** A UR5-like arm (standard DH, metres), every joint within ±170° of home. */
const UR5_TABLE: DHRow[] = [
  { a: 0, alpha: 90 * DEG, d: 0.089159 },
  { a: -0.425, alpha: 0 },
  { a: -0.39225, alpha: 0 },
  { a: 0, alpha: 90 * DEG, d: 0.10915 },
  { a: 0, alpha: -90 * DEG, d: 0.09465 },
  { a: 0, alpha: 0, d: 0.0823 },
].map((row, i) => ({ ...row, min: HOME[i] - 170 * DEG, max: HOME[i] + 170 * DEG }));
/** The DH table's z is up; Babylon's y is. Model (x, y, z) is drawn at SCALE · (x, z, −y). */
const SCALE = 2;

/**
 * A robot arm from a DH table, solved by the engine-free solver every frame from its last pose: the tool
 * follows the yellow sphere while keeping pointing down (an orientation target), and the status line shows
 * the joint values read back from the solved pose.
 */
export const robotArmScene: SceneDefinition = {
  id: "robot-arm",
  title: "Robot arm (DH)",
  async create({ engine, canvas }) {
    const stage = createStage(engine, canvas, {
      target: new Vector3(0, 0.6, 0),
      radius: 4,
      alpha: Math.PI / 2 + 0.6,
      fog: 0.02,
    });
    const scene = stage.scene;
    createFloor(scene);
    const arm = createRigFromDH(UR5_TABLE, { home: HOME });
    const plan = compilePlan(arm.rig, { effectors: dhEffectors(arm, true), limits: arm.limits });
    const pose = createPose(arm.rig);
    const targets = new Float64Array(9);
    const values = new Float64Array(arm.table.count);
    const point = new Float64Array(3);
    // The tool keeps the orientation it has at home (pointing down).
    const toolDown = arm.rig.restOrientations.slice(4 * arm.tool, 4 * arm.tool + 4);
    const drawing = drawArm(scene, arm);
    const handle = CreateSphere("robot-target", { diameter: 0.12, segments: 12 }, scene);
    handle.material = material(scene, "robot-target", new Color3(0.95, 0.85, 0.3), true);
    const tool = arm.rig.restPositions.subarray(3 * arm.tool, 3 * arm.tool + 3);
    handle.position.set(SCALE * tool[0] + 0.3, SCALE * tool[2] - 0.2, -SCALE * tool[1] + 0.2);
    handle.addBehavior(new PointerDragBehavior());
    const stats: Record<string, number> = { iterations: 0, residual: 0 };
    scene.onBeforeRenderObservable.add(() => {
      point[0] = handle.position.x / SCALE;
      point[1] = -handle.position.z / SCALE;
      point[2] = handle.position.y / SCALE;
      dhTargets(arm, point, 0, toolDown, 0, targets);
      const report = solvePlan(plan, pose, targets, { tolerance: 1e-4 });
      readDHJointValues(arm, pose, values);
      stats.iterations = report.iterations;
      stats.residual = report.maxResidual;
      arm.table.names.forEach((name, i) => (stats[`${name} (°)`] = Math.round(values[i] / DEG)));
      drawing.update(pose.positions, pose.orientations);
    });
    stage.castShadows(drawing.meshes);
    return {
      stage,
      character: null,
      characters: [],
      handles: null,
      hint: "A UR5-like arm from its DH table: drag the yellow sphere; the tool follows it pointing down.",
      metrics: () => ({ ...stats }),
      dispose() {
        scene.dispose();
      },
    };
  },
};

function material(scene: Scene, name: string, color: Color3, emissive = false): StandardMaterial {
  const m = new StandardMaterial(name, scene);
  m.diffuseColor = color;
  m.specularColor = new Color3(0.3, 0.3, 0.3);
  if (emissive) m.emissiveColor = color.scale(0.6);
  return m;
}

/** A box per link (rig bone up to the tool) and a cylinder per joint along its axis. */
function drawArm(scene: Scene, arm: DHArm) {
  const linkMaterial = material(scene, "robot-link", new Color3(0.75, 0.78, 0.82));
  const jointMaterial = material(scene, "robot-joint", new Color3(0.2, 0.55, 0.9));
  const links: Mesh[] = [];
  for (let j = 1; j <= arm.tool; j++) {
    const box = CreateBox(`robot-link${j}`, { size: 1 }, scene);
    box.material = linkMaterial;
    box.isPickable = false;
    box.rotationQuaternion = new Quaternion();
    links.push(box);
  }
  const joints = Array.from(arm.jointRig, (j) => {
    const cylinder = CreateCylinder(`robot-joint${j}`, { height: 0.16, diameter: 0.14 }, scene);
    cylinder.material = jointMaterial;
    cylinder.isPickable = false;
    cylinder.rotationQuaternion = new Quaternion();
    return cylinder;
  });
  const a = new Vector3(),
    b = new Vector3(),
    along = new Vector3();
  const up = Vector3.Up();
  const world = (positions: Float64Array, j: number, out: Vector3) =>
    out.set(SCALE * positions[3 * j], SCALE * positions[3 * j + 2], -SCALE * positions[3 * j + 1]);
  return {
    meshes: [...links, ...joints],
    update(positions: Float64Array, orientations: Float64Array) {
      links.forEach((box, k) => {
        const j = k + 1;
        world(positions, j - 1, a);
        world(positions, j, b);
        b.subtractToRef(a, along);
        const length = along.length();
        box.position.set((a.x + b.x) / 2, (a.y + b.y) / 2, (a.z + b.z) / 2);
        box.scaling.set(0.07, Math.max(length, 1e-4), 0.07);
        if (length > 1e-9)
          Quaternion.FromUnitVectorsToRef(up, along.scaleInPlace(1 / length), box.rotationQuaternion!);
      });
      arm.jointRig.forEach((j, i) => {
        world(positions, j, joints[i].position);
        // The joint's axis is its frame's z: rotate (0, 0, 1) by its orientation, then into the drawing.
        const [x, y, z, w] = orientations.subarray(4 * j, 4 * j + 4);
        along.set(2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y));
        along.set(along.x, along.z, -along.y);
        Quaternion.FromUnitVectorsToRef(up, along.normalize(), joints[i].rotationQuaternion!);
      });
    },
  };
}
