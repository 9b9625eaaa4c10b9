import type { Scene } from "@babylonjs/core/scene.js";

interface Token {
  dispose(): Promise<void>;
  readonly isDisposed: boolean;
  readonly onDisposed: { addOnce(callback: () => void): unknown };
}

let token: Token | null = null;
let inspected: Scene | null = null;

/**
 * Opens the Babylon Inspector on `scene` (or closes it when it is open on that scene). It is fetched on
 * first use: React and Fluent UI are far larger than the demo itself. `onChange` hears every open and close,
 * including the Inspector closing itself.
 */
export async function toggleInspector(scene: Scene, onChange: (open: boolean) => void): Promise<void> {
  if (token !== null && !token.isDisposed) {
    const same = inspected === scene;
    await token.dispose();
    token = null;
    if (same) return;
  }
  const { ShowInspector } = await import("@babylonjs/inspector");
  const opened: Token = ShowInspector(scene, { layoutMode: "overlay" });
  token = opened;
  inspected = scene;
  onChange(true);
  opened.onDisposed.addOnce(() => {
    if (token === opened || token === null) onChange(false);
  });
}

/** Moves an open Inspector to the new scene after a scene switch. */
export async function followScene(scene: Scene, onChange: (open: boolean) => void): Promise<void> {
  if (token === null || token.isDisposed || inspected === scene) return;
  await toggleInspector(scene, onChange);
}
