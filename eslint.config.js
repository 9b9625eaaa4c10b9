// @ts-check
import js from "@eslint/js";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

/**
 * The folders of plugin/ by dependency: each may import only the folders below it, and another folder only
 * through its index (barrel), except the solver, whose internals the rig, the Babylon glue and the tools
 * still reach into (its index is the public solver API). `regex` patterns are matched against the import
 * string; type imports count too.
 */
const layers = [
  {
    folder: "solver",
    forbidden: [
      { regex: "^@babylonjs/", message: "solver/ is engine-free: it never imports Babylon." },
      { regex: "^\\.\\./", message: "solver/ imports nothing outside solver/." },
    ],
  },
  {
    folder: "rig",
    forbidden: [
      { regex: "^@babylonjs/", message: "rig/ is engine-free: it never imports Babylon." },
      { regex: "^\\.\\./(?!solver/)", message: "rig/ imports only solver/." },
    ],
  },
  {
    folder: "babylon",
    forbidden: [
      {
        regex: "^\\.\\./(tools|helpers)/|^\\.\\./index\\.js$",
        message:
          "babylon/ imports only solver/ and rig/: tools and helpers import the behavior, never the reverse.",
      },
      { regex: "^\\.\\./rig/(?!index\\.js$)", message: "Import rig/ through its index: ../rig/index.js." },
    ],
  },
  {
    folder: "tools",
    forbidden: [
      {
        regex: "^\\.\\./helpers/|^\\.\\./index\\.js$",
        message: "tools/ import solver/, rig/ and babylon/, never helpers/.",
      },
      {
        regex: "^\\.\\./(rig|babylon)/(?!index\\.js$)",
        message: "Import rig/ and babylon/ through their indexes: ../rig/index.js, ../babylon/index.js.",
      },
    ],
  },
  {
    folder: "helpers",
    forbidden: [
      {
        regex: "^\\.\\./(?!(solver|rig|babylon)/index\\.js$)",
        message:
          "helpers/ use only the public API: ../solver/index.js, ../rig/index.js, ../babylon/index.js.",
      },
    ],
  },
];

export default tseslint.config(
  { ignores: ["dist/**", "dist-demo/**", "dist-docs/**", "node_modules/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  ...layers.map(({ folder, forbidden }) => ({
    files: [`plugin/${folder}/**/*.ts`],
    rules: { "no-restricted-imports": ["error", { patterns: forbidden }] },
  })),
  {
    // The package entry re-exports the folders' indexes, nothing deeper.
    files: ["plugin/index.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\./(?!(solver|rig|babylon|tools|helpers)/index\\.js$)",
              message: "plugin/index.ts re-exports only the folders' indexes.",
            },
          ],
        },
      ],
    },
  },
  {
    // One concept per file: a plugin file that grows past 400 lines holds more than one.
    files: ["plugin/**/*.ts"],
    rules: { "max-lines": ["error", { max: 400, skipBlankLines: false, skipComments: false }] },
  },
  {
    // No import cycle anywhere in plugin/ (type-only imports are erased, so they cannot form one at run time).
    files: ["plugin/**/*.ts"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/extensions": [".ts", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      "import-x/resolver-next": [
        createNodeResolver({ extensions: [".ts", ".js"], extensionAlias: { ".js": [".ts", ".js"] } }),
      ],
    },
    rules: { "import-x/no-cycle": ["error", { ignoreExternal: true }] },
  },
);
