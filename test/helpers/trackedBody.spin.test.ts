import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { TrackedRig, yaw, type Pose3 } from "./trackedBodyHarness.js";

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0) console.log(`[tracked body, spins]\n  ${notes.join("\n  ")}`);
});

const cm = (v: number): string => (100 * v).toFixed(1);
const HEAD = new Vector3(0, 1.6, 0.01);

/**
 * A pirouette: over the first half second the head (and the hands held before the chest) shifts `shift` m to
 * the left, onto the left foot; then it turns about up at `speed` rad/s for `turns` full turns, riding
 * `lead` m ahead of the turn's centre (the head leads the spin), faster than the body's heading follows.
 */
function pirouette(speed: number, turns: number, shift: number, lead: number): (t: number) => Pose3 {
  return (t) => {
    const a = Math.min(Math.max(0, t - 0.5) * speed, turns * 2 * Math.PI);
    const ahead = new Vector3(Math.sin(a), 0, Math.cos(a));
    const side = new Vector3(Math.cos(a), 0, -Math.sin(a));
    // Left is world −X on the mannequin.
    const centre = new Vector3(-Math.min(1, t / 0.5) * shift, 0, 0).add(ahead.scale(lead));
    return {
      head: HEAD.add(centre),
      headRotation: yaw(a),
      left: new Vector3(0, 1.05, 0).add(centre).add(ahead.scale(0.35)).add(side.scale(-0.22)),
      right: new Vector3(0, 1.05, 0).add(centre).add(ahead.scale(0.35)).add(side.scale(0.22)),
    };
  };
}

interface SpinResult {
  /** The most a planted foot moved from where it landed (m): the less of its ankle's and its ball's move. */
  slide: number;
  /** Leg-frames with a knee bent backwards about its hinge or against its foot. */
  inverted: number;
  /** The least cosine between a planted foot's toes and the pelvis's forward (flattened). */
  twist: number;
  both: number;
  /** How far a planted ankle rose above its rest height while the body spun at speed (m): its heel lifting. */
  heel: number;
}

describe("TrackedBody spinning (the mannequin)", () => {
  let rig: TrackedRig;
  afterEach(() => rig?.dispose());

  /** Runs a pirouette after half a second standing, measuring every solved frame (model space). */
  function spin(pose: (t: number) => Pose3, spinning: (t: number) => boolean): SpinResult {
    rig.run(30, pirouette(0, 0, 0, 0));
    const reader = rig.reader;
    const rest = rig.ik.rig!.restOrientations;
    const frame = rig.body.body.frame;
    const forward = new Vector3(frame[0], frame[1], frame[2]),
      up = new Vector3(frame[3], frame[4], frame[5]),
      left = new Vector3(frame[6], frame[7], frame[8]);
    const turnOf = (j: number) =>
      Quaternion.FromArray(reader.orientations, 4 * j).multiply(
        Quaternion.Inverse(Quaternion.FromArray(rest, 4 * j)),
      );
    const at = (j: number) => Vector3.FromArray(reader.positions, 3 * j);
    const flat = (v: Vector3) => v.subtract(up.scale(Vector3.Dot(v, up))).normalize();
    const r: SpinResult = { slide: 0, inverted: 0, twist: 1, both: 0, heel: 0 };
    const ankleRest = rig.positions()[rig.j.leftFoot].y;
    const landed: ([Vector3, Vector3] | null)[] = [null, null];
    rig.run(180, pose, (m, t) => {
      if (m.stepping[0] && m.stepping[1]) r.both++;
      const pelvis = flat(forward.applyRotationQuaternion(turnOf(rig.j.hips)));
      for (const [i, side] of (["left", "right"] as const).entries()) {
        const hipJ = rig.j[`${side}UpperLeg`],
          footJ = rig.j[`${side}Foot`];
        const hip = at(hipJ),
          knee = at(rig.j[`${side}LowerLeg`]),
          ankle = at(footJ);
        const toes = forward.applyRotationQuaternion(turnOf(footJ));
        const foot = m.world[footJ],
          ball = m.balls[i];
        // Sliding moves both the ankle and the ball: a heel lifting turns the foot about its ball.
        if (!m.stepping[i] && spinning(t)) r.heel = Math.max(r.heel, foot.y - ankleRest);
        if (m.stepping[i]) landed[i] = null;
        else if (landed[i] === null) landed[i] = [foot.clone(), ball.clone()];
        else {
          const [a0, b0] = landed[i];
          r.slide = Math.max(r.slide, Math.min(foot.subtract(a0).length(), ball.subtract(b0).length()));
          r.twist = Math.min(r.twist, Vector3.Dot(flat(toes), pelvis));
        }
        const axis = ankle.subtract(hip).normalize();
        const off = knee.subtract(hip);
        const perp = off.subtract(axis.scale(Vector3.Dot(off, axis)));
        if (perp.length() < 0.01) continue;
        // Bent backwards about its own hinge (the body's left carried by the thigh), or against its toes.
        const hinge = left.applyRotationQuaternion(turnOf(hipJ));
        const bend = Vector3.Dot(Vector3.Cross(knee.subtract(hip), ankle.subtract(knee)), hinge);
        const across = toes.subtract(axis.scale(Vector3.Dot(toes, axis)));
        if (bend < 0 || Vector3.Dot(perp, across) < 0) r.inverted++;
      }
    });
    return r;
  }

  // Speed (rad/s), turns, shift and lead (m), stepTime (s): a slow step leaves the planted foot to turn under
  // the spinning body longer (it pivots at its limit).
  for (const [speed, turns, shift, lead, stepTime] of [
    [8, 1.5, 0.2, 0.2, 0.4],
    [15, 2, 0.2, 0.2, 0.4],
    [15, 2, 0.2, 0.2, 1],
  ] as const) {
    it(`${turns} turn(s) at ${speed} rad/s, the head ${shift * 100} cm onto the left foot and ${lead * 100} cm ahead, steps of ${stepTime} s: planted feet hold and turn with the pelvis, knees forward`, async () => {
      rig = await TrackedRig.create({ stepTime });
      // Turning at full speed: from a tenth of a second after the turn starts to its end.
      const r = spin(
        pirouette(speed, turns, shift, lead),
        (t) => t > 0.6 && t < 0.5 + (turns * 2 * Math.PI) / speed,
      );
      notes.push(
        `${turns} turn(s) at ${speed} rad/s, steps of ${stepTime} s: ${rig.body.steps} steps, planted feet slid ${cm(r.slide)} cm ` +
          `at most, turned ${((Math.acos(r.twist) * 180) / Math.PI).toFixed(0)}° at most from the pelvis, ` +
          `${r.inverted} leg-frames with a knee inverted, heels up ${cm(r.heel)} cm at most`,
      );
      expect(r.both).toBe(0);
      expect(rig.body.steps).toBeGreaterThanOrEqual(3);
      // The bar: a planted foot moves at most 1 cm.
      expect(r.slide).toBeLessThan(0.01);
      // A leg twists about 40° at the hip and 15° more at the ankle: a planted foot further round than that
      // from the pelvis has the leg twisted past its limits.
      expect(r.twist).toBeGreaterThan(Math.cos((55 * Math.PI) / 180));
      expect(r.inverted).toBe(0);
      // Spinning faster than a walk turns, the heels stay down: the feet turn under the body faster than a
      // leg's twist would let a foot standing on its ball follow.
      expect(r.heel).toBeLessThan(0.005);
    });
  }
});
