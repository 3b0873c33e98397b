/** The named scenarios the simulator can start from; the default first. */

import type { Scenario } from "../src/core/scenario.ts";
import { atLimitsScenario } from "./at-limits.ts";
import { defaultScenario } from "./default.ts";
import { newFreeAccountScenario } from "./new-free-account.ts";
import { trainingScenario } from "./training.ts";

export type { Scenario } from "../src/core/scenario.ts";

export const scenarios: readonly Scenario[] = [
  defaultScenario,
  newFreeAccountScenario,
  atLimitsScenario,
  trainingScenario,
];

export function findScenario(name: string): Scenario | undefined {
  return scenarios.find((s) => s.name === name);
}
