/**
 * What this package hands the engine (src/core/engine.ts, which imports none of it): its contract, its
 * resources, the built-in scenarios, the loader of scenario documents and the check a snapshot meets.
 * src/simulator.ts builds simulators with it; testing/stages.ts wires one stage's world with it.
 */

import { ownContract } from "./contract/contract.ts";
import type { Served } from "./core/engine.ts";
import { resourceModules } from "./resources/index.ts";
import { snapshotProblems } from "./resources/integrity.ts";
import { loadScenario } from "./scenarios/document/load.ts";
import { scenarios } from "./scenarios/index.ts";

/** What this package hands the engine: its contract, resources, scenarios, loader and snapshot check. */
export const served: Served = {
  contract: ownContract,
  resources: resourceModules,
  scenarios,
  loadScenario,
  vetSnapshot: snapshotProblems,
};
