/**
 * Exponential smoothing that does not depend on the frame rate. Over a step of `dt` seconds a smoothed
 * value covers the fraction `1 - exp(-dt / time)` of its distance to the goal, `time` being the time
 * constant in seconds. Composing steps multiplies what remains (`exp(-a) · exp(-b) = exp(-(a + b))`), so
 * the value after a given time toward a fixed goal is the same whatever the frame rate; a constant
 * fraction per frame would converge twice as fast at twice the frame rate. A time of 0 (or less) means no
 * smoothing.
 *
 * Hot paths keep their numbers in a Float64Array and pass slot indices, because V8 boxes doubles passed to
 * (or returned from) calls it does not inline: `values[dt]` and `values[time]` are read, the fraction is
 * written to `values[out]`.
 */
export function smoothingFactor(values: Float64Array, dt: number, time: number, out: number): void {
  const t = values[time],
    step = values[dt];
  values[out] = !(t > 0) ? 1 : !(step > 0) ? 0 : 1 - Math.exp(-step / t);
}
