import type { DroppedFile } from "../scenes/types.js";

/*
 * What is wrong with a dropped file, said in words a user can act on. The glTF loader's own messages
 * ("Invalid typed array length: 20", "Unexpected magic: 1879762713") describe its internals, so the
 * common problems are recognised before loading, and what the loader still throws is explained after.
 */

const GLB_MAGIC = 0x46546c67; // "glTF", little-endian

async function bytesOf(data: File | Uint8Array): Promise<Uint8Array> {
  return data instanceof Uint8Array ? data : new Uint8Array(await data.arrayBuffer());
}

function isBinaryName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.endsWith(".glb") || lower.endsWith(".vrm");
}

/** A .glb's header: the signature, and the length it promises against the bytes there are. */
function checkGlb(name: string, bytes: Uint8Array): void {
  if (bytes.length < 12) {
    throw new Error(
      `"${name}" is ${bytes.length} bytes long, too short for a .glb (its header alone is 12). ` +
        "Export the character again, or check that the download finished.",
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== GLB_MAGIC) {
    const text = bytes[0] === 0x7b; // "{"
    throw new Error(
      text
        ? `"${name}" holds glTF JSON, not binary glTF: rename it to .gltf (and drop it with its .bin and textures).`
        : `"${name}" is not a glTF binary file: it does not start with the glTF signature. ` +
            "Export the character from your 3D tool as glTF 2.0 Binary (.glb).",
    );
  }
  const promised = view.getUint32(8, true);
  if (promised > bytes.length) {
    throw new Error(
      `"${name}" is cut short: its header promises ${promised} bytes but the file has ${bytes.length}. ` +
        "The download or copy probably stopped early: get the file again.",
    );
  }
}

/** A .gltf's JSON, and the .bin and image files it names, which must have been dropped with it. */
function checkGltf(name: string, bytes: Uint8Array, companions: readonly File[]): void {
  let json: { buffers?: { uri?: string }[]; images?: { uri?: string }[] };
  try {
    json = JSON.parse(new TextDecoder().decode(bytes)) as typeof json;
  } catch {
    throw new Error(
      `"${name}" is not valid glTF JSON (a .gltf is a text file). If it is binary glTF, rename it to .glb.`,
    );
  }
  if (typeof json !== "object" || json === null) throw new Error(`"${name}" is not a glTF file.`);
  const have = new Set(companions.map((f) => f.name.toLowerCase()));
  const needed = [...(json.buffers ?? []), ...(json.images ?? [])]
    .map((item) => item.uri)
    .filter((uri): uri is string => typeof uri === "string" && !uri.startsWith("data:"))
    .map((uri) => decodeURIComponent(uri).split("/").pop()!);
  const missing = needed.filter((file) => !have.has(file.toLowerCase()));
  if (missing.length > 0) {
    const list = missing.map((m) => `"${m}"`).join(", ");
    throw new Error(
      `"${name}" keeps its data in ${missing.length === 1 ? "another file" : "other files"}, ${list}, ` +
        `which ${missing.length === 1 ? "was" : "were"} not dropped with it. Select the .gltf together ` +
        "with its .bin and textures and drop (or open) them all at once, or export a single .glb instead.",
    );
  }
}

/** Throws a readable Error for a file the loader would choke on. */
export async function checkModelFile(file: DroppedFile): Promise<void> {
  const bytes = await bytesOf(file.data);
  if (bytes.length === 0) {
    throw new Error(`"${file.name}" is empty (0 bytes). Export the character again, or check the download.`);
  }
  if (isBinaryName(file.name)) checkGlb(file.name, bytes);
  else checkGltf(file.name, bytes, file.companions ?? []);
}

/** The loader's error for `file`, in words a user can act on. */
export function explainLoadError(file: DroppedFile, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/typed array length|offset is out of bounds|out of range|RangeError/i.test(message)) {
    return (
      `"${file.name}" is damaged: the loader found less data than the file describes. ` +
      `Export or download it again. (${message})`
    );
  }
  if (/magic/i.test(message)) {
    return `"${file.name}" is not glTF 2.0 binary. Export the character as .glb. (${message})`;
  }
  if (/Failed to load|404|fetch/i.test(message)) {
    return (
      `"${file.name}" refers to a file that could not be read. Drop a .gltf together with its .bin and ` +
      `textures, or a single .glb. (${message})`
    );
  }
  return `Could not load "${file.name}" as a glTF 2.0 character: ${message}`;
}
