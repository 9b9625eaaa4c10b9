import { describe, expect, it } from "vitest";
import { loadCharacter } from "./characters.js";
import { corpusCharacters, describeSteps, runCorpus, seedOf } from "./corpus.js";

/**
 * Walks of the corpus bench (test/bench/corpusWalks.bench.ts), not the corpus test's own, on which a joint
 * once turned more than 10° between frames at default settings, each for one cause (docs/convergence.md,
 * "Answers far from last frame's pose"): a carrier turn's answer in the other configuration (CesiumMan), a
 * tracked leg's swivel jumping to the nearest one its thigh's limit allows (the mannequin), the tracking
 * steps' own answer (the figure's neck), the passes' answer after the tracking steps failed (Fox, T-rex).
 */
const FRAMES = 300;
const WALKS: readonly (readonly [string, number])[] = [
  ["CesiumMan", 2],
  ["mannequin", 7],
  ["figure", 2],
  ["Fox", 5],
  ["QuaterniusTrex", 5],
];

const { shared, own } = corpusCharacters();
const characters = [...shared, ...own];

for (const [name, walk] of WALKS) {
  const c = characters.find((x) => x.folder === name);
  describe.skipIf(c === undefined || !c.present)(`corpus, other walk: ${name} walk ${walk}`, () => {
    it("meets 99 % of frames and moves no joint more than 10° between frames", async () => {
      const loaded = await loadCharacter(c!);
      try {
        const row = runCorpus(loaded, name, FRAMES, seedOf(name, walk));
        expect(row.met / row.frames).toBeGreaterThanOrEqual(0.99);
        expect(row.flips).toBe(0);
        // Listed, so a failure names the frames and joints that stepped.
        expect(describeSteps(row.stepsAt)).toEqual([]);
        expect(row.steps).toBe(0);
      } finally {
        loaded.engine.dispose();
      }
    }, 120_000);
  });
}

const figure = characters.find((x) => x.folder === "figure");
describe.skipIf(figure === undefined || !figure.present)("corpus, other walk: holdConfiguration off", () => {
  it("lets the figure's neck step more than 10° on its walk 2 (the hold is what keeps it)", async () => {
    const loaded = await loadCharacter(figure!);
    try {
      const row = runCorpus(loaded, "figure", FRAMES, seedOf("figure", 2), {}, false);
      expect(row.steps).toBeGreaterThan(0);
    } finally {
      loaded.engine.dispose();
    }
  }, 120_000);
});
