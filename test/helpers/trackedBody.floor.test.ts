import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, describe, expect, it } from "vitest";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { invertedKnees } from "../bench/trackedClips.js";
import { characterNamed, noteIfMissing, OWN_CHARACTERS } from "../babylon/characters.js";
import { bodyDirections, finite, trackedCharacter } from "./trackedBodyHarness.js";

/*
 * Down to the floor and back up: the head, from standing, crouches straight down, then goes back and down to
 * where it lies on the floor behind the feet, stays there, and comes back up the same way; the hands ride by
 * the chest. On the project's characters and the shared ones (skipped when absent), at default settings.
 */

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[tracked body: down to the floor]\n  ${notes.join("\n  ")}`);
});

/*
 * The head's path, in phases (s): standing to 1; straight down to over a body sitting on the floor behind its
 * feet, to 2; lying back, the head swinging a spine's length about the sitting hips from 20° to 80° off up,
 * to 3.5; lying there to 4.5; the same back up, to 7; standing to 8.5.
 */
const DOWN = [3.5, 4.5];
const END = 8.5;
const smooth = (s: number) => {
  const c = Math.min(1, Math.max(0, s));
  return c * c * (3 - 2 * c);
};

/**
 * The head at time t as [how far back of where it stood, how high] (world units) and how far it lies back
 * (0..1), for a body whose head stands `head` high with a spine `spine` long and whose hips sit `sit` high
 * `behind` the feet.
 */
function pathAt(
  t: number,
  head: number,
  spine: number,
  sit: number,
  behind: number,
): [number, number, number] {
  const u = t <= 4.5 ? t : 9 - t; // back up the same way
  const arc = (a: number): [number, number] => [behind + spine * Math.sin(a), sit + spine * Math.cos(a)];
  const a0 = (20 * Math.PI) / 180,
    a1 = (80 * Math.PI) / 180;
  if (u < 2) {
    const e = smooth(u - 1);
    const [b, h] = arc(a0);
    return [b * e, head + (h - head) * e, 0];
  }
  const e = smooth((u - 2) / 1.5);
  const [b, h] = arc(a0 + (a1 - a0) * e);
  return [b, h, e];
}

const characters = [
  OWN_CHARACTERS.find((c) => c.folder === "mannequin")!,
  OWN_CHARACTERS.find((c) => c.folder === "figure")!,
  characterNamed("RobotExpressive"),
  characterNamed("CesiumMan"),
];

describe("TrackedBody: down to the floor and back up", () => {
  it.each(characters.map((c) => [c.folder, c] as const))(
    "%s: the pelvis never under the ground, legs above it, knees not inverted, feet planted again",
    async (_, character) => {
      if (noteIfMissing(character)) return;
      const { loaded, ik, body } = await trackedCharacter(character);
      try {
        const scene = loaded.scene;
        // The head alone: the floor is the hips' and legs' (the arms keep their animation, here the rest pose).
        body.leftHand.weight = body.rightHand.weight = 0;
        const reader = new PoseReader(ik.rig!);
        reader.read();
        const rest = reader.orientations.slice();
        const j = (role: string) => ik.jointIndex(role);
        const world = () =>
          Array.from({ length: ik.rig!.jointCount }, (_, k) =>
            reader.getWorldPositionToRef(k, new Vector3()),
          );
        const start = world();
        const m = reader.modelToWorld;
        const { forward, up, left } = bodyDirections(body, m);
        const H = body.height;
        // The ground: the plane through the model root's origin, square to up (no ground mesh here).
        const ground = Vector3.Dot(new Vector3(m[12], m[13], m[14]), up);
        const above = (p: Vector3) => Vector3.Dot(p, up) - ground;
        const head0 = start[j("head")];
        // The character's own spine (hips to head) and the hips' height sitting on the floor (its rest ratio).
        const spine = head0.subtract(start[j("hips")]).length();
        const floor = body.body.floor;
        const sit = (above(start[j("hips")]) * floor.sitHips) / body.body.standHips;
        const pose = (t: number) => {
          const [back, height, down] = pathAt(t, above(head0), spine, sit, 0.15 * H);
          const head = head0.subtract(forward.scale(back)).add(up.scale(height - above(head0)));
          // Looking up as it lies back; the torso's axis leans back with it.
          const a = 1.35 * down;
          const look = forward.scale(Math.cos(a)).add(up.scale(Math.sin(a)));
          const torso = up.scale(Math.cos(a)).subtract(forward.scale(Math.sin(a)));
          body.head.position.copyFrom(head);
          body.head.rotation.copyFrom(
            Quaternion.RotationQuaternionFromAxis(Vector3.Cross(torso, look), torso, look),
          );
          const chest = head.subtract(torso.scale(0.25 * H)).add(look.scale(0.1 * H));
          body.leftHand.position.copyFrom(chest.add(left.scale(0.12 * H)));
          body.rightHand.position.copyFrom(chest.subtract(left.scale(0.12 * H)));
          body.leftHand.rotation.copyFrom(body.head.rotation);
          body.rightHand.rotation.copyFrom(body.head.rotation);
        };
        const least = 0.01 / (1.75 / H) / Math.hypot(m[0], m[1], m[2]);
        // The joints the floor moves: hips, spine to head, legs (the arms, untracked, keep the rest pose).
        const core = [j("hips"), j("head"), ...body.body.joints.filter((k) => k !== j("head"))].filter(
          (k) =>
            !["leftUpperArm", "rightUpperArm", "leftLowerArm", "rightLowerArm", "leftHand", "rightHand"]
              .map(j)
              .includes(k),
        );
        let last: Vector3[] | null = null;
        let lowestHips = Infinity,
          lowestLeg = Infinity,
          worstStep = 0,
          inverted = 0,
          allFinite = true,
          stepsDown = -1,
          lyingHips = 0;
        let feetDown: Vector3[] = [];
        const frames = Math.round(END * 60);
        for (let f = 1; f <= frames; f++) {
          const t = f / 60;
          pose(t);
          body.update(1 / 60);
          scene.onBeforeRenderObservable.notifyObservers(scene);
          reader.read();
          const now = world();
          allFinite &&= finite(now);
          lowestHips = Math.min(lowestHips, above(now[j("hips")]));
          for (const side of ["left", "right"]) {
            for (const part of ["UpperLeg", "LowerLeg", "Foot"]) {
              lowestLeg = Math.min(lowestLeg, above(now[j(`${side}${part}`)]));
            }
          }
          inverted += invertedKnees(
            reader.positions,
            reader.orientations,
            rest,
            body.body.sides,
            body.body.frame,
            least,
          );
          if (last !== null) {
            for (const k of core) worstStep = Math.max(worstStep, now[k].subtract(last[k]).length());
          }
          last = now;
          if (Math.abs(t - DOWN[0]) < 1e-9) {
            stepsDown = body.steps;
            feetDown = [now[j("leftFoot")], now[j("rightFoot")]];
          }
          if (Math.abs(t - DOWN[1]) < 1e-9) {
            lyingHips = above(now[j("hips")]);
            expect(body.steps, "no step while down").toBe(stepsDown);
            for (let i = 0; i < 2; i++) {
              const foot = now[j(i === 0 ? "leftFoot" : "rightFoot")];
              expect(foot.subtract(feetDown[i]).length() / H, "a planted foot held").toBeLessThan(0.005);
            }
          }
          scene.onAfterRenderObservable.notifyObservers(scene);
        }
        const end = last!;
        const standHips = above(start[j("hips")]);
        notes.push(
          `${character.folder}: hips down to ${((100 * lowestHips) / H).toFixed(1)} % of the height ` +
            `(lying ${((100 * lyingHips) / H).toFixed(1)} %), legs ≥ ${((100 * lowestLeg) / H).toFixed(1)} %, ` +
            `largest joint step ${((100 * worstStep) / H).toFixed(2)} % a frame, ${inverted} knees inverted, ` +
            `${body.steps} steps; standing again, hips ${((100 * (above(end[j("hips")]) - standHips)) / H).toFixed(2)} %`,
        );
        expect(allFinite).toBe(true);
        // Down on the floor: the hips near it, never under it, nor any leg joint.
        // Lying: the pelvis on the ground (the robot's is wide: its hips lie at 40 % of their standing height).
        expect(lyingHips / standHips).toBeLessThan(0.45);
        expect(lyingHips).toBeLessThan(1.1 * sit);
        expect(lowestHips).toBeGreaterThan(0);
        expect(lowestLeg).toBeGreaterThan(0);
        expect(inverted).toBe(0);
        // No joint of the body (hips, spine, head, legs) moves more than 9 % of the height in a frame: the
        // spine's solve still jumps, on the way down and lying back, by up to 7.2 % here (as much as the code
        // before the floor did in the crouch at 1.7 s; see tracked-body.md).
        expect(worstStep / H).toBeLessThan(0.09);
        // Standing again: feet planted at their rest height (within 1 % of the height: the robot's, which hang
        // from its shins' ends, 0.6 %), the hips back up.
        expect(body.isStepping(0) || body.isStepping(1)).toBe(false);
        for (const foot of ["leftFoot", "rightFoot"]) {
          expect(Math.abs(above(end[j(foot)]) - above(start[j(foot)])) / H).toBeLessThan(0.01);
        }
        expect(Math.abs(above(end[j("hips")]) - standHips) / H).toBeLessThan(0.02);
        // And stepping again: the head moving a third of the height aside carries the feet after it.
        const before = body.steps;
        const aside = body.head.position.add(left.scale(0.3 * H));
        for (let f = 0; f < 90; f++) {
          body.head.position.copyFrom(aside);
          body.update(1 / 60);
          scene.onBeforeRenderObservable.notifyObservers(scene);
          scene.onAfterRenderObservable.notifyObservers(scene);
        }
        expect(body.steps).toBeGreaterThan(before);
      } finally {
        loaded.engine.dispose();
      }
    },
  );
});
