/**
 * What every handler and job of a world may use (its state, clock, random streams, IDs, memo), and the
 * world's tunable configuration. The world (./world.ts) makes them; resources read them through their
 * request's context (./resource.ts) or as a job's argument.
 */

import type { Rng } from "../generators/prng.ts";
import type { VirtualClock } from "./world/clock.ts";
import type { State } from "./world/state.ts";

export interface SimConfig {
  rateLimitPerMinute: number;
  /** Fixed latency, or a [min, max] range, added to every API response. */
  latencyMs: number | [number, number];
}

/** Services every handler and job may use; all of them deterministic. */
export interface Services {
  state: State;
  clock: VirtualClock;
  rng: Rng;
  config: SimConfig;
  /** Schedules a job of `kind` after `delayMs` of virtual time. */
  schedule(delayMs: number, kind: string, payload: unknown): void;
  ids: {
    uuid(): string;
    /** `c` followed by 24 lowercase alphanumerics. */
    cuid(): string;
    /** A raw API key: the world's key prefix (`service_`, or a sandbox's) followed by an opaque string. */
    apiKeySecret(): string;
  };
  /**
   * Where this world's pages outside the contract live below the origin: `` for the default world, a
   * sandbox's `/sandboxes/{id}` (src/core/world/sandboxes.ts), so a buyer's link reaches the right world.
   */
  pageBase: string;
  /** Hex SHA-256 of a string, as stored for API keys. */
  sha256(text: string): string;
  /**
   * Data derived from the state (an index, a rendered view) under `key`, derived again only after the
   * state may have changed (src/core/world/memo.ts). `derive` must read the state only, never change it.
   */
  memo<T>(key: string, derive: () => T): T;
}
