// Joint trees written as indented outlines, and the roles found on them, for the role tests (not a test file).
import { HUMANOID_ROLES, findHumanoidRoles, type HumanoidRole } from "../../plugin/rig/index.js";

export interface Tree {
  names: string[];
  parents: number[];
  restPositions?: number[];
}

/**
 * A joint tree from an indented outline, two spaces per level. `{s}` lines are written once per side:
 * `mirror` gives the words that replace `{s}` for the left and the right side.
 */
export function outline(text: string, mirror: [string, string] = ["Left", "Right"]): Tree {
  const names: string[] = [];
  const parents: number[] = [];
  const stack: number[] = [];
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const add = (line: string, side: string) => {
    const level = (line.length - line.trimStart().length) / 2;
    stack.length = level;
    parents.push(level === 0 ? -1 : stack[level - 1]);
    stack.push(names.length);
    names.push(line.trim().replaceAll("{s}", side));
  };
  // Copy each `{s}` block (a `{s}` line with everything indented below it) for both sides.
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].includes("{s}")) {
      add(lines[i], "");
      continue;
    }
    const indent = lines[i].length - lines[i].trimStart().length;
    let end = i + 1;
    while (end < lines.length && lines[end].length - lines[end].trimStart().length > indent) end++;
    for (const side of mirror) for (let k = i; k < end; k++) add(lines[k], side);
    i = end - 1;
  }
  return { names, parents };
}

/** Roles found, by joint name, with every role the test does not list required to be absent. */
export function rolesByName(
  tree: Tree,
  leftAxis?: [number, number, number],
): Partial<Record<HumanoidRole, string>> {
  const roles = findHumanoidRoles({ ...tree, leftAxis });
  const named: Partial<Record<HumanoidRole, string>> = {};
  for (const role of HUMANOID_ROLES) if (roles[role] !== undefined) named[role] = tree.names[roles[role]!];
  return named;
}

/** Expected roles for a rig whose sides differ only by the side word. */
export function sided(
  center: Partial<Record<HumanoidRole, string>>,
  limbs: Partial<
    Record<"Shoulder" | "UpperArm" | "LowerArm" | "Hand" | "UpperLeg" | "LowerLeg" | "Foot" | "Toes", string>
  >,
  sides: [string, string] = ["Left", "Right"],
): Partial<Record<HumanoidRole, string>> {
  const out: Partial<Record<HumanoidRole, string>> = { ...center };
  for (const [part, name] of Object.entries(limbs)) {
    out[`left${part}` as HumanoidRole] = name.replaceAll("{s}", sides[0]);
    out[`right${part}` as HumanoidRole] = name.replaceAll("{s}", sides[1]);
  }
  return out;
}
