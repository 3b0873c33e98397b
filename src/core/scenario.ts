/**
 * What a scenario is to the core: something that builds a world's starting state from a seed and a start
 * time, handed to the engine like the resource modules are. The core never builds one itself, so built-in
 * scenarios (code in `scenarios/`) and scenario documents (JSON, compiled by `scenarios/document/`) are the
 * same thing to it.
 */
import type { Manifest } from "./manifest.ts";
import type { Rng } from "./prng.ts";
import type { ApiKeyRecord, State } from "./state.ts";

/** An API key a scenario made: the raw secret goes to the manifest, the world stores only its hash. */
export interface PendingKey {
  record: Omit<ApiKeyRecord, "hash">;
  raw: string;
}

export interface ScenarioStart {
  /** The scenario's own random stream (already forked from the seed). */
  rng: Rng;
  seed: number;
  /** Virtual time at which the world starts (epoch ms). */
  now: number;
}

export interface BuiltScenario {
  state: State;
  manifest: Manifest;
  keys: readonly PendingKey[];
}

/**
 * A request a scenario makes through the API once its world is built, or a move of the virtual clock: how a
 * scenario leaves work in flight (an export queued, a recalibration half done) through the same state
 * machines every client moves, rather than by writing their records by hand.
 */
export type SetupStep =
  | {
      /** The user handle whose first API key makes the request. */
      as: string;
      method: string;
      /** A path with the API prefix; `{kind.handle}` names an ID of the manifest (`{audiences.main}`). */
      path: string;
      body?: unknown;
      headers?: Record<string, string>;
    }
  | { advanceMs: number };

export interface Scenario {
  name: string;
  description: string;
  build(start: ScenarioStart): BuiltScenario;
  /** Made on every new world, after the build; each must answer below 400. */
  setup?: readonly SetupStep[];
  /** The seed used when a reset or a sandbox names none. */
  seed?: number;
  /** The virtual start time (epoch ms) instead of the host's. */
  startTime?: number;
  /**
   * The JSON document the scenario was compiled from, when it was one: what a change log or a sandbox
   * registry keeps to make it again (the engine hands it back to `loadScenario`).
   */
  document?: unknown;
}

/** Turns a scenario document into a Scenario, or throws a ScenarioError listing every problem. */
export type ScenarioLoader = (document: unknown) => Scenario;

/** One problem of a scenario document: where (a JSON pointer) and what was expected there. */
export interface ScenarioProblem {
  path: string;
  message: string;
}

export class ScenarioError extends Error {
  override readonly name = "ScenarioError";
  constructor(readonly problems: readonly ScenarioProblem[]) {
    super(
      problems.length === 1
        ? `Invalid scenario: ${problems[0]?.path || "/"} ${problems[0]?.message}`
        : `Invalid scenario: ${problems.length} problems, the first at ${problems[0]?.path || "/"}: ${problems[0]?.message}`,
    );
  }
}
