// The project's own characters, as URLs Vite serves in dev and copies (hashed) into the demo build.
import creature from "../assets/creature.glb?url";
import mannequin from "../assets/mannequin.glb?url";
import tentacle from "../assets/tentacle.glb?url";

export const CHARACTER_URLS = { mannequin, creature, tentacle } as const;
