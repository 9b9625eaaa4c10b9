// `npm run fetch-characters [-- <dir>]`: downloads the third-party test characters (scripts/characters.ts)
// into ../shared/assets/<folder>/ (or <dir>/<folder>/), checking each file's sha256; present, matching files
// are left alone. Node 20's fetch, no dependencies.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SHARED_CHARACTERS } from "./characters.js";

const target = resolve(process.argv[2] ?? fileURLToPath(new URL("../../shared/assets/", import.meta.url)));
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let failed = 0;
for (const c of SHARED_CHARACTERS) {
  const path = join(target, c.folder, c.file);
  if (existsSync(path) && sha256(readFileSync(path)) === c.sha256) {
    console.log(`ok       ${c.folder}/${c.file}`);
    continue;
  }
  try {
    const response = await fetch(c.url);
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const got = sha256(bytes);
    if (got !== c.sha256) throw new Error(`sha256 ${got}, expected ${c.sha256} (${bytes.length} bytes)`);
    mkdirSync(join(target, c.folder), { recursive: true });
    writeFileSync(path, bytes);
    writeFileSync(
      join(target, c.folder, "SOURCE.txt"),
      `${c.file} (${c.bytes} bytes, sha256 ${c.sha256})\nOrigin : ${c.origin}\nCopy   : ${c.url}\nLicence: ${c.licence}\n`,
    );
    console.log(`fetched  ${c.folder}/${c.file} (${c.licence})`);
  } catch (error) {
    failed++;
    console.error(`FAILED   ${c.folder}/${c.file} from ${c.url}: ${(error as Error).message}`);
  }
}
console.log(failed === 0 ? `All characters are in ${target}` : `${failed} characters could not be fetched`);
process.exitCode = failed === 0 ? 0 : 1;
