/*
 * Test-side tools for Stewart–Gough platforms: a classic 6-6 platform, random reachable poses, pose
 * distances, and an independent forward-kinematics reference: Newton's method on the closure equations
 * |R·aᵢ + t − bᵢ|² = Lᵢ², with the analytic Jacobian and a backtracking line search. It shares no code with
 * the plugin (its own rotation matrices, its own 6×6 elimination).
 */

export type Vec3 = [number, number, number];
/** Row-major 3×3. */
export type Mat3 = number[];

/** A small seeded generator (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DEG = Math.PI / 180;

/**
 * The classic 6-6 layout: base joints in pairs 20° apart around a circle of radius `baseRadius`, platform
 * joints in pairs 20° apart rotated 60° from the base's, legs crossing between neighbouring pairs.
 */
export function classicLayout(baseRadius = 1, platformRadius = 0.6): { base: number[]; top: number[] } {
  const base: number[] = [];
  const top: number[] = [];
  for (let i = 0; i < 6; i++) {
    const pair = Math.floor(i / 2);
    const side = i % 2 === 0 ? -1 : 1;
    const b = (120 * pair + side * 10) * DEG;
    const p = (120 * pair + side * 50) * DEG;
    base.push(baseRadius * Math.cos(b), baseRadius * Math.sin(b), 0);
    top.push(platformRadius * Math.cos(p), platformRadius * Math.sin(p), 0);
  }
  return { base, top };
}

export function matFromQuat(q: ArrayLike<number>): Mat3 {
  const [x, y, z, w] = [q[0], q[1], q[2], q[3]];
  return [
    1 - 2 * (y * y + z * z),
    2 * (x * y - w * z),
    2 * (x * z + w * y),
    2 * (x * y + w * z),
    1 - 2 * (x * x + z * z),
    2 * (y * z - w * x),
    2 * (x * z - w * y),
    2 * (y * z + w * x),
    1 - 2 * (x * x + y * y),
  ];
}

/** Rodrigues: the rotation by |v| about v. */
export function matFromRotationVector(v: Vec3): Mat3 {
  const angle = Math.hypot(v[0], v[1], v[2]);
  if (angle === 0) return [1, 0, 0, 0, 1, 0, 0, 0, 1];
  const [x, y, z] = [v[0] / angle, v[1] / angle, v[2] / angle];
  const c = Math.cos(angle),
    s = Math.sin(angle),
    t = 1 - c;
  return [
    t * x * x + c,
    t * x * y - s * z,
    t * x * z + s * y,
    t * x * y + s * z,
    t * y * y + c,
    t * y * z - s * x,
    t * x * z - s * y,
    t * y * z + s * x,
    t * z * z + c,
  ];
}

export function matMul(a: Mat3, b: Mat3): Mat3 {
  const out: number[] = [];
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++) out.push(a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c]);
  return out;
}

export function apply(m: Mat3, v: ArrayLike<number>, o = 0): Vec3 {
  return [
    m[0] * v[o] + m[1] * v[o + 1] + m[2] * v[o + 2],
    m[3] * v[o] + m[4] * v[o + 1] + m[5] * v[o + 2],
    m[6] * v[o] + m[7] * v[o + 1] + m[8] * v[o + 2],
  ];
}

/** Angle of the rotation taking a to b, from atan2 of its sine and cosine (exact near 0 too). */
export function rotationAngle(a: Mat3, b: Mat3): number {
  const m = matMul(transpose(a), b);
  const sin = 0.5 * Math.hypot(m[7] - m[5], m[2] - m[6], m[3] - m[1]);
  const cos = 0.5 * (m[0] + m[4] + m[8] - 1);
  return Math.atan2(sin, cos);
}

export function transpose(m: Mat3): Mat3 {
  return [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]];
}

/** Pose distance as a fraction of the platform size: the larger of the origins' distance and size × angle. */
export function poseError(
  t1: ArrayLike<number>,
  r1: Mat3,
  t2: ArrayLike<number>,
  r2: Mat3,
  size: number,
): number {
  const d = Math.hypot(t1[0] - t2[0], t1[1] - t2[1], t1[2] - t2[2]);
  return Math.max(d / size, rotationAngle(r1, r2));
}

export function lengthsOf(
  base: ArrayLike<number>,
  top: ArrayLike<number>,
  t: ArrayLike<number>,
  r: Mat3,
): number[] {
  const out: number[] = [];
  for (let i = 0; i < 6; i++) {
    const a = apply(r, top, 3 * i);
    out.push(
      Math.hypot(a[0] + t[0] - base[3 * i], a[1] + t[1] - base[3 * i + 1], a[2] + t[2] - base[3 * i + 2]),
    );
  }
  return out;
}

/** Solves the 6×6 system A·x = b by Gaussian elimination with partial pivoting; null when singular. */
function solve6(a: number[][], b: number[]): number[] | null {
  const n = 6;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    if (Math.abs(m[p][c]) < 1e-300) return null;
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = c + 1; r < n; r++) {
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r][n];
    for (let k = r + 1; k < n; k++) s -= m[r][k] * x[k];
    x[r] = s / m[r][r];
  }
  return x;
}

export interface NewtonResult {
  t: Vec3;
  r: Mat3;
  converged: boolean;
  iterations: number;
  residual: number;
}

/**
 * Newton's method on Fᵢ = |R·aᵢ + t − bᵢ|² − Lᵢ² from (t0, r0). The rotation is updated on the left,
 * R ← exp(δφ)·R, so ∂Fᵢ/∂t = 2dᵢ and ∂Fᵢ/∂φ = 2 (R·aᵢ) × dᵢ with dᵢ = R·aᵢ + t − bᵢ. Steps are halved until
 * |F| decreases. Converged when every leg is within `tolerance` of its length.
 */
export function newtonForward(
  base: ArrayLike<number>,
  top: ArrayLike<number>,
  lengths: ArrayLike<number>,
  t0: ArrayLike<number>,
  r0: Mat3,
  tolerance: number,
  maxIterations = 100,
): NewtonResult {
  let t: Vec3 = [t0[0], t0[1], t0[2]];
  let r = r0.slice();
  const evaluate = (tt: Vec3, rr: Mat3) => {
    const f: number[] = [];
    const rows: number[][] = [];
    for (let i = 0; i < 6; i++) {
      const ra = apply(rr, top, 3 * i);
      const d: Vec3 = [
        ra[0] + tt[0] - base[3 * i],
        ra[1] + tt[1] - base[3 * i + 1],
        ra[2] + tt[2] - base[3 * i + 2],
      ];
      f.push(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - lengths[i] * lengths[i]);
      const cross = [ra[1] * d[2] - ra[2] * d[1], ra[2] * d[0] - ra[0] * d[2], ra[0] * d[1] - ra[1] * d[0]];
      rows.push([2 * d[0], 2 * d[1], 2 * d[2], 2 * cross[0], 2 * cross[1], 2 * cross[2]]);
    }
    return { f, rows };
  };
  const legResidual = (tt: Vec3, rr: Mat3) =>
    Math.max(...lengthsOf(base, top, tt, rr).map((l, i) => Math.abs(l - lengths[i])));
  const norm = (f: number[]) => Math.hypot(...f);
  let iterations = 0;
  let current = evaluate(t, r);
  while (legResidual(t, r) > tolerance && iterations < maxIterations) {
    const step = solve6(
      current.rows,
      current.f.map((v) => -v),
    );
    if (step === null) break;
    let scale = 1;
    let accepted = false;
    for (let halving = 0; halving < 30; halving++) {
      const tt: Vec3 = [t[0] + scale * step[0], t[1] + scale * step[1], t[2] + scale * step[2]];
      const rr = matMul(matFromRotationVector([scale * step[3], scale * step[4], scale * step[5]]), r);
      const next = evaluate(tt, rr);
      if (norm(next.f) < norm(current.f)) {
        t = tt;
        r = rr;
        current = next;
        accepted = true;
        break;
      }
      scale /= 2;
    }
    iterations++;
    if (!accepted) break;
  }
  const residual = legResidual(t, r);
  return { t, r, converged: residual <= tolerance, iterations, residual };
}
