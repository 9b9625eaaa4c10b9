// Seeds that once failed (or found something worth keeping), re-run by every `npm test`. Add a seed with
// the reason whenever the fuzzer prints a failure, before fixing it.
export const REGRESSION_SEEDS: readonly { readonly seed: number; readonly why: string }[] = [
  { seed: 4, why: "NaN: the lock escape let orientation norms square down a 107-joint tree until Infinity" },
  { seed: 34, why: "NaN: same lock-escape norm growth, on a 52-joint tree with stretch bones" },
  { seed: 232, why: "NaN: same lock-escape norm growth" },
  { seed: 392, why: "NaN: same lock-escape norm growth" },
  {
    seed: 6365,
    why: "orientation norm 1 + 1e-9 after 4 frames: passive joints carried without renormalising",
  },
  { seed: 36, why: "stretch bones of 1e-7 × scale: direction check must allow for coordinate rounding" },
  { seed: 143, why: "stretch bone direction on a short bone (checker tolerance)" },
  { seed: 1945, why: "known issue halfTurnArc: a 4e-8 bone behind a bone turned by half a turn" },
  {
    seed: 10430,
    why: "known issue halfTurnArc: a straight chain pointed at an unreachable target behind it",
  },
  { seed: 9175, why: "known issue halfTurnArc, in the second frame of a 52-joint forest" },
  { seed: 208976, why: "known issue reversedBoneTwist: a bone turned exactly around, twist limit min = max" },
  { seed: 286447, why: "known issue reversedBoneTwist, found by the million-case run" },
  { seed: 422556, why: "known issue reversedBoneTwist, found by the million-case run" },
  { seed: 20, why: "known issue iterationCap: 2 iterations reported with maxIterations 1" },
  { seed: 120, why: "known issue iterationCap: 40 iterations reported with maxIterations 20" },
  {
    seed: 7462,
    why: "a swing cone's nearest-boundary search on a point a hair off the major axis (t + 1 rounding to 0) gave NaN in a Newton step",
  },
  { seed: 10257, why: "the same near-axis swing clamp, on a 166-joint rig" },
  {
    seed: 197992,
    why: "million-case run: a two-effector component converged with a summed distance just above its input's",
  },
  { seed: 986921, why: "million-case run: the same, converged with a larger tolerance" },
  {
    seed: 18552,
    why: "the damped hinge escape turned a hinged joint the plan does not rotate, by a turn left from another solve",
  },
];
