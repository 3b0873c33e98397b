/**
 * Making worlds: a scenario built from its seed, or a saved snapshot brought back. A world is everything a
 * reset replaces: the state, the virtual clock with its jobs, the random streams, the manifest, and the
 * services that handlers and jobs are given. The engine (src/core/engine.ts) holds one at a time.
 */

import { createRng, type Rng } from "../../generators/prng.ts";
import {
  checkSnapshot,
  deserializeState,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  type Snapshot,
  SnapshotError,
  type SnapshotProblem,
  type SnapshotVet,
  serializeState,
} from "../persistence/snapshot.ts";
import { sha256Hex } from "../request/auth.ts";
import type { JobHandler } from "../resource.ts";
import type { Services, SimConfig } from "../services.ts";
import { type ClockMode, type Job, VirtualClock, type WallClock } from "./clock.ts";
import type { Manifest } from "./manifest.ts";
import type { StateMemo } from "./memo.ts";
import type { Scenario } from "./scenario.ts";
import type { State } from "./state.ts";
import { copyState, TEMPLATE_KEY_PREFIX, templateOf } from "./template.ts";

const CUID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export interface World {
  state: State;
  clock: VirtualClock;
  rng: Rng;
  manifest: Manifest;
  services: Services;
}

/** What every world of one simulator shares. */
export interface WorldDeps {
  clockMode: ClockMode;
  /** Virtual time at which scenarios start (epoch ms). */
  startTime: number;
  wall: WallClock;
  /** Live: the control plane changes it in place. */
  config: SimConfig;
  jobs: ReadonlyMap<string, JobHandler>;
  /** Run once on each new world built from a scenario. */
  inits: readonly ((s: Services) => void)[];
  memo: StateMemo;
  /** Checks a snapshot's world before it is loaded (the resources' records and references). */
  vet?: SnapshotVet | undefined;
  /** How every API key of these worlds begins (`service_`; a sandbox's says which sandbox). */
  keyPrefix: string;
  pageBase: string;
}

/** A new world of `scenario` (a ScenarioError from its build, when a document cannot make it at this seed). */
export async function buildWorld(deps: WorldDeps, scenario: Scenario, seed: number): Promise<World> {
  const rng = createRng(seed);
  const start = scenario.startTime ?? deps.startTime;
  const template = templateOf(scenario, seed, start);
  const state = copyState(template.state);
  const services = {} as Services;
  const clock = newClock(deps, start, services);
  // The template's keys with this world's prefix (a sandbox's names the sandbox).
  const own = (raw: string) => `${deps.keyPrefix}${raw.slice(TEMPLATE_KEY_PREFIX.length)}`;
  const manifest = structuredClone(template.manifest);
  for (const user of Object.values(manifest.users)) user.apiKey = own(user.apiKey);
  // Hashed once for the template's own prefix (a reset of the default world hashes nothing); a sandbox's
  // prefix is its own, so its keys are hashed for it alone.
  const hashes = deps.keyPrefix === TEMPLATE_KEY_PREFIX ? template.hashes : null;
  for (const { record, raw } of template.keys) {
    const key = own(raw);
    let hash = hashes?.get(key);
    if (hash === undefined) {
      hash = sha256Hex(key);
      hashes?.set(key, hash);
    }
    state.apiKeys.set(record.id, { ...record, hash });
    state.apiKeyByHash.set(hash, record.id);
  }
  wireServices(deps, services, state, clock, rng.fork("runtime"));
  for (const init of deps.inits) init(services);
  return { state, clock, rng, manifest, services };
}

/** A saved world brought back, with the configuration it was saved with; SnapshotError if it cannot run. */
export function restoreWorld(deps: WorldDeps, saved: Snapshot): { world: World; config: SimConfig } {
  // A copy, so the same snapshot can be restored again and the caller's object is never mutated.
  const snap = structuredClone(checkSnapshot(saved));
  // A world's keys route requests to it (a sandbox's name the sandbox): another world's keys would not.
  const foreign = Object.values(snap.manifest.users).find((u) => !u.apiKey.startsWith(deps.keyPrefix));
  if (foreign)
    throw new SnapshotError(
      `its API keys belong to another world: they begin "${foreign.apiKey.slice(0, deps.keyPrefix.length)}", this world's begin "${deps.keyPrefix}"`,
    );
  const unknown = snap.clock.jobs.map((j: Job) => j.kind).filter((k) => !deps.jobs.has(k));
  if (unknown.length > 0) throw new SnapshotError(`no handler for job kind "${unknown[0]}"`);
  const state = deserializeState(snap.state);
  const problems = deps.vet?.(snap) ?? [];
  if (problems.length > 0) {
    const n = problems.length;
    const first = problems[0] as SnapshotProblem;
    throw new SnapshotError(
      `${n} problem${n === 1 ? "" : "s"} in its world, the first at ${first.path}: ${first.message}`,
      problems,
    );
  }
  const services = {} as Services;
  // The snapshot's own clock mode: a world saved on a manual clock stays on one (older snapshots say none).
  const clock = newClock(deps, snap.clock.now, services, snap.clock.mode);
  clock.restore(snap.clock);
  const runtime = createRng(snap.seed).fork("runtime");
  try {
    runtime.restore(snap.rng);
  } catch (error) {
    throw new SnapshotError(`rng: ${error instanceof Error ? error.message : String(error)}`);
  }
  wireServices(deps, services, state, clock, runtime);
  const world = { state, clock, rng: createRng(snap.seed), manifest: snap.manifest, services };
  return { world, config: snap.config };
}

/** A view of the live world: serialize it before the next request, or copy it. */
export function snapshotOf(world: World, config: SimConfig): Snapshot {
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    scenario: world.manifest.scenario,
    seed: world.manifest.seed,
    manifest: { ...world.manifest, now: world.clock.nowIso() },
    clock: world.clock.snapshot(),
    rng: world.services.rng.state(),
    config: { ...config, latencyMs: structuredClone(config.latencyMs) },
    state: serializeState(world.state),
  };
}

function newClock(
  deps: WorldDeps,
  start: number,
  services: Services,
  mode: ClockMode = deps.clockMode,
): VirtualClock {
  return new VirtualClock(mode, start, deps.wall, (job) => {
    const run = deps.jobs.get(job.kind);
    if (!run) throw new Error(`No handler for job kind ${job.kind}`);
    deps.memo.touch();
    run(services, job.payload);
  });
}

function wireServices(
  deps: WorldDeps,
  services: Services,
  state: State,
  clock: VirtualClock,
  runtime: Rng,
): void {
  Object.assign(services, {
    state,
    clock,
    rng: runtime,
    config: deps.config,
    schedule: (delayMs: number, kind: string, payload: unknown) =>
      void clock.schedule(delayMs, kind, payload),
    ids: {
      uuid: () => runtime.uuid(),
      cuid: () => `c${runtime.chars(24, CUID_ALPHABET)}`,
      apiKeySecret: () => `${deps.keyPrefix}${runtime.chars(40, KEY_ALPHABET)}`,
    },
    pageBase: deps.pageBase,
    sha256: sha256Hex,
    memo: (key, derive) => deps.memo.get(key, derive),
  } satisfies Services);
}
