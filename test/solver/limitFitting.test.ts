import { describe, expect, it } from "vitest";
import { FabrikError } from "../../plugin/solver/errors.js";
import { projectRotation } from "../../plugin/solver/jointLimitProjection.js";
import { fitJointLimit, widenJointLimit } from "../../plugin/solver/limitFitting.js";
import {
  LIMIT_HINGE,
  LIMIT_SWING,
  LIMIT_TWIST,
  createJointLimits,
  setJointLimit,
  type JointLimitSpec,
  type JointLimits,
} from "../../plugin/solver/limits.js";
import { createRig } from "../../plugin/solver/rig.js";
import { random } from "./fixtures.js";

const DEG = Math.PI / 180;
// A bent chain whose joints have turned rest frames, so Δ = restLocal⁻¹ · local is not the local rotation.
const rig = createRig({
  parents: [-1, 0, 1, 2, 3],
  restPositions: [0, 0, 0, 0.2, 1, 0, 0.1, 2, 0.3, 0.5, 2.8, 0.4, 0.6, 3.5, 0.9],
  restOrientations: [
    0, 0, 0, 1, 0.2, 0.1, 0, 0.9747, -0.1, 0.3, 0.2, 0.9274, 0.05, -0.2, 0.4, 0.893, 0, 0, 0.3, 0.9539,
  ].map((v, i, a) => v / Math.hypot(...a.slice(4 * Math.floor(i / 4), 4 * Math.floor(i / 4) + 4))),
  names: ["root", "hip", "knee", "ankle", "toe"],
});
const J = 2;
const scratch = new Float64Array(16);

const CONE: JointLimitSpec = {
  swing: { up: 40 * DEG, right: 20 * DEG, down: 30 * DEG, left: 10 * DEG, upAxis: [0, 0, 1] },
  twist: { min: -15 * DEG, max: 25 * DEG },
  stretch: { min: 0.9, max: 1.1 },
};
const HINGE: JointLimitSpec = { hinge: { axis: [1, 0, 0.2], min: -5 * DEG, max: 120 * DEG } };

function limitsWith(spec: JointLimitSpec | undefined, others = true): JointLimits {
  const limits = createJointLimits(rig);
  if (others) {
    setJointLimit(limits, 1, {
      swing: { up: 0.3, right: 0.3, down: 0.3, left: 0.3 },
      twist: { min: -0.2, max: 0.2 },
    });
    setJointLimit(limits, 3, { hinge: { axis: [0, 0, 1], min: 0, max: 1 } });
  }
  setJointLimit(limits, J, spec);
  return limits;
}

/** Everything the limits hold, as plain data, to compare before and after. */
function snapshot(limits: JointLimits): unknown {
  const { rig: _rig, ...rest } = limits;
  return structuredClone(rest);
}

/** The data of one joint only. */
function jointData(limits: JointLimits, j: number): unknown {
  return {
    flags: limits.flags[j],
    spec: limits.specs[j],
    swing: [...limits.swing.subarray(4 * j, 4 * j + 4)],
    twist: [...limits.twist.subarray(2 * j, 2 * j + 2)],
    hinge: [...limits.hinge.subarray(2 * j, 2 * j + 2)],
    hingeAxis: [...limits.hingeAxis.subarray(3 * j, 3 * j + 3)],
    up: [...limits.upAxis.subarray(3 * j, 3 * j + 3)],
    stretch: [...limits.stretch.subarray(2 * j, 2 * j + 2)],
  };
}

/** Δ of a local rotation (x y z w) for joint j. */
function deltaOf(limits: JointLimits, j: number, local: ArrayLike<number>): Float64Array {
  const r = limits.restLocal.subarray(4 * j, 4 * j + 4);
  const [ax, ay, az, aw] = [-r[0], -r[1], -r[2], r[3]];
  const [bx, by, bz, bw] = [local[0], local[1], local[2], local[3]];
  const l = Math.hypot(bx, by, bz, bw);
  return Float64Array.of(
    (aw * bx + ax * bw + ay * bz - az * by) / l,
    (aw * by - ax * bz + ay * bw + az * bx) / l,
    (aw * bz + ax * by - ay * bx + az * bw) / l,
    (aw * bw - ax * bx - ay * by - az * bz) / l,
  );
}

/** The local rotation whose Δ is `delta`: restLocal · Δ. */
function localOf(limits: JointLimits, j: number, delta: ArrayLike<number>): number[] {
  const r = limits.restLocal.subarray(4 * j, 4 * j + 4);
  const [ax, ay, az, aw] = [r[0], r[1], r[2], r[3]];
  const [bx, by, bz, bw] = [delta[0], delta[1], delta[2], delta[3]];
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}

/** How far projectRotation moves the sample (largest component change). */
function moved(limits: JointLimits, j: number, local: ArrayLike<number>): number {
  const delta = deltaOf(limits, j, local);
  const p = delta.slice();
  projectRotation(limits, j, p, 0, scratch, 0);
  return Math.max(...[0, 1, 2, 3].map((k) => Math.abs(p[k] - delta[k])));
}

function randomRotation(rnd: () => number, maxAngle = Math.PI): number[] {
  let x: number, y: number, z: number, l: number;
  do {
    x = 2 * rnd() - 1;
    y = 2 * rnd() - 1;
    z = 2 * rnd() - 1;
    l = Math.hypot(x, y, z);
  } while (l > 1 || l < 1e-3);
  const angle = maxAngle * rnd();
  const s = Math.sin(angle / 2) / l;
  return [x * s, y * s, z * s, Math.cos(angle / 2)];
}

function turn(axis: readonly number[], angle: number): number[] {
  const l = Math.hypot(axis[0], axis[1], axis[2]);
  const s = Math.sin(angle / 2) / l;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
}

/** Every angle of a spec, with its key, for "never tighter" checks. */
function widths(spec: JointLimitSpec): Record<string, number> {
  const out: Record<string, number> = {};
  if (spec.swing) for (const side of ["up", "right", "down", "left"] as const) out[side] = spec.swing[side];
  if (spec.twist) {
    out.twistMin = -spec.twist.min;
    out.twistMax = spec.twist.max;
  }
  if (spec.hinge) {
    out.hingeMin = -spec.hinge.min;
    out.hingeMax = spec.hinge.max;
  }
  return out;
}

describe("fitJointLimit: swing cone and twist", () => {
  it("leaves limits alone for samples inside (and returns false)", () => {
    const limits = limitsWith(CONE);
    const before = snapshot(limits);
    const inside = [[0, 0, 0, 1], turn([0, 1, 0], 0)].map((d) => localOf(limits, J, d));
    // Small random Δ well within the smallest side and the twist range.
    const rnd = random(3);
    for (let i = 0; i < 50; i++) inside.push(localOf(limits, J, randomRotation(rnd, 5 * DEG)));
    for (const q of inside) expect(moved(limits, J, q)).toBeLessThan(1e-12);
    expect(fitJointLimit(limits, J, inside.flat())).toBe(false);
    for (const q of inside) expect(widenJointLimit(limits, J, q)).toBe(false);
    expect(snapshot(limits)).toEqual(before);
  });

  it("widens just enough: every sample ends on or inside, the rest of the spec and other joints stay", () => {
    const rnd = random(7);
    for (let trial = 0; trial < 300; trial++) {
      const limits = limitsWith(CONE);
      const others = [0, 1, 3, 4].map((j) => jointData(limits, j));
      const samples: number[][] = [];
      const count = 1 + Math.floor(rnd() * 4);
      for (let i = 0; i < count; i++) samples.push(randomRotation(rnd, (trial % 3 === 0 ? 180 : 80) * DEG));
      let previous = limits.specs[J]!;
      for (const q of samples) {
        const outside = moved(limits, J, q) > 1e-9;
        expect(widenJointLimit(limits, J, q)).toBe(outside);
        const spec = limits.specs[J]!;
        // Never tighter, never past π, the cone's frame and the stretch kept.
        const [w0, w1] = [widths(previous), widths(spec)];
        for (const key of Object.keys(w0)) {
          expect(w1[key]).toBeGreaterThanOrEqual(w0[key]);
          expect(w1[key]).toBeLessThanOrEqual(Math.PI);
        }
        expect(spec.swing!.upAxis).toEqual([0, 0, 1]);
        expect(spec.stretch).toEqual(CONE.stretch);
        expect(limits.flags[J]).toBe(LIMIT_SWING | LIMIT_TWIST | 16);
        previous = spec;
      }
      for (const q of samples) expect(moved(limits, J, q)).toBeLessThan(1e-9);
      expect([0, 1, 3, 4].map((j) => jointData(limits, j))).toEqual(others);
    }
  });

  it("lands on the new boundary: the widened sides a hair narrower would move the sample", () => {
    const rnd = random(11);
    let checked = 0;
    for (let trial = 0; trial < 200; trial++) {
      const limits = limitsWith(CONE, false);
      const q = randomRotation(rnd, 120 * DEG);
      const before = limits.specs[J]!;
      if (!widenJointLimit(limits, J, q)) continue;
      const after = limits.specs[J]!;
      const [w0, w1] = [widths(before), widths(after)];
      const grown = Object.keys(w1).filter((k) => w1[k] > w0[k]);
      expect(grown.length).toBeGreaterThan(0);
      // Narrow every grown side by 1e-6 (keeping them at least where they were): the sample is then outside.
      const narrower = structuredClone(after);
      for (const key of grown) {
        const v = Math.max(w0[key], w1[key] - 1e-6);
        if (key === "twistMin") narrower.twist!.min = -v;
        else if (key === "twistMax") narrower.twist!.max = v;
        else narrower.swing![key as "up"] = v;
      }
      setJointLimit(limits, J, narrower);
      expect(moved(limits, J, q)).toBeGreaterThan(1e-9);
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("grows the twist range on the sample's side only, and a pure swing on one side only that side", () => {
    const limits = limitsWith(CONE, false);
    const bone = [...limits.boneAxis.subarray(3 * J, 3 * J + 3)];
    expect(widenJointLimit(limits, J, localOf(limits, J, turn(bone, 60 * DEG)))).toBe(true);
    expect(limits.specs[J]!.twist!.max).toBeCloseTo(60 * DEG, 9);
    expect(limits.specs[J]!.twist!.min).toBe(CONE.twist!.min);
    expect(limits.specs[J]!.swing).toEqual(CONE.swing);
    // A swing straight toward "up" by 70°: only `up` grows, to 70°.
    const up = [...limits.upAxis.subarray(3 * J, 3 * J + 3)];
    const axis = [
      bone[1] * up[2] - bone[2] * up[1],
      bone[2] * up[0] - bone[0] * up[2],
      bone[0] * up[1] - bone[1] * up[0],
    ];
    expect(widenJointLimit(limits, J, localOf(limits, J, turn(axis, 70 * DEG)))).toBe(true);
    const swing = limits.specs[J]!.swing!;
    expect(swing.up).toBeCloseTo(70 * DEG, 9);
    expect([swing.right, swing.down, swing.left]).toEqual([
      CONE.swing!.right,
      CONE.swing!.down,
      CONE.swing!.left,
    ]);
  });

  it("caps every angle at π: a bone turned right around with a half-turn twist", () => {
    const limits = limitsWith(CONE, false);
    const up = [...limits.upAxis.subarray(3 * J, 3 * J + 3)];
    const bone = [...limits.boneAxis.subarray(3 * J, 3 * J + 3)];
    const samples = [
      turn(up, Math.PI),
      turn(bone, Math.PI),
      turn(bone, -Math.PI + 1e-12),
      turn(up, Math.PI - 1e-9),
    ];
    const rnd = random(5);
    for (let i = 0; i < 100; i++) samples.push(randomRotation(rnd));
    const locals = samples.map((d) => localOf(limits, J, d));
    fitJointLimit(limits, J, locals.flat());
    for (const v of Object.values(widths(limits.specs[J]!))) expect(v).toBeLessThanOrEqual(Math.PI);
    for (const q of locals) expect(moved(limits, J, q)).toBeLessThan(1e-9);
  });

  it("widens a twist-only or a swing-only joint in what it has", () => {
    const twistOnly = limitsWith({ twist: { min: -0.1, max: 0.1 } }, false);
    const swingOnly = limitsWith({ swing: { up: 0.1, right: 0.1, down: 0.1, left: 0.1 } }, false);
    const rnd = random(9);
    for (let i = 0; i < 50; i++) {
      const q = randomRotation(rnd, 100 * DEG);
      widenJointLimit(twistOnly, J, q);
      widenJointLimit(swingOnly, J, q);
      expect(moved(twistOnly, J, q)).toBeLessThan(1e-9);
      expect(moved(swingOnly, J, q)).toBeLessThan(1e-9);
    }
    expect(Object.keys(twistOnly.specs[J]!)).toEqual(["twist"]);
    expect(Object.keys(swingOnly.specs[J]!)).toEqual(["swing"]);
  });

  it("leaves free and fixed joints and stretch-only joints alone", () => {
    for (const spec of [undefined, { fixed: true }, { stretch: { min: 0.5, max: 2 } }] as const) {
      const limits = limitsWith(spec);
      const before = snapshot(limits);
      expect(widenJointLimit(limits, J, turn([1, 2, 3], 2))).toBe(false);
      expect(snapshot(limits)).toEqual(before);
    }
  });

  it("is deterministic", () => {
    const rnd = random(21);
    const samples: number[] = [];
    for (let i = 0; i < 40; i++) samples.push(...randomRotation(rnd));
    const a = limitsWith(CONE),
      b = limitsWith(CONE);
    fitJointLimit(a, J, samples);
    fitJointLimit(b, J, samples);
    expect(snapshot(a)).toEqual(snapshot(b));
  });
});

describe("fitJointLimit: hinges", () => {
  const axisOf = (limits: JointLimits) => [...limits.hingeAxis.subarray(3 * J, 3 * J + 3)];

  it("widens the range for samples on the axis, and stays a hinge", () => {
    const limits = limitsWith(HINGE);
    const axis = axisOf(limits);
    const on = [turn(axis, 130 * DEG), turn(axis, -20 * DEG), turn(axis, 60 * DEG)].map((d) =>
      localOf(limits, J, d),
    );
    expect(fitJointLimit(limits, J, on.flat())).toBe(true);
    const spec = limits.specs[J]!;
    expect(limits.flags[J]).toBe(LIMIT_HINGE);
    expect(spec.hinge!.axis).toEqual(HINGE.hinge!.axis);
    expect(spec.hinge!.max).toBeCloseTo(130 * DEG, 9);
    expect(spec.hinge!.min).toBeCloseTo(-20 * DEG, 9);
    for (const q of on) expect(moved(limits, J, q)).toBeLessThan(1e-9);
    // Up to a half turn either way, and no further.
    fitJointLimit(limits, J, [
      ...localOf(limits, J, turn(axis, Math.PI)),
      ...localOf(limits, J, turn(axis, -Math.PI + 1e-6)),
    ]);
    expect(limits.specs[J]!.hinge!.max).toBeLessThanOrEqual(Math.PI);
    expect(limits.specs[J]!.hinge!.min).toBeGreaterThanOrEqual(-Math.PI);
  });

  it("becomes a swing cone + twist holding the hinge's whole range and the samples when they leave its axis", () => {
    const rnd = random(13);
    for (let trial = 0; trial < 60; trial++) {
      const limits = limitsWith(HINGE);
      const others = [0, 1, 3, 4].map((j) => jointData(limits, j));
      const axis = axisOf(limits);
      const samples = [0, 1, 2].map(() => {
        const off = randomRotation(rnd, (trial % 2 ? 45 : 3) * DEG);
        const h = turn(axis, (-5 + 125 * rnd()) * DEG);
        // off · hinge turn: a hinge turn with some rotation off its axis.
        const [ax, ay, az, aw] = off,
          [bx, by, bz, bw] = h;
        return localOf(limits, J, [
          aw * bx + ax * bw + ay * bz - az * by,
          aw * by - ax * bz + ay * bw + az * bx,
          aw * bz + ax * by - ay * bx + az * bw,
          aw * bw - ax * bx - ay * by - az * bz,
        ]);
      });
      const arc: number[][] = [];
      for (let a = -5; a <= 120; a += 0.25) arc.push(localOf(limits, J, turn(axis, a * DEG)));
      expect(fitJointLimit(limits, J, samples.flat())).toBe(true);
      expect(limits.flags[J]).toBe(LIMIT_SWING | LIMIT_TWIST);
      for (const q of samples) expect(moved(limits, J, q)).toBeLessThan(1e-9);
      // What the hinge allowed, the cone still allows (to the step the arc was walked in).
      for (const q of arc) expect(moved(limits, J, q)).toBeLessThan(1e-5);
      for (const v of Object.values(widths(limits.specs[J]!))) expect(v).toBeLessThanOrEqual(Math.PI);
      expect([0, 1, 3, 4].map((j) => jointData(limits, j))).toEqual(others);
    }
  });

  it("a hinge across its bone becomes a cone bending up/down, closed sideways and in twist", () => {
    // The bone of joint 2 (knee → ankle) in the rest frame, and a hinge axis across it.
    const limits = createJointLimits(rig);
    const a = [...limits.boneAxis.subarray(3 * J, 3 * J + 3)];
    const other = Math.abs(a[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
    const c = [
      a[1] * other[2] - a[2] * other[1],
      a[2] * other[0] - a[0] * other[2],
      a[0] * other[1] - a[1] * other[0],
    ];
    const h = c.map((v) => v / Math.hypot(c[0], c[1], c[2]));
    // Axes are given in the parent frame: restLocal · (h, 0) · restLocal⁻¹.
    const rq = [...limits.restLocal.subarray(4 * J, 4 * J + 4)];
    const [px, py, pz, pw] = localOf(limits, J, [...h, 0]);
    const [cx, cy, cz, cw] = [-rq[0], -rq[1], -rq[2], rq[3]];
    const axisParent: [number, number, number] = [
      pw * cx + px * cw + py * cz - pz * cy,
      pw * cy - px * cz + py * cw + pz * cx,
      pw * cz + px * cy - py * cx + pz * cw,
    ];
    setJointLimit(limits, J, { hinge: { axis: axisParent, min: -10 * DEG, max: 100 * DEG } });
    expect(Math.max(...axisOf(limits).map((v, k) => Math.abs(v - h[k])))).toBeLessThan(1e-9);
    // 30° about the bone axis: pure twist, which a hinge across the bone cannot do.
    expect(widenJointLimit(limits, J, localOf(limits, J, turn(a, 30 * DEG)))).toBe(true);
    const spec = limits.specs[J]!;
    expect(spec.swing!.up).toBeCloseTo(100 * DEG, 6);
    expect(spec.swing!.down).toBeCloseTo(10 * DEG, 6);
    expect(spec.swing!.right).toBeLessThan(1e-9);
    expect(spec.swing!.left).toBeLessThan(1e-9);
    expect(spec.twist!.min).toBeCloseTo(0, 9);
    expect(spec.twist!.max).toBeCloseTo(30 * DEG, 9);
  });

  it("keeps a hinge within hingeTolerance, widening its range by the angle the solver measures", () => {
    const limits = limitsWith(HINGE);
    const axis = axisOf(limits);
    const bone = [...limits.boneAxis.subarray(3 * J, 3 * J + 3)];
    // 130° about the axis, then 2° about the bone: off the axis by 2°.
    const h = turn(axis, 130 * DEG),
      t = turn(bone, 2 * DEG);
    const q = localOf(limits, J, [
      t[3] * h[0] + t[0] * h[3] + t[1] * h[2] - t[2] * h[1],
      t[3] * h[1] - t[0] * h[2] + t[1] * h[3] + t[2] * h[0],
      t[3] * h[2] + t[0] * h[1] - t[1] * h[0] + t[2] * h[3],
      t[3] * h[3] - t[0] * h[0] - t[1] * h[1] - t[2] * h[2],
    ]);
    expect(widenJointLimit(limits, J, q, { hingeTolerance: 5 * DEG })).toBe(true);
    expect(limits.flags[J]).toBe(LIMIT_HINGE);
    // Projected, only the off-axis part goes: the hinge angle is inside the new range.
    const delta = deltaOf(limits, J, q);
    projectRotation(limits, J, delta, 0, scratch, 0);
    expect(scratch[7]).toBe(0);
    // The default tolerance does not keep it.
    const strict = limitsWith(HINGE);
    widenJointLimit(strict, J, q);
    expect(strict.flags[J]).toBe(LIMIT_SWING | LIMIT_TWIST);
    expect(moved(strict, J, q)).toBeLessThan(1e-9);
  });
});

describe("fitJointLimit: bad input changes nothing", () => {
  const cases: [string, () => unknown, string, number | undefined][] = [];
  const good = [0, 0, 0.3, 0.95];
  const add = (name: string, run: (l: JointLimits) => unknown, option: string, joint: number | undefined) =>
    cases.push([name, () => run, option, joint]);
  add("NaN", (l) => widenJointLimit(l, J, [NaN, 0, 0, 1]), "rotation", J);
  add("Infinity", (l) => widenJointLimit(l, J, [0, Infinity, 0, 1]), "rotation", J);
  add("a string", (l) => widenJointLimit(l, J, [0, "1", 0, 1] as unknown as number[]), "rotation", J);
  add("zero quaternion", (l) => widenJointLimit(l, J, [0, 0, 0, 0]), "rotation", J);
  add("tiny quaternion", (l) => widenJointLimit(l, J, [1e-14, 0, 0, 0]), "rotation", J);
  add("three numbers", (l) => widenJointLimit(l, J, [0, 0, 1]), "rotation", J);
  add("null rotation", (l) => widenJointLimit(l, J, null as unknown as number[]), "rotation", J);
  add(
    "a bad sample after good ones",
    (l) => fitJointLimit(l, J, [...good, 0.9, 0.1, 0, 0, ...good, NaN, 0, 0, 1]),
    "rotation",
    J,
  );
  add("joint -1", (l) => widenJointLimit(l, -1, good), "joint", undefined);
  add("joint past the rig", (l) => widenJointLimit(l, 5, good), "joint", undefined);
  add("joint 1.5", (l) => widenJointLimit(l, 1.5, good), "joint", undefined);
  add("joint NaN", (l) => widenJointLimit(l, NaN, good), "joint", undefined);
  add("hingeTolerance -1", (l) => widenJointLimit(l, J, good, { hingeTolerance: -1 }), "hingeTolerance", J);
  add("hingeTolerance NaN", (l) => widenJointLimit(l, J, good, { hingeTolerance: NaN }), "hingeTolerance", J);
  add("hingeTolerance 4", (l) => widenJointLimit(l, J, good, { hingeTolerance: 4 }), "hingeTolerance", J);
  add("options null", (l) => widenJointLimit(l, J, good, null as unknown as object), "options", J);

  for (const [name, make, option, joint] of cases) {
    it(`${name}: a FabrikError naming ${option}${joint === undefined ? "" : " and the joint"}`, () => {
      for (const spec of [CONE, HINGE]) {
        const limits = limitsWith(spec);
        const before = snapshot(limits);
        const run = make() as (l: JointLimits) => unknown;
        let error: unknown;
        try {
          run(limits);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(FabrikError);
        const e = error as FabrikError;
        expect(e.option).toBe(option);
        expect(e.joint).toBe(joint);
        if (joint !== undefined) expect(e.message).toContain('joint 2 ("knee")');
        else expect(e.message).toContain("joint index");
        expect(snapshot(limits)).toEqual(before);
      }
    });
  }
});
