/**
 * The simulator of this package: the engine (src/core/engine.ts) handed every resource module and scenario
 * it serves. Hosts (the CLI, MSW, tests) start here; the engine itself knows no resource by name.
 */

import { tokenList } from "./core/control/control.ts";
import { createEngine, type Simulator, type SimulatorOptions } from "./core/engine.ts";
import { SandboxHost, type SandboxHostOptions, type SandboxSpec } from "./core/world/sandboxes.ts";
import { loadScenario } from "./scenarios/document/load.ts";
import { scenarios } from "./scenarios/index.ts";
import { served } from "./served.ts";

export type { Simulator, SimulatorOptions } from "./core/engine.ts";
export { SnapshotError } from "./core/persistence/snapshot.ts";
export {
  SandboxHost,
  type SandboxRecord,
  type SandboxSpec,
  sandboxOfKey,
  sandboxSpec,
} from "./core/world/sandboxes.ts";
export {
  type Scenario,
  ScenarioError,
  type ScenarioProblem,
  UnknownScenarioError,
} from "./core/world/scenario.ts";
export {
  defineScenario,
  loadScenario,
  type ScenarioDocument,
} from "./scenarios/document/load.ts";

/**
 * A simulator serving this package's resources. `scenario` is a built-in scenario's name, a scenario
 * document (`defineScenario({...})`, or a scenario file's parsed JSON), or a loaded Scenario; an invalid
 * document throws a ScenarioError listing every problem, before anything is built.
 */
export function createSimulator(options: SimulatorOptions = {}): Simulator {
  return createEngine({ ...served, ...options });
}

export interface SandboxesOptions
  extends Pick<SandboxHostOptions, "maxSandboxes" | "idleTtlMs" | "instance" | "onCreated" | "onDeleted"> {
  /** More options for one sandbox's engine, such as the change log a host keeps for it. */
  sandbox?: (spec: SandboxSpec) => SimulatorOptions;
}

/**
 * What a sandbox's engine is made of: the host's options (rate limit, latency, clock, hooks), but its own
 * scenario, seed, keys and pages, and a control plane that opens to its token or the operator's.
 */
export function sandboxOptions(options: SimulatorOptions, spec: SandboxSpec): SimulatorOptions {
  const { snapshot: _snapshot, changes: _changes, onRequest, controlToken: operator, ...shared } = options;
  return {
    ...shared,
    // The host's log says which sandbox served each request; the sandbox's own journal stays as it is.
    ...(onRequest ? { onRequest: (entry) => onRequest({ ...entry, sandbox: spec.id }) } : {}),
    scenario: spec.scenario,
    seed: spec.seed,
    keyPrefix: spec.keyPrefix,
    pageBase: spec.pageBase,
    control: true,
    controlToken: [spec.controlToken, ...tokenList(operator)],
  };
}

/** A sandbox's engine: the host's options made the sandbox's (sandboxOptions), then `more` (a saved state). */
export function createSandboxEngine(
  options: SimulatorOptions & SandboxesOptions,
  spec: SandboxSpec,
  more: SimulatorOptions = {},
): Simulator {
  return createSimulator({ ...sandboxOptions(options, spec), ...options.sandbox?.(spec), ...more });
}

/** The default world of `options` (or `main`) with sandboxes beside it (src/core/world/sandboxes.ts). */
export function createSandboxes(
  options: SimulatorOptions & SandboxesOptions = {},
  main: Simulator = createSimulator(options),
): SandboxHost {
  return new SandboxHost({
    ...options,
    main,
    scenarios,
    load: loadScenario,
    control: { enabled: options.control ?? true, tokens: tokenList(options.controlToken) },
    wall: options.wallClock ?? (() => performance.timeOrigin + performance.now()),
    create: (spec) => createSandboxEngine(options, spec),
  });
}
