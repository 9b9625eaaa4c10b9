import type { Document } from "@gltf-transform/core";
import { toGlb } from "./character.js";
import { buildCreature } from "./creature.js";
import { buildFigure } from "./figure.js";
import { buildMannequin } from "./mannequin.js";
import { buildTentacle } from "./tentacle.js";

/** Every generated character and the file (in `assets/`) it is committed as. */
export const CHARACTERS: readonly { readonly file: string; readonly build: () => Document }[] = [
  { file: "mannequin.glb", build: buildMannequin },
  { file: "creature.glb", build: buildCreature },
  { file: "tentacle.glb", build: buildTentacle },
  { file: "figure.glb", build: buildFigure },
];

/** The exact bytes a character's file must hold. */
export function generate(file: string): Promise<Uint8Array> {
  const character = CHARACTERS.find((c) => c.file === file);
  if (character === undefined) throw new Error(`no generated character is written to "${file}"`);
  return toGlb(character.build());
}
