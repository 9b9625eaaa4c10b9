import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vitest/config";

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

export default defineConfig({
  // `npm run dev` serves the demo; `npm run build` builds the library from plugin/.
  root: here("./demo"),
  publicDir: false,
  server: { fs: { allow: [here(".")] } },
  build: {
    outDir: here("./dist"),
    emptyOutDir: true,
    sourcemap: true,
    lib: {
      entry: here("./plugin/index.ts"),
      formats: ["es"],
      fileName: () => "index.js",
    },
    rollupOptions: {
      external: [/^@babylonjs\//],
    },
  },
  plugins: [threeIkUsesLegacyThree()],
  test: {
    root: here("."),
    include: ["test/**/*.test.ts"],
    exclude: ["test/e2e/**", "node_modules/**"],
    server: { deps: { inline: ["three-ik", "three-legacy"] } },
    // The benchmarks measure allocation with explicit collections.
    execArgv: ["--expose-gc"],
    benchmark: {
      include: ["test/bench/**/*.bench.ts"],
    },
  },
});
