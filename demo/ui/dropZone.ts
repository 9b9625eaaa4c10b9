import type { DroppedFile } from "../scenes/types.js";
import { MODEL_EXTENSIONS } from "../scenes/dropped.js";

/**
 * Lets the user drop a character file anywhere on the page. With several files (a .gltf with its .bin and
 * textures), the model file is the one loaded and the rest travel with it.
 */
export function installDropZone(onDrop: (file: DroppedFile) => void): void {
  const banner = document.getElementById("drop") as HTMLDivElement;
  let depth = 0;
  const show = (on: boolean) => {
    banner.hidden = !on;
  };
  window.addEventListener("dragenter", (event) => {
    if (!event.dataTransfer?.types.includes("Files")) return;
    depth++;
    show(true);
  });
  window.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) show(false);
  });
  window.addEventListener("dragover", (event) => {
    // Without this the browser would open the file instead of handing it to the page.
    event.preventDefault();
    if (event.dataTransfer !== null) event.dataTransfer.dropEffect = "copy";
  });
  window.addEventListener("drop", (event) => {
    event.preventDefault();
    depth = 0;
    show(false);
    const files = Array.from(event.dataTransfer?.files ?? []);
    if (files.length > 0) onDrop(modelFile(files));
  });
}

/** Of files dropped or picked together, the model, the others (a .gltf's .bin and textures) travelling with it. */
export function modelFile(files: readonly File[]): DroppedFile {
  const isModel = (f: File) => MODEL_EXTENSIONS.some((e) => f.name.toLowerCase().endsWith(e));
  const main = files.find(isModel) ?? files[0];
  return { name: main.name, data: main, companions: files.filter((f) => f !== main) };
}
