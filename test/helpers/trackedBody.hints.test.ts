import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { limitViolation } from "../babylon/fabrikHarness.js";
import { finite, TrackedRig, type Measured, type Pose3 } from "./trackedBodyHarness.js";

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[tracked body hints, mannequin]\n  ${notes.join("\n  ")}`);
});

const HEAD = new Vector3(0, 1.6, 0.01);
/** Hands held ahead at waist height, controllers pointing forward. */
const standing = (): Pose3 => ({
  head: HEAD.clone(),
  left: new Vector3(-0.22, 1.05, 0.35),
  right: new Vector3(0.22, 1.05, 0.35),
});
/** A crouch: the head 40 cm down, the hands lower ahead; the knees bend well forward. */
const crouched = (): Pose3 => ({
  head: HEAD.add(new Vector3(0, -0.4, 0.05)),
  left: new Vector3(-0.22, 0.7, 0.4),
  right: new Vector3(0.22, 0.7, 0.4),
});

const deg = (r: number): string => ((r * 180) / Math.PI).toFixed(1);

/**
 * The signed angle (radians) about the line from `root` to `end` from where `mid` points to where `hint`
 * does: 0 when the limb bends in the hinted plane, on the hint's side.
 */
function swivelTo(root: Vector3, mid: Vector3, end: Vector3, hint: Vector3): number {
  const axis = end.subtract(root).normalize();
  const perp = (p: Vector3) => {
    const d = p.subtract(root);
    return d.subtract(axis.scale(Vector3.Dot(d, axis)));
  };
  const e = perp(mid),
    h = perp(hint);
  return Math.atan2(Vector3.Dot(Vector3.Cross(e, h), axis), Vector3.Dot(e, h));
}

describe("TrackedBody elbow and knee hints, on the mannequin", () => {
  let rig: TrackedRig;
  afterEach(() => rig?.dispose());

  /** Limb joints of the solved frame `m`: root, middle, end. */
  const limb = (m: Measured, name: "leftArm" | "rightArm" | "leftLeg" | "rightLeg") => {
    const j = rig.j;
    const side = name.startsWith("left") ? "left" : "right";
    const [a, b, c] = name.endsWith("Arm")
      ? ["UpperArm", "LowerArm", "Hand"]
      : ["UpperLeg", "LowerLeg", "Foot"];
    return [m.world[j[side + a]], m.world[j[side + b]], m.world[j[side + c]]] as const;
  };

  /** How far (radians) the limbs' joints are outside their limits, as the nodes are now (the frame solved). */
  const outside = (): number => {
    let most = 0;
    for (const side of ["left", "right"])
      for (const part of ["UpperArm", "LowerArm", "Hand", "UpperLeg", "LowerLeg", "Foot"]) {
        const j = rig.j[side + part];
        const q = rig.ik.rig!.nodes[j]!.rotationQuaternion!;
        most = Math.max(most, limitViolation(rig.ik.limits!, j, [q.x, q.y, q.z, q.w]));
      }
    return most;
  };

  it("an elbow hint out to the side turns the elbow into the hinted plane; the hand stays on its target", async () => {
    rig = await TrackedRig.create();
    const p = standing();
    const auto = rig.run(60, () => p);
    // Out to the side at shoulder height: a raised elbow (the body's own choice is down and out).
    const hint = new Vector3(-0.55, 1.35, 0.1);
    const before = swivelTo(...limb(auto, "leftArm"), hint);
    rig.body.leftElbow.position = hint;
    rig.body.leftElbow.weight = 1;
    let worst = 0;
    const m = rig.run(
      60,
      () => p,
      () => (worst = Math.max(worst, outside())),
    );
    const after = swivelTo(...limb(m, "leftArm"), hint);
    const hand = m.world[rig.j.leftHand].subtract(p.left).length();
    notes.push(
      `elbow hint aside: ${deg(before)}° from the hinted plane without it, ${deg(after)}° with it; hand ` +
        `${(100 * hand).toFixed(2)} cm off`,
    );
    expect(Math.abs(before)).toBeGreaterThan(0.5);
    expect(Math.abs(after)).toBeLessThan((3 * Math.PI) / 180);
    expect(hand).toBeLessThan(0.005);
    expect(worst).toBeLessThan(1e-6);
    // The other arm keeps its own choice.
    const right = swivelTo(...limb(m, "rightArm"), limb(auto, "rightArm")[1]);
    expect(Math.abs(right)).toBeLessThan((1 * Math.PI) / 180);
    expect(finite(m.world)).toBe(true);
  });

  it("a hint at weight 0.5 puts the elbow about half way between the body's own choice and the hinted plane", async () => {
    rig = await TrackedRig.create();
    const p = standing();
    const auto = rig.run(60, () => p);
    const hint = new Vector3(-0.55, 1.35, 0.1);
    const own = swivelTo(...limb(auto, "leftArm"), hint);
    rig.body.leftElbow.position = hint;
    rig.body.leftElbow.weight = 0.5;
    const m = rig.run(60, () => p);
    const half = swivelTo(...limb(m, "leftArm"), hint);
    notes.push(`elbow hint at weight 0.5: ${deg(half)}° from the hinted plane (${deg(own)}° without it)`);
    // Half the way from where the solve starts the elbow (the body's own choice, which the solve leaves a few
    // degrees further round) to the hinted plane: between 30 % and 70 % of the turn, on the same side.
    expect(half / own).toBeGreaterThan(0.3);
    expect(half / own).toBeLessThan(0.7);
    expect(m.world[rig.j.leftHand].subtract(p.left).length()).toBeLessThan(0.005);
  });

  it("a knee hint out to the side turns the knee into the hinted plane; the foot stays where it stood", async () => {
    rig = await TrackedRig.create();
    rig.run(30, standing);
    const auto = rig.run(60, crouched);
    const j = rig.j;
    const feet = [auto.world[j.leftFoot].clone(), auto.world[j.rightFoot].clone()];
    // Knees out (a wide squat): the body's own choice is forward.
    const hints = [new Vector3(-0.3, 0.45, 0.35), new Vector3(0.3, 0.45, 0.35)];
    const before = hints.map((h, i) => swivelTo(...limb(auto, i === 0 ? "leftLeg" : "rightLeg"), h));
    rig.body.leftKnee.position = hints[0];
    rig.body.rightKnee.position = hints[1];
    rig.body.leftKnee.weight = rig.body.rightKnee.weight = 1;
    let worst = 0;
    const m = rig.run(60, crouched, () => (worst = Math.max(worst, outside())));
    const after = hints.map((h, i) => swivelTo(...limb(m, i === 0 ? "leftLeg" : "rightLeg"), h));
    const slide = Math.max(
      m.world[j.leftFoot].subtract(feet[0]).length(),
      m.world[j.rightFoot].subtract(feet[1]).length(),
    );
    const head = m.world[j.head].subtract(crouched().head).length();
    notes.push(
      `knee hints out: ${deg(before[0])}° / ${deg(before[1])}° from the hinted planes without them, ` +
        `${deg(after[0])}° / ${deg(after[1])}° with them; feet moved ${(100 * slide).toFixed(2)} cm, head ` +
        `${(100 * head).toFixed(2)} cm off`,
    );
    for (let i = 0; i < 2; i++) {
      expect(Math.abs(before[i])).toBeGreaterThan(0.3);
      expect(Math.abs(after[i])).toBeLessThan((3 * Math.PI) / 180);
    }
    expect(slide).toBeLessThan(0.005);
    expect(head).toBeLessThan(0.01);
    expect(rig.body.steps).toBe(0);
    expect(worst).toBeLessThan(1e-6);
    // Further out than the hips' limits let the knee turn: it stops at the limit, short of the plane.
    const far = new Vector3(-0.6, 0.45, 0.3);
    rig.body.leftKnee.position = far;
    const limited = rig.run(60, crouched, () => (worst = Math.max(worst, outside())));
    const short = swivelTo(...limb(limited, "leftLeg"), far);
    const beyond = swivelTo(...limb(auto, "leftLeg"), far);
    notes.push(
      `knee hint past the hip's limits: ${deg(beyond)}° from its plane without it, ${deg(short)}° with it; ` +
        `joints at most ${worst.toExponential(1)} rad outside their limits`,
    );
    expect(Math.abs(short)).toBeLessThan(Math.abs(beyond) / 2);
    expect(worst).toBeLessThan(1e-6);
    expect(limited.world[j.leftFoot].subtract(feet[0]).length()).toBeLessThan(0.005);
    expect(finite(limited.world)).toBe(true);
  });

  it("weight 0 is no hint: the pose is the same, number for number, wherever the hints are", async () => {
    const walk = (t: number): Pose3 => {
      const p = standing();
      const z = 0.6 * t;
      return {
        head: p.head.add(new Vector3(0, -0.1 * Math.sin(3 * t), z)),
        left: p.left.add(new Vector3(0, 0.1 * Math.sin(2 * t), z)),
        right: p.right.add(new Vector3(0, 0, z)),
      };
    };
    const runs: Vector3[][][] = [];
    for (const hinted of [false, true]) {
      rig = await TrackedRig.create();
      if (hinted) {
        const node = new TransformNode("knee tracker", rig.loaded.scene);
        node.position.set(0.5, 0.5, 0.5);
        rig.body.rightKnee.follow(node);
        rig.body.leftElbow.position = new Vector3(-1, 2, 0);
        rig.body.rightElbow.position = new Vector3(1, 0, 1);
        rig.body.leftKnee.position = new Vector3(-1, 0.5, -1);
      }
      const poses: Vector3[][] = [];
      rig.run(120, walk, (m) => poses.push(m.world.map((v) => v.clone())));
      runs.push(poses);
      rig.dispose();
    }
    let most = 0;
    for (let f = 0; f < runs[0].length; f++)
      for (let k = 0; k < runs[0][f].length; k++)
        most = Math.max(most, runs[0][f][k].subtract(runs[1][f][k]).length());
    expect(most).toBe(0);
  });

  it("fading: the applied weight ramps over fadeTime, the elbow swivels there and back smoothly", async () => {
    rig = await TrackedRig.create({ fadeTime: 0.25 });
    const p = standing();
    const auto = rig.run(60, () => p);
    const hint = new Vector3(-0.55, 1.35, 0.1);
    const start = swivelTo(...limb(auto, "leftArm"), hint);
    rig.body.leftElbow.position = hint;
    rig.body.leftElbow.weight = 1;
    const angles: number[] = [],
      weights: number[] = [];
    let hand = 0;
    const track = (m: Measured) => {
      angles.push(swivelTo(...limb(m, "leftArm"), hint));
      weights.push(rig.body.appliedWeight("leftElbow"));
      hand = Math.max(hand, m.world[rig.j.leftHand].subtract(p.left).length());
    };
    rig.run(60, () => p, track);
    // Linear over 0.25 s: 15 frames at 60 fps.
    expect(weights[0]).toBeCloseTo(1 / 15, 6);
    expect(weights[6]).toBeCloseTo(7 / 15, 6);
    expect(weights[14]).toBeCloseTo(1, 9);
    rig.body.leftElbow.weight = 0;
    rig.run(90, () => p, track);
    expect(weights.at(-1)).toBe(0);
    let largestStep = 0;
    let prev = start;
    for (const a of angles) {
      largestStep = Math.max(largestStep, Math.abs(a - prev));
      prev = a;
    }
    const end = angles.at(-1)!;
    notes.push(
      `fading in and out: swivel ${deg(start)}° → ${deg(angles[59])}° → ${deg(end)}° from the hinted ` +
        `plane, largest frame step ${deg(largestStep)}°; hand ${(100 * hand).toFixed(2)} cm off at most`,
    );
    expect(Math.abs(angles[59])).toBeLessThan((3 * Math.PI) / 180);
    expect(largestStep).toBeLessThan(Math.abs(start) / 4);
    // Back to the body's own choice.
    expect(Math.abs(end - start)).toBeLessThan((2 * Math.PI) / 180);
    expect(hand).toBeLessThan(0.01);
  });

  it("a hint on the limb's line falls back to the body's own swivel; a non-finite one fades out", async () => {
    const p = standing();
    const poses: Vector3[][] = [];
    for (const hinted of [false, true]) {
      rig = await TrackedRig.create();
      if (hinted) {
        // On the shoulder–wrist line: at the hand's target itself.
        rig.body.leftElbow.position = p.left.clone();
        rig.body.leftElbow.weight = 1;
      }
      const m = rig.run(60, () => p);
      poses.push(m.world);
      if (hinted) {
        // A hint turned NaN in place counts as lost: it fades out, the pose stays finite.
        rig.body.leftElbow.position = new Vector3(-0.55, 1.35, 0.1);
        rig.run(30, () => p);
        rig.body.leftElbow.position.x = Number.NaN;
        let allFinite = true;
        const last = rig.run(
          30,
          () => p,
          (f) => (allFinite &&= finite(f.world)),
        );
        expect(allFinite).toBe(true);
        expect(rig.body.appliedWeight("leftElbow")).toBe(0);
        expect(last.world[rig.j.leftHand].subtract(p.left).length()).toBeLessThan(0.005);
      }
      rig.dispose();
    }
    let most = 0;
    for (let k = 0; k < poses[0].length; k++)
      most = Math.max(most, poses[0][k].subtract(poses[1][k]).length());
    notes.push(`hints on the limb's line: joints within ${(1000 * most).toFixed(3)} mm of the pose without`);
    expect(most).toBeLessThan(1e-4);
  });
  it("extreme hints (10 m away, behind the back, jumping each frame) leave the hands and feet on target", async () => {
    rig = await TrackedRig.create();
    const p = standing();
    rig.run(30, () => p);
    const b = rig.body;
    b.leftElbow.weight = b.rightElbow.weight = b.leftKnee.weight = b.rightKnee.weight = 1;
    const j = rig.j;
    const feet = [j.leftFoot, j.rightFoot].map((k) => rig.positions()[k]);
    let worst = 0,
      hand = 0,
      allFinite = true;
    const far = [new Vector3(-10, 1, 0), new Vector3(0, 1.2, -10), new Vector3(3, -5, 2)];
    const m = rig.run(
      120,
      (t) => {
        const f = Math.round(t * 60);
        b.leftElbow.position = far[f % 3];
        b.rightElbow.position = far[(f + 1) % 3].scale(f % 2 === 0 ? 1 : -1);
        b.leftKnee.position = new Vector3(0, 0.5, -0.5); // behind: the knee cannot bend back
        b.rightKnee.position = far[(f + 2) % 3];
        return p;
      },
      (f) => {
        allFinite &&= finite(f.world);
        worst = Math.max(worst, outside());
        hand = Math.max(
          hand,
          f.world[j.leftHand].subtract(p.left).length(),
          f.world[j.rightHand].subtract(p.right).length(),
        );
      },
    );
    const slide = Math.max(
      m.world[j.leftFoot].subtract(feet[0]).length(),
      m.world[j.rightFoot].subtract(feet[1]).length(),
    );
    notes.push(
      `extreme hints: hands ${(100 * hand).toFixed(2)} cm off at most, feet ${(100 * slide).toFixed(2)} cm from ` +
        `where they stood, joints ${worst.toExponential(1)} rad outside their limits at most`,
    );
    expect(allFinite).toBe(true);
    expect(hand).toBeLessThan(0.01);
    expect(slide).toBeLessThan(0.005);
    expect(worst).toBeLessThan(1e-6);
    expect(rig.kneeInversion(m.world, "left", new Vector3(0, 0, 1))).toBeLessThanOrEqual(0);
  });
});
