import { it } from "vitest";
import { loadCharacter } from "../babylon/characters.js";
import { corpusCharacters, runCorpus } from "../babylon/corpus.js";
function seedOf(name: string): number {
  let h = 2166136261;
  for (let k = 0; k < name.length; k++) h = Math.imul(h ^ name.charCodeAt(k), 16777619);
  return (h >>> 0) % 1000003;
}
it("one", async () => {
  const { shared, own } = corpusCharacters();
  const all = [...shared, ...own];
  const seeds = (process.env.SEEDS ?? "0").split(",").map(Number);
  for (const name of (process.env.CH ?? "mannequin").split(",")) {
    const c = all.find((x) => x.folder === name)!;
    for (const s of seeds) {
      const loaded = await loadCharacter(c);
      const row = runCorpus(loaded, c.folder, 300, seedOf(c.folder) + s);
      loaded.engine.dispose();
      console.log(name, s, "met", row.met, "steps", row.steps, "flips", row.flips, "big", row.largestStep.toFixed(1), "it", row.meanIterations.toFixed(1), row.maxIterations, "|", row.effectors.map((e, k) => `${e}:${row.misses[k]}`).join(" "), "us", row.solveMicros.toFixed(0));
    }
  }
}, 1200000);
