/** Helpers shared by the scenario tests. */
import { ScenarioError, type ScenarioProblem } from "../src/core/world/scenario.ts";
import type { FormationRecord, MindRecord, State } from "../src/core/world/state.ts";
import { OTHER_BUCKET, words } from "../src/resources/formations/formation-classifier.ts";
import { loadScenario } from "../src/scenarios/document/load.ts";

/** The problems a scenario document is refused with (none: it loads). */
export function problemsOf(document: unknown): readonly ScenarioProblem[] {
  try {
    loadScenario(document);
    return [];
  } catch (error) {
    if (error instanceof ScenarioError) return error.problems;
    throw error;
  }
}

function mindWords(m: MindRecord): Set<string> {
  return words(`${m.headline} ${m.bio} ${Object.values(m.attributes).join(" ")}`);
}

/**
 * For each primary subgroup of a Formation, how many of its members share at least one word with the
 * subgroup's label or definition: members sorted by a real match rather than by a guess.
 */
export function realMatches(f: FormationRecord, state: State): number[] {
  return f.subgroups
    .filter((s) => s.id !== OTHER_BUCKET)
    .map((s) => {
      const sw = words(`${s.label} ${s.definition}`);
      return s.members.filter((a) => {
        const m = state.minds.get(a.mindId);
        return m !== undefined && [...mindWords(m)].some((w) => sw.has(w));
      }).length;
    });
}

/** A two-subgroup hypothesis for documents that need a Formation (tests of the scenario format). */
export const BUYING_ROLES = {
  intent: "Split by buying role",
  subgroups: [
    { id: "deciders", label: "Decision makers", definition: "Decision maker or budget holder" },
    { id: "users", label: "End users", definition: "End user living with the outcome" },
  ],
};
