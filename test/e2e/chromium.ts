// Finding and launching the system's Chromium for the real-browser tests (not a test file).
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { chromium, type Browser } from "playwright-core";

const NAMES = ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome"];

/** $CHROMIUM_PATH, else the first Chromium on $PATH, else Debian's /usr/bin/chromium; "" when none. */
export function findChromium(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv !== undefined && fromEnv !== "") return existsSync(fromEnv) ? fromEnv : "";
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    for (const name of NAMES) {
      const path = join(dir, name);
      if (dir !== "" && existsSync(path)) return path;
    }
  }
  return existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : "";
}

/** Software WebGL (SwiftShader) so results do not depend on a GPU; no network chatter, no first-run UI. */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      "--no-sandbox",
      "--use-angle=swiftshader",
      "--enable-unsafe-swiftshader",
      "--ignore-gpu-blocklist",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}
