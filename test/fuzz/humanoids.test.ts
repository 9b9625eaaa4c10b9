import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterAll, describe, expect, it } from "vitest";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import {
  FabrikBehavior,
  FootPlacement,
  LookAt,
  TrackedBody,
  TwoHandGrip,
  projectRotation,
} from "../../plugin/index.js";
import { buildJointCharacter, preciseEngine } from "../babylon/codeCharacters.js";
import { createStep } from "../helpers/helperHarness.js";
import { random } from "../solver/fixtures.js";
import { generateHumanoid, type GeneratedHumanoid } from "./humanoidGenerate.js";

/*
 * Fuzzing the humanoid side on characters nobody drew: random humanoids named the way Mixamo, Unreal, VRoid,
 * Blender and 3ds Max's Biped name them, of random proportions, in a T-pose or an A-pose, with random bone
 * axes, sometimes a root on the ground, twist bones, IK foot controls and `_end` sites (humanoidGenerate.ts).
 * At default settings, each must:
 *
 * - have its roles found on the joints its tool's names say;
 * - reach hand targets taken from a random pose of its arms within the limits the behavior chose;
 * - stand on a step with FootPlacement: the foot on the step raised by the step, the other where it stood;
 * - follow a head and two hands with TrackedBody: all three on their trackers, knees ahead of their legs;
 * - look at a point 25° aside and a little up with LookAt: the head's forward on it;
 * - hold a box in both hands with TwoHandGrip, carried to a point before the chest: the box there, both
 *   hands on their handles.
 *
 *   HUMANOID_FUZZ_CASES=500 npx vitest run test/fuzz/humanoids.test.ts     more cases
 *   HUMANOID_FUZZ_SEEDS=4,34 npx vitest run test/fuzz/humanoids.test.ts    only these
 */
const CASES = Number(process.env.HUMANOID_FUZZ_CASES ?? 40);
const ONLY = process.env.HUMANOID_FUZZ_SEEDS?.split(",").map(Number);
const seeds = ONLY ?? Array.from({ length: CASES }, (_, i) => i + 1);
const tally = { reach: 0, reachMet: 0 };

interface Built {
  readonly scene: Scene;
  readonly ik: FabrikBehavior;
  readonly nodes: Map<string, TransformNode>;
  world(name: string): Vector3;
  dispose(): void;
}

function build(h: GeneratedHumanoid): Built {
  const engine = preciseEngine();
  const scene = new Scene(engine);
  new FreeCamera("camera", new Vector3(0, 1, -5), scene);
  const { model, nodes } = buildJointCharacter(scene, h.joints, h.ends, h.frameOf, h.scaleOf);
  if (h.negated) for (const node of nodes.values()) node.rotationQuaternion!.scaleInPlace(-1);
  const ik = new FabrikBehavior();
  model.addBehavior(ik, true);
  return {
    scene,
    ik,
    nodes,
    world: (name) => {
      scene.incrementRenderId();
      return nodes.get(name)!.computeWorldMatrix(true).getTranslation();
    },
    dispose: () => engine.dispose(),
  };
}

/** Knees behind the line from hip to ankle (the body faces +Z) by more than `slack` of the height. */
function kneesBehind(b: Built, h: GeneratedHumanoid, slack: number): number {
  let behind = 0;
  for (const side of ["left", "right"] as const) {
    const hip = b.world(h.roles[`${side}UpperLeg`]!),
      knee = b.world(h.roles[`${side}LowerLeg`]!),
      ankle = b.world(h.roles[`${side}Foot`]!);
    const t = (knee.y - hip.y) / (ankle.y - hip.y);
    if (knee.z < hip.z + t * (ankle.z - hip.z) - slack * h.height) behind++;
  }
  return behind;
}

const label = (seed: number, h: GeneratedHumanoid) =>
  `seed ${seed} (${h.scheme}, ${h.armDrop > 0 ? `A-pose ${h.armDrop.toFixed(0)}°` : "T-pose"}` +
  `${h.mirrored ? ", left side mirrored" : ""}${h.footControls ? ", feet under the root" : ""}` +
  `${h.negated ? ", quaternions negated" : ""})`;

describe("humanoid fuzz: random tools' humanoids at default settings", () => {
  it(`${seeds.length} humanoids: roles found on the joints their names say`, () => {
    const failures: string[] = [];
    for (const seed of seeds) {
      const h = generateHumanoid(random(seed));
      const b = build(h);
      for (const [role, name] of Object.entries(h.roles)) {
        const found = b.ik.roles[role as keyof typeof h.roles];
        const expected = b.ik.jointIndex(name);
        if (found !== expected)
          failures.push(
            `${label(seed, h)}: ${role} on ${found === undefined ? "nothing" : b.ik.rig!.names[found]}, not ${name}`,
          );
      }
      b.dispose();
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });

  it(`${seeds.length} humanoids: hand targets from a random pose of the arms within their limits are met`, () => {
    const failures: string[] = [];
    for (const seed of seeds) {
      const rand = random(seed + 1_000_000);
      const h = generateHumanoid(random(seed));
      const b = build(h);
      const limits = b.ik.limits!;
      const scratch = new Float64Array(32);
      const targets: [string, Vector3][] = [];
      const saved = [...b.nodes.values()].map((n) => n.rotationQuaternion!.clone());
      for (const side of ["left", "right"] as const) {
        for (const part of ["UpperArm", "LowerArm"] as const) {
          const j = b.ik.roles[`${side}${part}`]!;
          const node = b.ik.rig!.nodes[j]!;
          const axis = new Vector3(rand() - 0.5, rand() - 0.5, rand() - 0.5).normalize();
          const delta = Quaternion.RotationAxis(axis, 1.2 * rand());
          const q = Float64Array.of(delta.x, delta.y, delta.z, delta.w);
          projectRotation(limits, j, q, 0, scratch, 0);
          node.rotationQuaternion = node.rotationQuaternion!.multiply(new Quaternion(q[0], q[1], q[2], q[3]));
        }
        targets.push([`${side}Hand`, b.world(h.roles[`${side}Hand`]!)]);
      }
      [...b.nodes.values()].forEach((n, k) => (n.rotationQuaternion = saved[k]));
      for (const [role, p] of targets) b.ik.setTarget(role, p);
      let met = false;
      b.ik.onSolvedObservable.add((e) => (met = e.report.converged));
      for (let f = 0; f < 4; f++) b.scene.render();
      tally.reach++;
      if (met) tally.reachMet++;
      else failures.push(`${label(seed, h)}: hands not on targets after 4 frames`);
      b.dispose();
    }
    // A pose within the limits can be reached; the solver, started from the rest pose, finds it nearly always.
    expect(failures.length, failures.join("\n")).toBeLessThanOrEqual(Math.floor(0.03 * seeds.length));
  });

  it(`${seeds.length} humanoids stand on a step with FootPlacement`, () => {
    const failures: string[] = [];
    for (const seed of seeds) {
      const h = generateHumanoid(random(seed));
      const b = build(h);
      const H = h.height;
      const leftFoot = h.roles.leftFoot!,
        rightFoot = h.roles.rightFoot!;
      const restLeft = b.world(leftFoot),
        restRight = b.world(rightFoot);
      const rise = 0.06 * H;
      // The step under the left foot and its toes, the floor under the right.
      createStep(b.scene, "step", rise, restLeft.x - 0.06 * H, restLeft.x + 0.06 * H, -0.1 * H, 0.2 * H);
      createStep(b.scene, "floor", 0, restRight.x - 0.3 * H, (restLeft.x + restRight.x) / 2, -H, H);
      const feet = new FootPlacement(b.ik, { autoUpdate: false });
      let left = new Vector3(),
        right = new Vector3();
      b.ik.onSolvedObservable.add(() => {
        left = b.world(leftFoot);
        right = b.world(rightFoot);
      });
      for (let f = 0; f < 60; f++) {
        feet.update(1 / 60);
        b.scene.render();
      }
      const up = (left.y - restLeft.y - rise) / H;
      const stays = Vector3.Distance(right, restRight) / H;
      if (!(Math.abs(up) < 0.006 && stays < 0.006))
        failures.push(
          `${label(seed, h)}: left foot ${(100 * up).toFixed(2)} % of the height off the step, ` +
            `right ${(100 * stays).toFixed(2)} % from where it stood`,
        );
      feet.dispose();
      b.dispose();
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });

  it(`${seeds.length} humanoids follow a head and two hands with TrackedBody`, () => {
    const failures: string[] = [];
    for (const seed of seeds) {
      const h = generateHumanoid(random(seed));
      const b = build(h);
      const H = h.height;
      createStep(b.scene, "floor", 0, -2 * H, 2 * H, -2 * H, 2 * H);
      const body = new TrackedBody(b.ik, { autoUpdate: false });
      const head = b.world(h.roles.head!).add(new Vector3(0, -0.03 * H, 0.03 * H));
      const hands = [new Vector3(0.12 * H, 0.55 * H, 0.18 * H), new Vector3(-0.12 * H, 0.6 * H, 0.16 * H)];
      body.head.position.copyFrom(head);
      body.head.rotation.copyFrom(Quaternion.RotationYawPitchRoll(0.2, 0.15, 0));
      body.leftHand.position.copyFrom(hands[0]);
      body.rightHand.position.copyFrom(hands[1]);
      let off = [NaN, NaN, NaN];
      let kneesBack = 0;
      b.ik.onSolvedObservable.add(() => {
        off = [
          Vector3.Distance(b.world(h.roles.head!), head),
          Vector3.Distance(b.world(h.roles.leftHand!), hands[0]),
          Vector3.Distance(b.world(h.roles.rightHand!), hands[1]),
        ].map((d) => d / H);
        kneesBack = kneesBehind(b, h, 0.002);
      });
      for (let f = 0; f < 40; f++) {
        body.update(1 / 60);
        b.scene.render();
      }
      if (!off.every((d) => d < 0.01) || kneesBack > 0)
        failures.push(
          `${label(seed, h)}: head, hands ${off.map((d) => (100 * d).toFixed(2)).join(", ")} % of the height ` +
            `off their trackers, ${kneesBack} knees back`,
        );
      body.dispose();
      b.dispose();
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });

  it(`${seeds.length} humanoids walk after a head and two hands with TrackedBody, stepping, knees ahead`, () => {
    const failures: string[] = [];
    for (const seed of seeds) {
      const h = generateHumanoid(random(seed));
      const b = build(h);
      const H = h.height;
      createStep(b.scene, "floor", 0, -3 * H, 3 * H, -3 * H, 3 * H);
      const body = new TrackedBody(b.ik, { autoUpdate: false });
      const start = b.world(h.roles.head!).add(new Vector3(0, -0.02 * H, 0.02 * H));
      const hands = [new Vector3(0.15 * H, 0.5 * H, 0.1 * H), new Vector3(-0.15 * H, 0.5 * H, 0.1 * H)];
      let kneesBack = 0,
        worst = 0,
        feetAhead = 0;
      b.ik.onSolvedObservable.add(() => {
        feetAhead = Math.min(b.world(h.roles.leftFoot!).z, b.world(h.roles.rightFoot!).z) / H;
        kneesBack += kneesBehind(b, h, 0.005);
        worst = Math.max(worst, Vector3.Distance(b.world(h.roles.head!), body.head.position) / H);
      });
      // 0.6 of the height forward over 1.5 s (about a metre at walking pace for a person), then 1 s still.
      for (let f = 0; f < 150; f++) {
        const ahead = 0.6 * H * Math.min(1, f / 90);
        body.head.position.copyFrom(start.add(new Vector3(0, 0, ahead)));
        body.leftHand.position.copyFrom(hands[0].add(new Vector3(0, 0, ahead)));
        body.rightHand.position.copyFrom(hands[1].add(new Vector3(0, 0, ahead)));
        body.update(1 / 60);
        b.scene.render();
      }
      if (body.steps < 2 || feetAhead < 0.4 || kneesBack > 0 || worst > 0.05)
        failures.push(
          `${label(seed, h)}: ${body.steps} steps, feet ${(100 * feetAhead).toFixed(0)} % of the height ahead, ` +
            `${kneesBack} knee-frames back, head up to ${(100 * worst).toFixed(1)} % off its tracker`,
        );
      body.dispose();
      b.dispose();
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });
});

describe("humanoid fuzz: LookAt", () => {
  it(`${seeds.length} humanoids look at a point aside`, () => {
    const failures: string[] = [];
    for (const seed of seeds) {
      const h = generateHumanoid(random(seed));
      const b = build(h);
      const H = h.height;
      const headNode = b.nodes.get(h.roles.head!)!;
      b.scene.incrementRenderId();
      const rest = headNode.computeWorldMatrix(true).getRotationMatrix().clone();
      const eye = b.world(h.roles.head!);
      const point = eye.add(new Vector3(0.45 * H, 0.1 * H, 1.0 * H));
      const look = new LookAt(b.ik, { autoUpdate: false });
      look.target = point;
      let angle = NaN;
      const measure = b.scene.onAfterRenderObservable.add(
        () => {
          // The head's turn from rest carries the rest's forward (+Z, the model's) to where it looks now.
          const now = headNode.computeWorldMatrix(true).getRotationMatrix();
          const turn = rest.clone().invert().multiply(now);
          const forward = Vector3.TransformNormal(new Vector3(0, 0, 1), turn).normalize();
          const to = point.subtract(b.world(h.roles.head!)).normalize();
          angle = Math.acos(Math.min(1, Vector3.Dot(forward, to)));
        },
        undefined,
        true,
      );
      for (let f = 0; f < 60; f++) {
        look.update(1 / 60);
        b.scene.render();
      }
      measure?.remove();
      if (!(angle < (3 * Math.PI) / 180))
        failures.push(
          `${label(seed, h)}: the head looks ${((angle * 180) / Math.PI).toFixed(1)}° off the point`,
        );
      look.dispose();
      b.dispose();
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });
});

describe("humanoid fuzz: TwoHandGrip", () => {
  it(`${seeds.length} humanoids hold a box in both hands before the chest`, () => {
    const failures: string[] = [];
    for (const seed of seeds) {
      const h = generateHumanoid(random(seed));
      const b = build(h);
      const H = h.height;
      const box = new TransformNode("box", b.scene);
      box.rotationQuaternion = Quaternion.Identity();
      box.position.set(0, 0.62 * H, 0.25 * H);
      const target = new TransformNode("carry", b.scene);
      target.rotationQuaternion = Quaternion.Identity();
      target.position.set(0.03 * H, 0.68 * H, 0.22 * H);
      // Palms in, hands pointing ahead: the wrists' own limits decide how much of that rotation they take.
      const grip = new TwoHandGrip(b.ik, {
        object: box,
        left: {
          position: new Vector3(0.12 * H, 0, 0),
          rotation: Quaternion.RotationYawPitchRoll(0, 0, -Math.PI / 2),
        },
        right: {
          position: new Vector3(-0.12 * H, 0, 0),
          rotation: Quaternion.RotationYawPitchRoll(0, 0, Math.PI / 2),
        },
        target,
      });
      // Measured where the frame is drawn: the hands as written, the handles where the box is placed.
      let left = NaN,
        right = NaN,
        carried = NaN;
      const handles = [new Vector3(0.12 * H, 0, 0), new Vector3(-0.12 * H, 0, 0)];
      const measure = b.scene.onAfterRenderObservable.add(
        () => {
          const m = box.computeWorldMatrix(true);
          carried = Vector3.Distance(m.getTranslation(), target.position);
          [left, right] = (["leftHand", "rightHand"] as const).map((role, i) =>
            Vector3.Distance(b.world(h.roles[role]!), Vector3.TransformCoordinates(handles[i], m)),
          );
        },
        undefined,
        true,
      );
      for (let f = 0; f < 20; f++) b.scene.render();
      measure?.remove();
      if (!(left / H < 0.005 && right / H < 0.005 && carried / H < 0.01))
        failures.push(
          `${label(seed, h)}: hands ${((100 * left) / H).toFixed(2)}, ${((100 * right) / H).toFixed(2)} % of ` +
            `the height off their handles, the box ${((100 * carried) / H).toFixed(2)} % off its target`,
        );
      grip.dispose();
      b.dispose();
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });
});

afterAll(() => {
  console.log(`humanoid fuzz: ${seeds.length} humanoids, hands met on ${tally.reachMet}/${tally.reach}`);
});
