import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { Color3 } from "@babylonjs/core/Maths/math.color.js";
import { Plane } from "@babylonjs/core/Maths/math.plane.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder.js";
import "@babylonjs/core/Culling/ray.js";
import type { FabrikContinuumSection } from "../../plugin/index.js";
import { CHARACTER_URLS } from "../assets.js";
import { addCharacter, loadContainer, type Character } from "../stage/character.js";
import { createFloor } from "../stage/floor.js";
import { createStage } from "../stage/stage.js";
import type { SceneDefinition } from "./types.js";

const BASES = [-0.9, 0, 0.9];

const tentacleBone = (i: number) => `Tentacle.${String(i).padStart(2, "0")}`;
/** Three sections of eight bones, each bending as one even arc, up to 150° (see docs/continuum.md). */
const SECTIONS: FabrikContinuumSection[] = [0, 8, 16].map((start) => ({
  bones: { from: tentacleBone(start), to: tentacleBone(start + 8) },
  maxBend: (150 * Math.PI) / 180,
}));

/** Three tentacles reaching for the pointer (or, before it moves, for a point wandering in front of them). */
export const tentaclesScene: SceneDefinition = {
  id: "tentacles",
  title: "Tentacles",
  async create({ engine, canvas }) {
    const stage = createStage(engine, canvas, {
      target: new Vector3(0, 0.8, 0.2),
      radius: 3.6,
      alpha: Math.PI / 2 - 0.25,
      beta: 1.25,
    });
    const scene = stage.scene;
    createFloor(scene);
    const container = await loadContainer(scene, CHARACTER_URLS.tentacle);
    const goal = new Vector3(0, 1.2, 0.7);
    const tentacles: Character[] = BASES.map((x, i) => {
      const character = addCharacter(stage, container, {
        name: `tentacle${i}`,
        clone: true,
        ik: { limits: "none", continuumSections: SECTIONS },
      });
      character.holder.position.x = x;
      // Each tip aims a little to its own side of the point, so the three close round it like fingers.
      const aim = new Vector3();
      character.ik.setTarget("Tentacle.24", () => aim.set(goal.x + x * 0.12, goal.y, goal.z));
      return character;
    });
    // Different phases of the same Idle wave, so they do not sway in step.
    tentacles.forEach((t, i) => t.animations[0]?.goToFrame(40 * i));

    // What they reach for, so the pull is visible.
    const marker = CreateSphere("goal", { diameter: 0.07, segments: 16 }, scene);
    const glow = new StandardMaterial("goal", scene);
    glow.emissiveColor = new Color3(1, 0.85, 0.35);
    glow.disableLighting = true;
    marker.material = glow;
    marker.isPickable = false;
    marker.position = goal;

    let lastMove = -Infinity;
    const plane = new Plane(0, 0, 1, 0);
    const identity = Matrix.Identity();
    const ray = scene.createPickingRay(0, 0, identity, stage.camera);
    scene.onPointerObservable.add(() => {
      lastMove = performance.now();
    });
    let time = 0;
    // insertFirst: the target must be where the pointer is before the behaviors solve this frame.
    scene.onBeforeRenderObservable.add(
      () => {
        time += scene.deltaTime / 1000;
        if (performance.now() - lastMove < 2500) {
          // A vertical plane through the tentacles' reach, turned to the camera, under the pointer.
          const forward = stage.camera.getForwardRay().direction;
          const normal = new Vector3(-forward.x, 0, -forward.z).normalize();
          const through = new Vector3(0, 0, 0.5);
          Plane.FromPositionAndNormalToRef(through, normal, plane);
          scene.createPickingRayToRef(scene.pointerX, scene.pointerY, identity, ray, stage.camera);
          const distance = ray.intersectsPlane(plane);
          if (distance !== null) goal.copyFrom(ray.origin).addInPlace(ray.direction.scale(distance));
        } else {
          // Within reach (the tentacles are 1.45 m long), so they curl to it rather than point.
          goal.set(
            0.5 * Math.sin(time * 0.6),
            0.85 + 0.25 * Math.sin(time * 1.1),
            0.45 + 0.15 * Math.cos(time * 0.8),
          );
        }
      },
      undefined,
      true,
    );
    let continuum = true;
    return {
      stage,
      character: tentacles[1],
      characters: tentacles,
      handles: null,
      hint:
        "Move the pointer over the scene: the tentacles reach for it (24 bones each, one effector), " +
        "curling in three even arcs, or bone by bone with the arcs off.",
      switches: [
        {
          id: "continuum",
          label: "Continuum arcs (3 per tentacle)",
          get on() {
            return continuum;
          },
          set(on: boolean) {
            continuum = on;
            for (const t of tentacles) t.ik.setContinuumSections(on ? SECTIONS : []);
          },
        },
      ],
      metrics: () => ({
        goalX: goal.x,
        goalY: goal.y,
        goalZ: goal.z,
        continuumSections: tentacles[1].ik.continuumSections.filter((s) => s.active).length,
      }),
      dispose() {
        scene.dispose();
      },
    };
  },
};
