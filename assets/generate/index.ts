/** `npm run assets`: regenerates every committed character in assets/. */
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { CHARACTERS, generate } from "./characters.js";

for (const { file } of CHARACTERS) {
  const path = fileURLToPath(new URL(`../${file}`, import.meta.url));
  const bytes = await generate(file);
  await writeFile(path, bytes);
  console.log(`${file}: ${bytes.byteLength} bytes`);
}
