/** Builds a scenario into a fresh state, the way the engine does before hashing keys; for tests and tools. */

import type { BuiltScenario, Scenario } from "../src/core/world/scenario.ts";
import { createRng } from "../src/generators/prng.ts";

/** The virtual start time of every scenario unless a host chooses another. */
export const SCENARIO_START = Date.parse("2026-11-21T12:00:00.000Z");

export function buildScenario(scenario: Scenario, seed = 1, now = SCENARIO_START): BuiltScenario {
  return scenario.build({ rng: createRng(seed).fork("scenario"), seed, now });
}
