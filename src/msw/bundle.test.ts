/**
 * `<package>/msw` builds for the browser: esbuild (platform browser) bundles it with every dependency, and
 * nothing Node-only is reachable. esbuild fails on a Node built-in it cannot resolve for the browser; the
 * checks below also catch one left external or imported from the output. The export renderers' libraries
 * are loaded with dynamic `import()`: with code splitting each becomes a chunk fetched only when an export
 * is rendered (pptxgenjs's own guarded `import("node:fs")` is mapped to an empty module by its
 * package.json `browser` field). The contract and the generators' data arrive as JSON imports, inside the bundle.
 */
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const NODE_BUILTIN =
  /^(node:|(assert|buffer|child_process|cluster|crypto|dgram|dns|events|fs|http|http2|https|module|net|os|path|perf_hooks|process|querystring|readline|stream|string_decoder|timers|tls|tty|url|util|v8|vm|worker_threads|zlib)(\/|$))/;

describe("browser bundle of audience-research-sim/msw (src/msw/index.ts)", () => {
  it("builds for the browser without any Node-only module", async () => {
    const result = await build({
      // Through the package's `exports` map, as a consumer imports it (its `source` condition).
      stdin: {
        contents: 'export { createHandlers } from "audience-research-sim/msw";',
        resolveDir: process.cwd(),
        sourcefile: "index.ts",
        loader: "ts",
      },
      bundle: true,
      // The sources behind the export (the published package maps it to dist/msw.mjs).
      conditions: ["source"],
      platform: "browser",
      format: "esm",
      splitting: true,
      outdir: "/nonexistent/out",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
    const imports = Object.values(result.metafile.inputs).flatMap((i) => i.imports);
    const nodeOnly = imports.filter((i) => NODE_BUILTIN.test(i.path) && !i.path.startsWith("(disabled)"));
    expect(nodeOnly).toEqual([]);
    expect(imports.filter((i) => i.external && i.path !== "<runtime>")).toEqual([]);
    for (const out of result.outputFiles) {
      // esbuild prints every import it leaves with double quotes; single-quoted text is inside strings.
      expect(out.text, out.path).not.toMatch(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)"node:/);
    }
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs).toContain("src/msw/index.ts");
    expect(inputs).toContain("openapi.json");
    expect(inputs.some((i) => i.startsWith("src/generators/"))).toBe(true);
    expect(inputs.some((i) => i.startsWith("src/node/") || i.includes("@stoplight/prism"))).toBe(false);
    // The export libraries are separate chunks, not in the entry.
    const [, entry] = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint === "index.ts")!;
    const inEntry = Object.keys(entry.inputs);
    for (const lib of ["pdf-lib", "pptxgenjs", "jszip"])
      expect(
        inEntry.some((i) => i.includes(`node_modules/${lib}/`)),
        lib,
      ).toBe(false);
  });
});
