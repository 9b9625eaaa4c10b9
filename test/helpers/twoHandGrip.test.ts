import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { TwoHandGrip } from "../../plugin/helpers/twoHandGrip.js";
import {
  OWN_CHARACTERS,
  characterNamed,
  loadCharacter,
  noteIfMissing,
  type Loaded,
} from "../babylon/characters.js";
import { attach, limitViolation, random } from "../babylon/fabrikHarness.js";
import { randomArms } from "./randomArms.js";

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
  const arms = SIDES.map((s) =>
    ["UpperArm", "LowerArm", "Hand"].map((r) => ik.jointIndex(`${s}${r}` as never)),
  );
  const w = arms.map((js) => js.map((j) => worldPose(ik, j).position));
  const armLength = Math.min(...w.map((p) => Vector3.Distance(p[0], p[1]) + Vector3.Distance(p[1], p[2])));
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

/** The angle between two rotations, from the vector part of a⁻¹b (acos of the dot loses half the digits). */
function angle(a: Quaternion, b: Quaternion): number {
  const d = Quaternion.Inverse(a).multiply(b);
  return 2 * Math.asin(Math.min(1, Math.hypot(d.x, d.y, d.z)));
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
    const undo = randomArms(r.ik, r.arms.flat(), rnd, inside);
    const hands = r.arms.map((js) => worldPose(r.ik, js[2]));
    undo();
    const p = hands[0].position.add(hands[1].position).scale(0.5);
    const q = Quaternion.RotationAxis(
      new Vector3(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize(),
      rnd() * 6,
    );
    target.position.copyFrom(p);
    target.rotationQuaternion.copyFrom(q);
    SIDES.forEach((side: Side, i) => {
      grips[i] = gripFor(p, q, hands[i].position, hands[i].rotation);
      grip.setHandle(side, grips[i]);
    });
    const m = frame(r, grip, grips);
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
  // Grips on their handles in place (1e-4 of the arm) and rotation (1e-3 rad) both.
  const held = ms.reduce((n, m) => n + m.miss.filter((x, i) => x <= 1e-4 && m.turn[i] <= 1e-3).length, 0);
  return { miss, turn, moved, breach, held, worst: miss.at(-1)!, worstTurn: turn.at(-1)! };
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
    expect(s.worstTurn).toBeLessThan(1e-5);
    expect(s.moved).toBeLessThan(1e-4 * r.armLength);
    expect(s.breach).toBeLessThan(1e-5);
    // Arms exactly on their limits' boundary (where projection leaves most random rotations).
    const edge = summary(reachablePoses(r, 100, 8, 1));
    const onEdge = edge.miss.filter((x) => x <= 1e-4).length;
    notes.push(
      `mannequin, 100 poses with the arms on their limits' boundary: ${onEdge}/200 within 1e-4 of the arm, ` +
        `worst ${edge.worst.toExponential(2)}, worst angle ${edge.worstTurn.toExponential(2)} rad`,
    );
    expect(onEdge / 200).toBeGreaterThanOrEqual(0.95);
  }, 60_000);

  /** The mannequin's hands at rest, and an object pose in front of the chest that they can hold. */
  function rifle(r: Rigged, name: string, size: { width: number; height: number; depth: number }) {
    const object = CreateBox(name, size, r.loaded.scene);
    object.rotationQuaternion = new Quaternion();
    const target = new TransformNode(`${name} target`, r.loaded.scene);
    target.rotationQuaternion = new Quaternion();
    return { object, target };
  }

  /**
   * Grips the arms can take: the hands put on the handle points by the behavior alone (positions only), and
   * their rotations then read, relative to the object at (p, q).
   */
  function reachableGrips(r: Rigged, p: Vector3, q: Quaternion, points: Vector3[]) {
    const sides = ["leftHand", "rightHand"] as const;
    const world = points.map((g) => p.add(g.applyRotationQuaternion(q)));
    sides.forEach((hand, i) => r.ik.setTarget(hand, world[i]));
    let hands: { position: Vector3; rotation: Quaternion }[] = [];
    const observer = r.loaded.scene.onAfterRenderObservable.add(
      () => (hands = r.arms.map((js) => worldPose(r.ik, js[2]))),
      undefined,
      true,
    )!;
    r.loaded.scene.render();
    observer.remove();
    sides.forEach((hand) => r.ik.removeTarget(hand));
    return hands.map((h) => gripFor(p, q, h.position, h.rotation));
  }

  it("aims a two-handed rifle: both hands on it over a sweep of aims", async () => {
    r = await setUp();
    const { object, target } = rifle(r, "rifle", { width: 0.05, height: 0.08, depth: 0.9 });
    const hands = r.arms.map((js) => worldPose(r!.ik, js[2]));
    const chest = hands[0].position.add(hands[1].position).scale(0.5);
    // Held forward of the chest, at the hands' height: stock grip at the right hand, fore-end 0.3 m ahead.
    const forward = new Vector3(0, 0, 1);
    const base = chest.add(forward.scale(0.35)).add(new Vector3(0, -0.1, 0));
    const grips = reachableGrips(r, base, Quaternion.Identity(), [
      new Vector3(0, -0.05, 0.25),
      new Vector3(0, -0.05, -0.1),
    ]);
    const grip = new TwoHandGrip(r.ik, { object, target, left: grips[0], right: grips[1] });
    const sweep = (yaws: number, pitches: number) => {
      const ms: Measured[] = [];
      for (let yaw = -yaws; yaw <= yaws; yaw += 5) {
        for (let pitch = -pitches; pitch <= pitches; pitch += 5) {
          const q = Quaternion.RotationYawPitchRoll((yaw * Math.PI) / 180, (pitch * Math.PI) / 180, 0);
          target.rotationQuaternion!.copyFrom(q);
          target.position.copyFrom(base);
          ms.push(frame(r!, grip, grips));
          ms.at(-1)!.object.position.subtractInPlace(base);
        }
      }
      const s = summary(ms);
      const within = s.miss.filter((x) => x <= 1e-4).length;
      notes.push(
        `rifle aims, yaw ±${yaws}°, pitch ±${pitches}° (${ms.length}): ${within}/${2 * ms.length} grips within ` +
          `1e-4 of the arm (${s.held} also within 1e-3 rad), worst ${s.worst.toExponential(2)} of the arm, worst angle ` +
          `${s.worstTurn.toExponential(2)} rad, object moved from its target ≤ ${s.moved.toExponential(2)} m, ` +
          `limits kept to ${s.breach.toExponential(2)} rad`,
      );
      expect(s.breach).toBeLessThan(1e-5);
      return { ...s, within: within / (2 * ms.length) };
    };
    // Aiming about the hold: both hands on their handles' places on every aim; where a handle's rotation is
    // beyond the wrist's range at every swivel the shoulder allows, the hand misses in rotation only.
    const near = sweep(20, 10);
    expect(near.worst).toBeLessThanOrEqual(1e-4);
    expect(near.held).toBeGreaterThanOrEqual(80);
    // Wider, the wrists run out of range for the handles' rotation: reported (see docs/two-hand-grip.md).
    sweep(40, 20);
  }, 60_000);

  it("a target out of reach: the object comes as close as the arms allow", async () => {
    r = await setUp();
    const { object, target } = rifle(r, "rifle", { width: 0.05, height: 0.08, depth: 0.9 });
    const hands = r.arms.map((js) => worldPose(r!.ik, js[2]));
    const chest = hands[0].position.add(hands[1].position).scale(0.5);
    const near = chest.add(new Vector3(0, -0.1, 0.35));
    const grips = reachableGrips(r, near, Quaternion.Identity(), [
      new Vector3(0, 0, 0.2),
      new Vector3(0, 0, -0.1),
    ]);
    const grip = new TwoHandGrip(r.ik, { object, target, left: grips[0], right: grips[1] });
    target.position.copyFrom(chest.add(new Vector3(0, 0, 3)));
    const m = frame(r, grip, grips);
    const gap = Vector3.Distance(m.object.position, target.position);
    notes.push(
      `rifle 3 m ahead: hands ${m.miss.map((x) => x.toExponential(2)).join(", ")} of the arm, ` +
        `object ${gap.toFixed(3)} m short of its target (the arms' reach)`,
    );
    // At the edge of the arms' reach the wrists cannot always take the handles' rotation: reported, finite.
    expect(m.miss.every(Number.isFinite)).toBe(true);
    expect(gap).toBeLessThan(3);
    expect(gap).toBeGreaterThan(3 - 2 * r.armLength - 0.5);
  }, 60_000);

  it("handles further apart than the arms span: the weights decide who leads", async () => {
    r = await setUp();
    const { object, target } = rifle(r, "crate", { width: 2.4, height: 0.4, depth: 0.4 });
    const hands = r.arms.map((js) => worldPose(r!.ik, js[2]));
    const chest = hands[0].position.add(hands[1].position).scale(0.5);
    target.position.copyFrom(chest.add(new Vector3(0, -0.2, 0.4)));
    // The handles at the crate's two ends, 2.4 m apart (the mannequin's side and the other).
    const side = Math.sign(hands[0].position.x - chest.x);
    const grips = [
      { position: new Vector3(1.2 * side, 0, 0), rotation: hands[0].rotation.clone() },
      { position: new Vector3(-1.2 * side, 0, 0), rotation: hands[1].rotation.clone() },
    ];
    const grip = new TwoHandGrip(r.ik, { object, target, left: grips[0], right: grips[1], rightWeight: 0 });
    const lead = frame(r, grip, grips);
    grip.rightWeight = 1;
    const shared = frame(r, grip, grips);
    notes.push(
      `crate 2.4 m wide: left leading ${lead.miss.map((x) => x.toExponential(2)).join(", ")}; ` +
        `equal weights ${shared.miss.map((x) => x.toExponential(2)).join(", ")} (of the arm)`,
    );
    expect(grip.reachable).toBe(false);
    expect(lead.miss[0]).toBeLessThanOrEqual(1e-4);
    expect(lead.miss[1]).toBeGreaterThan(0.1);
    expect(Math.abs(shared.miss[0] - shared.miss[1])).toBeLessThan(0.2 * shared.miss[0]);
    for (const m of [lead, shared]) {
      const o = m.object;
      expect([o.position.x, o.position.y, o.position.z, o.rotation.w].every(Number.isFinite)).toBe(true);
    }
  }, 60_000);

  it("carries a box on the walking hands (no target)", async () => {
    r = await setUp();
    const { object } = rifle(r, "box", { width: 0.4, height: 0.3, depth: 0.3 });
    const hands = r.arms.map((js) => worldPose(r!.ik, js[2]));
    const chest = hands[0].position.add(hands[1].position).scale(0.5);
    const side = Math.sign(hands[0].position.x - chest.x);
    const grips = reachableGrips(r, chest.add(new Vector3(0, -0.35, 0.3)), Quaternion.Identity(), [
      new Vector3(0.2 * side, 0, 0),
      new Vector3(-0.2 * side, 0, 0),
    ]);
    const grip = new TwoHandGrip(r.ik, { object, left: grips[0], right: grips[1] });
    const walk = r.loaded.scene.getAnimationGroupByName("Walk")!;
    walk.start(true);
    walk.pause();
    const ms: Measured[] = [];
    for (let f = 0; f < 60; f++) {
      walk.goToFrame(walk.from + (f * (walk.to - walk.from)) / 60);
      ms.push(frame(r, grip, grips));
    }
    const s = summary(ms);
    notes.push(
      `box carried over a walk cycle (60 frames): worst grip ${s.worst.toExponential(2)} of the arm`,
    );
    expect(s.worst).toBeLessThanOrEqual(1e-4);
  }, 60_000);
});

describe.each(["CesiumMan", "QuaterniusWorkerWoman"].map(characterNamed).filter((c) => !noteIfMissing(c)))(
  "TwoHandGrip on $folder",
  (character) => {
    it("holds both handles on reachable object poses", async () => {
      const r = await setUp(character);
      try {
        const s = summary(reachablePoses(r, 100, 11));
        const within = s.miss.filter((x) => x <= 1e-4).length;
        notes.push(
          `${character.folder}, 100 reachable poses: ${within}/200 grips within 1e-4 of the arm, worst ${s.worst.toExponential(2)} of the arm, ` +
            `worst angle ${s.worstTurn.toExponential(2)} rad, object moved ≤ ${s.moved.toExponential(2)}`,
        );
        expect(s.worst).toBeLessThanOrEqual(1e-4);
      } finally {
        r.loaded.engine.dispose();
      }
    }, 60_000);
  },
);
