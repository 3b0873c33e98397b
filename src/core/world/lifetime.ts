/**
 * The world's lifetime: the one world a simulator holds, and everything that starts over with it (the
 * journal, rate-limit windows, faults, the latency stream, kept answers). Every way a world is made or
 * moved goes through here: build, reset, restore, load, snapshot, advance, configure, a scenario's setup.
 * The request stages (src/core/stages/) read the world from here and never replace it.
 */

import type { Contract } from "../../contract/contract.ts";
import { createRng, type Rng } from "../../generators/prng.ts";
import { Journal } from "../control/journal.ts";
import type { Modules } from "../modules.ts";
import type { Change, RequestChange } from "../persistence/changes.ts";
import { Recorder } from "../persistence/recorder.ts";
import { checkSnapshot, encodeSnapshot, type Snapshot } from "../persistence/snapshot.ts";
import { authenticate } from "../request/auth.ts";
import { Faults } from "../request/faults.ts";
import { RateLimiter } from "../request/rate-windows.ts";
import type { SimConfig } from "../services.ts";
import type { ResetTo, Served, SimulatorOptions } from "../simulator-api.ts";
import type { Manifest } from "./manifest.ts";
import { StateMemo } from "./memo.ts";
import { DEFAULT_START, runSetup, type Scenario, type SetupStep, scenarioResolver } from "./scenario.ts";
import { buildWorld, restoreWorld, snapshotOf, type World, type WorldDeps } from "./world.ts";

/** Makes a recorded request again (src/core/world/replay.ts): what a scenario's setup steps are made with. */
export type StepMaker = (change: RequestChange) => Promise<{ status: number; message: string }>;

export class Lifetime {
  readonly config: SimConfig;
  readonly limiter: RateLimiter;
  /** The description served: stages read its operations, validators and pointers from here. */
  readonly contract: Contract;
  readonly journal = new Journal();
  readonly memo = new StateMemo();
  readonly recorder: Recorder;
  readonly resolve: ReturnType<typeof scenarioResolver>;
  readonly sleep: (ms: number) => Promise<void>;
  readonly wall: () => number;
  world!: World;
  faults: Faults;
  /** While a scenario's setup runs: what every other request waits for. */
  setupDone: Promise<void> | null = null;
  /** The world is built: a request need not wait on `ready` (a turn of microtasks on every request). */
  built = false;
  private latencyRng: Rng;
  private preferCount = 0;
  private own: Scenario | undefined;
  private readonly deps: WorldDeps;

  private readonly options: SimulatorOptions & Served;
  /** How a setup step is made (the replay's request); asked only once `start` builds a world. */
  private readonly makeStep: StepMaker;
  constructor(
    options: SimulatorOptions & Served,
    modules: Pick<Modules, "jobs" | "inits">,
    makeStep: StepMaker,
  ) {
    this.options = options;
    this.makeStep = makeStep;
    this.contract = options.contract;
    this.limiter = new RateLimiter(options.contract.limits.rateLimitWindowSeconds * 1000);
    this.wall = options.wallClock ?? (() => performance.timeOrigin + performance.now());
    this.sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    this.config = {
      rateLimitPerMinute: options.rateLimitPerMinute ?? options.contract.limits.rateLimitPerMinute,
      latencyMs: options.latencyMs ?? 0,
    };
    this.recorder = new Recorder(options.changes);
    this.faults = new Faults(createRng(options.seed ?? 1).fork("faults"));
    this.latencyRng = createRng(options.seed ?? 1).fork("latency");
    this.resolve = scenarioResolver(options.scenarios, options.loadScenario);
    this.deps = {
      clockMode: options.clock ?? "manual",
      startTime: options.startTime ?? DEFAULT_START,
      wall: this.wall,
      config: this.config,
      jobs: modules.jobs,
      inits: modules.inits,
      memo: this.memo,
      vet: options.vetSnapshot,
      keyPrefix: options.keyPrefix ?? "service_",
      pageBase: options.pageBase ?? "",
    };
    if (!options.snapshot) this.ownScenario();
  }

  /** Builds the first world (or brings back the snapshot of the options); resolves when it stands. */
  start(): Promise<void> {
    const o = this.options;
    const initial = o.snapshot;
    const ready = (
      initial
        ? Promise.resolve().then(() => this.restore(initial, o.snapshotIsOwn === true))
        : this.build(this.ownScenario(), o.seed ?? this.ownScenario().seed ?? 1)
    ).then(() => undefined);
    // Whoever waits for `ready` sees a failed build; nobody waiting is no unhandled rejection.
    ready.then(
      () => {
        this.built = true;
      },
      () => {},
    );
    return ready;
  }

  record(change: Change, durable: boolean): void {
    this.recorder.record(change, durable);
  }

  manifest(): Manifest {
    return { ...this.world.manifest, now: this.world.clock.nowIso() };
  }

  /** The scenario of the options: what a reset naming none makes. Resolved at once unless a snapshot starts. */
  private ownScenario(): Scenario {
    this.own ??= this.resolve(this.options.scenario ?? this.options.scenarios[0]?.name ?? "default");
    return this.own;
  }

  /** Everything kept beside the world starts over with it. */
  private startOver(next: World): void {
    this.world = next;
    this.memo.touch();
    this.limiter.reset();
    this.journal.clear();
    this.faults = new Faults(createRng(next.manifest.seed).fork("faults"));
    this.latencyRng = createRng(next.manifest.seed).fork("latency");
    this.preferCount = 0;
  }

  /** A new world of `scenario`, its setup made; the world there was stays if either fails. */
  async build(scenario: Scenario, seed: number): Promise<Manifest> {
    const next = await buildWorld(this.deps, scenario, seed);
    // Building a large scenario takes real time; it must not pass as simulated time.
    next.clock.rebase();
    if (scenario.setup?.length) await this.setUp(next, scenario.setup);
    this.startOver(next);
    return this.world.manifest;
  }

  async reset(to: ResetTo = {}): Promise<Manifest> {
    const scenario = to.scenario !== undefined ? this.resolve(to.scenario) : this.ownScenario();
    const seed =
      to.seed ??
      (to.scenario !== undefined ? scenario.seed : undefined) ??
      this.options.seed ??
      scenario.seed ??
      1;
    const manifest = await this.build(scenario, seed);
    const document = scenario.document === undefined ? {} : { document: scenario.document };
    this.record({ kind: "reset", scenario: scenario.name, seed, ...document }, true);
    if (to.adopt) this.own = scenario;
    return manifest;
  }

  /** A saved world in place of this one (its own state file skips the check every other snapshot meets). */
  restore(saved: Snapshot, own = false): void {
    const restored = restoreWorld(own ? { ...this.deps, vet: undefined } : this.deps, saved);
    this.config.rateLimitPerMinute = restored.config.rateLimitPerMinute;
    this.config.latencyMs = restored.config.latencyMs;
    this.startOver(restored.world);
  }

  /** `PUT /__sim/snapshot`: a saved world in place of this one, recorded whole. */
  load(saved: unknown): Manifest {
    const snap = checkSnapshot(saved);
    this.restore(snap);
    this.record({ kind: "restore", snapshot: snap }, true);
    return this.manifest();
  }

  snapshot(): Snapshot {
    return structuredClone(snapshotOf(this.world, this.config));
  }

  snapshotText(): string {
    return encodeSnapshot(snapshotOf(this.world, this.config));
  }

  checkpoint<T>(take: (world: Snapshot) => T): Promise<T> {
    return this.recorder.between(() => take(snapshotOf(this.world, this.config)));
  }

  advance(ms: number): string {
    this.memo.touch();
    const at = this.world.clock.now();
    this.world.clock.advance(ms);
    this.record({ kind: "advance", at, ms }, true);
    return this.world.clock.nowIso();
  }

  advanceToNextJob(): string {
    const next = this.world.clock.pending()[0];
    return this.advance(next ? Math.max(0, next.at - this.world.clock.now()) : 0);
  }

  configure(patch: Partial<SimConfig>): SimConfig {
    const config = this.config;
    if (patch.rateLimitPerMinute !== undefined) config.rateLimitPerMinute = patch.rateLimitPerMinute;
    if (patch.latencyMs !== undefined) config.latencyMs = patch.latencyMs;
    this.record(
      { kind: "config", rateLimitPerMinute: config.rateLimitPerMinute, latencyMs: config.latencyMs },
      true,
    );
    return config;
  }

  /** Waits the configured latency (a range draws from the latency stream). */
  async delay(): Promise<void> {
    const l = this.config.latencyMs;
    const ms = Array.isArray(l) ? l[0] + Math.floor(this.latencyRng.next() * (l[1] - l[0] + 1)) : l;
    if (ms > 0) await this.sleep(ms);
  }

  /** The seed of the next `Prefer: dynamic=true` body: one stream per world. */
  nextPreferSeed(): string {
    return `${this.options.seed ?? 1}:${this.preferCount++}`;
  }

  /**
   * Makes a scenario's setup steps on `next` before it becomes the world: its requests the way a replay
   * makes recorded ones (not recorded again: a replayed reset makes them anew), and clock moves. A refused
   * step refuses the scenario, and the world there was stays. Other requests wait meanwhile, since `world`
   * is the one being set up.
   */
  private async setUp(next: World, steps: readonly SetupStep[]): Promise<void> {
    const before: World | undefined = this.world;
    const wasReplaying = this.recorder.replaying;
    this.world = next;
    this.recorder.replaying = true;
    const keyIdOf = async (apiKey: string) =>
      (authenticate(next.state, `Bearer ${apiKey}`)?.key.id as string | undefined) ?? null;
    const made = runSetup(steps, next, keyIdOf, this.makeStep);
    this.setupDone = made.then(
      () => {},
      () => {},
    );
    try {
      await made;
    } finally {
      this.setupDone = null;
      this.world = before as World;
      this.recorder.replaying = wasReplaying;
      this.memo.touch();
    }
  }
}
