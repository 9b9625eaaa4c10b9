import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { FrameContinuity } from "../../plugin/babylon/frameContinuity.js";
import type { PoseBlock } from "../../plugin/babylon/poseBlock.js";
import type { SolveReport } from "../../plugin/solver/plan.js";
import { OWN_CHARACTERS, loadCharacter, type Loaded } from "./characters.js";
import { attach, captureLocals } from "./fabrikHarness.js";

/*
 * Each frame's solve starts from the last frame's written pose carried on the animation (FrameContinuity).
 * The tentacle is one 24-bone chain: many poses meet a point target, so where a solve starts decides which.
 */

const tentacle = OWN_CHARACTERS.find((c) => c.folder === "tentacle")!;

function tipTarget(loaded: Loaded, ik: FabrikBehavior, offset: Vector3): Vector3 {
  const tip = ik.rig!.nodes[ik.effectors[0].joint]!;
  loaded.scene.incrementRenderId();
  return tip.computeWorldMatrix(true).getTranslation().add(offset);
}

/** The written local rotations of one rendered frame. */
function frame(loaded: Loaded, ik: FabrikBehavior): Float64Array {
  let written: Float64Array = new Float64Array(0);
  const o = ik.onSolvedObservable.add(() => (written = captureLocals(ik.rig!.nodes)));
  loaded.scene.render();
  o.remove();
  return written;
}

const largest = (a: Float64Array, b: Float64Array) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));

/** Moves the tip's target along a path, a frame a step (21 frames); returns the tip and the path's end. */
function followPath(loaded: Loaded, ik: FabrikBehavior): { joint: number; end: Vector3 } {
  const joint = ik.effectors[0].joint;
  const start = tipTarget(loaded, ik, new Vector3(0.3, -0.4, 0.5).scale(ik.height * 0.5));
  const end = start.add(new Vector3(-0.4, 0.2, 0).scale(ik.height * 0.5));
  for (let i = 0; i <= 20; i++) {
    ik.setTarget(joint, Vector3.Lerp(start, end, i / 20));
    frame(loaded, ik);
  }
  return { joint, end };
}

/** `ik` removed, the frame of a new behavior solving `joint` to `end` from the animation alone. */
function fromAnimation(loaded: Loaded, ik: FabrikBehavior, joint: number, end: Vector3): Float64Array {
  loaded.root.removeBehavior(ik);
  const fresh = attach(loaded);
  fresh.continuity = false;
  fresh.setTarget(joint, end);
  return frame(loaded, fresh);
}

describe("each frame starts from the last frame's answer (tentacle)", () => {
  let loaded: Loaded;
  beforeEach(async () => {
    loaded = await loadCharacter(tentacle);
    for (const g of loaded.scene.animationGroups) g.stop();
  });
  afterEach(() => loaded.engine.dispose());

  it("holds its pose under a target that stays, without drift, and meets it", () => {
    const ik = attach(loaded);
    const joint = ik.effectors[0].joint;
    const target = tipTarget(loaded, ik, new Vector3(0.3, -0.4, 0.5).scale(ik.height * 0.5));
    ik.setTarget(joint, target);
    let residual = Infinity;
    ik.onSolvedObservable.add(({ report }) => (residual = report.maxResidual));
    const first = frame(loaded, ik);
    expect(residual).toBeLessThanOrEqual(ik.tolerance * ik.height);
    let worst = 0;
    for (let i = 0; i < 30; i++) worst = Math.max(worst, largest(frame(loaded, ik), first));
    expect(worst).toBeLessThan(1e-12);
  });

  it("differs from a solve from the animation once the target has moved on", () => {
    const carried = attach(loaded);
    const { joint, end } = followPath(loaded, carried);
    const fromLast = frame(loaded, carried);
    expect(largest(fromLast, fromAnimation(loaded, carried, joint, end))).toBeGreaterThan(1e-3);
  });

  it("lets go with the weight: a frame written at weight 0 carries nothing into the next", () => {
    const ik = attach(loaded);
    const joint = ik.effectors[0].joint;
    const target = tipTarget(loaded, ik, new Vector3(-0.2, 0.5, 0.3).scale(ik.height * 0.5));
    const animated = captureLocals(ik.rig!.nodes);
    ik.setTarget(joint, target);
    for (let i = 0; i < 5; i++) frame(loaded, ik);
    ik.setTargetWeight(joint, 0);
    loaded.scene.render();
    expect(captureLocals(ik.rig!.nodes)).toEqual(animated);
    ik.setTargetWeight(joint, 1);
    const again = frame(loaded, ik);

    const fresh = attach(loaded);
    loaded.root.removeBehavior(ik);
    fresh.continuity = false;
    fresh.setTarget(joint, target);
    expect(frame(loaded, fresh)).toEqual(again);
  });

  it("starts from the animation again after a frame disabled", () => {
    const ik = attach(loaded);
    const joint = ik.effectors[0].joint;
    const target = tipTarget(loaded, ik, new Vector3(0.4, 0.1, -0.3).scale(ik.height * 0.5));
    ik.setTarget(joint, target);
    const first = frame(loaded, ik);
    const moved = tipTarget(loaded, ik, new Vector3(0, 0, 0)).add(new Vector3(0.1, 0, 0).scale(ik.height));
    ik.setTarget(joint, moved);
    frame(loaded, ik);
    ik.enabled = false;
    loaded.scene.render();
    ik.enabled = true;
    ik.setTarget(joint, target);
    expect(frame(loaded, ik)).toEqual(first);
  });

  it("starts from the animation again after resetContinuity(), and not without it", () => {
    const ik = attach(loaded);
    const { joint, end } = followPath(loaded, ik);
    const carried = frame(loaded, ik);
    ik.resetContinuity();
    const afterReset = frame(loaded, ik);
    const fresh = fromAnimation(loaded, ik, joint, end);
    expect(afterReset).toEqual(fresh);
    expect(largest(carried, fresh)).toBeGreaterThan(1e-3);
  });
});

/** A pose of `joints` joints (positions and orientations only, as keep and takeBack read them) and its report. */
function keptFrame(joints: number, effectors: number, seed: number) {
  const block = {
    positions: Float64Array.from({ length: 3 * joints }, (_, i) => seed + i),
    orientations: Float64Array.from({ length: 4 * joints }, (_, i) => seed - i),
  } as unknown as PoseBlock;
  const report: SolveReport = {
    iterations: 7,
    converged: false,
    residuals: Float64Array.from({ length: effectors }, (_, i) => seed + 0.5 * i),
    maxResidual: seed,
    escapes: 1,
    onLimit: Uint8Array.from({ length: joints }, (_, i) => (i + seed) % 2),
  };
  return { block, report };
}

describe("the kept pose of a carried solve tried again (shared by every character)", () => {
  it("comes back whole for a rig smaller than one kept before", () => {
    const large = keptFrame(40, 5, 3);
    new FrameContinuity(40, 5).keep(large.block, large.report);
    const small = keptFrame(10, 2, 1);
    const continuity = new FrameContinuity(10, 2);
    continuity.keep(small.block, small.report);
    const expected = keptFrame(10, 2, 1);
    const other = keptFrame(10, 2, 2);
    other.report.iterations = 5;
    continuity.takeBack(other.block, other.report);
    expect(other.block.positions).toEqual(expected.block.positions);
    expect(other.block.orientations).toEqual(expected.block.orientations);
    expect(other.report.residuals).toEqual(expected.report.residuals);
    expect(other.report.onLimit).toEqual(expected.report.onLimit);
    expect(other.report.iterations).toBe(12);
    expect(other.report.converged).toBe(false);
  });
});
