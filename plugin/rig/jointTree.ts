/**
 * Small queries on a joint tree given as a parent array (parents listed before their children, -1 for a
 * root). Engine-free, so discovery code can be tested on plain arrays.
 */

/** Per joint, the number of bones between it and its root (0 for a root). */
export function jointDepths(parents: ArrayLike<number>): Int32Array {
  const depths = new Int32Array(parents.length);
  for (let j = 0; j < parents.length; j++) depths[j] = parents[j] >= 0 ? depths[parents[j]] + 1 : 0;
  return depths;
}

/** Whether `ancestor` lies strictly above `joint`. */
export function isAncestor(parents: ArrayLike<number>, ancestor: number, joint: number): boolean {
  for (let j = parents[joint]; j >= 0; j = parents[j]) if (j === ancestor) return true;
  return false;
}

/** The deepest joint that is `a` or above it and also `b` or above it; -1 when they share no root. */
export function lowestCommonAncestor(
  parents: ArrayLike<number>,
  depths: Int32Array,
  a: number,
  b: number,
): number {
  while (a >= 0 && b >= 0 && a !== b) {
    if (depths[a] >= depths[b]) a = parents[a];
    else b = parents[b];
  }
  return a === b ? a : -1;
}

/** Child joints of every joint, in joint order. */
export function jointChildren(parents: ArrayLike<number>): number[][] {
  const children: number[][] = Array.from({ length: parents.length }, () => []);
  for (let j = 0; j < parents.length; j++) if (parents[j] >= 0) children[parents[j]].push(j);
  return children;
}
