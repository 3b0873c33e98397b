/**
 * What a scenario is to the core: something that builds a world's starting state from a seed and a start
 * time, handed to the engine like the resource modules are. The core never builds one itself, so built-in
 * scenarios (code in `src/scenarios/`) and scenario documents (JSON, compiled by `src/scenarios/document/`) are the
 * same thing to it.
 */

import type { PointerProblem } from "../../contract/pointer.ts";
import type { Rng } from "../../generators/prng.ts";
import type { RequestChange } from "../persistence/changes.ts";
import type { Manifest } from "./manifest.ts";
import type { ApiKeyRecord, State } from "./state.ts";

/** The virtual time worlds start at unless the host or the scenario says otherwise. */
export const DEFAULT_START = Date.parse("2026-11-21T12:00:00.000Z");

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

/** One problem of a scenario document: where, and what was expected there. */
export type ScenarioProblem = PointerProblem;

export class ScenarioError extends Error {
  override readonly name = "ScenarioError";
  readonly problems: readonly ScenarioProblem[];
  constructor(problems: readonly ScenarioProblem[]) {
    super(
      problems.length === 1
        ? `Invalid scenario: ${problems[0]?.path || "/"} ${problems[0]?.message}`
        : `Invalid scenario: ${problems.length} problems, the first at ${problems[0]?.path || "/"}: ${problems[0]?.message}`,
    );
    this.problems = problems;
  }
}

/** What picks a world: a built-in scenario's name, a Scenario, or a scenario document to load. */
export type ScenarioChoice = string | Scenario | object;

/** Thrown for a name that is no scenario of this simulator; says which there are. */
export class UnknownScenarioError extends Error {
  override readonly name = "UnknownScenarioError";
  readonly scenario: string;
  readonly known: readonly string[];
  constructor(scenario: string, known: readonly string[]) {
    super(`Unknown scenario "${scenario}". Known scenarios: ${known.join(", ")}`);
    this.scenario = scenario;
    this.known = known;
  }
}

/** Resolves a choice against the scenarios a simulator was handed (and its loader, for documents). */
export function scenarioResolver(
  scenarios: readonly Scenario[],
  load: ScenarioLoader | undefined,
): (choice: ScenarioChoice) => Scenario {
  return (choice) => {
    if (typeof choice === "string") {
      const found = scenarios.find((s) => s.name === choice);
      if (!found)
        throw new UnknownScenarioError(
          choice,
          scenarios.map((s) => s.name),
        );
      return found;
    }
    if (typeof (choice as Partial<Scenario>).build === "function") return choice as Scenario;
    if (!load) throw new Error("This simulator was handed no scenario loader: name a scenario instead");
    return load(choice);
  };
}

/** The manifest sections a setup step's path may name: `{kind.handle}` is that handle's ID. */
export const PLACEHOLDER_KINDS = ["users", "audiences", "minds", "formations", "prices"] as const;
const PLACEHOLDER = new RegExp(`\\{(${PLACEHOLDER_KINDS.join("|")})\\.([^}]*)\\}`, "g");

/** A setup step as the change a replay makes, by the API key of the user it names. */
export function setupChange(
  step: Extract<SetupStep, { as: string }>,
  manifest: Manifest,
  keyId: string | null,
  at: number,
): RequestChange {
  const path = step.path.replace(PLACEHOLDER, (whole, kind: string, handle: string) => {
    const section = manifest[kind as "users"] as Record<string, { id: string }>;
    return Object.hasOwn(section, handle) ? (section[handle] as { id: string }).id : whole;
  });
  const headers: [string, string][] = Object.entries(step.headers ?? {}).map(([k, v]) => [
    k.toLowerCase(),
    v,
  ]);
  const body = step.body === undefined ? null : JSON.stringify(step.body);
  if (body !== null && !headers.some(([k]) => k === "content-type"))
    headers.push(["content-type", "application/json"]);
  return {
    kind: "request",
    at,
    method: step.method,
    url: `http://scenario.setup${path}`,
    keyId,
    headers,
    body,
  };
}

/** Makes `steps` on a world that is not yet served: requests through `replay`, clock moves on its clock. */
export async function runSetup(
  steps: readonly SetupStep[],
  world: { manifest: Manifest; clock: { advance(ms: number): void; now(): number } },
  keyIdOf: (apiKey: string) => Promise<string | null>,
  replay: (change: RequestChange) => Promise<{ status: number; message: string }>,
): Promise<void> {
  for (const [i, step] of steps.entries()) {
    if ("advanceMs" in step) {
      world.clock.advance(step.advanceMs);
      continue;
    }
    const key = world.manifest.users[step.as]?.apiKey;
    const keyId = key === undefined ? null : await keyIdOf(key);
    const { status, message } = await replay(setupChange(step, world.manifest, keyId, world.clock.now()));
    if (status >= 400)
      throw new ScenarioError([
        { path: `/setup/${i}`, message: `${step.method} ${step.path} answered ${status} ${message}`.trim() },
      ]);
  }
}
