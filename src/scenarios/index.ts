/** The named scenarios the simulator can start from; the default first. */

import { atLimitsScenario } from "./at-limits.ts";
import type { CodeScenario } from "./builder.ts";
import { defaultScenario } from "./default.ts";
import { newFreeAccountScenario } from "./new-free-account.ts";
import { trainingScenario } from "./training.ts";

export type { Scenario } from "../core/world/scenario.ts";

export const scenarios: readonly CodeScenario[] = [
  defaultScenario,
  newFreeAccountScenario,
  atLimitsScenario,
  trainingScenario,
];

export function findScenario(name: string): CodeScenario | undefined {
  return scenarios.find((s) => s.name === name);
}
