// The joints of a Rigify-style deforming skeleton, for the rigs tests build in code (not a test file).

export type Vec3 = [number, number, number];

/**
 * A 1.62 m Rigify-style humanoid in a straight T-pose (Y up, facing +Z, its left along +X, metres): its
 * `DEF-` bones, each upper arm, forearm, thigh and shin split in two (`.001`). Each joint: name, parent's
 * name (null for the root, listed first), model-space place; parents come before their children.
 */
export function rigifyJoints(): [string, string | null, Vec3][] {
  const joints: [string, string | null, Vec3][] = [["DEF-spine", null, [0, 1, 0]]];
  const spine: [string, number][] = [
    ["DEF-spine.001", 1.1],
    ["DEF-spine.002", 1.22],
    ["DEF-spine.003", 1.35],
    ["DEF-spine.004", 1.5],
    ["DEF-spine.005", 1.56],
    ["DEF-spine.006", 1.62],
  ];
  spine.forEach(([name, y], i) => joints.push([name, i === 0 ? "DEF-spine" : spine[i - 1][0], [0, y, 0]]));
  for (const [s, x] of [
    ["L", 1],
    ["R", -1],
  ] as const) {
    joints.push([`DEF-shoulder.${s}`, "DEF-spine.003", [0.03 * x, 1.45, 0]]);
    const arm = [
      `DEF-upper_arm.${s}`,
      `DEF-upper_arm.${s}.001`,
      `DEF-forearm.${s}`,
      `DEF-forearm.${s}.001`,
      `DEF-hand.${s}`,
    ];
    arm.forEach((name, i) =>
      joints.push([name, i === 0 ? `DEF-shoulder.${s}` : arm[i - 1], [(0.17 + 0.125 * i) * x, 1.45, 0]]),
    );
    const leg: [string, number][] = [
      [`DEF-thigh.${s}`, 0.95],
      [`DEF-thigh.${s}.001`, 0.72],
      [`DEF-shin.${s}`, 0.5],
      [`DEF-shin.${s}.001`, 0.3],
      [`DEF-foot.${s}`, 0.08],
    ];
    leg.forEach(([name, y], i) =>
      joints.push([name, i === 0 ? "DEF-spine" : leg[i - 1][0], [0.1 * x, y, 0]]),
    );
    joints.push([`DEF-toe.${s}`, `DEF-foot.${s}`, [0.1 * x, 0.02, 0.12]]);
  }
  return joints;
}
