/**
 * Scenario documents made into scenarios the core is handed (src/core/world/scenario.ts): checked against
 * `scenario.schema.json`, applied onto a builder (over a built-in scenario when the document `extends` one),
 * and built once at once, so that every problem is reported before any world depends on the document.
 *
 * Equal documents give the same Scenario object, so the worlds built from one (a reset, a hundred sandboxes
 * from one inline scenario) share a template and its frozen Minds as the built-in scenarios' worlds do.
 */

import { unescapeSegment } from "../../contract/pointer.ts";
import type { ScenarioDocument } from "../../contract/scenario-document.gen.ts";
import type { BuiltScenario, Scenario, ScenarioProblem, SetupStep } from "../../core/world/scenario.ts";
import { DEFAULT_START, ScenarioError } from "../../core/world/scenario.ts";
import { emptyState } from "../../core/world/state.ts";
import { createRng } from "../../generators/prng.ts";
import { type CodeScenario, ScenarioBuilder } from "../builder.ts";
import { scenarios } from "../index.ts";
import { applyDocument } from "./apply.ts";
import { HANDLE_KINDS } from "./applying.ts";
import { schemaProblems } from "./schema.ts";

export type { ScenarioDocument } from "../../contract/scenario-document.gen.ts";

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
  if (problems.length > 0)
    throw new ScenarioError([...problems, ...problemsBeyond(document, problems, builtIns)]);
  // A copy of its own: records of the worlds share parts of it (a hypothesis), which the caller may change.
  const doc = JSON.parse(key) as ScenarioDocument;
  const made = compile(doc, builtIns);
  if (loaded.size >= KEPT) loaded.delete(loaded.keys().next().value as string);
  loaded.set(key, made);
  return made;
}

/**
 * The problems of meaning in a document that has schema problems too, so that one answer lists them all:
 * the document is checked again with every record that has a schema problem left out (a `users/dev` with a
 * wrong plan, the whole setup for a bad step, a bad top-level field), and references to what was left out
 * are not reported (see Applying): the problems found are the document's own, none caused by another.
 */
function problemsBeyond(
  document: unknown,
  schema: readonly ScenarioProblem[],
  builtIns: readonly CodeScenario[],
): ScenarioProblem[] {
  if (!isPlainObject(document)) return [];
  const pruned = structuredClone(document) as Record<string, unknown>;
  const broken: string[] = [];
  for (const { path } of schema) {
    const [section, handle] = path.split("/").slice(1).map(unescapeSegment);
    if (section === undefined || section === "") return [];
    const kind = HANDLE_KINDS.find((k) => k === section);
    const records = pruned[section];
    if (kind && handle !== undefined && isPlainObject(records)) {
      delete records[handle];
      broken.push(`${kind}/${handle}`);
    } else {
      // A whole section of the wrong shape, the setup (its steps depend on each other), a top-level field.
      delete pruned[section];
      if (kind) broken.push(`${kind}/*`);
    }
  }
  if (schemaProblems(pruned).length > 0) return [];
  try {
    compile(pruned as ScenarioDocument, builtIns, broken);
    return [];
  } catch (error) {
    if (error instanceof ScenarioError) return [...error.problems];
    throw error;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function compile(
  doc: ScenarioDocument,
  builtIns: readonly CodeScenario[],
  broken: readonly string[] = [],
): Scenario {
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
      const problems = applyDocument(b, doc, base !== undefined, broken);
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
  first = { seed, now, built };
  return scenario;
}
