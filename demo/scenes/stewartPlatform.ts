import { GizmoManager } from "@babylonjs/core/Gizmos/gizmoManager.js";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { Color3 } from "@babylonjs/core/Maths/math.color.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder.js";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { UtilityLayerRenderer } from "@babylonjs/core/Rendering/utilityLayerRenderer.js";
import type { Scene } from "@babylonjs/core/scene.js";
import {
  createPlatformPose,
  createStewartPlatform,
  stewartForwardKinematics,
  stewartInverseKinematics,
  stewartNearestReachable,
  type StewartPlatform,
} from "../../plugin/index.js";
import { createFloor } from "../stage/floor.js";
import { createStage } from "../stage/stage.js";
import type { SceneDefinition } from "./types.js";

const DEG = Math.PI / 180;
/** The model's z is up; Babylon's y is. Model (x, y, z) is drawn at (x, z, −y), as in the robot arm scene. */
const toWorld = (x: number, y: number, z: number, out: Vector3) => out.set(x, z, -y);

/** A classic 6-6 platform: joints in pairs 20° apart, the platform's pairs turned 60° from the base's. */
function classicPlatform(): StewartPlatform {
  const base: number[] = [];
  const top: number[] = [];
  for (let i = 0; i < 6; i++) {
    const pair = Math.floor(i / 2);
    const side = i % 2 === 0 ? -1 : 1;
    const b = (120 * pair + side * 10) * DEG;
    const p = (120 * pair + side * 50) * DEG;
    base.push(Math.cos(b), Math.sin(b), 0.1);
    top.push(0.6 * Math.cos(p), 0.6 * Math.sin(p), 0);
  }
  return createStewartPlatform({ baseAnchors: base, platformAnchors: top, minLength: 0.9, maxLength: 1.6 });
}

/**
 * A Stewart–Gough platform following a gizmo: inverse kinematics turns the gizmo's pose into six leg
 * lengths (or, out of range, the nearest reachable pose's), and forward kinematics by FABRIK passes
 * solves those lengths back into the platform pose that is drawn, so both directions run every frame.
 * The status line shows the leg lengths and how far the round trip landed from the pose it started from.
 */
export const stewartPlatformScene: SceneDefinition = {
  id: "stewart-platform",
  title: "Stewart platform",
  async create({ engine, canvas }) {
    const stage = createStage(engine, canvas, {
      target: new Vector3(0, 0.8, 0),
      radius: 4.2,
      alpha: Math.PI / 2 + 0.7,
      fog: 0.02,
    });
    const scene = stage.scene;
    createFloor(scene);
    const platform = classicPlatform();
    const goal = createPlatformPose(platform.home.position);
    const reachable = createPlatformPose();
    const solved = createPlatformPose(platform.home.position, platform.home.orientation);
    const lengths = new Float64Array(6);

    // The gizmo's node: dragging its arrows moves the goal, its rings turn it.
    const handle = new TransformNode("stewart-goal", scene);
    toWorld(goal.position[0], goal.position[1], goal.position[2] + 0.25, handle.position);
    handle.rotationQuaternion = Quaternion.Identity();
    const layer = new UtilityLayerRenderer(scene);
    const gizmos = new GizmoManager(scene, 1.5, layer);
    gizmos.positionGizmoEnabled = true;
    gizmos.rotationGizmoEnabled = true;
    gizmos.usePointerToAttachGizmos = false;
    gizmos.attachToNode(handle);
    gizmos.gizmos.rotationGizmo!.updateGizmoRotationToMatchAttachedMesh = true;
    gizmos.gizmos.positionGizmo!.scaleRatio = 0.7;
    gizmos.gizmos.rotationGizmo!.scaleRatio = 0.7;

    const drawing = drawPlatform(scene, platform);
    const stats: Record<string, number> = {};
    const axis = new Vector3();
    const matrix = new Float64Array(9);
    scene.onBeforeRenderObservable.add(() => {
      // The goal: the gizmo's place (its point sits a little above the platform) and its axes, in model space.
      for (let k = 0; k < 3; k++) {
        const local = k === 0 ? Vector3.Right() : k === 1 ? Vector3.Backward() : Vector3.Up();
        handle.getDirectionToRef(local, axis);
        matrix[k] = axis.x;
        matrix[3 + k] = -axis.z;
        matrix[6 + k] = axis.y;
      }
      quatFromMatrix(matrix, goal.orientation);
      const p = handle.position;
      goal.position.set([p.x - 0.25 * matrix[2], -p.z - 0.25 * matrix[5], p.y - 0.25 * matrix[8]]);
      const report = stewartNearestReachable(platform, goal, reachable);
      stewartInverseKinematics(platform, reachable, lengths);
      // Forward kinematics from the last drawn pose gives the platform its place from the lengths alone.
      const forward = stewartForwardKinematics(platform, lengths, solved);
      stats.reachable = report.inRange ? 1 : 0;
      lengths.forEach((l, i) => (stats[`leg ${i + 1}`] = Math.round(1000 * l) / 1000));
      stats["FK passes"] = forward.iterations;
      stats["FK round trip (m)"] = Math.hypot(
        solved.position[0] - reachable.position[0],
        solved.position[1] - reachable.position[1],
        solved.position[2] - reachable.position[2],
      );
      drawing.update(solved, lengths);
    });
    stage.castShadows(drawing.meshes);
    return {
      stage,
      character: null,
      characters: [],
      handles: null,
      hint:
        "A Stewart platform: drag the gizmo's arrows to move the top, its rings to turn it; out of reach, the " +
        "legs stop at their limits.",
      metrics: () => ({ ...stats }),
      dispose() {
        gizmos.dispose();
        layer.dispose();
        scene.dispose();
      },
    };
  },
};

/** Unit quaternion (x y z w) of a row-major rotation matrix. */
function quatFromMatrix(m: Float64Array, out: Float64Array): void {
  const trace = m[0] + m[4] + m[8];
  if (trace > 0) {
    const s = 0.5 / Math.sqrt(trace + 1);
    out.set([(m[7] - m[5]) * s, (m[2] - m[6]) * s, (m[3] - m[1]) * s, 0.25 / s]);
  } else if (m[0] > m[4] && m[0] > m[8]) {
    const s = 2 * Math.sqrt(1 + m[0] - m[4] - m[8]);
    out.set([0.25 * s, (m[1] + m[3]) / s, (m[2] + m[6]) / s, (m[7] - m[5]) / s]);
  } else if (m[4] > m[8]) {
    const s = 2 * Math.sqrt(1 + m[4] - m[0] - m[8]);
    out.set([(m[1] + m[3]) / s, 0.25 * s, (m[5] + m[7]) / s, (m[2] - m[6]) / s]);
  } else {
    const s = 2 * Math.sqrt(1 + m[8] - m[0] - m[4]);
    out.set([(m[2] + m[6]) / s, (m[5] + m[7]) / s, 0.25 * s, (m[3] - m[1]) / s]);
  }
  const n = Math.hypot(out[0], out[1], out[2], out[3]);
  for (let k = 0; k < 4; k++) out[k] /= n;
}

function material(scene: Scene, name: string, color: Color3): StandardMaterial {
  const m = new StandardMaterial(name, scene);
  m.diffuseColor = color;
  m.specularColor = new Color3(0.3, 0.3, 0.3);
  return m;
}

/** The base and top plates, a sphere per joint and a cylinder per leg (red at either end of its range). */
function drawPlatform(scene: Scene, platform: StewartPlatform) {
  const plate = material(scene, "stewart-plate", new Color3(0.75, 0.78, 0.82));
  const legMaterial = material(scene, "stewart-leg", new Color3(0.2, 0.55, 0.9));
  const limitMaterial = material(scene, "stewart-limit", new Color3(0.9, 0.3, 0.25));
  const jointMaterial = material(scene, "stewart-joint", new Color3(0.95, 0.85, 0.3));
  const base = CreateCylinder("stewart-base", { height: 0.1, diameter: 2.3, tessellation: 48 }, scene);
  base.position.y = 0.05;
  base.material = plate;
  const top = new TransformNode("stewart-top", scene);
  top.rotationQuaternion = new Quaternion();
  const topPlate = CreateCylinder(
    "stewart-top-plate",
    { height: 0.05, diameter: 1.35, tessellation: 6 },
    scene,
  );
  topPlate.parent = top;
  topPlate.position.y = 0.03;
  topPlate.material = plate;
  const marker = CreateBox("stewart-top-marker", { width: 0.35, height: 0.05, depth: 0.08 }, scene);
  marker.parent = top;
  marker.position.set(0.35, 0.07, 0);
  marker.material = jointMaterial;
  const legs = Array.from({ length: 6 }, (_, i) => {
    const leg = CreateCylinder(`stewart-leg${i}`, { height: 1, diameter: 0.06 }, scene);
    leg.rotationQuaternion = new Quaternion();
    leg.material = legMaterial;
    return leg;
  });
  const joints = Array.from({ length: 12 }, (_, i) => {
    const joint = CreateSphere(`stewart-joint${i}`, { diameter: 0.1, segments: 8 }, scene);
    joint.material = jointMaterial;
    return joint;
  });
  for (const mesh of [base, topPlate, marker, ...legs, ...joints]) mesh.isPickable = false;
  const a = new Vector3(),
    b = new Vector3(),
    along = new Vector3();
  const up = Vector3.Up();
  const rotated = new Float64Array(3);
  return {
    meshes: [base, topPlate, marker, ...legs, ...joints],
    update(pose: { position: Float64Array; orientation: Float64Array }, lengths: Float64Array) {
      const [x, y, z, w] = pose.orientation;
      toWorld(pose.position[0], pose.position[1], pose.position[2], top.position);
      // The model rotation (x, y, z, w) seen in the drawing's axes: its axis mapped like a point.
      top.rotationQuaternion!.set(x, z, -y, w);
      for (let i = 0; i < 6; i++) {
        const ax = platform.platformAnchors[3 * i],
          ay = platform.platformAnchors[3 * i + 1],
          az = platform.platformAnchors[3 * i + 2];
        // The anchor rotated by the pose: v + 2w(q×v) + 2q×(q×v).
        const tx = 2 * (y * az - z * ay),
          ty = 2 * (z * ax - x * az),
          tz = 2 * (x * ay - y * ax);
        rotated[0] = ax + w * tx + (y * tz - z * ty) + pose.position[0];
        rotated[1] = ay + w * ty + (z * tx - x * tz) + pose.position[1];
        rotated[2] = az + w * tz + (x * ty - y * tx) + pose.position[2];
        const base3 = platform.baseAnchors.subarray(3 * i, 3 * i + 3);
        toWorld(base3[0], base3[1], base3[2], a);
        toWorld(rotated[0], rotated[1], rotated[2], b);
        joints[2 * i].position.copyFrom(a);
        joints[2 * i + 1].position.copyFrom(b);
        b.subtractToRef(a, along);
        const length = along.length();
        const leg = legs[i];
        leg.position.set((a.x + b.x) / 2, (a.y + b.y) / 2, (a.z + b.z) / 2);
        leg.scaling.set(1, Math.max(length, 1e-4), 1);
        if (length > 1e-9)
          Quaternion.FromUnitVectorsToRef(up, along.scaleInPlace(1 / length), leg.rotationQuaternion!);
        const atLimit =
          lengths[i] <= platform.minLength[i] + 1e-6 || lengths[i] >= platform.maxLength[i] - 1e-6;
        leg.material = atLimit ? limitMaterial : legMaterial;
      }
    },
  };
}
