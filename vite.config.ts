import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin, UserConfig } from "vite";
import { defineConfig } from "vitest/config";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * THREE.IK (npm `three-ik`, a benchmark peer) was written against the three.js of its time and breaks on
 * current releases; give it three@0.112 (installed as `three-legacy`) while everything else keeps `three`.
 */
function threeIkUsesLegacyThree(): Plugin {
  return {
    name: "three-ik-uses-legacy-three",
    enforce: "pre",
    resolveId(source, importer) {
      if (source === "three" && importer !== undefined && importer.includes("/three-ik/")) {
        return this.resolve("three-legacy", importer, { skipSelf: true });
      }
      return null;
    },
  };
}

/**
 * Benchmarks measure the package as applications get it: every import of plugin/index.ts resolves to the
 * built dist/index.js (one module, as a bundler would see it) instead of the sources under the test
 * runner's per-module transform. `npm run bench` builds first; a dist/ older than any file in plugin/ is
 * refused rather than measured.
 */
function benchAgainstBuiltPackage(): Plugin {
  const entry = here("./plugin/index.ts");
  const built = here("./dist/index.js");
  let checked = false;
  return {
    name: "bench-against-built-package",
    enforce: "pre",
    async resolveId(source, importer, options) {
      if (!source.endsWith("/plugin/index.js")) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (resolved?.id !== entry) return null;
      if (!checked) {
        let builtAt: number;
        try {
          builtAt = statSync(built).mtimeMs;
        } catch {
          throw new Error("benchmarks run against dist/: run `npm run build` first (or `npm run bench`)");
        }
        if (newestModification(here("./plugin")) > builtAt)
          throw new Error("dist/ is older than plugin/: run `npm run build` first (or `npm run bench`)");
        checked = true;
      }
      return built;
    },
  };
}

function newestModification(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    const time = entry.isDirectory() ? newestModification(path) : statSync(path).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

// `npm run dev` serves the demo from demo/ (it fetches the characters from assets/ through `?url` imports).
const shared: UserConfig = {
  root: here("./demo"),
  publicDir: false,
  server: { fs: { allow: [here(".")] } },
  plugins: [threeIkUsesLegacyThree()],
};

/** `vite build --mode demo`: the demo as a static site in dist-demo/, servable from any sub-path. */
const demo: UserConfig = {
  ...shared,
  base: "./",
  build: {
    outDir: here("./dist-demo"),
    emptyOutDir: true,
    // The Inspector chunk (React + Fluent UI) is large by nature and only fetched when asked for.
    chunkSizeWarningLimit: 12_000,
    rollupOptions: {
      onwarn(warning, warn) {
        // Fluent UI's React "use client" directives mean nothing outside a server-components bundler.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
    },
  },
};

/** `vite build`: the library from plugin/ into dist/ (types come from tsc), plus the test setup. */
const library: UserConfig = {
  ...shared,
  build: {
    outDir: here("./dist"),
    emptyOutDir: true,
    // Readable output and no maps (they would point at plugin/*.ts, which the package does not ship):
    // applications' bundlers minify.
    minify: false,
    sourcemap: false,
    lib: {
      entry: here("./plugin/index.ts"),
      formats: ["es"],
      fileName: () => "index.js",
    },
    rollupOptions: {
      external: [/^@babylonjs\//],
    },
  },
  test: {
    root: here("."),
    server: { deps: { inline: ["three-ik", "three-legacy"] } },
    // The benchmarks measure allocation with explicit collections.
    execArgv: ["--expose-gc"],
    // Per project, not here: `extends` concatenates lists, so a root list would reach every project.
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          globalSetup: ["test/sharedSummary.ts"],
          // Files run in parallel on machines of any speed: a timeout is a hang detector, not a speed goal
          // (speed goals live in the benchmarks).
          testTimeout: 60_000,
          hookTimeout: 60_000,
          exclude: ["test/e2e/**", "node_modules/**"],
          benchmark: { include: [] },
        },
      },
      {
        // `vitest bench`: against the built package (see benchAgainstBuiltPackage).
        extends: true,
        plugins: [benchAgainstBuiltPackage()],
        test: {
          name: "bench",
          include: [],
          benchmark: { include: ["test/bench/**/*.bench.ts"] },
        },
      },
      {
        // Real Chromium against the built demo: the build and the server start once, and only when an
        // e2e test is selected (vitest runs a project's global setup only when it has tests queued).
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/e2e/globalSetup.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // One browser at a time: two SwiftShader browsers on a small machine only slow each other down.
          fileParallelism: false,
          benchmark: { include: [] },
        },
      },
    ],
  },
};

export default defineConfig(({ mode }) => (mode === "demo" ? demo : library));
