import { describe, expect, it } from "vitest";
import { clampToQuarterEllipse } from "../../plugin/solver/ellipticalSwingLimit.js";
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
