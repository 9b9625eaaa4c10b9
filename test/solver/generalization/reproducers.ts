// The fixed reproducers of issue 18 (items 1, 3 and 5; item 4's are in straightLimbs.ts), with the issue's
// numbers and settings, and the folded chains item 5 generalises to.
import { createPose, createRig, type Rig } from "../../../plugin/index.js";
import { random, straightChain } from "../fixtures.js";
import type { IkCase } from "./ikCase.js";
import { armCase, planarArm } from "./revoluteArms.js";

/** Item 1: a straight unlimited 10-bone chain, target 1e-5 off its line. Plain FABRIK converges in 30. */
export function nearLineReproducer(): IkCase {
  const rig = straightChain(10);
  return {
    label: "item 1: straight 10-bone chain, target (1e-5, 8.5, 0)",
    rig,
    effector: 10,
    start: createPose(rig),
    target: Float64Array.of(1e-5, 8.5, 0),
    settings: { tolerance: 0.01, maxIterations: 1000 },
    scale: 10,
  };
}

/** Item 3: the planar 3-hinge arm (4, 4, 4, ±90°) and a reachable target it locks on, 200 iterations. */
export function planarArmReproducer(): IkCase {
  const arm = planarArm([4, 4, 4]);
  const c = armCase(
    arm,
    Float64Array.of(8.81688, -0.629218, 0),
    "item 3: planar 4,4,4 arm, target (8.81688, -0.629218, 0)",
  );
  // The numbers (residual 0.105 after 14 of 200 iterations) are at the default tolerance.
  return { ...c, settings: { maxIterations: 200 } };
}

/**
 * A chain folded back on itself at every joint: bone i runs along +Y or -Y in turn, each joint shifted
 * `shift` sideways, all scaled by `scale`. Item 5's rig is `foldedChain(2, 1e-12, 1)`'s shape: (0,0,0),
 * (0,1,0), (1e-12,0,0).
 */
export function foldedChain(bones: number, shift: number, scale: number): Rig {
  const parents: number[] = [];
  const positions: number[] = [];
  for (let i = 0; i <= bones; i++) {
    parents.push(i - 1);
    positions.push(i >= 2 ? shift * scale * (i - 1) : 0, (i % 2) * scale, 0);
  }
  return createRig({ parents, restPositions: positions });
}

function chainLength(rig: Rig): number {
  return rig.restLengths.reduce((a, b) => a + b, 0);
}

/** Item 5: the folded 2-bone rig pulled far out, (100, 0.5, 0.3): bone 2 flips by about 180°. */
export function flipReproducer(): IkCase {
  const rig = createRig({ parents: [-1, 0, 1], restPositions: [0, 0, 0, 0, 1, 0, 1e-12, 0, 0] });
  return {
    label: "item 5: folded 2-bone chain, target (100, 0.5, 0.3)",
    rig,
    effector: 2,
    start: createPose(rig),
    target: Float64Array.of(100, 0.5, 0.3),
    settings: {},
    scale: 2,
    floor: Math.hypot(100, 0.5, 0.3) - 1 - Math.hypot(1, 1e-12),
  };
}

/**
 * Folded chains of 2 to 4 bones, sideways shifts of 1e-12 to 1e-6 of the bone, at scales 1e-3 to 1e3, pulled
 * toward random targets far out of reach and within it: every bone turns by up to 180°. Tolerance 1e-3 of
 * the chain's length.
 */
export function foldedChainCases(seed: number): IkCase[] {
  const rand = random(seed);
  const cases: IkCase[] = [];
  for (const bones of [2, 3, 4]) {
    for (const shift of [1e-12, 1e-9, 1e-6]) {
      for (const scale of [1e-3, 1, 1e3]) {
        const rig = foldedChain(bones, shift, scale);
        for (const far of [true, false]) {
          const r = far ? scale * bones * (5 + 50 * rand()) : scale * bones * 0.9 * rand();
          const u = 2 * rand() - 1,
            a = 2 * Math.PI * rand();
          const s = Math.sqrt(1 - u * u);
          cases.push({
            label: `folded ${bones} bones, shift ${shift}, scale ${scale}, ${far ? "far" : "within reach"}`,
            rig,
            effector: bones,
            start: createPose(rig),
            target: Float64Array.of(r * s * Math.cos(a), r * u, r * s * Math.sin(a)),
            settings: { tolerance: 1e-3 * scale * bones },
            scale: scale * bones,
            floor: Math.max(0, r - chainLength(rig)),
          });
        }
      }
    }
  }
  return cases;
}
