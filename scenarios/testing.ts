/** Builds a scenario into a fresh state, the way the engine does before hashing keys; for tests and tools. */
import { createRng } from "../src/core/prng.ts";
import { emptyState } from "../src/core/state.ts";
import { type Scenario, ScenarioBuilder } from "./builder.ts";

/** The virtual start time of every scenario unless a host chooses another. */
export const SCENARIO_START = Date.parse("2026-11-21T12:00:00.000Z");

export function buildScenario(scenario: Scenario, seed = 1, now = SCENARIO_START): ScenarioBuilder {
  const b = new ScenarioBuilder(emptyState(), createRng(seed).fork("scenario"), now, scenario.name, seed);
  scenario.build(b);
  return b;
}
