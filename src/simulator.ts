/**
 * The simulator of this package: the engine (src/core/engine.ts) handed every resource module and scenario
 * it serves. Hosts (the CLI, MSW, tests) start here; the engine itself knows no resource by name.
 */
import { scenarios } from "../scenarios/index.ts";
import { createEngine, type Simulator, type SimulatorOptions } from "./core/engine.ts";
import { SandboxHost, type SandboxHostOptions } from "./core/sandboxes.ts";
import { resourceModules } from "./resources/index.ts";

export type { Simulator, SimulatorOptions } from "./core/engine.ts";
export { SandboxHost, type SandboxRecord, sandboxOfKey } from "./core/sandboxes.ts";

export function createSimulator(options: SimulatorOptions = {}): Simulator {
  return createEngine({ resources: resourceModules, scenarios, ...options });
}

export interface SandboxesOptions
  extends Pick<SandboxHostOptions, "maxSandboxes" | "idleTtlMs" | "instance" | "onCreated" | "onDeleted"> {}

/**
 * The default world of `options` with sandboxes beside it (src/core/sandboxes.ts): each sandbox an engine
 * of the same options but its own scenario, seed, keys, pages and unguarded control plane (the host guards
 * it), and no saved state unless `sandbox` builds it.
 */
export function createSandboxes(
  options: SimulatorOptions & SandboxesOptions = {},
  main: Simulator = createSimulator(options),
): SandboxHost {
  const { snapshot: _s, changes: _c, ...shared } = options;
  return new SandboxHost({
    ...options,
    main,
    scenarios,
    control: { enabled: options.control ?? true, token: options.controlToken ?? null },
    wall: options.wallClock ?? (() => performance.timeOrigin + performance.now()),
    create: (spec) =>
      createSimulator({
        ...shared,
        scenario: spec.scenario,
        seed: spec.seed,
        keyPrefix: spec.keyPrefix,
        pageBase: spec.pageBase,
        control: true,
        controlToken: null,
      }),
  });
}
