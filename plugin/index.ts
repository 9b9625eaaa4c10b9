// The public API of babylon-fabrik: re-exports only.
export * from "./solver/index.js";
