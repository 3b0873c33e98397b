/**
 * Bundles `npm start` (src/cli/main.ts) into dist/ with esbuild: starting from one prebuilt file skips
 * compiling about a hundred TypeScript modules through tsx on every start. `npm start` runs this first
 * (`prestart`, with `--if-stale`: a no-op when no input is newer than the bundle), so a clean clone needs
 * only `npm install`. `npx tsx src/cli/main.ts` still runs the sources directly.
 *
 * The node flags of "start" are for memory under load: `--max-semi-space-size=2` caps the young generation,
 * whose semi-spaces V8 otherwise grows to 64 MB (resident memory after a short `npm run bench` 195 MB
 * without the cap, 136 MB with it); `--v8-pool-size=2` keeps two V8 worker threads instead of four, each
 * with its own malloc arena (about 4 MB less). src/cli/memory.ts keeps the old generation close to what
 * survives once the world is built.
 *
 * Usage: node scripts/build.ts [--if-stale]
 */
import { createHash } from "node:crypto";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Metafile, Plugin } from "esbuild";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const DIST = path.join(ROOT, "dist");
/** What `npm start` and `audience-research-sim serve` run: scripts/serve-entry.cjs, naming the bundle it runs. */
const ENTRY = path.join(DIST, "main.cjs");
const ENTRY_SOURCE = path.join(ROOT, "scripts/serve-entry.cjs");
/**
 * The simulator's command line as one CommonJS script, not an ES module: the entry runs it with the code V8
 * compiled for it at an earlier start, which Node offers for a script only (scripts/serve-entry.cjs says why).
 */
const BUNDLE = path.join(DIST, "cli.cjs");
const META = path.join(DIST, "cli.meta.json");
/** The worlds made at build time (src/cli/prebuilt.ts), beside the bundle that reads them. */
const TEMPLATES = path.join(DIST, "templates");
/** The conformance kit's command line, bundled the same way: it runs with no TypeScript loader and no test framework. */
const KIT_BUNDLE = path.join(DIST, "conformance.mjs");
const KIT_META = path.join(DIST, "conformance.meta.json");
const SCALAR = path.join(DIST, "scalar.js");
/**
 * pdf-lib, bundled and minified on its own and loaded by the export writers on the first PDF export: the
 * package ships this file (about 440 KB) instead of depending on pdf-lib, whose published package
 * holds four builds of itself (24 MB in every consumer's node_modules). Its licence and those of what it
 * bundles go beside it.
 */
const PDF_LIB = path.join(DIST, "vendor/pdf-lib.mjs");
const PDF_LIB_LICENSES = path.join(DIST, "vendor/pdf-lib.LICENSES.txt");
const PDF_LIB_PACKAGES = ["pdf-lib", "@pdf-lib/standard-fonts", "@pdf-lib/upng", "pako", "tslib"];

/**
 * Packages left to node_modules rather than bundled: the ones only some requests need, loaded by a
 * dynamic `import()` on first use (documents for exports, Prism for `Prefer: dynamic=true`). Bundled, their
 * code would still be parsed at every start. @scalar/api-reference is not imported at all: docs.ts finds
 * its browser bundle with `createRequire(import.meta.url)`, which from dist/ resolves in node_modules as
 * it does from src/node/.
 */
const EXTERNAL = ["pptxgenjs", "jszip", "@stoplight/*", "@scalar/*"];

/**
 * The project's JSON files (openapi.json above all, 280 KB) are bundled as a string that `JSON.parse` reads
 * at start rather than as an object literal: V8 parses JSON faster than the same data as code, and the code
 * cache of a literal that large (its boilerplate, thousands of small objects) took about a millisecond
 * longer to load.
 */
const jsonAsText: Plugin = {
  name: "json-as-text",
  setup(b) {
    b.onLoad({ filter: /\.json$/ }, (args) => {
      // A package's JSON is left to esbuild: CommonJS code require()s it and expects the object itself.
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const minified = JSON.stringify(JSON.parse(readFileSync(args.path, "utf8")));
      return { contents: `export default JSON.parse(${JSON.stringify(minified)});`, loader: "js" };
    });
  },
};

/**
 * In the simulator's bundle, ajv and ajv-formats are initialized when a validator is first made, not at
 * start: their some 80 modules took about 1.8 ms of every start (and a young collection) before the first
 * answer, which needs no validator unless it has a body. The sources import them as usual; here an import
 * of either gets a stand-in whose function makes the real one on its first call (`new Ajv2020(...)` returns
 * the real instance, `addFormats(...)` calls the real plugin). esbuild bundles the `require` in the stand-in
 * as the lazy call to the package's CommonJS wrapper it makes of any package.
 */
const LAZY_PACKAGES: Record<string, string> = {
  "ajv/dist/2020.js": `let real;
export function Ajv2020(...args) {
  real ??= require("ajv/dist/2020.js");
  return new real.Ajv2020(...args);
}`,
  "ajv-formats": `let real;
export default function addFormats(...args) {
  real ??= require("ajv-formats");
  return (real.default ?? real)(...args);
}`,
};
const lazyPackages: Plugin = {
  name: "lazy-packages",
  setup(b) {
    const names = Object.keys(LAZY_PACKAGES).map((n) => n.replace(/[./-]/g, "\\$&"));
    // Imports only: the stand-in's own require, and the packages' requires of each other, get the package.
    b.onResolve({ filter: new RegExp(`^(${names.join("|")})$`) }, (args) =>
      args.kind === "import-statement" ? { path: args.path, namespace: "lazy-package" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "lazy-package" }, (args) => ({
      contents: LAZY_PACKAGES[args.path] as string,
      loader: "js",
      resolveDir: ROOT,
    }));
  },
};

/** `import("pdf-lib")` in the bundles loads the vendored build beside them (PDF_LIB). */
const vendoredPdfLib: Plugin = {
  name: "vendored-pdf-lib",
  setup(b) {
    b.onResolve({ filter: /^pdf-lib$/ }, () => ({ path: "./vendor/pdf-lib.mjs", external: true }));
  },
};

/** Files whose change can change the bundle without being one of its inputs. */
const BUILD_INPUTS = ["scripts/build.ts", "scripts/serve-entry.cjs", "package-lock.json", "tsconfig.json"];

/** True when both bundles exist and no input of their last build (nor the build itself) is newer. */
function isFresh(): boolean {
  const templates = path.join(TEMPLATES, "default-1.json");
  return (
    isFreshBundle(BUNDLE, META, [ENTRY, SCALAR, PDF_LIB, templates]) &&
    isFreshBundle(KIT_BUNDLE, KIT_META, [])
  );
}

function isFreshBundle(bundle: string, metaFile: string, also: string[]): boolean {
  let built: number;
  let meta: Metafile;
  try {
    built = Math.min(...[bundle, ...also].map((f) => statSync(f).mtimeMs));
    meta = JSON.parse(readFileSync(metaFile, "utf8")) as Metafile;
  } catch {
    return false;
  }
  // Files only: the built-ins' modules of builtinsByRequire are listed as `builtin:node:…`.
  const files = Object.keys(meta.inputs).filter((input) => !input.startsWith("builtin:"));
  const inputs = [...files, ...BUILD_INPUTS];
  return inputs.every((file) => {
    try {
      return statSync(path.resolve(ROOT, file)).mtimeMs <= built;
    } catch {
      return false;
    }
  });
}

/**
 * Node built-ins are bound the CommonJS way, one property read where a name is used, instead of as ES
 * modules. An ES module import of a built-in reads all its exports to build the namespace, and some are
 * lazy: importing `node:http` loads Node's whole bundled undici (its `WebSocket` getter, some 70 ms) and
 * `node:util` some 30 internal modules (its `TextDecoder`, `types`…), for exports the simulator never uses.
 * esbuild's own CommonJS interop (`__toESM`) would read every property descriptor, which loads them too;
 * so each named export is a pure call that tree shaking drops when nothing imports it.
 */
const builtinsByRequire: Plugin = {
  name: "builtins-by-require",
  setup(b) {
    const nodeRequire = createRequire(import.meta.url);
    b.onResolve({ filter: /^node:/ }, (args) =>
      args.namespace === "builtin" || args.kind === "require-call"
        ? { path: args.path, external: true }
        : { path: args.path, namespace: "builtin" },
    );
    b.onLoad({ filter: /.*/, namespace: "builtin" }, (args) => {
      const names = Object.getOwnPropertyNames(nodeRequire(args.path)).filter(
        (name) => name !== "default" && /^[A-Za-z_$][\w$]*$/.test(name),
      );
      const lines = [
        `const __builtin = require(${JSON.stringify(args.path)});`,
        "const __read = (name) => __builtin[name];",
        "export default __builtin;",
        ...names.flatMap((name, i) => [
          `const __export${i} = /* @__PURE__ */ __read(${JSON.stringify(name)});`,
          `export { __export${i} as ${name} };`,
        ]),
      ];
      return { contents: lines.join("\n"), loader: "js" };
    });
  },
};

export async function build(): Promise<void> {
  // Loaded only to build, so the freshness check before every start stays cheap.
  const { build: esbuild } = await import("esbuild");
  const bundle = (
    entry: string,
    outfile: string,
    external: string[],
    format: "esm" | "cjs",
    plugins: Plugin[] = [],
  ) =>
    esbuild({
      absWorkingDir: ROOT,
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: "node",
      format,
      target: "node22",
      external,
      ...(format === "esm"
        ? {
            // For builtinsByRequire, and for CommonJS dependencies that require() Node built-ins.
            banner: {
              js: 'import { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);',
            },
          }
        : {
            // Written as the function the entry calls with a CommonJS module's arguments (strict, as the ES
            // modules it is made of), so that the entry hands V8 the file as it is (scripts/serve-entry.cjs).
            // A script has no import.meta: the few modules that find files beside themselves get the bundle's URL.
            banner: {
              js: `(function (exports, require, module, __filename, __dirname) {"use strict";const __import_meta_url = require("node:url").pathToFileURL(__filename).href;`,
            },
            footer: { js: "})" },
            define: { "import.meta.url": "__import_meta_url" },
            // ASCII, so that the entry may read it as latin1 (checked after the build).
            charset: "ascii",
          }),
      // Stack traces name dist/cli.cjs and dist/*.mjs; the maps beside them lead to the sources (with
      // `node --enable-source-maps`, which costs about 20 ms of start-up, so npm start goes without).
      sourcemap: true,
      plugins: [builtinsByRequire, vendoredPdfLib, jsonAsText, ...plugins],
      metafile: true,
      logLevel: "warning",
    });
  const [sim, kit] = await Promise.all([
    bundle("src/cli/main.ts", BUNDLE, EXTERNAL, "cjs", [lazyPackages]),
    // The kit checks HTTP answers; it never renders a document or starts Prism, so it keeps nothing out.
    bundle("conformance/cli.ts", KIT_BUNDLE, [], "esm"),
    esbuild({
      absWorkingDir: ROOT,
      entryPoints: ["pdf-lib"],
      outfile: PDF_LIB,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node22",
      mainFields: ["module", "main"],
      minify: true,
      legalComments: "none",
      logLevel: "warning",
    }),
  ]);
  const require = createRequire(import.meta.url);
  writeFileSync(
    PDF_LIB_LICENSES,
    PDF_LIB_PACKAGES.map((name) => {
      const dir = path.dirname(require.resolve(`${name}/package.json`));
      const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
      return `${name}\n\n${file ? readFileSync(path.join(dir, file), "utf8") : "(no licence file)"}`;
    }).join(`\n${"-".repeat(72)}\n`),
  );
  // The API reference page's browser bundle, copied beside the server so that an installed package needs
  // only this file, not @scalar/api-reference and its dependency tree (src/node/docs.ts looks here first).
  copyFileSync(createRequire(import.meta.url).resolve("@scalar/api-reference/browser/standalone.js"), SCALAR);
  writeFileSync(META, JSON.stringify(sim.metafile));
  writeFileSync(KIT_META, JSON.stringify(kit.metafile));
  await writePrebuiltTemplates(esbuild);
  const code = readFileSync(BUNDLE);
  // esbuild escapes what it can; a character it leaves (in a comment it keeps) would be misread as latin1.
  const wide = code.findIndex((byte) => byte > 0x7f);
  if (wide !== -1)
    throw new Error(
      `${BUNDLE} is not ASCII at byte ${wide}: ${code.subarray(Math.max(0, wide - 40), wide + 10)}`,
    );
  const bundleId = createHash("sha256").update(code).digest("hex").slice(0, 16);
  writeFileSync(ENTRY, readFileSync(ENTRY_SOURCE, "utf8").replace("__BUNDLE_ID__", bundleId));
}

/**
 * The worlds `serve` starts from without options, made now rather than at every start (src/cli/prebuilt.ts):
 * src/cli/prebuilt.ts is bundled from the same sources as the simulator's bundle, run once here, and what it
 * makes is written where the bundle looks for it (dist/templates/).
 */
async function writePrebuiltTemplates(esbuild: typeof import("esbuild").build): Promise<void> {
  const scratch = mkdtempSync(path.join(tmpdir(), "ars-build-"));
  try {
    const maker = path.join(scratch, "prebuilt.mjs");
    await esbuild({
      absWorkingDir: ROOT,
      entryPoints: ["src/cli/prebuilt.ts"],
      outfile: maker,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node22",
      external: EXTERNAL,
      logLevel: "warning",
    });
    const { PREBUILT, prebuiltText } = (await import(
      pathToFileURL(maker).href
    )) as typeof import("../src/cli/prebuilt.ts");
    rmSync(TEMPLATES, { recursive: true, force: true });
    mkdirSync(TEMPLATES, { recursive: true });
    for (const { scenario, seed } of PREBUILT)
      writeFileSync(path.join(TEMPLATES, `${scenario}-${seed}.json`), prebuiltText(scenario, seed));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The node arguments of `npm start`, from package.json's "start" script (`node [flags] dist/main.cjs`), for
 * whatever must run exactly what `npm start` runs, flags included (the benchmark, the bundle's test).
 */
export function startArgs(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const [command, ...args] = (pkg.scripts.start ?? "").trim().split(/\s+/);
  if (command !== "node" || args.length === 0) {
    throw new Error(`package.json "start" is not "node [flags] FILE": ${pkg.scripts.start}`);
  }
  return args;
}

/** Builds unless the bundle is fresh; true when it built. */
export async function buildIfStale(): Promise<boolean> {
  if (isFresh()) return false;
  await build();
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes("--if-stale");
  const started = performance.now();
  if (!ifStale) await build();
  if (!ifStale || (await buildIfStale())) {
    const ms = Math.round(performance.now() - started);
    process.stderr.write(`built ${path.relative(process.cwd(), ENTRY)} in ${ms} ms\n`);
  }
}
