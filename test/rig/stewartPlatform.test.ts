import { describe, expect, it } from "vitest";
import {
  createPlatformPose,
  createStewartPlatform,
  PLATFORM_TOLERANCE,
  stewartForwardKinematics,
  stewartInverseKinematics,
  stewartNearestReachable,
} from "../../plugin/index.js";
import { AGREE, classicPlatform, compareWithNewton, randomCases } from "./stewartCases.js";
import { classicLayout, lengthsOf, matFromQuat, poseError } from "./stewartReference.js";

/*
 * Stewart–Gough platforms (issue 20): inverse kinematics against the closure equations, forward kinematics
 * by FABRIK passes against an independent Newton solver over random in-range actuations, warm starts, the
 * nearest reachable pose.
 */

describe("Stewart platform inverse kinematics", () => {
  const platform = classicPlatform();

  it("puts the default home above the base with every leg in range", () => {
    const lengths = new Float64Array(6);
    expect(stewartInverseKinematics(platform, platform.home, lengths)).toBe(true);
    expect(platform.home.position[2]).toBeGreaterThan(0);
    const mean = lengths.reduce((a, b) => a + b) / 6;
    expect(mean).toBeCloseTo(1.25, 6);
  });

  it("gives the distance between each leg's joints, and whether all are in range", () => {
    const cases = randomCases(platform, 200, 11);
    const lengths = new Float64Array(6);
    for (const c of cases) {
      const pose = { position: c.position, orientation: c.orientation };
      expect(stewartInverseKinematics(platform, pose, lengths)).toBe(true);
      const expected = lengthsOf(
        platform.baseAnchors,
        platform.platformAnchors,
        c.position,
        matFromQuat(c.orientation),
      );
      for (let i = 0; i < 6; i++) expect(lengths[i]).toBeCloseTo(expected[i], 12);
    }
    const high = createPlatformPose([0, 0, 3]);
    expect(stewartInverseKinematics(platform, high, lengths)).toBe(false);
    expect(Math.min(...lengths)).toBeGreaterThan(1.6);
  });
});

describe("Stewart platform forward kinematics by FABRIK passes", () => {
  const platform = classicPlatform();

  it("agrees with Newton's method from the same start on ≥ 99.9 % of 2000 random in-range actuations", () => {
    const result = compareWithNewton(platform, randomCases(platform, 2000, 1));
    expect(result.agree / result.count).toBeGreaterThanOrEqual(0.999);
    expect(result.converged / result.count).toBeGreaterThanOrEqual(0.999);
    // Every converged result closes every leg to the tolerance.
    expect(result.maxLegResidual).toBeLessThanOrEqual(PLATFORM_TOLERANCE);
    // The pose the lengths came from is nearly always the one found from home.
    expect(result.recovered / result.count).toBeGreaterThanOrEqual(0.99);
  });

  it("runs plain passes to the same poses when acceleration is off", () => {
    const cases = randomCases(platform, 100, 2, 0.4, 0.35);
    const plain = compareWithNewton(platform, cases, { accelerate: false, maxIterations: 5000 });
    const mixed = compareWithNewton(platform, cases);
    expect(plain.agree).toBe(cases.length);
    expect(mixed.agree).toBe(cases.length);
    expect(mixed.meanIterations).toBeLessThan(plain.meanIterations / 3);
  });

  it("follows a moving platform from its last pose in about a dozen passes", () => {
    const lengths = new Float64Array(6);
    const target = createPlatformPose();
    const pose = createPlatformPose(platform.home.position, platform.home.orientation);
    let most = 0,
      total = 0;
    for (let frame = 0; frame < 240; frame++) {
      const t = frame / 60;
      target.position.set([
        0.2 * Math.sin(t),
        0.15 * Math.cos(1.3 * t),
        platform.home.position[2] + 0.1 * Math.sin(2 * t),
      ]);
      const angle = 0.3 * Math.sin(0.7 * t);
      target.orientation.set([Math.sin(angle / 2) * 0.6, 0, Math.sin(angle / 2) * 0.8, Math.cos(angle / 2)]);
      expect(stewartInverseKinematics(platform, target, lengths)).toBe(true);
      const report = stewartForwardKinematics(platform, lengths, pose);
      expect(report.converged).toBe(true);
      expect(report.inRange).toBe(true);
      most = Math.max(most, report.iterations);
      total += report.iterations;
      const error = poseError(
        pose.position,
        matFromQuat(pose.orientation),
        target.position,
        matFromQuat(target.orientation),
        platform.size,
      );
      expect(error).toBeLessThan(AGREE);
    }
    expect(total / 240).toBeLessThanOrEqual(15);
    expect(most).toBeLessThanOrEqual(20);
  });

  it("does nothing when the start pose already closes every leg", () => {
    const lengths = new Float64Array(6);
    stewartInverseKinematics(platform, platform.home, lengths);
    const pose = createPlatformPose(platform.home.position, platform.home.orientation);
    const report = stewartForwardKinematics(platform, lengths, pose);
    expect(report.iterations).toBe(0);
    expect(Array.from(pose.position)).toEqual(Array.from(platform.home.position));
  });

  it("solves lengths outside the legs' ranges as given, and says so", () => {
    const lengths = new Float64Array(6);
    stewartInverseKinematics(platform, platform.home, lengths);
    lengths[0] = 1.7;
    const pose = createPlatformPose(platform.home.position, platform.home.orientation);
    const report = stewartForwardKinematics(platform, lengths, pose);
    expect(report.inRange).toBe(false);
    expect(report.converged).toBe(true);
    const legs = lengthsOf(
      platform.baseAnchors,
      platform.platformAnchors,
      pose.position,
      matFromQuat(pose.orientation),
    );
    expect(legs[0]).toBeCloseTo(1.7, 8);
  });
});

describe("Stewart platform nearest reachable pose", () => {
  const platform = classicPlatform();

  it("copies a reachable pose as it is", () => {
    const pose = createPlatformPose([0.1, 0, 1], [0, 0, Math.sin(0.1), Math.cos(0.1)]);
    const out = createPlatformPose();
    const report = stewartNearestReachable(platform, pose, out);
    expect(report.inRange).toBe(true);
    expect(report.iterations).toBe(0);
    expect(Array.from(out.position)).toEqual(Array.from(pose.position));
  });

  it("brings an unreachable pose back to one with every leg in range", () => {
    const lengths = new Float64Array(6);
    for (const height of [0.2, 2.2]) {
      const pose = createPlatformPose([0.3, -0.1, height]);
      const out = createPlatformPose();
      const report = stewartNearestReachable(platform, pose, out);
      expect(report.inRange).toBe(false);
      expect(report.converged).toBe(true);
      stewartInverseKinematics(platform, out, lengths);
      for (let i = 0; i < 6; i++) {
        expect(lengths[i]).toBeGreaterThanOrEqual(0.9 - 1e-9);
        expect(lengths[i]).toBeLessThanOrEqual(1.6 + 1e-9);
      }
      // Clamped lengths pull it toward the range: nearer the base when too high, further when too low.
      expect(height > 1 ? out.position[2] < height : out.position[2] > height).toBe(true);
    }
  });
});

describe("other layouts", () => {
  it("solves a platform with its own home, per-leg ranges and a tilted, offset base", () => {
    const { base, top } = classicLayout(1.5, 0.5);
    const shifted = base.map((v, i) => (i % 3 === 2 ? 0.05 * Math.sin(i) : v + 2));
    const platform = createStewartPlatform({
      baseAnchors: shifted,
      platformAnchors: top.map((v, i) => (i % 3 === 2 ? 0.1 : v)),
      minLength: [1, 1, 1, 1, 1, 1],
      maxLength: [2, 2, 2, 2, 2.2, 2.2],
      home: { position: [2, 2, 1.2] },
    });
    const result = compareWithNewton(platform, randomCases(platform, 300, 5));
    expect(result.agree / result.count).toBeGreaterThanOrEqual(0.99);
    expect(result.maxLegResidual).toBeLessThanOrEqual(PLATFORM_TOLERANCE);
  });
});
