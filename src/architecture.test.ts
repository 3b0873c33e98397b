/**
 * The shape the code keeps (issue: architecture): no import circle, a core that knows no resource, and
 * files one or two screens long. Read from the sources, so that a change that breaks it fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TREES = ["src", "conformance", "scenarios", "generators", "testing"];
const GENERATED = new Set(["src/contract/types.gen.ts", "scenarios/document/types.gen.ts"]);

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : sources(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

const files = TREES.flatMap(sources);

/**
 * Imports between the project's own modules, `import type` included: a circle of types leaves nothing at run
 * time, but it is still a circle a reader must untangle.
 */
function imports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  // `import … from "./x"`, `export … from "./x"` and the bare `import "./x"`.
  return [...text.matchAll(/^(?:import|export)(?:[^;"]*?\sfrom\s*|\s*)"(\.[^"]+)"/gms)].map((m) =>
    relative(ROOT, resolve(ROOT, dirname(file), m[1] as string)),
  );
}

describe("architecture", () => {
  const graph = new Map(files.filter((f) => !f.endsWith(".test.ts")).map((f) => [f, imports(f)]));

  it("has no import circle", () => {
    const state = new Map<string, "open" | "done">();
    const circles: string[] = [];
    const path: string[] = [];
    const visit = (f: string) => {
      state.set(f, "open");
      path.push(f);
      for (const d of graph.get(f) ?? []) {
        if (state.get(d) === "open") circles.push([...path.slice(path.indexOf(d)), d].join(" → "));
        else if (!state.has(d)) visit(d);
      }
      path.pop();
      state.set(f, "done");
    };
    for (const f of graph.keys()) if (!state.has(f)) visit(f);
    expect(circles).toEqual([]);
  });

  it("keeps the core free of resources: src/core imports nothing from src/resources", () => {
    const leaks = [...graph].filter(
      ([f, ds]) => f.startsWith("src/core/") && ds.some((d) => d.startsWith("src/resources/")),
    );
    expect(leaks.map(([f]) => f)).toEqual([]);
  });

  it("hands scenarios to the core: src/core imports nothing from scenarios/, not even a type", () => {
    const leaks = files.filter(
      (f) =>
        f.startsWith("src/core/") &&
        !f.endsWith(".test.ts") &&
        /^(?:import|export)[^;]*?from\s*"(?:\.\.\/)+scenarios\//ms.test(readFileSync(join(ROOT, f), "utf8")),
    );
    expect(leaks).toEqual([]);
  });

  it("keeps the kit independent: conformance/ reaches into src/ for the description (src/contract) only", () => {
    const reach = files
      .filter((f) => f.startsWith("conformance/") && !f.endsWith(".test.ts"))
      // The self-test and the suite's setup start simulators to check the kit against: test tooling.
      .filter((f) => !f.startsWith("conformance/selftest/") && !f.startsWith("conformance/setup/"))
      .flatMap((f) =>
        [...readFileSync(join(ROOT, f), "utf8").matchAll(/^(?:import|export)[^;]*?from\s*"(\.[^"]+)"/gms)]
          .map((m) => relative(ROOT, resolve(ROOT, dirname(f), m[1] as string)))
          .filter((d) => d.startsWith("src/") && !d.startsWith("src/contract/"))
          .map((d) => `${f} → ${d}`),
      );
    expect(reach).toEqual([]);
  });

  it("keeps the simulator independent of the kit: src/ code imports nothing from conformance/", () => {
    // Tests may put the kit against the simulator (src/msw/conformance.test.ts): that is the kit's proof.
    const reach = [...graph]
      .filter(([f]) => f.startsWith("src/"))
      .flatMap(([f, ds]) => ds.filter((d) => d.startsWith("conformance/")).map((d) => `${f} → ${d}`));
    expect(reach).toEqual([]);
  });

  it("has no source file over 600 lines outside generated code", () => {
    const long = files
      .filter((f) => !GENERATED.has(f))
      .map((f) => [f, readFileSync(join(ROOT, f), "utf8").split("\n").length] as const)
      .filter(([, n]) => n > 600);
    expect(long).toEqual([]);
  });

  it("has no function over 150 lines", () => {
    const long = files
      .filter((f) => !GENERATED.has(f) && !f.endsWith(".test.ts"))
      .flatMap((f) => longFunctions(f).map((name) => `${f} ${name}`));
    expect(long).toEqual([]);
  });

  it("gives every request stage its own tests", () => {
    const stages = files.filter((f) => /^src\/core\/stages\/[a-z-]+\.ts$/.test(f) && !f.endsWith(".test.ts"));
    const untested = stages.filter(
      (f) =>
        !["src/core/stages/index.ts", "src/core/stages/call.ts"].includes(f) &&
        !files.includes(f.replace(/\.ts$/, ".test.ts")),
    );
    expect(stages.length).toBeGreaterThan(8);
    expect(untested).toEqual([]);
  });

  it("exports no mutable binding (export let)", () => {
    const found = files.filter(
      (f) => !f.endsWith(".test.ts") && /^export let /m.test(readFileSync(join(ROOT, f), "utf8")),
    );
    expect(found).toEqual([]);
  });
});

/** The names of the functions of `file` longer than 150 lines (an anonymous one by its line). */
function longFunctions(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(join(ROOT, file), "utf8"),
    ts.ScriptTarget.Latest,
    true,
  );
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && "body" in n && n.body) {
      const first = source.getLineAndCharacterOfPosition(n.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(n.getEnd()).line;
      if (last - first + 1 > 150) out.push(n.name?.getText() ?? `(line ${first + 1})`);
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return out;
}
