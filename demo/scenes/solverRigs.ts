import { createRig, type Rig } from "../../plugin/index.js";

/** A tentacle: `bones` bones rising from the floor, shortening toward the tip. */
export function tentacle(bones: number, base: [number, number, number]): Rig {
  const parents: number[] = [];
  const positions: number[] = [];
  let y = base[1];
  for (let i = 0; i <= bones; i++) {
    parents.push(i - 1);
    positions.push(base[0], y, base[2]);
    y += 0.35 * (1 - (0.6 * i) / bones);
  }
  return createRig({ parents, restPositions: positions, names: parents.map((_, i) => `segment${i}`) });
}

/** A hand on a forearm: wrist, palm, and five fingers of three bones, fingertips named thumb3 … pinky3. */
export function hand(origin: [number, number, number]): Rig {
  const [ox, oy, oz] = origin;
  const parents = [-1, 0, 1];
  const positions = [ox, oy, oz, ox, oy + 1.2, oz, ox, oy + 1.6, oz];
  const names = ["forearm", "wrist", "palm"];
  ["thumb", "index", "middle", "ring", "pinky"].forEach((finger, f) => {
    const spread = (f - 2) * 0.32;
    let parent = 2;
    for (let s = 1; s <= 3; s++) {
      parents.push(parent);
      const r = 0.25 + s * 0.22;
      positions.push(ox + Math.sin(spread) * r, oy + 1.6 + Math.cos(spread) * r, oz + 0.04 * s);
      names.push(`${finger}${s}`);
      parent = parents.length - 1;
    }
  });
  return createRig({ parents, restPositions: positions, names });
}
