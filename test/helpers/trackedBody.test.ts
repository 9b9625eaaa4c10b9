import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { finite, pitch, TrackedRig, yaw, type Measured, type Pose3 } from "./trackedBodyHarness.js";

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[tracked body, mannequin]\n  ${notes.join("\n  ")}`);
});

const HEAD = new Vector3(0, 1.6, 0.01);
/** Hands held ahead at waist height, controllers pointing forward. */
const standing = (): Pose3 => ({
  head: HEAD.clone(),
  left: new Vector3(-0.22, 1.05, 0.35),
  right: new Vector3(0.22, 1.05, 0.35),
});

const cm = (v: number): string => (100 * v).toFixed(1);

describe("TrackedBody on the mannequin", () => {
  let rig: TrackedRig;
  afterEach(() => rig?.dispose());

  /** Head and hand distances from their trackers in the frame `m`. */
  function errors(m: Measured, p: Pose3): { head: number; left: number; right: number } {
    const j = rig.j;
    return {
      head: m.world[j.head].subtract(p.head).length(),
      left: m.world[j.leftHand].subtract(p.left).length(),
      right: m.world[j.rightHand].subtract(p.right).length(),
    };
  }

  it("standing: head and hands on their trackers, feet where they stood, no step, elbows down and out", async () => {
    rig = await TrackedRig.create();
    const p = standing();
    const m = rig.run(60, () => p);
    const e = errors(m, p);
    expect(e.head).toBeLessThan(0.005);
    expect(e.left).toBeLessThan(0.005);
    expect(e.right).toBeLessThan(0.005);
    expect(rig.body.steps).toBe(0);
    const j = rig.j;
    for (const [side, out] of [
      ["left", -1],
      ["right", 1],
    ] as const) {
      const shoulder = m.world[j[`${side}UpperArm`]],
        elbow = m.world[j[`${side}LowerArm`]],
        hand = m.world[j[`${side}Hand`]];
      const mid = shoulder.add(hand).scale(0.5);
      const bend = elbow.subtract(mid);
      expect(bend.y, `${side} elbow below the shoulder–hand line`).toBeLessThan(0);
      expect(bend.x * out, `${side} elbow outward`).toBeGreaterThan(0);
    }
    notes.push(`standing: head ${cm(e.head)} cm, hands ${cm(e.left)} / ${cm(e.right)} cm off`);
  });

  it("crouch: the hips drop with the head, the feet stay, the knees bend forward", async () => {
    rig = await TrackedRig.create();
    const start = rig.run(30, standing);
    const j = rig.j;
    const feet = [start.world[j.leftFoot].clone(), start.world[j.rightFoot].clone()];
    const crouch = (t: number): Pose3 => {
      const k = Math.min(1, t);
      return {
        head: HEAD.add(new Vector3(0, -0.55 * k, 0.05 * k)),
        left: new Vector3(-0.22, 1.05 - 0.5 * k, 0.35),
        right: new Vector3(0.22, 1.05 - 0.5 * k, 0.35),
      };
    };
    let worstKnee = -Infinity,
      slide = 0;
    const m = rig.run(90, crouch, (f) => {
      for (const side of ["left", "right"] as const) {
        worstKnee = Math.max(worstKnee, rig.kneeInversion(f.world, side, new Vector3(0, 0, 1)));
      }
      slide = Math.max(slide, f.world[j.leftFoot].subtract(feet[0]).length());
      slide = Math.max(slide, f.world[j.rightFoot].subtract(feet[1]).length());
    });
    const e = errors(m, crouch(2));
    expect(m.world[j.hips].y).toBeLessThan(0.95 - 0.45);
    expect(e.head).toBeLessThan(0.01);
    expect(Math.max(e.left, e.right)).toBeLessThan(0.01);
    expect(worstKnee).toBeLessThanOrEqual(0);
    expect(slide).toBeLessThan(0.002);
    expect(rig.body.steps).toBe(0);
    notes.push(
      `crouch 55 cm: hips at ${cm(m.world[j.hips].y)} cm, head ${cm(e.head)} cm off, feet slid ${cm(slide)} cm`,
    );
  });

  it("bow: the hips stay back and come down, the spine leans, the head follows its tracker", async () => {
    rig = await TrackedRig.create();
    rig.run(30, standing);
    const bow = (t: number): Pose3 => {
      const k = Math.min(1, t);
      return {
        head: HEAD.add(new Vector3(0, -0.4 * k, 0.4 * k)),
        headRotation: pitch(0.7 * k),
        left: new Vector3(-0.2, 1.05 - 0.35 * k, 0.35 + 0.15 * k),
        right: new Vector3(0.2, 1.05 - 0.35 * k, 0.35 + 0.15 * k),
      };
    };
    const m = rig.run(90, bow);
    const j = rig.j;
    const e = errors(m, bow(2));
    const hips = m.world[j.hips];
    expect(hips.z).toBeLessThan(bow(2).head.z - 0.2);
    expect(hips.y).toBeLessThan(0.95);
    expect(e.head).toBeLessThan(0.02);
    expect(Math.max(e.left, e.right)).toBeLessThan(0.02);
    notes.push(`bow 40 cm ahead, 40 cm down: hips ${cm(hips.z)} cm ahead, head ${cm(e.head)} cm off`);
  });

  it("looking around, hands held ahead: with handsTurn the head turns and the body does not", async () => {
    const look = (): Pose3 => ({
      head: HEAD.clone(),
      headRotation: yaw(0.5),
      left: new Vector3(-0.22, 1.05, 0.45),
      right: new Vector3(0.22, 1.05, 0.45),
    });
    /** The hips' turn from forward (radians), from the line between the hip joints (left is −X). */
    const hipsTurn = (m: Measured): number => {
      const d = m.world[rig.j.leftUpperLeg].subtract(m.world[rig.j.rightUpperLeg]);
      return Math.abs(Math.atan2(d.z, -d.x));
    };
    const turns: number[] = [],
      heads: number[] = [];
    for (const handsTurn of [0, 1]) {
      rig = await TrackedRig.create({ handsTurn });
      rig.run(30, standing);
      const m = rig.run(90, look);
      turns.push(hipsTurn(m));
      heads.push(errors(m, look()).head);
      rig.dispose();
    }
    // The head's heading alone turns the body with the head (0.5 rad); the hands hold it to them.
    expect(turns[0]).toBeGreaterThan(0.4);
    expect(turns[1]).toBeLessThan(0.05);
    expect(Math.max(...heads)).toBeLessThan(0.03);
    notes.push(
      `looking 29° aside: hips turned ${((turns[0] * 180) / Math.PI).toFixed(1)}° (handsTurn 0), ${((turns[1] * 180) / Math.PI).toFixed(1)}° (handsTurn 1); head ${cm(heads[0])} / ${cm(heads[1])} cm off`,
    );
  });

  it("turn in place: the feet step to the new heading, one at a time", async () => {
    rig = await TrackedRig.create();
    rig.run(30, standing);
    const turn = (t: number): Pose3 => {
      const a = (Math.min(1, t) * Math.PI) / 2;
      const q = yaw(a);
      const ahead = new Vector3(Math.sin(a), 0, Math.cos(a));
      const side = new Vector3(Math.cos(a), 0, -Math.sin(a));
      return {
        head: HEAD.clone(),
        headRotation: q,
        left: new Vector3(0, 1.05, 0).add(ahead.scale(0.35)).add(side.scale(-0.22)),
        right: new Vector3(0, 1.05, 0).add(ahead.scale(0.35)).add(side.scale(0.22)),
      };
    };
    let both = 0;
    const m = rig.run(150, turn, (f) => {
      if (f.stepping[0] && f.stepping[1]) both++;
    });
    const j = rig.j;
    expect(both).toBe(0);
    expect(rig.body.steps).toBeGreaterThanOrEqual(2);
    // The feet point the new way: from heel (foot) to toes along +X.
    for (const side of ["left", "right"] as const) {
      const dir = m.world[j[`${side}Toes`]].subtract(m.world[j[`${side}Foot`]]);
      dir.y = 0;
      expect(Math.acos(dir.normalize().x), `${side} foot`).toBeLessThan(0.6);
      expect(rig.kneeInversion(m.world, side, new Vector3(1, 0, 0))).toBeLessThanOrEqual(0);
    }
    const e = errors(m, turn(3));
    expect(e.head).toBeLessThan(0.01);
    notes.push(`turn 90° in 1 s: ${rig.body.steps} steps, head ${cm(e.head)} cm off`);
  });

  it("walk: the feet step after the head, one at a time, planted feet do not slide, the head stays on its tracker", async () => {
    rig = await TrackedRig.create();
    const rest = rig.run(30, standing);
    const walk = (t: number): Pose3 => {
      const z = Math.min(t, 3) * 1.0;
      const p = standing();
      return {
        head: p.head.add(new Vector3(0, 0, z)),
        left: p.left.addInPlaceFromFloats(0, 0, z),
        right: p.right.addInPlaceFromFloats(0, 0, z),
      };
    };
    const j = rig.j;
    let both = 0,
      slide = 0,
      worstKnee = -Infinity,
      head = 0,
      heel = 0,
      ankleUnder = -Infinity,
      toesUnder = -Infinity;
    const ankleRest = rest.world[j.leftFoot].y;
    // Where each foot's ball landed (null while in the air): a planted foot's drift is measured there, the
    // point it stands on as its heel lifts behind the body.
    const landed: (Vector3 | null)[] = [null, null];
    const m = rig.run(240, walk, (f, t) => {
      if (f.stepping[0] && f.stepping[1]) both++;
      head = Math.max(head, f.world[j.head].subtract(walk(t).head).length());
      for (const [i, side] of (["left", "right"] as const).entries()) {
        const ball = f.balls[i];
        if (f.stepping[i]) landed[i] = null;
        else if (landed[i] === null) landed[i] = ball.clone();
        else slide = Math.max(slide, ball.subtract(landed[i]).length());
        const ankle = f.world[j[`${side}Foot`]].y;
        if (!f.stepping[i]) heel = Math.max(heel, ankle - ankleRest);
        ankleUnder = Math.max(ankleUnder, ankleRest - ankle);
        toesUnder = Math.max(
          toesUnder,
          -f.world[rig.ik.jointIndex(`${side === "left" ? "Left" : "Right"}Toe_End`)].y,
        );
        worstKnee = Math.max(worstKnee, rig.kneeInversion(f.world, side, new Vector3(0, 0, 1)));
      }
    });
    expect(both).toBe(0);
    expect(rig.body.steps).toBeGreaterThanOrEqual(6);
    // The bar: a planted foot moves at most 1 cm.
    expect(slide).toBeLessThan(0.01);
    expect(worstKnee).toBeLessThanOrEqual(0);
    // A trailing leg rolls its foot onto the ball instead of pulling the hips, and the head, down (without the
    // heels lifting the head fell 10.9 cm behind its tracker); the heel never sinks, the toes stay above ground.
    expect(head).toBeLessThan(0.03);
    expect(heel).toBeGreaterThan(0.01);
    expect(ankleUnder).toBeLessThan(0.002);
    expect(toesUnder).toBeLessThan(0.002);
    const feetZ = (m.world[j.leftFoot].z + m.world[j.rightFoot].z) / 2;
    expect(Math.abs(feetZ - 3)).toBeLessThan(0.3);
    notes.push(
      `walk 3 m at 1 m/s: ${rig.body.steps} steps, planted feet (their balls) slid ${cm(slide)} cm at most, ` +
        `heels up to ${cm(heel)} cm, head ${cm(head)} cm off its tracker at most`,
    );
  });

  it("reach low (a squat, hands at 30 cm) and overhead, with the collarbones in the arms' chains", async () => {
    rig = await TrackedRig.create({ collarbones: true });
    rig.run(30, standing);
    const floor = (): Pose3 => ({
      head: new Vector3(0, 1.0, 0.3),
      headRotation: pitch(1.0),
      left: new Vector3(-0.2, 0.3, 0.45),
      right: new Vector3(0.2, 0.3, 0.45),
    });
    const low = rig.run(90, floor);
    const e1 = errors(low, floor());
    const up = (): Pose3 => ({
      head: HEAD.clone(),
      headRotation: pitch(-0.4),
      left: new Vector3(-0.25, 1.95, 0.1),
      right: new Vector3(0.25, 1.95, 0.1),
      leftRotation: pitch(-1.4),
      rightRotation: pitch(-1.4),
    });
    const high = rig.run(90, up);
    const e2 = errors(high, up());
    notes.push(
      `low: head ${cm(e1.head)}, hands ${cm(e1.left)} / ${cm(e1.right)} cm off; overhead: head ${cm(e2.head)}, ` +
        `hands ${cm(e2.left)} / ${cm(e2.right)} cm off`,
    );
    expect(finite(low.world) && finite(high.world)).toBe(true);
    expect(Math.max(e1.head, e1.left, e1.right)).toBeLessThan(0.03);
    expect(Math.max(e2.head, e2.left, e2.right)).toBeLessThan(0.03);
    for (const m of [low, high]) {
      for (const side of ["left", "right"] as const) {
        expect(rig.kneeInversion(m.world, side, new Vector3(0, 0, 1))).toBeLessThanOrEqual(0);
      }
    }
  });
});
