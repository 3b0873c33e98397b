/**
 * Builds the MSW example page (src/msw/example/) into a directory: the page, its TypeScript bundled for the
 * browser by esbuild, and MSW's worker script copied from the installed package (as `npx msw init` would).
 * Also a tiny static file server on loopback to open it. By hand:
 *
 *   npx tsx testing/msw-example.ts [DIR]      # builds into DIR (default: a temp dir) and serves it
 */
import { copyFile, mkdtemp, readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const EXAMPLE = path.join(ROOT, "src/msw/example");

export async function buildExample(outDir?: string): Promise<string> {
  const dir = outDir ?? (await mkdtemp(path.join(tmpdir(), "msw-example-")));
  await build({
    entryPoints: [path.join(EXAMPLE, "main.ts")],
    bundle: true,
    platform: "browser",
    format: "esm",
    splitting: true,
    target: "es2022",
    outdir: dir,
    entryNames: "app",
    chunkNames: "chunks/[name]-[hash]",
    logLevel: "error",
  });
  await copyFile(path.join(EXAMPLE, "index.html"), path.join(dir, "index.html"));
  await copyFile(
    path.join(ROOT, "node_modules/msw/lib/mockServiceWorker.js"),
    path.join(dir, "mockServiceWorker.js"),
  );
  return dir;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".png": "image/png",
};

export interface StaticServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `dir` on 127.0.0.1 (any free port unless given); `/` is index.html. */
export function serveDir(dir: string, port = 0): Promise<StaticServer> {
  const server = http.createServer(async (req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const file = path.join(dir, pathname === "/" ? "index.html" : pathname);
    if (!file.startsWith(dir)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, {
        "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store",
      });
      res.end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${bound}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = await buildExample(process.argv[2]);
  const server = await serveDir(dir, 5173);
  process.stdout.write(`Built into ${dir}\nOpen ${server.url}/ (Ctrl+C to stop)\n`);
}
