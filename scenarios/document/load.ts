/**
 * Scenario documents made into scenarios the core is handed (src/core/scenario.ts): checked against
 * `scenario.schema.json`, applied onto a builder (over a built-in scenario when the document `extends` one),
 * and built once at once, so that every problem is reported before any world depends on the document.
 *
 * Equal documents give the same Scenario object, so the worlds built from one (a reset, a hundred sandboxes
 * from one inline scenario) share a template and its frozen Minds as the built-in scenarios' worlds do.
 */
import { createRng } from "../../src/core/prng.ts";
import {
  type BuiltScenario,
  DEFAULT_START,
  PLACEHOLDER_KINDS,
  type Scenario,
  ScenarioError,
  type ScenarioProblem,
  type SetupStep,
} from "../../src/core/scenario.ts";
import { emptyState } from "../../src/core/state.ts";
import { type CodeScenario, ScenarioBuilder } from "../builder.ts";
import { scenarios } from "../index.ts";
import { applyDocument } from "./apply.ts";
import { schemaProblems } from "./schema.ts";
import type { ScenarioDocument } from "./types.gen.ts";

export type { ScenarioDocument } from "./types.gen.ts";

/** The document as it is, typed: for scenario files written in TypeScript (editors complete and check it). */
export function defineScenario<const T extends ScenarioDocument>(document: T): T {
  return document;
}

const KEPT = 16;
const loaded = new Map<string, Scenario>();

/** A scenario from a document; throws a ScenarioError listing every problem (each with its JSON path). */
export function loadScenario(document: unknown, builtIns: readonly CodeScenario[] = scenarios): Scenario {
  const key = JSON.stringify(document) ?? "";
  const known = loaded.get(key);
  if (known) {
    loaded.delete(key);
    loaded.set(key, known);
    return known;
  }
  const problems = schemaProblems(document);
  if (problems.length > 0) throw new ScenarioError(problems);
  // A copy of its own: records of the worlds share parts of it (a hypothesis), which the caller may change.
  const doc = JSON.parse(key) as ScenarioDocument;
  const made = compile(doc, builtIns);
  if (loaded.size >= KEPT) loaded.delete(loaded.keys().next().value as string);
  loaded.set(key, made);
  return made;
}

function compile(doc: ScenarioDocument, builtIns: readonly CodeScenario[]): Scenario {
  const base = doc.extends === undefined ? undefined : builtIns.find((s) => s.name === doc.extends);
  if (doc.extends !== undefined && !base) {
    const names = builtIns.map((s) => s.name).join(", ");
    throw new ScenarioError([{ path: "/extends", message: `names no built-in scenario (known: ${names})` }]);
  }
  const name = doc.name ?? "custom";
  const startTime = doc.startTime === undefined ? undefined : Date.parse(doc.startTime);
  let first: { seed: number; now: number; built: BuiltScenario } | undefined;
  const scenario: Scenario = {
    name,
    description:
      doc.description ?? (base ? `${base.name}, changed by a scenario document` : "A scenario document"),
    build: ({ rng, now, seed }) => {
      // The first build is kept for the first world only: a scenario kept by the cache holds no world.
      const kept = first;
      first = undefined;
      if (kept && kept.seed === seed && kept.now === now) return kept.built;
      const b = new ScenarioBuilder(emptyState(), rng, now, name, seed);
      base?.fill(b);
      const problems = applyDocument(b, doc, base !== undefined);
      if (problems.length > 0) throw new ScenarioError(problems);
      return b.built();
    },
    ...(doc.setup ? { setup: doc.setup as SetupStep[] } : {}),
    ...(doc.seed !== undefined ? { seed: doc.seed } : {}),
    ...(startTime !== undefined ? { startTime } : {}),
    document: doc,
  };
  // Built once here, at the document's own seed, so that its problems are found now; the first world of
  // that seed takes this build instead of making it again.
  const seed = doc.seed ?? 1;
  const now = startTime ?? DEFAULT_START;
  const built = scenario.build({ rng: createRng(seed).fork("scenario"), seed, now });
  const setupProblems = checkSetup(doc, built);
  if (setupProblems.length > 0) throw new ScenarioError(setupProblems);
  first = { seed, now, built };
  return scenario;
}

/** Any `{word.handle}`, to say which are no placeholder at all (the core's PLACEHOLDER takes known kinds). */
const ANY_PLACEHOLDER = /\{([a-z]+)\.([^}]*)\}/g;

/** Setup steps name users and handles that the built world has. */
function checkSetup(doc: ScenarioDocument, built: BuiltScenario): ScenarioProblem[] {
  const problems: ScenarioProblem[] = [];
  const { manifest } = built;
  doc.setup?.forEach((step, i) => {
    if (!("as" in step)) return;
    if (!Object.hasOwn(manifest.users, step.as))
      problems.push({ path: `/setup/${i}/as`, message: "names no user of this scenario" });
    for (const [, kind, handle] of step.path.matchAll(ANY_PLACEHOLDER)) {
      const section = (PLACEHOLDER_KINDS as readonly string[]).includes(kind as string)
        ? (manifest[kind as (typeof PLACEHOLDER_KINDS)[number]] as Record<string, unknown>)
        : undefined;
      if (!section)
        problems.push({
          path: `/setup/${i}/path`,
          message: `{${kind}.…} is no placeholder: use one of ${PLACEHOLDER_KINDS.map((k) => `{${k}.HANDLE}`).join(", ")}`,
        });
      else if (!Object.hasOwn(section, handle as string))
        problems.push({
          path: `/setup/${i}/path`,
          message: `{${kind}.${handle}} names no handle of this scenario`,
        });
    }
  });
  return problems;
}
