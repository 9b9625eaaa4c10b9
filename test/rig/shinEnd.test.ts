// The knee of a foot at its shin's end: the two-bone answer placeKnee gives, on random legs.
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import {
  KNEE_ANIMATED,
  KNEE_BEND,
  KNEE_END,
  KNEE_GOAL,
  KNEE_HINGE,
  KNEE_HIP,
  KNEE_MAX,
  KNEE_MIN,
  KNEE_OUT,
  KNEE_REACH,
  KNEE_SHIN,
  KNEE_SHIN_OUT,
  KNEE_SLOTS,
  animatedKnee,
  kneeReach,
  placeKnee,
} from "../../plugin/rig/shinEnd.js";
import { createJointLimits, setJointLimit } from "../../plugin/solver/limits.js";
import { createRig } from "../../plugin/solver/rig.js";
import { random } from "../babylon/fabrikHarness.js";

const v3 = (w: Float64Array, o: number) => new Vector3(w[o], w[o + 1], w[o + 2]);
const q4 = (w: Float64Array, o: number) => new Quaternion(w[o], w[o + 1], w[o + 2], w[o + 3]);
function put(w: Float64Array, o: number, v: Vector3 | Quaternion): void {
  w[o] = v.x;
  w[o + 1] = v.y;
  w[o + 2] = v.z;
  if (v instanceof Quaternion) w[o + 3] = v.w;
}

interface Leg {
  readonly w: Float64Array;
  readonly hip: Vector3;
  readonly knee: Vector3;
  readonly end: Vector3;
  readonly shin: Quaternion;
  /** The end in the shin's frame. */
  readonly local: Vector3;
}

/** A random bent leg: hip at a random place, thigh 0.4–0.6, shin 0.3–0.6, bent 10–120°, a random shin frame. */
function randomLeg(next: () => number): Leg {
  const unit = () => new Vector3(next() - 0.5, next() - 0.5, next() - 0.5).normalize();
  const hip = new Vector3(next(), next() + 1, next());
  const thighDir = unit();
  const knee = hip.add(thighDir.scale(0.4 + 0.2 * next()));
  const side = Vector3.Cross(thighDir, unit()).normalize();
  const bend = (10 + 110 * next()) * (Math.PI / 180);
  const shinDir = thighDir.applyRotationQuaternion(Quaternion.RotationAxis(side, bend));
  const end = knee.add(shinDir.scale(0.3 + 0.3 * next()));
  const shin = Quaternion.RotationAxis(unit(), 6 * next());
  const local = end.subtract(knee).applyRotationQuaternion(Quaternion.Inverse(shin));
  const w = new Float64Array(KNEE_SLOTS);
  put(w, KNEE_HIP, hip);
  put(w, KNEE_ANIMATED, knee);
  put(w, KNEE_END, end);
  put(w, KNEE_SHIN, shin);
  put(w, KNEE_BEND, unit());
  w[KNEE_HINGE] = 0;
  w[KNEE_MIN] = -Infinity;
  w[KNEE_MAX] = Infinity;
  return { w, hip, knee, end, shin, local };
}

/** Where the placed shin ends: the end's place in the shin's frame, carried by the shin's new orientation. */
function placedEnd(leg: Leg): Vector3 {
  return v3(leg.w, KNEE_OUT).add(leg.local.applyRotationQuaternion(q4(leg.w, KNEE_SHIN_OUT)));
}

/** The shin's turn relative to the thigh, in model space, when the thigh turns by its shortest swing. */
function kneeTurn(leg: Leg): Quaternion {
  const thigh0 = leg.knee.subtract(leg.hip).normalize();
  const thigh1 = v3(leg.w, KNEE_OUT).subtract(leg.hip).normalize();
  const axis = Vector3.Cross(thigh0, thigh1);
  const swing =
    axis.length() < 1e-12
      ? Quaternion.Identity()
      : Quaternion.RotationAxis(axis.normalize(), Math.acos(Math.min(1, Vector3.Dot(thigh0, thigh1))));
  // shin₁ = swing · turn · shin₀  →  turn = swing⁻¹ · shin₁ · shin₀⁻¹
  return Quaternion.Inverse(swing).multiply(q4(leg.w, KNEE_SHIN_OUT)).multiply(Quaternion.Inverse(leg.shin));
}

function angleOf(q: Quaternion): number {
  return 2 * Math.atan2(Math.hypot(q.x, q.y, q.z), Math.abs(q.w));
}

describe("placeKnee", () => {
  it("ends the shin on any goal within reach, both bones keeping their lengths, the knee turning about its bend axis", () => {
    const next = random(7);
    let worstEnd = 0,
      worstLength = 0,
      worstAxis = 0;
    for (let i = 0; i < 500; i++) {
      const leg = randomLeg(next);
      const l1 = Vector3.Distance(leg.hip, leg.knee);
      const l2 = Vector3.Distance(leg.knee, leg.end);
      // A goal between |l1 − l2| and l1 + l2 from the hip, in any direction.
      const reach = Math.abs(l1 - l2) + (0.05 + 0.9 * next()) * (l1 + l2 - Math.abs(l1 - l2));
      const dir = new Vector3(next() - 0.5, next() - 0.5, next() - 0.5).normalize();
      const goal = leg.hip.add(dir.scale(reach));
      put(leg.w, KNEE_GOAL, goal);
      placeKnee(leg.w);
      worstEnd = Math.max(worstEnd, Vector3.Distance(placedEnd(leg), goal));
      worstLength = Math.max(worstLength, Math.abs(Vector3.Distance(leg.hip, v3(leg.w, KNEE_OUT)) - l1));
      // Relative to the twist-free swung thigh, the shin turned about the animated bend axis alone.
      const turn = kneeTurn(leg);
      const bendAxis = Vector3.Cross(leg.knee.subtract(leg.hip), leg.end.subtract(leg.knee)).normalize();
      const turnAxis = new Vector3(turn.x, turn.y, turn.z);
      if (angleOf(turn) > 1e-6) {
        const off = Vector3.Cross(turnAxis.normalize(), bendAxis).length();
        worstAxis = Math.max(worstAxis, off);
      }
    }
    expect(worstEnd).toBeLessThan(1e-9);
    expect(worstLength).toBeLessThan(1e-12);
    expect(worstAxis).toBeLessThan(1e-6);
  });

  it("straightens toward a goal out of reach, and reports the reach", () => {
    const next = random(11);
    for (let i = 0; i < 50; i++) {
      const leg = randomLeg(next);
      const l1 = Vector3.Distance(leg.hip, leg.knee);
      const l2 = Vector3.Distance(leg.knee, leg.end);
      kneeReach(leg.w);
      expect(leg.w[KNEE_REACH]).toBeCloseTo(l1 + l2, 9);
      const dir = new Vector3(next() - 0.5, next() - 0.5, next() - 0.5).normalize();
      put(leg.w, KNEE_GOAL, leg.hip.add(dir.scale(2 * (l1 + l2))));
      placeKnee(leg.w);
      const end = placedEnd(leg);
      expect(Vector3.Distance(leg.hip, end)).toBeCloseTo(l1 + l2, 9);
      expect(Vector3.Dot(end.subtract(leg.hip).normalize(), dir)).toBeCloseTo(1, 9);
    }
  });

  it("bends about a given hinge axis, within its range", () => {
    const next = random(3);
    let clamped = 0,
      reached = 0;
    for (let i = 0; i < 300; i++) {
      const leg = randomLeg(next);
      const thigh = leg.knee.subtract(leg.hip);
      const shin = leg.end.subtract(leg.knee);
      // The hinge: the animated bend axis turned about the thigh by up to ±10°.
      const bendAxis = Vector3.Cross(thigh, shin).normalize();
      const hinge = bendAxis.applyRotationQuaternion(
        Quaternion.RotationAxis(thigh.normalizeToNew(), 0.35 * (next() - 0.5)),
      );
      put(leg.w, KNEE_BEND, hinge);
      leg.w[KNEE_HINGE] = 1;
      leg.w[KNEE_MIN] = -0.3;
      leg.w[KNEE_MAX] = 0.4;
      kneeReach(leg.w);
      // A goal at the distance a turn by δ leaves the end at (δ mostly within the range), in any direction.
      const delta = -0.5 + 1.1 * next();
      const bent = leg.knee.add(shin.applyRotationQuaternion(Quaternion.RotationAxis(hinge, delta)));
      const dir = new Vector3(next() - 0.5, next() - 0.5, next() - 0.5).normalize();
      const goal = leg.hip.add(dir.scale(Vector3.Distance(leg.hip, bent)));
      put(leg.w, KNEE_GOAL, goal);
      placeKnee(leg.w);
      const turn = kneeTurn(leg);
      const angle = angleOf(turn);
      // About the hinge, within its range.
      expect(angle).toBeLessThan(0.4 + 1e-9);
      if (angle > 1e-6) {
        expect(Vector3.Cross(new Vector3(turn.x, turn.y, turn.z).normalize(), hinge).length()).toBeLessThan(
          1e-6,
        );
      }
      // The law of cosines has two answers, on either side of straight; the one on the animated side may lie
      // outside the range (then the range stops it). Otherwise the end is on the goal.
      const end = placedEnd(leg);
      if (Math.abs(angle - 0.3) < 1e-9 || Math.abs(angle - 0.4) < 1e-9) clamped++;
      else {
        expect(Vector3.Distance(end, goal)).toBeLessThan(1e-9);
        reached++;
      }
      // Aimed at the goal either way, and never farther from the hip than the reach within the range.
      expect(Vector3.Dot(end.subtract(leg.hip).normalize(), dir)).toBeGreaterThan(1 - 1e-9);
      expect(Vector3.Distance(leg.hip, end)).toBeLessThanOrEqual(leg.w[KNEE_REACH] + 1e-12);
    }
    expect(reached).toBeGreaterThan(150);
    expect(clamped).toBeGreaterThan(0);
  });

  it("bends a straight leg about the given axis, and leaves a leg of no length as animated", () => {
    const hip = new Vector3(0, 1, 0),
      knee = new Vector3(0, 0.5, 0),
      end = new Vector3(0, 0, 0);
    const w = new Float64Array(KNEE_SLOTS);
    put(w, KNEE_HIP, hip);
    put(w, KNEE_ANIMATED, knee);
    put(w, KNEE_END, end);
    put(w, KNEE_SHIN, Quaternion.Identity());
    const axis = new Vector3(1, 0.3, 0).normalize();
    put(w, KNEE_BEND, axis);
    w[KNEE_HINGE] = 0;
    w[KNEE_MIN] = -Infinity;
    w[KNEE_MAX] = Infinity;
    const goal = new Vector3(0.1, 0.2, 0.05);
    put(w, KNEE_GOAL, goal);
    placeKnee(w);
    const leg: Leg = { w, hip, knee, end, shin: Quaternion.Identity(), local: new Vector3(0, -0.5, 0) };
    expect(Vector3.Distance(placedEnd(leg), goal)).toBeLessThan(1e-12);
    expect(Vector3.Distance(hip, v3(w, KNEE_OUT))).toBeCloseTo(0.5, 12);
    // Relative to the swung thigh, the shin turned about the given axis.
    const turn = kneeTurn(leg);
    expect(angleOf(turn)).toBeGreaterThan(0.5);
    expect(Vector3.Cross(new Vector3(turn.x, turn.y, turn.z).normalize(), axis).length()).toBeLessThan(1e-9);

    // A thigh of no length: nothing to bend.
    put(w, KNEE_ANIMATED, hip);
    placeKnee(w);
    expect(v3(w, KNEE_OUT)).toEqual(hip);
    expect(q4(w, KNEE_SHIN_OUT)).toEqual(Quaternion.Identity());
    for (let k = 0; k < KNEE_SLOTS; k++) expect(Number.isNaN(w[k])).toBe(false);
  });
});

describe("animatedKnee", () => {
  // A rotation and its negated quaternion are one turn; glTF keys and rotations read through a mirror's half
  // turn come either way. 2·atan2 read the second as a turn 2π on, the hinge's range shifted off the knee:
  // a foot at a mirrored shin's end was placed 22 % of the height above its goal (the humanoid fuzzer).
  it("reads a hinged shin's bend the same from q and -q", () => {
    const rig = createRig({
      parents: [-1, 0, 1],
      restPositions: [0, 1, 0, 0, 0.55, 0.02, 0, 0.1, 0],
    });
    const limits = createJointLimits(rig);
    setJointLimit(limits, 1, { hinge: { axis: [1, 0, 0], min: 0, max: 2.6 } });
    const bend = Quaternion.RotationAxis(new Vector3(1, 0, 0), 0.4);
    const read = (sign: number) => {
      const o = Float64Array.from([
        0,
        0,
        0,
        1,
        sign * bend.x,
        sign * bend.y,
        sign * bend.z,
        sign * bend.w,
        0,
        0,
        0,
        1,
      ]);
      const p = Float64Array.from(rig.restPositions);
      const w = new Float64Array(KNEE_SLOTS);
      animatedKnee(w, p, o, 0, 1, Float64Array.of(0, 0.1, 0), 0, Float64Array.of(1, 0, 0), 0, limits);
      return [w[KNEE_HINGE], w[KNEE_MIN], w[KNEE_MAX]];
    };
    const [hinge, min, max] = read(1);
    expect(hinge).toBe(1);
    expect(min).toBeCloseTo(-0.4, 12);
    expect(max).toBeCloseTo(2.2, 12);
    const negated = read(-1);
    expect(negated[1]).toBeCloseTo(min, 12);
    expect(negated[2]).toBeCloseTo(max, 12);
  });
});
