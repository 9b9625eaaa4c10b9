/*
 * The solver's shared constants are written out as local `const`s in each module that reads them in a hot
 * loop (module import bindings are read through getters under test transforms, which showed up in profiles).
 * Their meaning, in one place:
 *
 * DEGENERATE_EPSILON = 1e-9: points closer than this (relative to the lengths involved) are coincident.
 * plan.scratch.numbers slots: TOLERANCE_SLOT = 0, MAX_RESIDUAL_SLOT = 1, RESIDUAL_SUM_SLOT = 2, 4 = the lock
 * escape's step angle, 5 its attempt count and 6 its over-relaxation factor.
 * Per-solve doubles live there so no call ever boxes them.
 */
export {};
