/*
 * Anderson acceleration of the platform passes. One pass is a map G from a platform pose to the next; near
 * a closure it shrinks the error by a fixed factor per pass, close to 1 when the platform sits near a
 * singular pose (one motion barely changes the legs' lengths), so plain passes may need thousands of
 * iterations there. Anderson mixing keeps the last few passes' steps f = G(x) − x and takes as the next pose
 * the combination of their results whose combined step is smallest: on a map that is nearly linear this is
 * a Krylov method, converging in about as many passes as the pose has degrees of freedom. The pose is
 * mixed as six numbers: the position over the platform's size and the rotation vector from a reference
 * orientation (the one the solve started from).
 */

/** Passes remembered. */
const DEPTH = 5;

/** Buffers of the mixing, allocated once per mechanism. */
export interface PassAcceleration {
  /** Orientation the rotation vectors are measured from. */
  readonly reference: Float64Array;
  /** The pose before a pass (then the mixed pose), its result, and the last pass's result and step. */
  readonly x: Float64Array;
  readonly g: Float64Array;
  readonly lastG: Float64Array;
  readonly lastF: Float64Array;
  /** Differences of successive steps and results, one column of 6 per remembered pass (a ring). */
  readonly dF: Float64Array;
  readonly dG: Float64Array;
  /** The normal equations of the mixing's least squares, DEPTH × (DEPTH + 1), and their solution. */
  readonly normal: Float64Array;
  readonly gamma: Float64Array;
  /** Remembered columns, next ring slot, whether lastG/lastF hold a pass. */
  readonly state: Int32Array;
  /** 1 / platform size. */
  readonly scale: Float64Array;
}

export function createPassAcceleration(size: number): PassAcceleration {
  return {
    reference: new Float64Array(4),
    x: new Float64Array(6),
    g: new Float64Array(6),
    lastG: new Float64Array(6),
    lastF: new Float64Array(6),
    dF: new Float64Array(6 * DEPTH),
    dG: new Float64Array(6 * DEPTH),
    normal: new Float64Array(DEPTH * (DEPTH + 1)),
    gamma: new Float64Array(DEPTH),
    state: new Int32Array(3),
    scale: new Float64Array([1 / size]),
  };
}

/** Forgets every pass; rotation vectors are measured from `orientation` from now on. */
export function restartAcceleration(a: PassAcceleration, orientation: Float64Array): void {
  a.reference.set(orientation);
  a.state.fill(0);
}

/** The pose as six numbers into `out`: position / size, rotation vector of orientation · reference⁻¹. */
export function encodePose(
  a: PassAcceleration,
  position: Float64Array,
  orientation: Float64Array,
  out: Float64Array,
): void {
  const s = a.scale[0];
  out[0] = position[0] * s;
  out[1] = position[1] * s;
  out[2] = position[2] * s;
  const r = a.reference;
  const ax = orientation[0],
    ay = orientation[1],
    az = orientation[2],
    aw = orientation[3];
  const bx = -r[0],
    by = -r[1],
    bz = -r[2],
    bw = r[3];
  let x = aw * bx + ax * bw + ay * bz - az * by;
  let y = aw * by - ax * bz + ay * bw + az * bx;
  let z = aw * bz + ax * by - ay * bx + az * bw;
  let w = aw * bw - ax * bx - ay * by - az * bz;
  if (w < 0) {
    x = -x;
    y = -y;
    z = -z;
    w = -w;
  }
  const sin = Math.sqrt(x * x + y * y + z * z);
  // angle / sin(angle / 2), which tends to 2 as the angle does.
  const k = sin > 1e-12 ? (2 * Math.atan2(sin, w)) / sin : 2;
  out[3] = x * k;
  out[4] = y * k;
  out[5] = z * k;
}

/** The inverse of {@link encodePose}. */
export function decodePose(
  a: PassAcceleration,
  v: Float64Array,
  position: Float64Array,
  orientation: Float64Array,
): void {
  const s = a.scale[0];
  position[0] = v[0] / s;
  position[1] = v[1] / s;
  position[2] = v[2] / s;
  const angle = Math.sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
  const k = angle > 1e-12 ? Math.sin(0.5 * angle) / angle : 0.5;
  const x = v[3] * k,
    y = v[4] * k,
    z = v[5] * k,
    w = Math.cos(0.5 * angle);
  const r = a.reference;
  const bx = r[0],
    by = r[1],
    bz = r[2],
    bw = r[3];
  orientation[0] = w * bx + x * bw + y * bz - z * by;
  orientation[1] = w * by - x * bz + y * bw + z * bx;
  orientation[2] = w * bz + x * by - y * bx + z * bw;
  orientation[3] = w * bw - x * bx - y * by - z * bz;
}

/**
 * Records the pass that took `x` to `g` and writes the mixed next pose into `x`. Returns false (x
 * untouched) when there is nothing to mix yet or the mixing is degenerate; the caller then goes on from g.
 */
export function mixPasses(a: PassAcceleration): boolean {
  const { x, g, lastG, lastF, dF, dG, normal: n, gamma, state } = a;
  const hadLast = state[2] === 1;
  const slot = state[1];
  for (let k = 0; k < 6; k++) {
    const f = g[k] - x[k];
    if (hadLast) {
      dF[6 * slot + k] = f - lastF[k];
      dG[6 * slot + k] = g[k] - lastG[k];
    }
    lastF[k] = f;
    lastG[k] = g[k];
  }
  state[2] = 1;
  if (!hadLast) return false;
  state[0] = Math.min(state[0] + 1, DEPTH);
  state[1] = (slot + 1) % DEPTH;
  const m = state[0];
  // Normal equations (ΔFᵀΔF + λI) γ = ΔFᵀ f, a little ridge keeping near-parallel columns apart.
  let trace = 0;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j <= i; j++) {
      let dot = 0;
      for (let k = 0; k < 6; k++) dot += dF[6 * i + k] * dF[6 * j + k];
      n[i * (m + 1) + j] = dot;
      n[j * (m + 1) + i] = dot;
    }
    trace += n[i * (m + 1) + i];
    let rhs = 0;
    for (let k = 0; k < 6; k++) rhs += dF[6 * i + k] * lastF[k];
    n[i * (m + 1) + m] = rhs;
  }
  if (!(trace > 0) || !Number.isFinite(trace)) return false;
  for (let i = 0; i < m; i++) n[i * (m + 1) + i] += 1e-10 * trace;
  if (!solveInPlace(n, m, gamma)) return false;
  for (let k = 0; k < 6; k++) {
    let v = g[k];
    for (let i = 0; i < m; i++) v -= gamma[i] * dG[6 * i + k];
    x[k] = v;
  }
  return true;
}

/** Gaussian elimination (the matrix is symmetric positive definite: no pivoting) of m × (m + 1) rows. */
function solveInPlace(n: Float64Array, m: number, out: Float64Array): boolean {
  const w = m + 1;
  for (let c = 0; c < m; c++) {
    const pivot = n[c * w + c];
    if (!(pivot > 0)) return false;
    for (let r = c + 1; r < m; r++) {
      const f = n[r * w + c] / pivot;
      for (let k = c; k <= m; k++) n[r * w + k] -= f * n[c * w + k];
    }
  }
  for (let r = m - 1; r >= 0; r--) {
    let s = n[r * w + m];
    for (let k = r + 1; k < m; k++) s -= n[r * w + k] * out[k];
    out[r] = s / n[r * w + r];
  }
  return true;
}
