export interface SolveSettings {
  /** An effector within this distance of its target counts as reached (model units). Default 1e-3. */
  tolerance?: number;
  /** Iteration cap per solve (one forward plus one backward pass each). Default 100: easy targets end long before. */
  maxIterations?: number;
  /** Pole points, x y z per effector (only read for effectors compiled with `pole: true`). */
  poles?: Float64Array;
}

export const DEFAULT_TOLERANCE = 1e-3;
export const DEFAULT_MAX_ITERATIONS = 100;
