import { describe, expect, it } from "vitest";
import { clampToQuarterEllipse, swingClearlyInside } from "../../plugin/solver/ellipticalSwingLimit.js";
import { measureSwingTwist, projectRotation } from "../../plugin/solver/jointLimitProjection.js";
import { createJointLimits, setJointLimit } from "../../plugin/solver/limits.js";
import { quatRotate } from "../../plugin/solver/quaternion.js";
import { createRig } from "../../plugin/solver/rig.js";
import { random } from "./fixtures.js";

/** Nearest point of the quarter ellipse (ex, ey) to (x, y): dense samples, then golden-section refinement. */
function nearestByScan(x: number, y: number, ex: number, ey: number): [number, number] {
  const at = (t: number) => Math.hypot(ex * Math.cos(t) - x, ey * Math.sin(t) - y);
  const n = 4000;
  let best = 0;
  for (let i = 1; i <= n; i++) if (at((i / n) * (Math.PI / 2)) < at((best / n) * (Math.PI / 2))) best = i;
  let lo = (Math.max(0, best - 1) / n) * (Math.PI / 2),
    hi = (Math.min(n, best + 1) / n) * (Math.PI / 2);
  const phi = (Math.sqrt(5) - 1) / 2;
  for (let i = 0; i < 200; i++) {
    const a = hi - phi * (hi - lo),
      b = lo + phi * (hi - lo);
    if (at(a) < at(b)) hi = b;
    else lo = a;
  }
  const t = 0.5 * (lo + hi);
  return [ex * Math.cos(t), ey * Math.sin(t)];
}

describe("clampToQuarterEllipse", () => {
  it("finds the nearest boundary point of 3000 random outside points, for eccentricities up to 1000:1", () => {
    const rand = random(11);
    const s = new Float64Array(4);
    let worst = 0;
    for (let i = 0; i < 3000; i++) {
      // Semi-axes from 0.001 to 3 rad, so some quarters are 1000 times wider than tall.
      const ex = 0.001 + 3 * rand() ** 3,
        ey = 0.001 + 3 * rand() ** 3;
      const x = 4 * rand(),
        y = 4 * rand();
      if ((x / ex) ** 2 + (y / ey) ** 2 <= 1) continue;
      s.set([x, y, ex, ey]);
      expect(clampToQuarterEllipse(s, 0)).toBe(true);
      const [bx, by] = nearestByScan(x, y, ex, ey);
      const gotDistance = Math.hypot(s[0] - x, s[1] - y),
        bestDistance = Math.hypot(bx - x, by - y);
      // On the ellipse, and no further from the point than the scan's nearest (to its own precision).
      expect(Math.abs((s[0] / ex) ** 2 + (s[1] / ey) ** 2 - 1)).toBeLessThan(1e-9);
      expect(gotDistance).toBeLessThanOrEqual(bestDistance + 1e-9);
      worst = Math.max(worst, Math.hypot(s[0] - bx, s[1] - by));
    }
    expect(worst).toBeLessThan(1e-6);
  });

  it("leaves inside points and boundary points where they are", () => {
    const s = Float64Array.of(0.3, 0.1, 0.8, 0.5);
    expect(clampToQuarterEllipse(s, 0)).toBe(false);
    expect(Array.from(s.subarray(0, 2))).toEqual([0.3, 0.1]);
    const c = Math.cos(0.7),
      n = Math.sin(0.7);
    s.set([0.8 * c, 0.5 * n, 0.8, 0.5]);
    clampToQuarterEllipse(s, 0);
    expect(s[0]).toBeCloseTo(0.8 * c, 12);
    expect(s[1]).toBeCloseTo(0.5 * n, 12);
  });

  it("a point a hair off the major axis lands on the ellipse, finite (t + 1 rounds to 0 there)", () => {
    for (const [x, y, ex, ey] of [
      [2, 1e-20, 1, 0.5],
      [0.9, 1e-300, 0.8, 0.3],
      [1e-20, 3, 0.4, 1.2],
    ]) {
      const s = Float64Array.of(x, y, ex, ey);
      clampToQuarterEllipse(s, 0);
      expect(Number.isFinite(s[0]) && Number.isFinite(s[1])).toBe(true);
      const [bx, by] = nearestByScan(x, y, ex, ey);
      expect(Math.hypot(s[0] - bx, s[1] - by)).toBeLessThan(1e-6);
    }
  });
});

describe("swingClearlyInside", () => {
  it("says inside only where the full swing measurement finds nothing to clamp (400 cones, 200,000 rotations)", () => {
    const rand = random(23);
    const q = new Float64Array(4),
      d = new Float64Array(3),
      split = new Float64Array(12),
      s = new Float64Array(4),
      scratch = new Float64Array(16);
    let inside = 0;
    for (let cone = 0; cone < 400; cone++) {
      const tilt = [rand() - 0.5, rand() - 0.5, rand() - 0.5];
      const rig = createRig({
        parents: [-1, 0, 1],
        restPositions: [0, 0, 0, 0, 1, 0, tilt[0], 1 + tilt[1], tilt[2]],
      });
      const limits = createJointLimits(rig);
      // Sides from none (a flattened cone) through tiny to a full π.
      const side = () => {
        const r = rand();
        return r < 0.1 ? 0 : r < 0.2 ? 1e-10 * rand() : r < 0.3 ? Math.PI : Math.PI * rand();
      };
      setJointLimit(limits, 1, { swing: { up: side(), right: side(), down: side(), left: side() } });
      const j3 = 3,
        a = limits.boneAxis;
      for (let i = 0; i < 500; i++) {
        const x = rand() - 0.5,
          y = rand() - 0.5,
          z = rand() - 0.5;
        const half = 0.5 * Math.PI * rand() * (rand() < 0.5 ? 1 : 0.3),
          sin = Math.sin(half) / Math.hypot(x, y, z);
        q.set([x * sin, y * sin, z * sin, Math.cos(half)]);
        // Some on the boundary itself, where rounding decides the side.
        if (rand() < 0.3) projectRotation(limits, 1, q, 0, scratch, 0);
        quatRotate(d, 0, q, 0, a, j3);
        const cos = d[0] * a[j3] + d[1] * a[j3 + 1] + d[2] * a[j3 + 2];
        const p = [d[0] - cos * a[j3], d[1] - cos * a[j3 + 1], d[2] - cos * a[j3 + 2]];
        if (!swingClearlyInside(limits, 1, p[0], p[1], p[2], cos)) continue;
        inside++;
        measureSwingTwist(limits, 1, q, 0, split, 0);
        const sx = split[10],
          sy = split[11];
        s[0] = Math.abs(sx);
        s[1] = Math.abs(sy);
        s[2] = sx >= 0 ? limits.swing[5] : limits.swing[7];
        s[3] = sy >= 0 ? limits.swing[4] : limits.swing[6];
        expect(clampToQuarterEllipse(s, 0)).toBe(false);
      }
    }
    // The test is not vacuous: most cones hold rotations well inside them.
    expect(inside).toBeGreaterThan(20_000);
  });
});
