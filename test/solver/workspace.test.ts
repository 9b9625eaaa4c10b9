import { describe, expect, it } from "vitest";
import {
  FabrikError,
  compilePlan,
  createJointLimits,
  createPose,
  createRig,
  createSolveWorkspace,
  setJointLimit,
  solvePlan,
  type Pose,
  type SolveReport,
  type SolveSettings,
  type SolveWorkspace,
} from "../../plugin/index.js";
import { generatePoles, generateTargets } from "../fuzz/fuzzCase.js";
import {
  chance,
  generateEffectors,
  generateLimitSpec,
  generateRig,
  int,
  perturbPose,
  uniform,
} from "../fuzz/generate.js";
import { clonePose, random, straightChain, yTree } from "./fixtures.js";

function bytes(a: Float64Array | Uint8Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength).slice();
}

function reportOf(r: SolveReport): unknown {
  return [r.iterations, r.converged, r.maxResidual, r.escapes, bytes(r.residuals), bytes(r.onLimit)];
}

/** Every number of the workspace set to NaN: a solve that read one before writing it would show it. */
function poison(workspace: SolveWorkspace): void {
  for (const value of Object.values(workspace)) if (value instanceof Float64Array) value.fill(NaN);
  workspace.savedOnLimit.fill(7);
}

describe("SolveWorkspace", () => {
  it(
    "plans sharing one workspace solve bit for bit as with their own, whatever it held before",
    { timeout: 60_000 },
    () => {
      const shared = new Map<number, SolveWorkspace>();
      let solves = 0,
        limited = 0,
        escapes = 0;
      for (let seed = 1; seed <= 150; seed++) {
        const rand = random(seed);
        const { description, scale } = generateRig(rand);
        const rig = createRig(description);
        const limits = createJointLimits(rig);
        if (chance(rand, 0.7)) {
          for (let j = 0; j < rig.jointCount; j++) {
            if (!chance(rand, 0.6)) continue;
            const spec = generateLimitSpec(rand, rig, limits, j);
            if (spec.swing?.upAxis !== undefined) delete spec.swing.upAxis;
            if (spec.universal?.axis !== undefined) delete spec.universal.axis;
            setJointLimit(limits, j, spec);
          }
        }
        const effectors = generateEffectors(rand, rig);
        if (effectors.length === 0) continue;
        let workspace = shared.get(rig.jointCount);
        if (workspace === undefined)
          shared.set(rig.jointCount, (workspace = createSolveWorkspace(rig.jointCount)));
        const own = compilePlan(rig, { effectors, limits });
        const sharing = compilePlan(rig, { effectors, limits, workspace });
        expect(sharing.scratch.boneLength).toBe(workspace.boneLength);
        expect(own.scratch.boneLength).not.toBe(workspace.boneLength);

        let pose: Pose = perturbPose(rig, limits, createPose(rig), rand, uniform(rand, 0, Math.PI), true);
        for (let frame = 0; frame < 3; frame++) {
          const context = { rig, limits, plan: own, scale };
          const targets = generateTargets(rand, context, pose);
          const settings: SolveSettings = { maxIterations: int(rand, 1, 40) };
          if (own.effectorHasPole.includes(1)) settings.poles = generatePoles(rand, context, pose, targets);
          const a = clonePose(pose),
            b = clonePose(pose);
          solvePlan(own, a, targets, settings);
          poison(workspace);
          solvePlan(sharing, b, targets, settings);
          expect(bytes(b.positions), `seed ${seed} frame ${frame}`).toEqual(bytes(a.positions));
          expect(bytes(b.orientations), `seed ${seed} frame ${frame}`).toEqual(bytes(a.orientations));
          expect(reportOf(sharing.report), `seed ${seed} frame ${frame}`).toEqual(reportOf(own.report));
          solves++;
          if (limits.flags.some((f) => f !== 0)) limited++;
          escapes += own.report.escapes;
          pose = a;
        }
      }
      // The cases cover what the workspace is used for: limited solves and lock escapes (the saved poses).
      expect(solves).toBeGreaterThan(400);
      expect(limited).toBeGreaterThan(250);
      expect(escapes).toBeGreaterThan(500);
    },
  );

  it("is refused, by name, when made for another rig size or not made by createSolveWorkspace", () => {
    const rig = yTree();
    const effectors = [{ joint: "left3" }];
    const cases: [unknown, RegExp][] = [
      [createSolveWorkspace(rig.jointCount + 1), /was made for rigs of \d+ joints, this rig has \d+/],
      [null, /must come from createSolveWorkspace/],
      [
        { ...createSolveWorkspace(rig.jointCount), candidate: new Float64Array(3) },
        /workspace\.candidate` must be a/,
      ],
      [
        { ...createSolveWorkspace(rig.jointCount), savedOnLimit: new Float64Array(rig.jointCount) },
        /workspace\.savedOnLimit` must be a Uint8Array/,
      ],
    ];
    for (const [workspace, message] of cases) {
      let error: unknown;
      try {
        compilePlan(rig, { effectors, workspace: workspace as SolveWorkspace });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FabrikError);
      expect((error as FabrikError).option).toBe("workspace");
      expect((error as Error).message).toMatch(message);
    }
    expect(() => createSolveWorkspace(0)).toThrow(/jointCount must be a whole number >= 1, got 0/);
    expect(() => createSolveWorkspace(2.5)).toThrow(FabrikError);
  });

  it("serves plans of different rigs with the same joint count, each solving as with its own", () => {
    const a = straightChain(5),
      b = createRig({
        parents: [-1, 0, 0, 1, 2, 3],
        restPositions: [0, 0, 0, 1, 0, 0, -1, 0, 0, 2, 0, 0, -2, 0, 0, 3, 0, 0],
      });
    expect(a.jointCount).toBe(b.jointCount);
    const workspace = createSolveWorkspace(a.jointCount);
    const cases = [
      { rig: a, effectors: [{ joint: "j5" }], targets: Float64Array.of(2, 3, 0) },
      { rig: b, effectors: [{ joint: 5 }, { joint: 4 }], targets: Float64Array.of(1.5, 2, 0, -1, 1, 0) },
    ];
    const settings = { tolerance: 1e-9, maxIterations: 100 };
    const results = cases.map(({ rig, effectors, targets }) => {
      const pose = createPose(rig);
      solvePlan(compilePlan(rig, { effectors }), pose, targets, settings);
      return pose;
    });
    const plans = cases.map(({ rig, effectors }) => compilePlan(rig, { effectors, workspace }));
    for (let round = 0; round < 2; round++) {
      for (let k = 0; k < cases.length; k++) {
        const pose = createPose(cases[k].rig);
        solvePlan(plans[k], pose, cases[k].targets, settings);
        expect(bytes(pose.positions)).toEqual(bytes(results[k].positions));
        expect(bytes(pose.orientations)).toEqual(bytes(results[k].orientations));
      }
    }
    expect(plans[0].report.converged).toBe(true);
  });
});
