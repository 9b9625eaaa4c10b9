// A minimal static file server for the built demo (not a test file).
import { createReadStream, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".glb": "model/gltf-binary",
  ".wasm": "application/wasm",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".map": "application/json",
};

export interface StaticServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `root` on 127.0.0.1 at a free port under the sub-path `prefix` (as a project page on a static host
 * is: `/<prefix>/index.html`); a folder's URL serves its index.html. Nothing outside `root` is reachable,
 * and nothing outside the prefix is served.
 */
export async function serveStatic(root: string, prefix = "/"): Promise<StaticServer> {
  const base = normalize(root + sep);
  const server: Server = createServer((request, response) => {
    const full = decodeURIComponent(new URL(request.url ?? "/", "http://localhost").pathname);
    const path = full.startsWith(prefix) ? `/${full.slice(prefix.length)}` : null;
    const file = path === null ? "" : normalize(join(base, path.endsWith("/") ? `${path}index.html` : path));
    let size = -1;
    try {
      if (file !== "" && file.startsWith(base)) size = statSync(file).isFile() ? statSync(file).size : -1;
    } catch {
      size = -1;
    }
    if (size < 0) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    response.writeHead(200, {
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "content-length": size,
    });
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
