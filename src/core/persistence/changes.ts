/**
 * Changes: what a durable host records so that a world can be brought back exactly as it was.
 *
 * The simulator is deterministic (same world, same inputs at the same virtual instants, same result), so
 * a change is recorded as its input, not as its effect: the request a handler served (method, URL, the
 * headers it read, the body, the caller's API key ID and the instant it ran at), a clock move, a
 * configuration patch, a reset. A replay of the same changes on the same starting world makes the same
 * world, record for record, IDs included. That keeps a record small (an input, not a diff of a 7 MB world)
 * and the code that makes a change the only code that knows what it touches.
 *
 * Records are plain JSON. The core makes them and replays them; the host decides where they go
 * (src/cli/stores/change-log.ts keeps them in an fsync'd write-ahead log). Runtime-free.
 */

import type { Snapshot } from "./snapshot.ts";

/** A request that reached a handler and may have changed the world. */
export interface RequestChange {
  kind: "request";
  /** Virtual time (epoch ms) the handler ran at; time stood still while it ran. */
  at: number;
  method: string;
  /** Absolute URL: handlers put its origin into the links they make. */
  url: string;
  /** The API key the caller authenticated with (its ID, never the secret); null where none applies. */
  keyId: string | null;
  /** Every request header that was read while serving it, except credentials. */
  headers: [string, string][];
  /** The request body as text, or null when there was none. */
  body: string | null;
}

/** Jobs that came due and ran while a request that changed nothing else was served. */
export interface TimeChange {
  kind: "time";
  at: number;
}

export interface AdvanceChange {
  kind: "advance";
  /**
   * The instant the move started from. A real clock runs on between changes, so without it a replay
   * would move from the last change's instant instead and lose the time in between (and the jobs due in
   * it). Absent in logs written before it was recorded; those replay from the last change.
   */
  at?: number;
  ms: number;
}

export interface ConfigChange {
  kind: "config";
  rateLimitPerMinute: number;
  latencyMs: number | [number, number];
}

export interface ResetChange {
  kind: "reset";
  scenario: string;
  seed: number;
  /** A scenario document's own text, when the world was built from one rather than a built-in name. */
  document?: unknown;
}

/** A whole world loaded in place of the one there was (`PUT /__sim/snapshot`). */
export interface RestoreChange {
  kind: "restore";
  snapshot: Snapshot;
}

export type Change = RequestChange | TimeChange | AdvanceChange | ConfigChange | ResetChange | RestoreChange;

/**
 * Where a simulator sends its changes, in the order they were made. `durable` says the caller is told
 * about this change (a write's reply): the returned promise resolves once the change would survive a
 * crash, and the reply waits for it. Changes that are not `durable` (jobs that ran, a read that seeded
 * data) are made durable by the next durable one, since they come before it in the log.
 */
export interface ChangeSink {
  record(change: Change, durable: boolean): Promise<void> | undefined;
}

/** Request headers never written to a log: they carry credentials. */
export const UNRECORDED_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "cookie",
  "proxy-authorization",
]);
