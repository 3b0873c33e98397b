/**
 * The shape the code keeps: no import circle (types included), every floor below what is built on it (the
 * description, the generators, the core and its persistence, the resources, the kit's library), and
 * files one or two screens long. Read from the sources, so that a change that breaks it fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TREES = ["src", "conformance", "testing"];
const GENERATED = new Set(["src/contract/types.gen.ts", "src/contract/scenario-document.gen.ts"]);

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

  /**
   * The floors of the house: a module may import from its own floor and the floors below, never above.
   * `from` is a floor (a path prefix), `not` what lies above it, `except` what of that it may still read.
   */
  const FLOORS: { from: string; not: string[]; except?: string[]; why: string }[] = [
    {
      from: "src/contract/",
      not: ["src/", "conformance/", "testing/"],
      except: ["src/contract/"],
      why: "the description is the lowest floor: everything reads it, it reads nothing of theirs",
    },
    {
      from: "src/generators/",
      not: ["src/", "conformance/", "testing/"],
      except: ["src/generators/"],
      why: "the generators are below the simulator: the scenarios and the engine draw from them",
    },
    {
      from: "src/core/persistence/",
      not: ["src/core/"],
      except: [
        "src/core/persistence/",
        "src/core/world/state.ts",
        "src/core/world/manifest.ts",
        "src/core/world/clock.ts",
        "src/core/services.ts",
        "src/core/request/exchange.ts",
      ],
      why: "the vocabulary of saving knows the world's data, not the engine that moves it",
    },
    {
      from: "src/core/",
      not: [
        "src/resources/",
        "src/cli/",
        "src/node/",
        "src/msw/",
        "src/scenarios/",
        "src/simulator.ts",
        "src/served.ts",
      ],
      why: "the core is runtime-free and handed its resources and scenarios",
    },
    {
      from: "src/resources/",
      not: ["src/cli/", "src/node/", "src/msw/", "src/scenarios/", "src/simulator.ts", "src/served.ts"],
      why: "resources are runtime-free: every host serves them",
    },
    {
      from: "src/scenarios/",
      not: ["src/cli/", "src/node/", "src/msw/", "src/simulator.ts", "src/served.ts"],
      why: "the built-in scenarios are handed to the simulator, on the core and the resources they build with",
    },
    {
      from: "src/",
      not: ["testing/", "conformance/"],
      why: "test tooling and the kit are above the simulator (tests may reach for them)",
    },
    {
      from: "conformance/proxy/",
      not: ["conformance/checks/", "conformance/cases/", "conformance/selftest/"],
      why: "the proxy judges with what the checks judge with (lib/description/answers.ts), never a check's file",
    },
    {
      from: "conformance/lib/",
      not: ["conformance/"],
      except: ["conformance/lib/"],
      why: "the kit's library is below its checks, cases, world model, index, proxy and command line",
    },
  ];

  it.each(FLOORS)("keeps each floor below what is built on it: $from", ({ from, not, except = [], why }) => {
    const above = [...graph].flatMap(([f, ds]) =>
      f.startsWith(from)
        ? ds
            .filter((d) => not.some((n) => d.startsWith(n)) && !except.some((e) => d.startsWith(e)))
            .map((d) => `${f} → ${d}`)
        : [],
    );
    expect(above, why).toEqual([]);
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
    false,
  );
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && "body" in n && n.body) {
      const first = source.getLineAndCharacterOfPosition(n.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(n.getEnd()).line;
      if (last - first + 1 > 150) out.push(n.name?.getText(source) ?? `(line ${first + 1})`);
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return out;
}
