/*
 * The linear algebra of one damped least-squares step: y = (J Jᵀ + λ² I)⁻¹ r by Cholesky, in the effectors'
 * space (3 rows an effector), which is smaller than the joints' space on every rig (a few effectors, many
 * joints). The caller turns the joints by Jᵀ y. Arrays are the caller's scratch, row-major.
 */

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
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j <= i; j++) {
      let s = i === j ? lambda2 : 0;
      for (let k = 0; k < cols; k++) s += jacobian[i * cols + k] * jacobian[j * cols + k];
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
