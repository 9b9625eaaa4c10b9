/**
 * s[o] = angle in (-π, π], s[o+1..o+2] = [min, max] within [-π, π]. An angle outside goes to the nearer end,
 * nearer along the circle. Returns true when it moved.
 */
export function clampAngle(s: Float64Array, o: number): boolean {
  const angle = s[o],
    min = s[o + 1],
    max = s[o + 2];
  if (angle >= min && angle <= max) return false;
  let toMin = Math.abs(angle - min),
    toMax = Math.abs(angle - max);
  if (toMin > Math.PI) toMin = 2 * Math.PI - toMin;
  if (toMax > Math.PI) toMax = 2 * Math.PI - toMax;
  s[o] = toMin <= toMax ? min : max;
  return true;
}
