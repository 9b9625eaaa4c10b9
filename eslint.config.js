// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "dist-demo/**", "dist-docs/**", "node_modules/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // The solver layer must stay engine-free: it never learns about Babylon.
    files: ["plugin/solver/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: ["@babylonjs/*", "../babylon/*", "../helpers/*"] }],
    },
  },
);
