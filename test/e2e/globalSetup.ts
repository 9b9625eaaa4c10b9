// Builds the demo once and serves it for the e2e project (vitest runs this only when e2e tests are queued).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import type { TestProject } from "vitest/node";
import { findChromium } from "./chromium.js";
import { serveStatic } from "./staticServer.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The built demo's URL, "" when the suite is skipped. */
    demoUrl: string;
    /** The Chromium to launch, "" when none was found. */
    chromiumPath: string;
  }
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const chromiumPath = findChromium();
  if (chromiumPath === "") {
    const message =
      "no Chromium found (looked at $CHROMIUM_PATH, chromium/chromium-browser/google-chrome on $PATH and " +
      "/usr/bin/chromium); install Debian's package: apt-get install chromium";
    // In CI a missing browser is a broken setup, not a reason to pass.
    if (process.env.CI) throw new Error(`[e2e] ${message}`);
    console.warn(`[e2e] skipping the real-browser tests: ${message}`);
    project.provide("chromiumPath", "");
    project.provide("demoUrl", "");
    return async () => {};
  }
  const started = performance.now();
  // A private output folder: a developer's own `npm run build:demo` (dist-demo/) is left alone.
  const outDir = await mkdtemp(join(tmpdir(), "fabrik-demo-"));
  await build({
    configFile: join(ROOT, "vite.config.ts"),
    mode: "demo",
    logLevel: "warn",
    build: { outDir, emptyOutDir: true },
  });
  // Under a sub-path, as on a project's static pages: nothing in the build may assume it sits at "/".
  const server = await serveStatic(outDir, "/babylon-fabrik/demo/");
  console.log(
    `[e2e] demo built in ${((performance.now() - started) / 1000).toFixed(1)} s, served at ${server.url}`,
  );
  project.provide("chromiumPath", chromiumPath);
  project.provide("demoUrl", server.url);
  return async () => {
    await server.close();
    await rm(outDir, { recursive: true, force: true });
  };
}
