import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FabrikError, compilePlan, createRig, solvePlan, type Rig } from "../../plugin/index.js";
import {
  boneLengths,
  chainReach,
  distance,
  hand,
  poseFrom,
  random,
  straightChain,
  yTree,
} from "./fixtures.js";

// Properties run from a fixed seed so a red run is reproducible; fast-check prints the seed and path on failure.
fc.configureGlobal({ seed: 20261121, numRuns: 300 });

const unitVector = fc
  .tuple(
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.double({ min: -1, max: 1, noNaN: true }),
  )
  .filter(([x, y, z]) => x * x + y * y + z * z > 1e-3)
  .map(([x, y, z]) => {
    const l = Math.hypot(x, y, z);
    return [x / l, y / l, z / l] as const;
  });

/** A chain whose bones point in arbitrary directions, with arbitrary (sometimes zero) lengths. */
const arbitraryChain = fc
  .array(
    fc.record({
      length: fc.oneof(fc.double({ min: 0.05, max: 3, noNaN: true }), fc.constant(0)),
      direction: unitVector,
    }),
    {
      minLength: 1,
      maxLength: 12,
    },
  )
  .map((bones) => {
    const parents = [-1];
    const positions = [0, 0, 0];
    bones.forEach((bone, i) => {
      parents.push(i);
      const k = 3 * i;
      positions.push(
        positions[k] + bone.length * bone.direction[0],
        positions[k + 1] + bone.length * bone.direction[1],
        positions[k + 2] + bone.length * bone.direction[2],
      );
    });
    return createRig({ parents, restPositions: positions });
  });

const point = fc.tuple(
  fc.double({ min: -20, max: 20, noNaN: true }),
  fc.double({ min: -20, max: 20, noNaN: true }),
  fc.double({ min: -20, max: 20, noNaN: true }),
);

function expectLengthsKept(rig: Rig, before: Float64Array, after: Float64Array): void {
  const a = boneLengths(rig, before),
    b = boneLengths(rig, after);
  for (let i = 0; i < rig.jointCount; i++) {
    expect(Math.abs(a[i] - b[i])).toBeLessThanOrEqual(1e-9 * Math.max(a[i], 1e-12) + 1e-12);
  }
}

function expectFinite(values: Float64Array): void {
  for (const v of values) expect(Number.isFinite(v)).toBe(true);
}

/** The tip of the same chain after rotating each bone to a random direction: a target known to be reachable. */
function reachableTarget(rig: Rig, seed: number): Float64Array {
  const rand = random(seed);
  const p = new Float64Array(3 * rig.jointCount);
  for (let j = 1; j < rig.jointCount; j++) {
    let x, y, z, l;
    do {
      x = 2 * rand() - 1;
      y = 2 * rand() - 1;
      z = 2 * rand() - 1;
      l = Math.hypot(x, y, z);
    } while (l < 0.1 || l > 1);
    const len = rig.restLengths[j],
      q = rig.parents[j];
    p[3 * j] = p[3 * q] + (len * x) / l;
    p[3 * j + 1] = p[3 * q + 1] + (len * y) / l;
    p[3 * j + 2] = p[3 * q + 2] + (len * z) / l;
  }
  const tip = rig.jointCount - 1;
  return Float64Array.of(p[3 * tip], p[3 * tip + 1], p[3 * tip + 2]);
}

describe("solvePlan on single chains", () => {
  it("keeps every bone length to 1e-9 (relative), the root in place, and writes no NaN, for any target", () => {
    fc.assert(
      fc.property(arbitraryChain, point, (rig, target) => {
        const plan = compilePlan(rig, { effectors: [{ joint: rig.jointCount - 1 }] });
        const positions = rig.restPositions.slice();
        const report = solvePlan(plan, poseFrom(plan, positions), Float64Array.from(target), {
          maxIterations: 50,
        });
        expectFinite(positions);
        expectLengthsKept(rig, rig.restPositions, positions);
        expect(Array.from(positions.subarray(0, 3))).toEqual(Array.from(rig.restPositions.subarray(0, 3)));
        expect(report.iterations).toBeLessThanOrEqual(50);
        expect(report.residuals[0]).toBeCloseTo(distance(positions, rig.jointCount - 1, target, 0), 12);
      }),
    );
  });

  it("converges on targets the chain can reach (forward kinematics of a random pose)", () => {
    let iterations = 0,
      runs = 0;
    fc.assert(
      fc.property(
        arbitraryChain.filter((rig) => rig.jointCount >= 3),
        fc.integer(),
        (rig, seed) => {
          const target = reachableTarget(rig, seed);
          const reach = chainReach(rig, rig.jointCount - 1);
          const plan = compilePlan(rig, { effectors: [{ joint: rig.jointCount - 1 }] });
          const positions = rig.restPositions.slice();
          const tolerance = 1e-3 * Math.max(reach, 1e-9);
          const report = solvePlan(plan, poseFrom(plan, positions), target, {
            tolerance,
            maxIterations: 500,
          });
          iterations += report.iterations;
          runs++;
          expect(report.converged).toBe(true);
          expect(report.maxResidual).toBeLessThanOrEqual(tolerance);
          expectLengthsKept(rig, rig.restPositions, positions);
        },
      ),
    );
    expect(iterations / runs).toBeLessThan(60);
  });

  it("straightens toward an unreachable target in one step", () => {
    const rig = straightChain(5);
    const plan = compilePlan(rig, { effectors: [{ joint: 5 }] });
    const positions = rig.restPositions.slice();
    const target = Float64Array.of(6, 8, 0); // 10 away, reach 5
    const report = solvePlan(plan, poseFrom(plan, positions), target);
    expect(report.iterations).toBe(1);
    expect(report.converged).toBe(false);
    expect(report.maxResidual).toBeCloseTo(5, 12);
    for (let j = 0; j <= 5; j++) {
      expect(positions[3 * j]).toBeCloseTo(0.6 * j, 12);
      expect(positions[3 * j + 1]).toBeCloseTo(0.8 * j, 12);
      expect(positions[3 * j + 2]).toBe(0);
    }
  });

  it("does nothing when the effector is already within tolerance", () => {
    const rig = straightChain(3);
    const plan = compilePlan(rig, { effectors: [{ joint: 3 }] });
    const positions = rig.restPositions.slice();
    const report = solvePlan(plan, poseFrom(plan, positions), Float64Array.of(0, 3.0005, 0), {
      tolerance: 1e-3,
    });
    expect(report.iterations).toBe(0);
    expect(report.converged).toBe(true);
    expect(positions).toEqual(rig.restPositions);
  });

  it("moves only the bones within the chain length; everything else keeps its input position", () => {
    const rig = straightChain(6);
    const plan = compilePlan(rig, { effectors: [{ joint: 6, chainLength: 2 }] });
    const positions = rig.restPositions.slice();
    solvePlan(plan, poseFrom(plan, positions), Float64Array.of(1, 4.5, 0));
    expect(Array.from(positions.subarray(0, 15))).toEqual(Array.from(rig.restPositions.subarray(0, 15)));
    expect(positions[15]).not.toBe(0);
  });

  it("is deterministic: the same input gives bit-identical output", () => {
    const rig = straightChain(8);
    const plan = compilePlan(rig, { effectors: [{ joint: 8 }] });
    const a = rig.restPositions.slice(),
      b = rig.restPositions.slice();
    solvePlan(plan, poseFrom(plan, a), Float64Array.of(2, 3, 1));
    solvePlan(plan, poseFrom(plan, b), Float64Array.of(2, 3, 1));
    expect(b).toEqual(a);
  });
});

describe("solvePlan on degenerate input", () => {
  it("bends a fully collinear chain whose target lies on its own line, and converges", () => {
    for (const target of [
      [0, 5, 0], // inside the reach, on the line
      [0, -3, 0], // behind the base, on the line
      [0, 0, 0], // exactly at the root
    ]) {
      const rig = straightChain(10);
      const plan = compilePlan(rig, { effectors: [{ joint: 10 }] });
      const positions = rig.restPositions.slice();
      const report = solvePlan(plan, poseFrom(plan, positions), Float64Array.from(target), {
        tolerance: 1e-3,
        maxIterations: 200,
      });
      expectFinite(positions);
      expect(report.converged, `target ${target}`).toBe(true);
      expectLengthsKept(rig, rig.restPositions, positions);
    }
  });

  it("reaches a target exactly at the root when the bones can close a loop", () => {
    const rig = bentFour();
    const plan = compilePlan(rig, { effectors: [{ joint: 4 }] });
    const positions = rig.restPositions.slice();
    const report = solvePlan(plan, poseFrom(plan, positions), Float64Array.of(0, 0, 0), {
      tolerance: 1e-4,
      maxIterations: 500,
    });
    expect(report.converged).toBe(true);
    expectLengthsKept(rig, rig.restPositions, positions);
  });

  it("gets as close as the bones allow when a target at the root is out of reach (one long bone)", () => {
    // Bones 1 and 3: the tip can never come closer than 2 to the root.
    const rig = createRig({ parents: [-1, 0, 1], restPositions: [0, 0, 0, 0, 1, 0, 3, 1, 0] });
    const plan = compilePlan(rig, { effectors: [{ joint: 2 }] });
    const positions = rig.restPositions.slice();
    const report = solvePlan(plan, poseFrom(plan, positions), Float64Array.of(0, 0, 0), {
      maxIterations: 200,
    });
    expectFinite(positions);
    expectLengthsKept(rig, rig.restPositions, positions);
    expect(report.converged).toBe(false);
    expect(report.maxResidual).toBeGreaterThanOrEqual(2 - 1e-9);
    expect(report.maxResidual).toBeLessThan(2.01);
  });

  it("handles zero-length bones and coincident joints without NaN", () => {
    // joint 2 sits on joint 1 (zero-length bone); joint 4 folds back onto joint 2 (coincident, non-adjacent).
    const rig = createRig({
      parents: [-1, 0, 1, 2, 3, 4],
      restPositions: [0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 2, 0],
    });
    const plan = compilePlan(rig, { effectors: [{ joint: 5 }] });
    for (const target of [
      [0.5, 1.5, 0.3],
      [0, 1, 0], // on the coincident joints
      [0, 0, 0], // at the root
      [9, 9, 9], // unreachable
    ]) {
      const positions = rig.restPositions.slice();
      solvePlan(plan, poseFrom(plan, positions), Float64Array.from(target), { maxIterations: 100 });
      expectFinite(positions);
      expectLengthsKept(rig, rig.restPositions, positions);
    }
  });

  it("a chain of only zero-length bones stays where it is", () => {
    const rig = createRig({ parents: [-1, 0, 1], restPositions: [1, 2, 3, 1, 2, 3, 1, 2, 3] });
    const plan = compilePlan(rig, { effectors: [{ joint: 2 }] });
    const positions = rig.restPositions.slice();
    const report = solvePlan(plan, poseFrom(plan, positions), Float64Array.of(4, 5, 6));
    expect(positions).toEqual(rig.restPositions);
    expect(report.maxResidual).toBeCloseTo(Math.sqrt(27), 12);
  });

  it("a single bone points at its target (or keeps its direction when the target is on its base)", () => {
    const rig = straightChain(1);
    const plan = compilePlan(rig, { effectors: [{ joint: 1 }] });
    const positions = rig.restPositions.slice();
    solvePlan(plan, poseFrom(plan, positions), Float64Array.of(0.3, 0, 0.4));
    expect(Array.from(positions.subarray(3))).toEqual([0.6, 0, 0.8].map((v) => expect.closeTo(v, 12)));
    const again = rig.restPositions.slice();
    solvePlan(plan, poseFrom(plan, again), Float64Array.of(0, 0, 0));
    expect(again).toEqual(rig.restPositions);
  });
});

describe("solvePlan with several effectors (sub-base centroids)", () => {
  it("reaches two reachable targets on a Y-shaped tree", () => {
    const rig = yTree(4, 3);
    const plan = compilePlan(rig, { effectors: [{ joint: "left3" }, { joint: "right3" }] });
    const positions = rig.restPositions.slice();
    const targets = Float64Array.of(-2, 4.5, 1, 2.2, 5.5, -1);
    const report = solvePlan(plan, poseFrom(plan, positions), targets, {
      tolerance: 1e-4,
      maxIterations: 200,
    });
    expect(report.converged).toBe(true);
    expect(report.residuals[0]).toBeLessThanOrEqual(1e-4);
    expect(report.residuals[1]).toBeLessThanOrEqual(1e-4);
    expectLengthsKept(rig, rig.restPositions, positions);
  });

  it("puts the sub-base at the weighted compromise when the targets pull apart", () => {
    const rig = yTree(4, 3);
    const top = 4;
    const targets = Float64Array.of(-20, 4, 0, 20, 4, 0); // both unreachable, mirror images
    const solve = (left: number, right: number) => {
      const plan = compilePlan(rig, {
        effectors: [
          { joint: "left3", weight: left },
          { joint: "right3", weight: right },
        ],
      });
      const positions = rig.restPositions.slice();
      const report = solvePlan(plan, poseFrom(plan, positions), targets, { maxIterations: 200 });
      expectFinite(positions);
      expectLengthsKept(rig, rig.restPositions, positions);
      return { x: positions[3 * top], residuals: Array.from(report.residuals), report };
    };
    const even = solve(1, 1);
    expect(Math.abs(even.x)).toBeLessThan(1e-9); // symmetric pull: the trunk stays upright
    expect(even.residuals[0]).toBeCloseTo(even.residuals[1], 9);
    expect(even.report.converged).toBe(false);
    expect(even.report.iterations).toBeLessThan(200); // stopped because the error stopped improving
    const leftHeavy = solve(3, 1);
    expect(leftHeavy.x).toBeLessThan(-0.1); // leans toward the heavier effector
    expect(leftHeavy.residuals[0]).toBeLessThan(leftHeavy.residuals[1]);
  });

  it("reaches five fingertip targets on a hand (palm sub-base) and keeps every bone length", () => {
    const rig = hand();
    const tips = ["thumb3", "index3", "middle3", "ring3", "pinky3"].map((n) => rig.names!.indexOf(n));
    const plan = compilePlan(rig, { effectors: tips.map((joint) => ({ joint })) });
    // Targets: each fingertip curled toward the palm and the whole hand shifted a little - reachable together.
    const targets = new Float64Array(15);
    tips.forEach((tip, i) => {
      targets[3 * i] = rig.restPositions[3 * tip] * 0.8 + 0.2;
      targets[3 * i + 1] = rig.restPositions[3 * tip + 1] - 0.25;
      targets[3 * i + 2] = rig.restPositions[3 * tip + 2] + 0.3;
    });
    const positions = rig.restPositions.slice();
    const report = solvePlan(plan, poseFrom(plan, positions), targets, {
      tolerance: 1e-3,
      maxIterations: 300,
    });
    expect(report.converged).toBe(true);
    expectLengthsKept(rig, rig.restPositions, positions);
    expect(Array.from(positions.subarray(0, 3))).toEqual([0, 0, 0]);
  });

  it("keeps pinned joints and bases in place, and carries inactive branches along rigidly", () => {
    const rig = yTree(4, 3);
    const plan = compilePlan(rig, { effectors: [{ joint: "left3" }], pinned: ["trunk2"] });
    const positions = rig.restPositions.slice();
    solvePlan(plan, poseFrom(plan, positions), Float64Array.of(-3, 2, 2), { maxIterations: 50 });
    for (const j of [0, 1, 2]) {
      expect(Array.from(positions.subarray(3 * j, 3 * j + 3))).toEqual(
        Array.from(rig.restPositions.subarray(3 * j, 3 * j + 3)),
      );
    }
    // The right arm is not solved but hangs from the moving top of the trunk: its shape is kept exactly.
    const right = ["trunk4", "right1", "right2", "right3"].map((n) => rig.names!.indexOf(n));
    expect(plan.passiveJoints).toContain(right[1]);
    for (const a of right) {
      for (const b of right) {
        expect(distance(positions, a, positions, b)).toBeCloseTo(
          distance(rig.restPositions, a, rig.restPositions, b),
          9,
        );
      }
    }
    expect(distance(positions, right[1], rig.restPositions, right[1])).toBeGreaterThan(0.1);
  });

  it("solves random trees with random effector sets without NaN, keeping every bone length", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 40 }),
        fc.integer(),
        fc.integer({ min: 1, max: 6 }),
        (count, seed, effectorCount) => {
          const rand = random(seed);
          const parents = [-1];
          const positions = [0, 0, 0];
          for (let j = 1; j < count; j++) {
            const p = Math.floor(rand() * j);
            parents.push(p);
            positions.push(
              positions[3 * p] + rand() - 0.5,
              positions[3 * p + 1] + rand(),
              positions[3 * p + 2] + rand() - 0.5,
            );
          }
          const rig = createRig({ parents, restPositions: positions });
          const joints = new Set<number>();
          while (joints.size < Math.min(effectorCount, count - 1))
            joints.add(1 + Math.floor(rand() * (count - 1)));
          const plan = compilePlan(rig, {
            effectors: [...joints].map((joint) => ({ joint, weight: 0.5 + rand() })),
          });
          const targets = new Float64Array(3 * joints.size).map(() => 8 * rand() - 4);
          const pose = rig.restPositions.slice();
          const report = solvePlan(plan, poseFrom(plan, pose), targets, { maxIterations: 30 });
          expectFinite(pose);
          // Every bone keeps its length (solved ones and those carried along); joints that neither move nor hang
          // below a moving joint keep their input exactly.
          const before = boneLengths(rig, rig.restPositions),
            after = boneLengths(rig, pose);
          const carried = new Set([...plan.activeJoints, ...plan.passiveJoints]);
          for (let j = 0; j < count; j++) {
            expect(Math.abs(after[j] - before[j])).toBeLessThanOrEqual(1e-9 * before[j] + 1e-12);
            if (!carried.has(j))
              expect(Array.from(pose.subarray(3 * j, 3 * j + 3))).toEqual(positions.slice(3 * j, 3 * j + 3));
          }
          expect(Number.isFinite(report.maxResidual)).toBe(true);
        },
      ),
    );
  });
});

describe("solvePlan input validation", () => {
  const rig = straightChain(3);
  const plan = compilePlan(rig, { effectors: [{ joint: "j3" }] });

  function rejectsUnchanged(call: (positions: Float64Array) => unknown, pattern: RegExp): void {
    const positions = rig.restPositions.slice();
    expect(() => call(positions)).toThrow(FabrikError);
    expect(() => call(positions)).toThrow(pattern);
    expect(positions).toEqual(rig.restPositions);
  }

  it("rejects a non-finite target, naming the effector and its joint, and changes nothing", () => {
    rejectsUnchanged(
      (p) => solvePlan(plan, poseFrom(plan, p), Float64Array.of(NaN, 0, 0)),
      /target of effector 0 \(joint 3 \("j3"\)\) is not finite/,
    );
    rejectsUnchanged(
      (p) => solvePlan(plan, poseFrom(plan, p), Float64Array.of(0, Infinity, 0)),
      /effector 0/,
    );
  });
  it("rejects non-finite joint positions, naming the joint", () => {
    const positions = rig.restPositions.slice();
    positions[7] = NaN;
    expect(() => solvePlan(plan, poseFrom(plan, positions), Float64Array.of(1, 1, 1))).toThrow(
      /position of joint 2 \("j2"\) is not finite/,
    );
  });
  it("rejects arrays of the wrong size and bad settings, naming them", () => {
    rejectsUnchanged(
      (p) => solvePlan(plan, poseFrom(plan, p.subarray(0, 6)), Float64Array.of(1, 1, 1)),
      /positions must be a Float64Array of 3 numbers per joint \(12\)/,
    );
    rejectsUnchanged((p) => solvePlan(plan, poseFrom(plan, p), new Float64Array(2)), /targets/);
    rejectsUnchanged(
      (p) => solvePlan(plan, poseFrom(plan, p), Float64Array.of(1, 1, 1), { tolerance: -1 }),
      /tolerance must be a finite number >= 0, got -1/,
    );
    rejectsUnchanged(
      (p) => solvePlan(plan, poseFrom(plan, p), Float64Array.of(1, 1, 1), { tolerance: NaN }),
      /tolerance/,
    );
    rejectsUnchanged(
      (p) => solvePlan(plan, poseFrom(plan, p), Float64Array.of(1, 1, 1), { maxIterations: 0 }),
      /maxIterations must be a whole number >= 1, got 0/,
    );
    rejectsUnchanged(
      (p) => solvePlan(plan, poseFrom(plan, p), Float64Array.of(1, 1, 1), { maxIterations: 2.5 }),
      /maxIterations/,
    );
  });
});

/** Four bones of length 1 bent into an open zig-zag: they can fold into a closed square. */
function bentFour(): Rig {
  return createRig({
    parents: [-1, 0, 1, 2, 3],
    restPositions: [0, 0, 0, 0, 1, 0, 0.6, 1.8, 0, 0.6, 2.8, 0, 1.2, 3.6, 0],
  });
}

describe("two-bone limbs near full extension", () => {
  it("a nearly straight leg reaches a target a few millimetres higher in a couple of iterations", () => {
    // Thigh and shin of 0.45 m, knee bent so the leg is at 99.95 % of its length; raise the foot by 5 mm.
    const bend = Math.acos(0.9995) * 2;
    const rig = createRig({
      parents: [-1, 0, 1],
      restPositions: [
        0,
        1,
        0,
        0,
        1 - 0.45 * Math.cos(bend / 2),
        0.45 * Math.sin(bend / 2),
        0,
        1 - 0.9 * 0.9995,
        0,
      ],
    });
    const plan = compilePlan(rig, { effectors: [{ joint: 2 }] });
    const positions = rig.restPositions.slice();
    const report = solvePlan(
      plan,
      poseFrom(plan, positions),
      Float64Array.of(0, 1 - 0.9 * 0.9995 + 0.005, 0),
      {
        tolerance: 1e-5,
        maxIterations: 100,
      },
    );
    expect(report.converged).toBe(true);
    expect(report.iterations).toBeLessThanOrEqual(2);
    expect(positions[5]).toBeGreaterThan(0); // the knee still bends forward, as it did
  });
});
