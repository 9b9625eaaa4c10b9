// Plain FABRIK (Aristidou & Lasenby 2011, Algorithm 1) on one unlimited chain, as the reference the solver
// is compared with where no limits apply: positions only, the root fixed, stopping when the tip is within
// the tolerance or the iteration budget is spent.

export interface PlainResult {
  iterations: number;
  residual: number;
}

/**
 * Solves the chain whose joints are `positions` (x y z per joint, root first; changed in place) toward
 * `target`. A target out of reach straightens the chain toward it (one iteration).
 */
export function plainFabrik(
  positions: Float64Array,
  target: ArrayLike<number>,
  tolerance: number,
  maxIterations: number,
): PlainResult {
  const n = positions.length / 3 - 1;
  const lengths = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    lengths[i] = dist(positions, 3 * i, positions, 3 * i + 3);
    total += lengths[i];
  }
  const tip = 3 * n;
  if (dist(positions, 0, target, 0) > total) {
    for (let i = 0; i < n; i++) place(positions, 3 * i + 3, positions, 3 * i, target, 0, lengths[i]);
    return { iterations: 1, residual: dist(positions, tip, target, 0) };
  }
  const base = positions.slice(0, 3);
  let residual = dist(positions, tip, target, 0);
  let iterations = 0;
  while (residual > tolerance && iterations < maxIterations) {
    iterations++;
    // Forward reaching: the tip onto the target, each joint toward its child at its bone length.
    for (let k = 0; k < 3; k++) positions[tip + k] = target[k];
    for (let i = n - 1; i >= 0; i--)
      place(positions, 3 * i, positions, 3 * i + 3, positions, 3 * i, lengths[i]);
    // Backward reaching: the root back in place, each child on the line from its parent to where it was.
    positions.set(base, 0);
    for (let i = 0; i < n; i++)
      place(positions, 3 * i + 3, positions, 3 * i, positions, 3 * i + 3, lengths[i]);
    residual = dist(positions, tip, target, 0);
  }
  return { iterations, residual };
}

function dist(a: ArrayLike<number>, i: number, b: ArrayLike<number>, j: number): number {
  return Math.hypot(a[i] - b[j], a[i + 1] - b[j + 1], a[i + 2] - b[j + 2]);
}

/** out = from + length · (toward − from) / |toward − from|; a point on `from` keeps `out` where it is. */
function place(
  out: Float64Array,
  o: number,
  from: ArrayLike<number>,
  f: number,
  toward: ArrayLike<number>,
  t: number,
  length: number,
): void {
  const r = dist(from, f, toward, t);
  if (!(r > 0)) return;
  const lambda = length / r;
  const fx = from[f],
    fy = from[f + 1],
    fz = from[f + 2];
  out[o] = fx + lambda * (toward[t] - fx);
  out[o + 1] = fy + lambda * (toward[t + 1] - fy);
  out[o + 2] = fz + lambda * (toward[t + 2] - fz);
}
