/**
 * The whole simulated world as one JSON document, and back: every table of the state, the virtual clock
 * with its queue of jobs, the position of the runtime random stream (so IDs made after a reload are the
 * ones that would have been made without it), the manifest and the configuration.
 *
 * What is not saved, by choice: the rate-limit windows, the request journal and fault rules (a restart
 * starts them afresh, as `POST /__sim/reset` does). In `real` clock mode the virtual time resumes from the
 * saved instant: time the process was down does not pass in the simulation.
 *
 * The format is versioned; a reader refuses a version it does not know, and a document that is not a
 * snapshot at all, with a `SnapshotError` that says which. Runtime-free: no Node imports.
 */

import type { PointerProblem } from "../../contract/pointer.ts";
import type { RngState } from "../../generators/prng.ts";
import type { SimConfig } from "../services.ts";
import type { ClockSnapshot, Job } from "../world/clock.ts";
import type { Manifest } from "../world/manifest.ts";
import { emptyState, type State } from "../world/state.ts";

export const SNAPSHOT_FORMAT = "audience-research-sim/state";
export const SNAPSHOT_VERSION = 1;

/** A table as its entries, in insertion order (which some listings depend on). */
export type TableEntries = [string, unknown][];

export interface SerializedState {
  /** Every core table of `State` by name, except `extra`. */
  tables: Record<string, TableEntries>;
  /** The resource modules' own tables (`State.extra`), by name. */
  extra: Record<string, TableEntries>;
}

export interface Snapshot {
  format: typeof SNAPSHOT_FORMAT;
  version: typeof SNAPSHOT_VERSION;
  scenario: string;
  seed: number;
  manifest: Manifest;
  clock: ClockSnapshot;
  /** The runtime stream that handlers draw IDs and data from. */
  rng: RngState;
  config: SimConfig;
  state: SerializedState;
  /**
   * A host that keeps a change log beside the snapshot (src/cli/stores/change-log.ts): the log generation that
   * continues from this snapshot. Earlier generations are already in it.
   */
  log?: { generation: number };
}

/** Something wrong at one place of a snapshot. */
export type SnapshotProblem = PointerProblem;

/** Why a snapshot cannot be loaded; `problems` lists every one found, each at its JSON pointer. */
export class SnapshotError extends Error {
  override readonly name = "SnapshotError";
  readonly problems: readonly SnapshotProblem[];

  constructor(message: string, problems: readonly SnapshotProblem[] = []) {
    super(message);
    this.problems = problems;
  }
}

/**
 * What a simulator checks a snapshot's world against before loading it (the resources' records, their
 * references): handed to the engine, which knows no resource by name.
 */
export type SnapshotVet = (snap: Snapshot) => SnapshotProblem[];

/** The tables of a state as JSON-ready entries. Throws when a table is not a Map (a programming error). */
export function serializeState(state: State): SerializedState {
  const tables: Record<string, TableEntries> = {};
  const extra: Record<string, TableEntries> = {};
  for (const [name, table] of Object.entries(state) as [string, unknown][]) {
    if (!(table instanceof Map)) throw new TypeError(`State table ${name} is not a Map`);
    if (name === "extra") {
      for (const [sub, t] of table as Map<string, unknown>) {
        if (!(t instanceof Map)) throw new TypeError(`State table extra.${sub} is not a Map`);
        extra[sub] = [...(t as Map<string, unknown>).entries()];
      }
    } else {
      tables[name] = [...(table as Map<string, unknown>).entries()];
    }
  }
  return { tables, extra };
}

/**
 * A fresh State from serialized tables. Records are taken over as they are (a snapshot has been through
 * JSON already, or is the caller's own copy); a table the current State does not know is refused.
 */
export function deserializeState(data: SerializedState): State {
  const state = emptyState();
  const known = state as unknown as Record<string, Map<string, unknown>>;
  for (const [name, entries] of Object.entries(data.tables)) {
    const table = Object.hasOwn(known, name) && name !== "extra" ? known[name] : undefined;
    if (!table) throw new SnapshotError(`unknown state table "${name}"`);
    fill(table, entries, name);
  }
  for (const [name, entries] of Object.entries(data.extra)) {
    const table = new Map<string, unknown>();
    fill(table, entries, `extra.${name}`);
    state.extra.set(name, table);
  }
  return state;
}

function fill(table: Map<string, unknown>, entries: unknown, name: string): void {
  if (!Array.isArray(entries)) throw new SnapshotError(`state table "${name}" must be an array of entries`);
  for (const entry of entries) {
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== "string") {
      throw new SnapshotError(`state table "${name}" has an entry that is not [key, record]`);
    }
    table.set(entry[0], entry[1]);
  }
}

/** The snapshot as text: compact JSON, one document. */
export function encodeSnapshot(snap: Snapshot): string {
  return JSON.stringify(snap);
}

/** Parses and checks a saved snapshot; every way it can be wrong is a SnapshotError naming the problem. */
export function parseSnapshot(text: string): Snapshot {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SnapshotError(`not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  return checkSnapshot(value);
}

/** Checks the shape of a parsed snapshot (not every record: those are the simulator's own output). */
export function checkSnapshot(value: unknown): Snapshot {
  if (!isObject(value) || value.format !== SNAPSHOT_FORMAT) {
    throw new SnapshotError(`not a simulator state file (no "format": "${SNAPSHOT_FORMAT}")`);
  }
  if (value.version !== SNAPSHOT_VERSION) {
    throw new SnapshotError(
      `unsupported state file version ${JSON.stringify(value.version)}; this simulator reads version ${SNAPSHOT_VERSION}`,
    );
  }
  const v = value as Record<string, unknown>;
  need(typeof v.scenario === "string", "scenario must be a string");
  need(isUint32(v.seed), "seed must be an integer from 0 to 4294967295");
  need(
    isObject(v.manifest) && isObject(v.manifest.users) && isObject(v.manifest.audiences),
    "manifest is missing or incomplete",
  );
  const clock = v.clock;
  need(
    isObject(clock) &&
      Number.isFinite(clock.now) &&
      Number.isSafeInteger(clock.seq) &&
      Array.isArray(clock.jobs),
    "clock must be { now, seq, jobs[] }",
  );
  const mode = (clock as Record<string, unknown>).mode;
  need(mode === undefined || mode === "real" || mode === "manual", 'clock.mode must be "real" or "manual"');
  for (const job of (clock as { jobs: unknown[] }).jobs) {
    need(
      isObject(job) &&
        Number.isFinite(job.at) &&
        Number.isSafeInteger(job.seq) &&
        typeof job.kind === "string",
      "every clock job must be { at, seq, kind, payload }",
    );
  }
  const rng = v.rng;
  need(
    isObject(rng) && isUint32(rng.seed) && [rng.a, rng.b, rng.c, rng.d].every(isInt32),
    "rng must be { seed, a, b, c, d } of 32-bit integers",
  );
  const config = v.config;
  need(
    isObject(config) &&
      Number.isSafeInteger(config.rateLimitPerMinute) &&
      (config.rateLimitPerMinute as number) >= 1,
    "config.rateLimitPerMinute must be an integer >= 1",
  );
  const l = (config as Record<string, unknown>).latencyMs;
  need(
    (Number.isSafeInteger(l) && (l as number) >= 0) ||
      (Array.isArray(l) && l.length === 2 && l.every((n) => Number.isSafeInteger(n) && n >= 0)),
    "config.latencyMs must be an integer >= 0 or [min, max]",
  );
  const state = v.state;
  need(isObject(state) && isObject(state.tables) && isObject(state.extra), "state must be { tables, extra }");
  return value as unknown as Snapshot;
}

/** The kinds of job a snapshot's clock holds, for the simulator to check it can run every one. */
export function jobKinds(snap: Snapshot): Set<string> {
  return new Set(snap.clock.jobs.map((j: Job) => j.kind));
}

function need(ok: boolean, message: string): void {
  if (!ok) throw new SnapshotError(message);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function isUint32(v: unknown): boolean {
  return Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 0xffffffff;
}

function isInt32(v: unknown): boolean {
  return Number.isInteger(v) && (v as number) >= -0x80000000 && (v as number) <= 0x7fffffff;
}
