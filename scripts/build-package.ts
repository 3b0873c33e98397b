/**
 * What the published package's `exports` serve: `.` (createSimulator) and `./msw` (createHandlers) as plain
 * JavaScript that Node and bundlers load without a TypeScript loader, and their type declarations. The
 * dependencies stay external (the package's `dependencies` and its `msw` peer); the contract and the
 * generators' data are JSON imports, inside. `npm pack` runs this (`prepack`) after `npm run build`.
 *
 * Usage: node scripts/build-package.ts
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})].flatMap(
  (name) => [name, `${name}/*`],
);

export async function buildPackage(): Promise<void> {
  const { build } = await import("esbuild");
  // Chunk names carry a content hash: without this, every earlier build's chunks would ship as well.
  rmSync(path.join(ROOT, "dist/chunks"), { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: { index: "src/simulator.ts", msw: "src/msw/index.ts" },
    outdir: "dist",
    outExtension: { ".js": ".mjs" },
    bundle: true,
    // The core runs in browsers too (MSW); the Node host is not part of these entries.
    platform: "neutral",
    mainFields: ["module", "main"],
    format: "esm",
    target: "es2022",
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    external,
    sourcemap: true,
    logLevel: "warning",
  });
  rmSync(path.join(ROOT, "dist/types"), { recursive: true, force: true });
  const tsc = path.join(ROOT, "node_modules/typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", path.join(ROOT, ".config/tsconfig.types.json")], {
    stdio: "inherit",
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildPackage();
