import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterAll, describe, expect, it } from "vitest";
import type { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { TwoHandGrip } from "../../plugin/helpers/twoHandGrip.js";
import { OWN_CHARACTERS, loadCharacter, type Loaded } from "../babylon/characters.js";
import { attach, limitViolation, random } from "../babylon/fabrikHarness.js";
import { randomArms } from "../helpers/randomArms.js";

/*
 * Fuzzing the two-hand grip on the mannequin: a few cases of a few hundred frames each, every frame a random
 * object pose (one both arms can hold, far away, behind the back, inside the body, anywhere near), random
 * handles (the hands' own on a reachable pose, or any offsets and rotations, up to far apart), random hand
 * and target weights (0 and 1 included), sometimes no target, sometimes the Walk cycle playing. Every frame:
 * nothing NaN on any bone or on the object, every bone at its length, the arms within their limits, and on
 * every reachable pose (made as test/helpers/twoHandGrip.test.ts makes them: random limit-respecting arms,
 * 10 % inside their limits, the object between the hands at a random rotation, both hands' handles read from
 * it) both hands on their handles' places to 1e-4 of the arm length, as docs/two-hand-grip.md promises.
 *
 *   FUZZ_GRIP_CASES=40 FUZZ_GRIP_SEED=5 npx vitest run test/fuzz/twoHandGrip.test.ts
 */
// Its own variables: a case loads the mannequin and renders hundreds of frames, so `npm run fuzz`'s million
// cases are not for it.
const CASES = Number(process.env.FUZZ_GRIP_CASES ?? 10);
const SEED = Number(process.env.FUZZ_GRIP_SEED ?? 1);
const FRAMES = Number(process.env.FUZZ_GRIP_FRAMES ?? 250);
/** Hands on their handles' places on a reachable pose, as a fraction of the arm (docs/two-hand-grip.md). */
const ON_HANDLE = 1e-4;
/** Limits of the arm joints written, radians (the grip tests' bound). */
const LIMIT_TOLERANCE = 1e-5;

/** Seeds that once failed, always run, with the reason. */
const REGRESSION_SEEDS: readonly { readonly seed: number; readonly why: string }[] = [
  {
    seed: 1,
    why: "shoulder 6.9e-4 rad outside its limits (frame 58, no target): the swivel search kept a swivel that broke the shoulder's limits by up to 1e-3 rad",
  },
  { seed: 3, why: "the same, 6.7e-4 rad (frame 84, object inside the body)" },
  { seed: 4, why: "the same, 5.8e-4 rad (frame 71, object behind the back)" },
];

const SIDES = ["left", "right"] as const;
const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;

interface Rigged {
  loaded: Loaded;
  ik: FabrikBehavior;
  /** upper arm, forearm, hand per side. */
  arms: number[][];
  armLength: number;
  /** Every joint node's local offset length at the start (bones do not stretch on the mannequin). */
  lengths: number[];
}

type Pose = { position: Vector3; rotation: Quaternion };

function worldPose(ik: FabrikBehavior, j: number): Pose {
  const node = ik.rig!.nodes[j]!;
  const chain: TransformNode[] = [];
  for (let n: TransformNode | null = node; n !== null; n = n.parent as TransformNode | null) chain.unshift(n);
  node.getScene().incrementRenderId();
  for (const n of chain) n.computeWorldMatrix(true);
  return { position: node.absolutePosition.clone(), rotation: node.absoluteRotationQuaternion.clone() };
}

const handleOn = (o: Pose, g: Pose): Pose => ({
  position: o.position.add(g.position.applyRotationQuaternion(o.rotation)),
  rotation: o.rotation.multiply(g.rotation),
});

const gripFor = (o: Pose, hand: Pose): Pose => {
  const inv = Quaternion.Inverse(o.rotation);
  return {
    position: hand.position.subtract(o.position).applyRotationQuaternion(inv),
    rotation: inv.multiply(hand.rotation),
  };
};

const randomRotation = (rnd: () => number, angle = 2 * Math.PI) =>
  Quaternion.RotationAxis(new Vector3(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize(), rnd() * angle);

async function setUp(): Promise<Rigged> {
  const loaded = await loadCharacter(mannequin);
  for (const g of loaded.scene.animationGroups) g.stop();
  const ik = attach(loaded);
  const arms = SIDES.map((s) =>
    ["UpperArm", "LowerArm", "Hand"].map((n) => ik.jointIndex(`${s}${n}` as never)),
  );
  const w = arms.map((js) => js.map((j) => worldPose(ik, j).position));
  const armLength = Math.min(...w.map((p) => Vector3.Distance(p[0], p[1]) + Vector3.Distance(p[1], p[2])));
  const lengths = ik.rig!.nodes.map((n) => n!.position.length());
  return { loaded, ik, arms, armLength, lengths };
}

const finite = (...values: number[]) => values.every(Number.isFinite);

const tally = { cases: 0, frames: 0, reachable: 0, worstReachable: 0, worstBreach: 0, unreachable: 0 };
afterAll(() => {
  console.log(
    `[fuzz two-hand grip] ${tally.cases} cases, ${tally.frames} frames; ${tally.reachable} reachable object poses, ` +
      `both hands on their handles to ${tally.worstReachable.toExponential(2)} of the arm at worst; ` +
      `${tally.unreachable} frames the grip called unreachable; arm limits kept to ${tally.worstBreach.toExponential(2)} rad`,
  );
});

/** Runs one case: FRAMES random frames on a fresh mannequin. Returns the failures. */
async function runCase(seed: number): Promise<string[]> {
  const r = await setUp();
  const failures: string[] = [];
  const fail = (frame: number, message: string) => {
    if (failures.length < 10) failures.push(`seed ${seed}, frame ${frame}: ${message}`);
  };
  try {
    const rnd = random(seed);
    const { scene } = r.loaded;
    const object = new TransformNode("held", scene);
    object.rotationQuaternion = new Quaternion();
    const target = new TransformNode("held target", scene);
    target.rotationQuaternion = new Quaternion();
    const rest = r.arms.map((js) => worldPose(r.ik, js[2]));
    const chest = rest[0].position.add(rest[1].position).scale(0.5);
    let grips: Pose[] = rest.map((h) => gripFor({ position: chest, rotation: Quaternion.Identity() }, h));
    const grip = new TwoHandGrip(r.ik, { object, target, left: grips[0], right: grips[1] });
    const walk = scene.getAnimationGroupByName("Walk");
    const walking = walk !== null && rnd() < 0.5;
    if (walking) {
      walk.start(true);
      walk.pause();
    }
    const nodes = r.ik.rig!.nodes;
    const root = r.ik.rig!.parents.findIndex((p) => p < 0);
    for (let frame = 0; frame < FRAMES; frame++) {
      if (walking) walk.goToFrame(walk.from + (frame % 60) * ((walk.to - walk.from) / 60));
      const kind =
        rnd() < 0.4
          ? "reachable"
          : (["far", "behind", "inside", "near", "nothing"] as const)[Math.floor(5 * rnd())];
      const pick = (values: number[]) => values[Math.floor(rnd() * values.length)];
      grip.leftWeight = pick([0, 1, rnd(), rnd()]);
      grip.rightWeight = pick([0, 1, rnd(), rnd()]);
      grip.targetWeight = kind === "reachable" ? 1 : pick([0, 1, rnd()]);
      grip.target = kind === "nothing" ? null : target;
      if (kind === "reachable") {
        // Both hands can hold the object: their poses on random arms within limits, the object between them.
        const undo = randomArms(r.ik, r.arms.flat(), rnd, 0.9);
        const hands = r.arms.map((js) => worldPose(r.ik, js[2]));
        undo();
        target.position.copyFrom(hands[0].position.add(hands[1].position).scale(0.5));
        target.rotationQuaternion!.copyFrom(randomRotation(rnd, 6));
        grips = hands.map((h) =>
          gripFor({ position: target.position, rotation: target.rotationQuaternion! }, h),
        );
      } else {
        if (rnd() < 0.5) {
          // Any handles: near the object or far apart, any rotation.
          const spread = pick([0.1, 0.4, 1.5]);
          grips = SIDES.map(() => ({
            position: new Vector3(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).scale(2 * spread),
            rotation: randomRotation(rnd),
          }));
        }
        const dir = new Vector3(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
        const at =
          kind === "far"
            ? chest.add(dir.scale(1 + 4 * rnd()))
            : kind === "behind"
              ? chest.add(new Vector3(0.3 * (rnd() - 0.5), 0.4 * (rnd() - 0.5), -0.15 - 0.4 * rnd()))
              : kind === "inside"
                ? chest.add(dir.scale(0.12 * rnd())).add(new Vector3(0, -0.3 * rnd(), 0))
                : chest.add(dir.scale(rnd()));
        target.position.copyFrom(at);
        target.rotationQuaternion!.copyFrom(randomRotation(rnd));
      }
      SIDES.forEach((side, i) => grip.setHandle(side, grips[i]));
      let checked = false;
      const observer = scene.onAfterRenderObservable.add(
        () => {
          checked = true;
          const o = { position: object.position.clone(), rotation: object.rotationQuaternion!.clone() };
          const { x, y, z, w } = o.rotation;
          if (!finite(o.position.x, o.position.y, o.position.z, x, y, z, w))
            fail(frame, `object pose not finite (${kind})`);
          if (!finite(...grip.errors))
            fail(frame, `grip errors not finite: ${Array.from(grip.errors).join(", ")}`);
          nodes.forEach((node, j) => {
            const p = node!.position,
              q = node!.rotationQuaternion!;
            if (!finite(p.x, p.y, p.z, q.x, q.y, q.z, q.w))
              fail(frame, `bone ${j} (${node!.name}) not finite (${kind})`);
            const length = p.length();
            if (j !== root && Math.abs(length - r.lengths[j]) > 1e-9 * Math.max(r.lengths[j], 1e-3))
              fail(frame, `bone ${j} (${node!.name}) length ${r.lengths[j]} -> ${length} (${kind})`);
          });
          for (const j of r.arms.flat()) {
            const q = nodes[j]!.rotationQuaternion!;
            const breach = limitViolation(r.ik.limits!, j, [q.x, q.y, q.z, q.w]);
            tally.worstBreach = Math.max(tally.worstBreach, breach);
            if (!(breach <= LIMIT_TOLERANCE))
              fail(frame, `${nodes[j]!.name} ${breach} rad outside its limits (${kind})`);
          }
          if (!grip.reachable) tally.unreachable++;
          if (kind !== "reachable") return;
          tally.reachable++;
          SIDES.forEach((side, i) => {
            const hand = worldPose(r.ik, r.arms[i][2]);
            const miss = Vector3.Distance(hand.position, handleOn(o, grips[i]).position) / r.armLength;
            tally.worstReachable = Math.max(tally.worstReachable, miss);
            if (!(miss <= ON_HANDLE))
              fail(frame, `reachable pose: ${side} hand ${miss.toExponential(2)} of the arm off its handle`);
          });
        },
        undefined,
        true,
      )!;
      scene.render();
      observer.remove();
      tally.frames++;
      if (!checked) fail(frame, "the frame was not rendered");
      if (failures.length >= 10) break;
    }
    grip.dispose();
  } finally {
    r.loaded.engine.dispose();
  }
  tally.cases++;
  return failures;
}

describe("fuzz: two-hand grip on the mannequin", () => {
  const range = Array.from({ length: CASES }, (_, i) => SEED + i);
  const seeds = [...new Set([...REGRESSION_SEEDS.map((s) => s.seed), ...range])];
  it(
    `${seeds.length} cases of ${FRAMES} random frames: no NaN, bone lengths, arm limits, hands on reachable handles`,
    async () => {
      const failures: string[] = [];
      for (const seed of seeds) failures.push(...(await runCase(seed)));
      expect(failures).toEqual([]);
      expect(tally.reachable).toBeGreaterThan(0.3 * seeds.length * FRAMES);
    },
    Math.max(60_000, 15 * seeds.length * FRAMES),
  );
});
