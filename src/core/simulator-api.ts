/**
 * What an engine is given (`SimulatorOptions`) and what it offers its hosts (`Simulator`): the surface
 * src/core/engine.ts implements, apart from how.
 */
import type { Contract } from "../contract/contract.ts";
import type { Journal, JournalEntry, JournalFilter, JournalView } from "./control/journal.ts";
import type { WorldView } from "./control/world-view.ts";
import type { Change, ChangeSink } from "./persistence/changes.ts";
import type { Snapshot, SnapshotVet } from "./persistence/snapshot.ts";
import type { Outcome, SimRequest } from "./request/exchange.ts";
import type { Faults } from "./request/faults.ts";
import type { GenerateBody } from "./request/preferred-answers.ts";
import type { ResourceModule } from "./resource.ts";
import type { SimConfig } from "./services.ts";
import type { ClockMode, VirtualClock } from "./world/clock.ts";
import type { Manifest } from "./world/manifest.ts";
import type { Scenario, ScenarioChoice, ScenarioLoader } from "./world/scenario.ts";
import type { State } from "./world/state.ts";

/** What the engine serves: handed to it, never imported (src/simulator.ts hands it this package's). */
export interface Served {
  /** The description it serves (src/contract/contract.ts): its operations, validators and limits. */
  contract: Contract;
  /** The resource modules: their routes by operationId, background jobs, pages outside the contract. */
  resources: readonly ResourceModule[];
  /** The scenarios a world can be built from by name; the first is the default. */
  scenarios: readonly Scenario[];
  /** Makes a scenario document (an inline scenario, a file's) into a Scenario: src/simulator.ts hands one. */
  loadScenario?: ScenarioLoader;
  /** Checks a snapshot's world before it is loaded: src/simulator.ts hands the resources' check. */
  vetSnapshot?: SnapshotVet;
}

/** What a reset makes: a scenario (by name, a document, a Scenario; none: the simulator's own) at a seed. */
export interface ResetTo {
  scenario?: ScenarioChoice;
  seed?: number;
  /** The scenario becomes the simulator's own: what a later reset naming none makes (`serve --watch`). */
  adopt?: boolean;
}

export interface SimulatorOptions {
  /**
   * The world to start from: a built-in scenario's name, a scenario document (what `defineScenario` types,
   * or a file's parsed JSON), or a Scenario. Default: the first scenario handed to the engine.
   */
  scenario?: ScenarioChoice;
  seed?: number;
  clock?: ClockMode;
  /** Virtual time at which scenarios start (epoch ms). */
  startTime?: number;
  /** Real time in ms; hosts pass `Date.now`. Drives the `real` clock, latency and request timings. */
  wallClock?: () => number;
  /** Waits real time, for configured latency and fault delays. */
  sleep?: (ms: number) => Promise<void>;
  control?: boolean;
  /** What `x-sim-control-token` must be; any one of a list opens it (a sandbox's: its own, the operator's). */
  controlToken?: string | readonly string[] | null;
  rateLimitPerMinute?: number;
  latencyMs?: number | [number, number];
  /** Called after each request, e.g. for the CLI's log (`sandbox` names the sandbox that served it). */
  onRequest?: (entry: JournalEntry & { sandbox?: string }) => void;
  /** Called with bugs (non-ApiError throws) that were answered as a redacted 500. */
  onError?: (error: unknown, where: { method: string; path: string }) => void;
  /**
   * Schema-driven bodies for `Prefer: dynamic=true` (src/core/request/preferred-answers.ts). Hosts inject one (the Node host
   * uses Prism's generator); without it such requests get the contract's example and a header saying so.
   */
  generateBody?: GenerateBody;
  /**
   * How this world's API keys begin (default `service_`). A sandbox's keys carry its ID after `service_`,
   * so that a request finds its world, and a proxy its process, by the key alone.
   */
  keyPrefix?: string;
  /** Where this world's pages outside the contract are served below the origin (default ``). */
  pageBase?: string;
  /** Start from a saved world (src/core/persistence/snapshot.ts) instead of building a scenario. */
  snapshot?: Snapshot;
  /**
   * `snapshot` is this simulator's own (the default world's state file, which it wrote and fsync'd): it is
   * brought back without the check every other snapshot meets (`vetSnapshot`), which costs a world of
   * 5,000 Minds about 100 ms of its start.
   */
  snapshotIsOwn?: boolean;
  /**
   * Receives every change in the order it was made (src/core/persistence/changes.ts); a write's reply waits until the
   * sink says the change is durable. `replay` brings the changes back.
   */
  changes?: ChangeSink;
  /**
   * For tests: every answer kept for reuse is rendered with API keys out of reach (reading them throws),
   * and every reuse is checked against a fresh render (a difference throws), so a kept answer that went
   * stale, or one that a change of keys should have dropped, fails the test that met it.
   */
  verifyKeptAnswers?: boolean;
}

export interface Simulator {
  fetch(request: Request): Promise<Response>;
  /** `fetch` for hosts that pass something lighter than a Request and write Answers out themselves. */
  handle(request: SimRequest): Promise<Outcome>;
  /**
   * `handle` for a host that writes an answer as soon as it has it: an answer ready in this turn (a read
   * whose answer is kept) comes back as itself, not as a promise, which would cost every such request a
   * turn of the microtask queue. A failure may be thrown rather than rejected.
   */
  respond(request: SimRequest): Outcome | Promise<Outcome>;
  /** Resolves once the scenario is built; `fetch` waits for it by itself. */
  ready: Promise<void>;
  manifest(): Manifest;
  /** A new world: a ScenarioError (a document's problems) or UnknownScenarioError leaves the old one. */
  reset(to?: ResetTo): Promise<Manifest>;
  /** Loads a saved world (`PUT /__sim/snapshot`) and records it; a SnapshotError leaves the old one. */
  load(snapshot: unknown): Manifest;
  advance(ms: number): string;
  /** Moves the clock to the next queued job (which then runs); with none queued, time stays. */
  advanceToNextJob(): string;
  /** Changes the configuration (the control plane's `PATCH /__sim/config`). */
  configure(patch: Partial<SimConfig>): SimConfig;
  /** The whole world (state, clock, random stream position, manifest, config) as a detached copy. */
  snapshot(): Snapshot;
  /** The same as `encodeSnapshot(snapshot())`, without the copy: for saving. */
  snapshotText(): string;
  /** Replaces the world with a saved one; throws SnapshotError when the simulator cannot run it. */
  restore(snap: Snapshot): void;
  /** Makes recorded changes again, in order, on the world as it is (after `restore`, say). */
  replay(changes: Iterable<Change>): Promise<void>;
  /** What the dashboard shows (`GET /__sim/world`): the clock, its queued jobs, the records by kind. */
  view(): WorldView;
  /**
   * Calls `take` with a view of the world between two changes, none half made, and answers what it
   * answers: a host saves a snapshot there and starts its log afresh. `take` must not keep the view.
   */
  checkpoint<T>(take: (world: Snapshot) => T): Promise<T>;
  /** The live state. Taking hold of it counts as a change (what the core derived from it is dropped). */
  readonly state: State;
  readonly clock: VirtualClock;
  readonly config: SimConfig;
  readonly journal: Journal;
  /**
   * The request journal, newest first, filtered as `GET /__sim/requests` filters (`user`: a manifest
   * handle or a user ID): `sim.requests({ method: "POST", path: "/api/v1/audiences/**", user: "owner" })`.
   */
  requests(filter?: Omit<JournalFilter, "userId"> & { user?: string }): JournalView[];
  /** Empties the journal (`DELETE /__sim/requests`). */
  clearRequests(): void;
  readonly faults: Faults;
}
