// Limit fitting on RobotExpressive: its clips leave the humanoid preset (knees off their hinge, hips past
// their cones); the fitted limits hold every key, and a target near a limb's animated place no longer
// drags the limb away from its animation.
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { fitLimitsToAnimations } from "../../plugin/babylon/animationLimits.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import type { SkeletonRig } from "../../plugin/babylon/skeletonRig.js";
import { createJointLimits, type JointLimits } from "../../plugin/solver/limits.js";
import { characterNamed, loadCharacter, noteIfMissing, type Loaded } from "./characters.js";
import { attach, projectedDelta } from "./fabrikHarness.js";

const robot = characterNamed("RobotExpressive");
const DEG = Math.PI / 180;

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[limit fitting on RobotExpressive]\n  ${notes.join("\n  ")}`);
});

interface Key {
  readonly joint: number;
  readonly clip: string;
  readonly q: number[];
}

/** Every rotation key of every clip, by joint (local rotations, as keyed). */
function rotationKeys(rig: SkeletonRig, groups: readonly AnimationGroup[]): Key[] {
  const keys: Key[] = [];
  for (const group of groups) {
    for (const { target, animation } of group.targetedAnimations) {
      if (animation.targetProperty !== "rotationQuaternion") continue;
      const joint = rig.indexOf(target);
      if (joint < 0) continue;
      for (const key of animation.getKeys()) {
        const v = key.value;
        keys.push({ joint, clip: group.name, q: [v.x, v.y, v.z, v.w] });
      }
    }
  }
  return keys;
}

/** How far projectRotation moves the key (largest component change of Δ) and by what angle (radians). */
function violation(limits: JointLimits, key: Key): { moved: number; angle: number } {
  const { delta, projected } = projectedDelta(limits, key.joint, key.q);
  let moved = 0,
    plus = 0,
    minus = 0;
  for (let k = 0; k < 4; k++) {
    moved = Math.max(moved, Math.abs(projected[k] - delta[k]));
    plus += (projected[k] - delta[k]) ** 2;
    minus += (projected[k] + delta[k]) ** 2;
  }
  const chord = Math.sqrt(Math.min(plus, minus));
  return { moved, angle: 4 * Math.asin(Math.min(1, chord / 2)) };
}

function describeSpec(limits: JointLimits, j: number): string {
  const spec = limits.specs[j];
  if (spec === undefined) return "free";
  const d = (v: number) => (v / DEG).toFixed(1);
  const parts: string[] = [];
  if (spec.hinge) parts.push(`hinge ${d(spec.hinge.min)}..${d(spec.hinge.max)}°`);
  if (spec.swing) {
    const s = spec.swing;
    parts.push(`swing up ${d(s.up)} right ${d(s.right)} down ${d(s.down)} left ${d(s.left)}°`);
  }
  if (spec.twist) parts.push(`twist ${d(spec.twist.min)}..${d(spec.twist.max)}°`);
  return parts.join(", ");
}

describe.skipIf(noteIfMissing(robot))("limit fitting on RobotExpressive", () => {
  let loaded: Loaded | undefined;
  afterEach(() => loaded?.engine.dispose());

  it("the default limits hold every key of every clip, which the bare preset does not", async () => {
    loaded = await loadCharacter(robot);
    const bare = attach(loaded, { fitLimitsToAnimations: false });
    const preset = bare.limits!;
    const rig = bare.rig!;
    // The same character in a scene of its own, with the default options: its limits are fitted (joint
    // indices match, the rig being built the same way).
    const fitted = attach(await secondScene(), {}).limits!;
    const keys = rotationKeys(rig, loaded.scene.animationGroups);
    expect(keys.length).toBeGreaterThan(1000);

    const worstPreset = new Map<number, { angle: number; clip: string }>();
    let worstFitted = 0,
      worstHinge = 0;
    for (const key of keys) {
      // A hinge that stays one snaps its keys' off-axis part, their float32 rounding (within the fit's
      // hingeTolerance); every other limit leaves each key exactly as it is.
      const moved = violation(fitted, key).moved;
      if (fitted.specs[key.joint]?.hinge !== undefined) worstHinge = Math.max(worstHinge, moved);
      else worstFitted = Math.max(worstFitted, moved);
      const p = violation(preset, key);
      if (p.moved > 1e-9 && p.angle > (worstPreset.get(key.joint)?.angle ?? 0)) {
        worstPreset.set(key.joint, { angle: p.angle, clip: key.clip });
      }
    }
    expect(worstFitted).toBeLessThan(1e-9);
    expect(worstHinge, "float32 keys about a hinge's axis").toBeLessThan(1e-5);
    // The preset alone is violated, by a lot: so the check above can fail.
    const largest = Math.max(...[...worstPreset.values()].map((w) => w.angle));
    expect(largest).toBeGreaterThan(20 * DEG);

    // Joints without limits stay free, and every limited joint keeps its kind or becomes a cone + twist.
    for (let j = 0; j < rig.jointCount; j++) {
      expect(fitted.specs[j] === undefined, rig.names[j]).toBe(preset.specs[j] === undefined);
    }
    const lines = [...worstPreset.entries()]
      .sort((a, b) => b[1].angle - a[1].angle)
      .map(
        ([j, w]) =>
          `${rig.names[j]}: up to ${(w.angle / DEG).toFixed(1)}° outside the preset (${w.clip}); ` +
          `preset ${describeSpec(preset, j)} → fitted ${describeSpec(fitted, j)}`,
      );
    notes.push(
      `${keys.length} rotation keys; fitted limits move none by more than ${worstFitted.toExponential(1)} ` +
        `(hinges: ${worstHinge.toExponential(1)}, their keys' float32 rounding off the axis)`,
      ...lines,
    );
  });

  it("reads no key it should not: widening again with the same clips changes nothing", async () => {
    loaded = await loadCharacter(robot);
    const ik = attach(loaded, {});
    const limits = ik.limits!;
    const before = structuredClone(limits.specs);
    const fit = fitLimitsToAnimations(ik.rig!, limits, loaded.scene.animationGroups);
    expect(fit.widened).toEqual([]);
    expect(fit.skipped).toBe(0);
    expect(fit.keys).toBeGreaterThan(1000);
    expect(limits.specs).toEqual(before);
    // On free limits nothing is widened: there is nothing to contain.
    const free = createJointLimits(limits.rig);
    expect(fitLimitsToAnimations(ik.rig!, free, loaded.scene.animationGroups).widened).toEqual([]);
    // With "none", the option is ignored.
    ik.detach();
    loaded.root.removeBehavior(ik);
    const none = attach(loaded, { limits: "none" });
    expect(none.limits!.specs.every((s) => s === undefined)).toBe(true);
  });

  it("a target moved a few cm from a limb's animated place moves the rest of the body much less", async () => {
    const results: Record<string, { worst: number; sum: number; count: number }> = {};
    for (const fitLimits of [false, true]) {
      const label = fitLimits ? "fitted" : "preset";
      const r = (results[label] = { worst: 0, sum: 0, count: 0 });
      for (const clip of ["Walking", "Running", "Dance", "Wave", "Punch"]) {
        for (const [joint, offset] of [
          ["leftHand", new Vector3(0.03, 0, 0)],
          ["rightHand", new Vector3(0, 0.03, 0)],
          ["leftLowerLeg", new Vector3(0, 0, 0.03)],
          ["rightLowerLeg", new Vector3(0.03, 0.03, 0)],
        ] as const) {
          loaded?.engine.dispose();
          loaded = await loadCharacter(robot);
          const ik = attach(loaded, { fitLimitsToAnimations: fitLimits });
          const group = loaded.scene.getAnimationGroupByName(clip)!;
          for (const g of loaded.scene.animationGroups) g.stop();
          group.start(true);
          group.pause();
          group.goToFrame(group.from + 0.37 * (group.to - group.from));
          const reader = new PoseReader(ik.rig!);
          const j = ik.jointIndex(joint);
          // The animated pose, with the behavior off.
          ik.enabled = false;
          loaded.scene.render();
          reader.read();
          const animated = ik.rig!.nodes.map((_, k) => reader.getWorldPositionToRef(k, new Vector3()));
          const target = animated[j].add(offset);
          ik.setTarget(joint, target);
          ik.enabled = true;
          let solved: Vector3[] = [];
          const observer = loaded.scene.onAfterRenderObservable.add(
            () => {
              reader.read();
              solved = ik.rig!.nodes.map((_, k) => reader.getWorldPositionToRef(k, new Vector3()));
            },
            undefined,
            true,
          );
          loaded.scene.render();
          observer!.remove();
          // Fitted, a hand reaches (its chain runs up the spine; a knee's is the thigh alone, which cannot
          // take the knee off its sphere about the hip); every joint but the effector and what hangs below
          // it is measured against its animation.
          if (fitLimits && joint.endsWith("Hand"))
            expect(Vector3.Distance(solved[j], target), `${clip} ${joint}`).toBeLessThan(2e-3);
          const parents = ik.rig!.parents;
          let drift = 0;
          for (let k = 0; k < parents.length; k++) {
            let below = false;
            for (let a = k; a >= 0 && !below; a = parents[a]) below = a === j;
            if (!below) drift = Math.max(drift, Vector3.Distance(solved[k], animated[k]));
          }
          r.worst = Math.max(r.worst, drift);
          r.sum += drift;
          r.count++;
        }
      }
    }
    const { preset, fitted } = results;
    notes.push(
      `target 3–4 cm off the animated hand/knee, 5 clips × 4 limbs: the other joints drift from their animation ` +
        `by ≤ ${(preset.worst * 100).toFixed(2)} cm (mean ${((preset.sum / preset.count) * 100).toFixed(2)} cm) with the ` +
        `preset, ≤ ${(fitted.worst * 100).toFixed(2)} cm (mean ${((fitted.sum / fitted.count) * 100).toFixed(2)} cm) fitted`,
    );
    expect(fitted.worst).toBeLessThan(preset.worst / 3);
    expect(fitted.sum / fitted.count).toBeLessThan(preset.sum / preset.count / 3);
  });

  it("a mirrored joint's keys are fitted as the solver sees them: its scale's half turn folded in", async () => {
    loaded = await loadCharacter(robot);
    // Before the behavior attaches: the upper arm mirrored (its keys stay as keyed), the forearm put back.
    const upperArm = loaded.root.getChildTransformNodes(false).find((n) => n.name === "UpperArm.L")!;
    upperArm.scaling.set(-1, 1, 1);
    for (const child of upperArm.getChildTransformNodes(true)) child.position.x = -child.position.x;
    const ik = attach(loaded, {});
    const limits = ik.limits!;
    const j = ik.jointIndex("UpperArm.L");
    const keys = rotationKeys(ik.rig!, loaded.scene.animationGroups).filter((k) => k.joint === j);
    expect(keys.length).toBeGreaterThan(50);
    // (x, y, z, w)·i: the half turn about x that (-1, 1, 1) holds (scaleFold.ts).
    const folded = keys.map((k) => ({ ...k, q: [k.q[3], k.q[2], -k.q[1], -k.q[0]] }));
    const worst = Math.max(...folded.map((k) => violation(limits, k).moved));
    expect(worst).toBeLessThan(1e-9);
  });

  async function secondScene(): Promise<Loaded> {
    const other = await loadCharacter(robot);
    cleanups.push(other);
    return other;
  }
  const cleanups: Loaded[] = [];
  afterAll(() => cleanups.forEach((l) => l.engine.dispose()));
});
