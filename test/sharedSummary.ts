// The unit project's global setup: one line saying which third-party characters are absent, so their
// tests are skipped (each test file then skips silently).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SHARED_CHARACTERS } from "../scripts/characters.js";

export default function setup(): void {
  const dir = fileURLToPath(new URL("../../shared/assets/", import.meta.url));
  const missing = SHARED_CHARACTERS.filter((c) => !existsSync(`${dir}${c.folder}/${c.file}`));
  if (missing.length === 0) return;
  const which =
    missing.length === SHARED_CHARACTERS.length
      ? `all ${missing.length} third-party characters are absent`
      : `${missing.map((c) => c.folder).join(", ")} ${missing.length === 1 ? "is" : "are"} absent`;
  console.warn(
    `[tests] ${dir}: ${which}; the tests on them are skipped. ` +
      'Get them with `npm run fetch-characters` (README, "Third-party characters").',
  );
}
