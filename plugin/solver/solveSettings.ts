export interface SolveSettings {
  /** An effector within this distance of its target counts as reached (model units). Default 1e-3. */
  tolerance?: number;
  /** Iteration cap per solve (one forward plus one backward pass each). Default 100: easy targets end long before. */
  maxIterations?: number;
  /** Pole points, x y z per effector (only read for effectors compiled with `pole: true`). */
  poles?: Float64Array;
  /**
   * The input pose is the last frame's answer and the targets moved a little since: follow them first with
   * damped least-squares steps, which turn all joints by the least total rotation (smooth from frame to
   * frame, where the passes swing the bones nearest each effector most), and fall back to the passes when
   * those steps do not converge at once. Default false.
   */
  tracking?: boolean;
  /**
   * With `tracking`: an answer that turned some joint far from the input (another configuration that also
   * meets the targets) is pulled back toward the input, so the pose does not jump between frames. False
   * leaves the solver's answer as it is, for callers that steer the configuration themselves. Default true.
   */
  holdConfiguration?: boolean;
  /**
   * With `tracking`: the caller's last solve of these targets ended short of them (a target beyond what the
   * limits let the body reach, as a body lying down is for a spine that stands). A branched body then judges
   * its first short round of damped steps: when at that gain the budget would not reach the tolerance, the
   * solve ends on its best pose, carried on from last frame's, instead of creeping along the limits for the
   * whole budget; out of the chains' length it ends where the passes stall. Targets that came back within
   * reach still converge (the round's gain says so). Default false.
   */
  fellShort?: boolean;
}

export const DEFAULT_TOLERANCE = 1e-3;
export const DEFAULT_MAX_ITERATIONS = 100;
