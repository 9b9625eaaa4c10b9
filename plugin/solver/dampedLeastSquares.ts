/*
 * The linear algebra of one damped least-squares step: y = (J Jᵀ + λ² I)⁻¹ r by Cholesky, in the effectors'
 * space (3 rows an effector), which is smaller than the joints' space on every rig (a few effectors, many
 * joints). The caller turns the joints by Jᵀ y. Arrays are the caller's scratch, row-major.
 */

/**
 * Each row's first column that is not zero and one past its last (2 a row). An effector's row is zero for
 * every joint off its path (the other arm, the head's neck), so J Jᵀ sums each pair of rows over the columns
 * both spans share: the terms left out are exact zeros, which add nothing, so the sums are bit for bit the
 * full ones.
 */
let spans = new Int32Array(0);

/**
 * Solves (J Jᵀ + λ² I) y = r for y in place of r (`rhs`), J being rows × cols in `jacobian`, λ at
 * `dampingIn[at]` (a double handed over in an array is never boxed); `normal` holds rows × rows of scratch.
 * False when the system is not positive definite (NaN input).
 */
export function solveDamped(
  jacobian: Float64Array,
  normal: Float64Array,
  rhs: Float64Array,
  rows: number,
  cols: number,
  dampingIn: Float64Array,
  at: number,
): boolean {
  const lambda2 = dampingIn[at] * dampingIn[at];
  if (spans.length < 2 * rows) spans = new Int32Array(2 * rows);
  for (let i = 0; i < rows; i++) {
    let first = cols,
      end = 0;
    for (let k = 0; k < cols; k++) {
      if (jacobian[i * cols + k] === 0) continue;
      if (first === cols) first = k;
      end = k + 1;
    }
    spans[2 * i] = first;
    spans[2 * i + 1] = end;
  }
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j <= i; j++) {
      let s = i === j ? lambda2 : 0;
      const from = spans[2 * i] > spans[2 * j] ? spans[2 * i] : spans[2 * j];
      const to = spans[2 * i + 1] < spans[2 * j + 1] ? spans[2 * i + 1] : spans[2 * j + 1];
      for (let k = from; k < to; k++) s += jacobian[i * cols + k] * jacobian[j * cols + k];
      normal[i * rows + j] = s;
    }
  }
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j <= i; j++) {
      let s = normal[i * rows + j];
      for (let k = 0; k < j; k++) s -= normal[i * rows + k] * normal[j * rows + k];
      if (i !== j) normal[i * rows + j] = s / normal[j * rows + j];
      else if (s > 0) normal[i * rows + i] = Math.sqrt(s);
      else return false;
    }
  }
  for (let i = 0; i < rows; i++) {
    let s = rhs[i];
    for (let k = 0; k < i; k++) s -= normal[i * rows + k] * rhs[k];
    rhs[i] = s / normal[i * rows + i];
  }
  for (let i = rows - 1; i >= 0; i--) {
    let s = rhs[i];
    for (let k = i + 1; k < rows; k++) s -= normal[k * rows + i] * rhs[k];
    rhs[i] = s / normal[i * rows + i];
  }
  return true;
}
