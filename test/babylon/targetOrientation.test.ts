import { Matrix, Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { rowsToQuaternion } from "../../plugin/rig/arrayMath.js";
import { random } from "./fabrikHarness.js";

describe("rowsToQuaternion", () => {
  it("inverts Babylon's Matrix.FromQuaternion for rotations of every size, half turns included", () => {
    const rnd = random(7);
    const cases: Quaternion[] = [
      Quaternion.Identity(),
      new Quaternion(1, 0, 0, 0),
      new Quaternion(0, 1, 0, 0),
      new Quaternion(0, 0, 1, 0),
      new Quaternion(0.5, 0.5, 0.5, -0.5),
    ];
    for (let i = 0; i < 200; i++) {
      cases.push(new Quaternion(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize());
    }
    const out = new Float64Array(4);
    for (const q of cases) {
      const m = Matrix.FromQuaternionToRef(q, new Matrix()).m;
      rowsToQuaternion([m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]], 0, out, 0);
      const dot = Math.abs(out[0] * q.x + out[1] * q.y + out[2] * q.z + out[3] * q.w);
      // Babylon's matrices are float32.
      expect(dot).toBeGreaterThan(1 - 1e-12 - 1e-6);
      expect(Math.hypot(out[0], out[1], out[2], out[3])).toBeCloseTo(1, 12);
    }
  });
});
