/**
 * The simulator of this package: the engine (src/core/engine.ts) handed every resource module and scenario
 * it serves. Hosts (the CLI, MSW, tests) start here; the engine itself knows no resource by name.
 */
import { scenarios } from "../scenarios/index.ts";
import { createEngine, type Simulator, type SimulatorOptions } from "./core/engine.ts";
import { resourceModules } from "./resources/index.ts";

export type { Simulator, SimulatorOptions } from "./core/engine.ts";

export function createSimulator(options: SimulatorOptions = {}): Simulator {
  return createEngine({ resources: resourceModules, scenarios, ...options });
}
