import { describe, expect, it } from "vitest";
import {
  FabrikError,
  compilePlan,
  copyJointLimits,
  createJointLimits,
  createRig,
  isJointLimitsShared,
  markJointLimitsShared,
  projectRotation,
  setJointLimit,
  setPlanLimits,
  type JointLimitSpec,
} from "../../plugin/index.js";
import { axisAngle, rotate, rotationDistance } from "./limitChecks.js";

// Joint 1 of a straight chain along +Y: its bone axis is +Y in its rest frame (identity), and with
// upAxis +Z the swing cone's "up" is +Z and "right" is bone x up = +X.
const rig = createRig({
  parents: [-1, 0, 1],
  restPositions: [0, 0, 0, 0, 1, 0, 0, 2, 0],
  names: ["root", "elbow", "tip"],
});
const scratch = new Float64Array(16);

function project(spec: JointLimitSpec, delta: number[]): { q: Float64Array; clamped: boolean } {
  const limits = createJointLimits(rig);
  setJointLimit(limits, 1, spec);
  const q = Float64Array.from(delta);
  const clamped = projectRotation(limits, 1, q, 0, scratch, 0);
  return { q, clamped };
}

/** What `call` throws (undefined when it returns). */
function thrownBy(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Where Δ takes the bone axis (+Y), as (angle from +Y, swing toward x, swing toward z). */
function swingOf(q: ArrayLike<number>): { theta: number; x: number; z: number } {
  const d = rotate(q, [0, 1, 0]);
  const theta = Math.acos(Math.max(-1, Math.min(1, d[1])));
  const l = Math.hypot(d[0], d[2]);
  return l > 1e-12 ? { theta, x: (theta * d[0]) / l, z: (theta * d[2]) / l } : { theta, x: 0, z: 0 };
}

const cone = (up: number, right: number, down: number, left: number): JointLimitSpec => ({
  swing: { up, right, down, left, upAxis: [0, 0, 1] },
});
// A swing of the bone (+Y) toward +X by angle a is a rotation about -Z; toward +Z, about +X.
const towardRight = (a: number) => axisAngle([0, 0, -1], a);
const towardUp = (a: number) => axisAngle([1, 0, 0], a);

describe("elliptical swing limit", () => {
  it("leaves a direction inside the cone alone", () => {
    const { q, clamped } = project(cone(0.3, 0.8, 0.4, 0.5), towardRight(0.5));
    expect(clamped).toBe(false);
    expect(Array.from(q)).toEqual(towardRight(0.5));
  });

  it("leaves the rest direction alone, even in a zero-width cone", () => {
    expect(project(cone(0.3, 0.8, 0.4, 0.5), [0, 0, 0, 1]).clamped).toBe(false);
    expect(project(cone(0, 0, 0, 0), [0, 0, 0, 1]).clamped).toBe(false);
  });

  it("clamps along the quadrant seams to each side's own angle", () => {
    const limits = cone(0.3, 0.8, 0.4, 0.5);
    const right = swingOf(project(limits, towardRight(1.2)).q);
    expect(right.x).toBeCloseTo(0.8, 12);
    expect(right.z).toBeCloseTo(0, 12);
    const left = swingOf(project(limits, towardRight(-1.2)).q);
    expect(left.x).toBeCloseTo(-0.5, 12);
    const up = swingOf(project(limits, towardUp(1)).q);
    expect(up.z).toBeCloseTo(0.3, 12);
    expect(up.x).toBeCloseTo(0, 12);
    const down = swingOf(project(limits, towardUp(-1)).q);
    expect(down.z).toBeCloseTo(-0.4, 12);
  });

  it("moves a point outside to the nearest point of its quadrant's ellipse (in swing space)", () => {
    const [a, b] = [0.8, 0.3]; // right, up
    for (const [x, z] of [
      [0.9, 0.5],
      [0.2, 0.9],
      [1.5, 0.05],
      [0.6, 0.6],
    ]) {
      const theta = Math.hypot(x, z);
      // Swing by theta toward the unit direction (x, z)/theta of the right/up plane: axis = bone x direction.
      const axis = [z / theta, 0, -x / theta];
      const got = swingOf(project(cone(b, a, 0.4, 0.5), axisAngle(axis, theta)).q);
      // Brute force: nearest of 200k points of the quarter ellipse.
      let best = Infinity,
        bx = 0,
        bz = 0;
      for (let i = 0; i <= 200000; i++) {
        const t = (i / 200000) * (Math.PI / 2);
        const px = a * Math.cos(t),
          pz = b * Math.sin(t);
        const d = Math.hypot(px - x, pz - z);
        if (d < best) [best, bx, bz] = [d, px, pz];
      }
      expect(got.x).toBeCloseTo(bx, 5);
      expect(got.z).toBeCloseTo(bz, 5);
      expect((got.x / a) ** 2 + (got.z / b) ** 2).toBeCloseTo(1, 9);
    }
  });

  it("works for cones wider than a hemisphere (shoulders)", () => {
    const wide = cone(2.2, 2.0, 1.9, 2.5);
    expect(project(wide, towardRight(1.8)).clamped).toBe(false);
    const clamped = swingOf(project(wide, towardRight(2.6)).q);
    expect(clamped.theta).toBeCloseTo(2.0, 12);
    expect(clamped.x).toBeCloseTo(2.0, 12);
  });

  it("a direction exactly opposite the rest direction goes to the boundary toward up", () => {
    const { q, clamped } = project(cone(0.6, 0.8, 0.4, 0.5), towardRight(Math.PI));
    expect(clamped).toBe(true);
    const s = swingOf(q);
    expect(s.z).toBeCloseTo(0.6, 12);
    expect(s.x).toBeCloseTo(0, 12);
  });

  it("keeps the twist when it clamps the swing", () => {
    const twist = axisAngle([0, 1, 0], 0.4);
    const swung = Array.from(towardRight(1.5));
    const delta = [
      swung[3] * twist[0] + swung[0] * twist[3] + swung[1] * twist[2] - swung[2] * twist[1],
      swung[3] * twist[1] - swung[0] * twist[2] + swung[1] * twist[3] + swung[2] * twist[0],
      swung[3] * twist[2] + swung[0] * twist[1] - swung[1] * twist[0] + swung[2] * twist[3],
      swung[3] * twist[3] - swung[0] * twist[0] - swung[1] * twist[1] - swung[2] * twist[2],
    ];
    const { q } = project(cone(0.3, 0.8, 0.4, 0.5), delta);
    expect(swingOf(q).x).toBeCloseTo(0.8, 12);
    // The twist part is still 0.4 about the bone.
    const back = rotate(q, [1, 0, 0]);
    const swungOnly = rotate(towardRight(0.8), rotate(twist, [1, 0, 0]));
    back.forEach((v, i) => expect(v).toBeCloseTo(swungOnly[i], 12));
  });
});

describe("twist limit", () => {
  const twist = (a: number) => axisAngle([0, 1, 0], a);
  it("clamps roll about the bone and leaves the bone direction alone", () => {
    const { q, clamped } = project({ twist: { min: -0.5, max: 0.5 } }, twist(1));
    expect(clamped).toBe(true);
    expect(rotationDistance(q, twist(0.5))).toBeLessThan(1e-12);
    expect(project({ twist: { min: -0.5, max: 0.5 } }, twist(0.3)).clamped).toBe(false);
  });
  it("goes to the nearer end along the circle", () => {
    expect(
      rotationDistance(project({ twist: { min: -0.5, max: 0.5 } }, twist(3)).q, twist(0.5)),
    ).toBeLessThan(1e-12);
    expect(
      rotationDistance(project({ twist: { min: -0.5, max: 0.5 } }, twist(-3)).q, twist(-0.5)),
    ).toBeLessThan(1e-12);
    // 3.0 rad is nearer to -2.9 (through ±π) than to 1.0
    expect(rotationDistance(project({ twist: { min: -2.9, max: 1 } }, twist(3)).q, twist(-2.9))).toBeLessThan(
      1e-12,
    );
  });
});

describe("hinge limit", () => {
  const hinge: JointLimitSpec = { hinge: { axis: [0, 0, 1], min: -0.5, max: 1 } };
  it("keeps only the rotation about the axis, clamped to its range", () => {
    expect(
      rotationDistance(project(hinge, axisAngle([0, 0, 1], 0.7)).q, axisAngle([0, 0, 1], 0.7)),
    ).toBeLessThan(1e-12);
    const { q, clamped } = project(hinge, axisAngle([0, 0, 1], 1.4));
    expect(clamped).toBe(true);
    expect(rotationDistance(q, axisAngle([0, 0, 1], 1))).toBeLessThan(1e-12);
    expect(
      rotationDistance(project(hinge, axisAngle([0, 0, 1], -2)).q, axisAngle([0, 0, 1], -0.5)),
    ).toBeLessThan(1e-12);
  });
  it("measures an off-axis rotation by where it takes the bone", () => {
    // Mostly about Z by 0.6, plus a tilt about X: the bone's direction in the XY plane turned by 0.6.
    const tilted = [...axisAngle([0.2, 0, 1], 0.6)];
    const { q } = project(hinge, tilted);
    const d = rotate(tilted, [0, 1, 0]);
    const expected = Math.atan2(-d[0], d[1]);
    expect(rotationDistance(q, axisAngle([0, 0, 1], expected))).toBeLessThan(1e-12);
  });
  it("a bone along the hinge axis is measured by its roll about the axis", () => {
    const limits = createJointLimits(rig);
    setJointLimit(limits, 1, { hinge: { axis: [0, 1, 0], min: 0, max: 0.3 } });
    const q = Float64Array.from(axisAngle([0, 1, 0], 0.8));
    projectRotation(limits, 1, q, 0, scratch, 0);
    expect(rotationDistance(q, axisAngle([0, 1, 0], 0.3))).toBeLessThan(1e-12);
  });
});

describe("setJointLimit validation", () => {
  const bad: [string, JointLimitSpec, RegExp][] = [
    [
      "NaN angle",
      { swing: { up: NaN, right: 1, down: 1, left: 1 } },
      /swing\.up must be an angle in \[0, π\] radians, got NaN/,
    ],
    ["negative angle", { swing: { up: 1, right: -0.1, down: 1, left: 1 } }, /swing\.right.*-0\.1/],
    ["angle past π", { swing: { up: 1, right: 1, down: 4, left: 1 } }, /swing\.down.*got 4/],
    ["inverted twist", { twist: { min: 0.5, max: -0.5 } }, /twist is inverted: min 0\.5 > max -0\.5/],
    ["twist past π", { twist: { min: -4, max: 0 } }, /twist\.min must be a number in \[-π, π\], got -4/],
    ["zero hinge axis", { hinge: { axis: [0, 0, 0], min: 0, max: 1 } }, /hinge\.axis has zero length/],
    [
      "NaN hinge axis",
      { hinge: { axis: [0, NaN, 1], min: 0, max: 1 } },
      /hinge\.axis must be three finite numbers/,
    ],
    ["inverted hinge", { hinge: { axis: [0, 0, 1], min: 1, max: 0 } }, /hinge is inverted/],
    [
      "hinge and swing",
      { hinge: { axis: [0, 0, 1], min: 0, max: 1 }, swing: { up: 1, right: 1, down: 1, left: 1 } },
      /either hinge or swing/,
    ],
    ["fixed and twist", { fixed: true, twist: { min: 0, max: 1 } }, /fixed joint cannot also/],
    ["inverted stretch", { stretch: { min: 2, max: 1 } }, /stretch is inverted/],
    ["negative stretch", { stretch: { min: -1, max: 1 } }, /stretch\.min/],
    [
      "up along the bone",
      { swing: { up: 1, right: 1, down: 1, left: 1, upAxis: [0, 2, 0] } },
      /upAxis is parallel to the bone/,
    ],
  ];
  for (const [what, spec, pattern] of bad) {
    it(`rejects ${what}, naming the joint, and changes nothing`, () => {
      const limits = createJointLimits(rig);
      setJointLimit(limits, 1, { twist: { min: -1, max: 1 } });
      const before = { flags: limits.flags.slice(), twist: limits.twist.slice(), spec: limits.specs[1] };
      const error = thrownBy(() => setJointLimit(limits, 1, spec));
      expect(error).toBeInstanceOf(FabrikError);
      expect((error as Error).message).toMatch(/limits of joint 1 \("elbow"\)/);
      expect((error as Error).message).toMatch(pattern);
      expect((error as FabrikError).joint).toBe(1);
      expect(limits.flags).toEqual(before.flags);
      expect(limits.twist).toEqual(before.twist);
      expect(limits.specs[1]).toEqual(before.spec);
    });
  }
  it("rejects a stretch limit on a root and a joint index outside the rig", () => {
    const limits = createJointLimits(rig);
    expect(() => setJointLimit(limits, 0, { stretch: { min: 0, max: 1 } })).toThrow(
      /root has no bone to stretch/,
    );
    expect(() => setJointLimit(limits, 3, { fixed: true })).toThrow(/joint index 3 is outside the rig/);
  });
  it("clears a joint's limits with undefined", () => {
    const limits = createJointLimits(rig);
    setJointLimit(limits, 1, { fixed: true });
    setJointLimit(limits, 1, undefined);
    expect(limits.flags[1]).toBe(0);
    expect(limits.specs[1]).toBeUndefined();
  });
});

describe("shared limit sets", () => {
  const cone: JointLimitSpec = {
    swing: { up: 0.4, right: 0.3, down: 0.2, left: 0.1, upAxis: [0, 0, 1] },
    twist: { min: -0.5, max: 0.25 },
  };

  it("a set marked shared refuses edits, naming the joint, and keeps what it held", () => {
    const limits = createJointLimits(rig);
    setJointLimit(limits, 1, cone);
    const flags = Array.from(limits.flags),
      swing = Array.from(limits.swing);
    markJointLimitsShared(limits);
    expect(isJointLimitsShared(limits)).toBe(true);
    for (const spec of [undefined, { hinge: { axis: [1, 0, 0], min: 0, max: 1 } }] as const) {
      const error = thrownBy(() => setJointLimit(limits, 1, spec));
      expect(error).toBeInstanceOf(FabrikError);
      expect((error as FabrikError).message).toContain(
        'limits of joint 1 ("elbow"): this limit set is shared',
      );
      expect((error as FabrikError).joint).toBe(1);
    }
    expect(Array.from(limits.flags)).toEqual(flags);
    expect(Array.from(limits.swing)).toEqual(swing);
    expect(limits.specs[1]).toEqual(cone);
  });

  it("a copy holds the same limits, shares no array or spec with the set, and can be edited", () => {
    const limits = createJointLimits(rig);
    setJointLimit(limits, 1, cone);
    markJointLimitsShared(limits);
    const copy = copyJointLimits(limits);
    expect(isJointLimitsShared(copy)).toBe(false);
    expect(copy.rig).toBe(rig);
    for (const key of Object.keys(limits) as (keyof typeof limits)[]) {
      const value = limits[key];
      if (!ArrayBuffer.isView(value)) continue;
      expect(copy[key]).not.toBe(value);
      expect(Array.from(copy[key] as Float64Array)).toEqual(Array.from(value as Float64Array));
    }
    expect(copy.specs).toEqual(limits.specs);
    expect(copy.specs[1]).not.toBe(limits.specs[1]);
    setJointLimit(copy, 1, undefined);
    expect(copy.flags[1]).toBe(0);
    expect(limits.specs[1]).toEqual(cone);
  });

  it("a plan takes another set of its rig without recompiling, and refuses one of another rig", () => {
    const first = createJointLimits(rig);
    const plan = compilePlan(rig, { effectors: [{ joint: 2 }], limits: first });
    const second = copyJointLimits(first);
    setPlanLimits(plan, second);
    expect(plan.limits).toBe(second);
    const other = createRig({ parents: [-1, 0, 1], restPositions: [0, 0, 0, 0, 1, 0, 0, 2, 0] });
    expect(() => setPlanLimits(plan, createJointLimits(other))).toThrow(/created for another rig/);
    expect(plan.limits).toBe(second);
  });
});
