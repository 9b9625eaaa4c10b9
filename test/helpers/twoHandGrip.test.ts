import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { TwoHandGrip } from "../../plugin/helpers/twoHandGrip.js";
import { projectRotation } from "../../plugin/solver/jointLimitProjection.js";
import { OWN_CHARACTERS, characterNamed, loadCharacter, noteIfMissing, type Loaded } from "../babylon/characters.js";
import { attach, limitViolation, random } from "../babylon/fabrikHarness.js";

const mannequin = OWN_CHARACTERS.find((c) => c.folder === "mannequin")!;

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[two-hand grip]\n  ${notes.join("\n  ")}`);
});

const SIDES = ["left", "right"] as const;
type Side = (typeof SIDES)[number];

interface Rigged {
  loaded: Loaded;
  ik: FabrikBehavior;
  /** upper arm, forearm, hand per side. */
  arms: number[][];
  /** World length of each arm (upper arm + forearm) in the animated pose. */
  armLength: number;
}

async function setUp(folder = mannequin): Promise<Rigged> {
  const loaded = await loadCharacter(folder);
  for (const g of loaded.scene.animationGroups) g.stop();
  const ik = attach(loaded);
  const arms = SIDES.map((s) => ["UpperArm", "LowerArm", "Hand"].map((r) => ik.jointIndex(`${s}${r}` as never)));
  const w = arms.map((js) => js.map((j) => worldPose(ik, j).position));
  const armLength = Math.min(
    ...w.map((p) => Vector3.Distance(p[0], p[1]) + Vector3.Distance(p[1], p[2])),
  );
  return { loaded, ik, arms, armLength };
}

/** A joint's world place and rotation (Babylon's absolute ones), computed afresh from the nodes. */
function worldPose(ik: FabrikBehavior, j: number): { position: Vector3; rotation: Quaternion } {
  const node = ik.rig!.nodes[j]!;
  const chain: TransformNode[] = [];
  for (let n: TransformNode | null = node; n !== null; n = n.parent as TransformNode | null) chain.unshift(n);
  node.getScene().incrementRenderId();
  for (const n of chain) n.computeWorldMatrix(true);
  return { position: node.absolutePosition.clone(), rotation: node.absoluteRotationQuaternion.clone() };
}

function angle(a: Quaternion, b: Quaternion): number {
  return 2 * Math.acos(Math.min(1, Math.abs(Quaternion.Dot(a, b))));
}

/** The handle's world pose on an object at (p, q) for a grip (gp, gq) in its frame. */
function handleOn(p: Vector3, q: Quaternion, gp: Vector3, gq: Quaternion) {
  return { position: p.add(gp.applyRotationQuaternion(q)), rotation: q.multiply(gq) };
}

/** The grip that puts a hand at (hp, hq) on an object at (p, q). */
function gripFor(p: Vector3, q: Quaternion, hp: Vector3, hq: Quaternion) {
  const inv = Quaternion.Inverse(q);
  return { position: hp.subtract(p).applyRotationQuaternion(inv), rotation: inv.multiply(hq) };
}

interface Measured {
  /** World distance hand–handle over arm length, and angle, per side. */
  miss: number[];
  turn: number[];
  object: { position: Vector3; rotation: Quaternion };
  /** Largest limit breach (radians) of the arm joints written. */
  breach: number;
}

/** Renders one frame and measures, in it, the hands against their handles on the object as placed. */
function frame(r: Rigged, grip: TwoHandGrip, grips: { position: Vector3; rotation: Quaternion }[]): Measured {
  let measured: Measured | null = null;
  const observer = r.loaded.scene.onAfterRenderObservable.add(
    () => {
      const object = grip.object;
      object.computeWorldMatrix(true);
      const op = object.position.clone();
      const oq = object.rotationQuaternion!.clone();
      const miss: number[] = [];
      const turn: number[] = [];
      let breach = 0;
      SIDES.forEach((_, i) => {
        const hand = worldPose(r.ik, r.arms[i][2]);
        const want = handleOn(op, oq, grips[i].position, grips[i].rotation);
        miss.push(Vector3.Distance(hand.position, want.position) / r.armLength);
        turn.push(angle(hand.rotation, want.rotation));
        for (const j of r.arms[i]) {
          const q = r.ik.rig!.nodes[j]!.rotationQuaternion!;
          breach = Math.max(breach, limitViolation(r.ik.limits!, j, [q.x, q.y, q.z, q.w]));
        }
      });
      measured = { miss, turn, object: { position: op, rotation: oq }, breach };
    },
    undefined,
    true,
  )!;
  r.loaded.scene.render();
  observer.remove();
  return measured!;
}

/**
 * Puts random limit-respecting rotations on both arms (upper arm, forearm, hand); returns what to undo.
 * Each is a random rotation projected onto the joint's limits, then brought `inside` of the way back toward
 * rest (1: on the limits' boundary, where projection puts most of them).
 */
function randomArms(r: Rigged, rnd: () => number, inside: number): () => void {
  const limits = r.ik.limits!;
  const nodes = r.ik.rig!.nodes;
  const saved = r.arms.flat().map((j) => nodes[j]!.rotationQuaternion!.clone());
  const scratch = new Float64Array(16);
  for (const j of r.arms.flat()) {
    const axis = new Vector3(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
    const q = Quaternion.RotationAxis(axis, rnd() * 2.5);
    const delta = Float64Array.of(q.x, q.y, q.z, q.w);
    projectRotation(limits, j, delta, 0, scratch, 0);
    const half = Math.acos(Math.min(1, Math.abs(delta[3])));
    if (half > 0) {
      const f = Math.sin(half * inside) / Math.sin(half) * Math.sign(delta[3] || 1);
      for (let i = 0; i < 3; i++) delta[i] *= f;
      delta[3] = Math.cos(half * inside);
    }
    const rl = limits.restLocal;
    const rest = new Quaternion(rl[4 * j], rl[4 * j + 1], rl[4 * j + 2], rl[4 * j + 3]);
    nodes[j]!.rotationQuaternion = rest.multiply(new Quaternion(delta[0], delta[1], delta[2], delta[3]));
  }
  return () => r.arms.flat().forEach((j, k) => nodes[j]!.rotationQuaternion!.copyFrom(saved[k]));
}

/**
 * Object poses both hands can hold: random limit-respecting arm poses, their hands' world poses by forward
 * kinematics, and a rigid object between them (at the hands' midpoint, turned at random). Returns the
 * measured frames.
 */
function reachablePoses(r: Rigged, count: number, seed: number, inside = 0.9): Measured[] {
  const rnd = random(seed);
  const object = new TransformNode("held", r.loaded.scene);
  object.rotationQuaternion = new Quaternion();
  const target = new TransformNode("held target", r.loaded.scene);
  target.rotationQuaternion = new Quaternion();
  const grips = SIDES.map(() => ({ position: new Vector3(), rotation: new Quaternion() }));
  const grip = new TwoHandGrip(r.ik, { object, target, left: grips[0], right: grips[1] });
  const out: Measured[] = [];
  for (let k = 0; k < count; k++) {
    const undo = randomArms(r, rnd, inside);
    const hands = r.arms.map((js) => worldPose(r.ik, js[2]));
    undo();
    const p = hands[0].position.add(hands[1].position).scale(0.5);
    const q = Quaternion.RotationAxis(new Vector3(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize(), rnd() * 6);
    target.position.copyFrom(p);
    target.rotationQuaternion.copyFrom(q);
    SIDES.forEach((side: Side, i) => {
      grips[i] = gripFor(p, q, hands[i].position, hands[i].rotation);
      grip.setHandle(side, grips[i]);
    });
    let rep = "";
    const ob = r.ik.onSolvedObservable.add((e) => (rep = `${e.report.iterations} ${e.report.maxResidual.toExponential(2)} ${e.report.converged}`));
    const m = frame(r, grip, grips);
    ob.remove();
    if (process.env.DEBUG_GRIP && Math.max(...m.miss) > 1e-4) console.log(k, m.miss.map((x) => x.toExponential(2)), m.turn.map((x) => x.toFixed(3)), rep, grip.reachable, m.breach.toFixed(3), Array.from(grip.errors, (x) => x.toExponential(2)));
    m.object.position.subtractInPlace(p); // how far the object is from its target
    out.push(m);
  }
  grip.dispose();
  return out;
}

function summary(ms: Measured[]) {
  const miss = ms.flatMap((m) => m.miss).sort((a, b) => a - b);
  const turn = ms.flatMap((m) => m.turn).sort((a, b) => a - b);
  const moved = Math.max(...ms.map((m) => m.object.position.length()));
  const breach = Math.max(...ms.map((m) => m.breach));
  return { miss, turn, moved, breach, worst: miss.at(-1)!, worstTurn: turn.at(-1)! };
}

describe("TwoHandGrip on the mannequin", () => {
  let r: Rigged | null = null;
  afterEach(() => r?.loaded.engine.dispose());

  it("holds both handles to 1e-4 of the arm length on reachable object poses", async () => {
    r = await setUp();
    const ms = reachablePoses(r, 300, 7);
    const s = summary(ms);
    const within = s.miss.filter((x) => x <= 1e-4).length;
    notes.push(
      `mannequin, 300 reachable poses (600 grips): ${within}/600 within 1e-4 of the arm; ` +
        `median ${s.miss[300].toExponential(2)}, worst ${s.worst.toExponential(2)} of the arm, ` +
        `worst angle ${s.worstTurn.toExponential(2)} rad; object moved from its target by at most ` +
        `${s.moved.toExponential(2)} m; limit breach ≤ ${s.breach.toExponential(2)} rad`,
    );
    expect(s.worst).toBeLessThanOrEqual(1e-4);
    expect(s.worstTurn).toBeLessThan(1e-3);
    expect(s.moved).toBeLessThan(1e-4 * r.armLength);
  }, 60_000);
});

describe.each(["CesiumMan", "QuaterniusWorkerWoman"].map(characterNamed).filter((c) => !noteIfMissing(c)))(
  "TwoHandGrip on $folder",
  (character) => {
    it("holds both handles on reachable object poses", async () => {
      const r = await setUp(character);
      try {
        const s = summary(reachablePoses(r, 100, 11));
        notes.push(
          `${character.folder}, 100 reachable poses: worst ${s.worst.toExponential(2)} of the arm, ` +
            `worst angle ${s.worstTurn.toExponential(2)} rad, object moved ≤ ${s.moved.toExponential(2)}`,
        );
        expect(s.worst).toBeLessThanOrEqual(1e-4);
      } finally {
        r.loaded.engine.dispose();
      }
    }, 60_000);
  },
);

export { CreateBox };
