import { FabrikError } from "../solver/index.js";

/** A number in [0, 1] (a weight, a share), or the FabrikError naming `option` of `who`. */
export function fraction(value: unknown, option: string, who: string): number {
  if (typeof value !== "number" || !(value >= 0 && value <= 1)) {
    throw new FabrikError(
      `${who}: ${option} must be a number in [0, 1], got ${String(value)}`,
      undefined,
      option,
    );
  }
  return value;
}
