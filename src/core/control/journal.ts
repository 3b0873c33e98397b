/**
 * The request journal: a bounded ring of the newest requests, for `GET /__sim/requests` and
 * `sim.requests(filter)`, so that a test can say "the app asked for one export" in one line.
 *
 * Each entry is the request's summary (the one the request log prints) with an ID and the query; the
 * newest DETAIL_CAPACITY entries also keep headers and the head of each body, copied into slots of a fixed
 * size that are written over (journal-detail.ts), so that the memory they take is bounded whatever the
 * traffic. Reads of the
 * control plane (the dashboard polling it) are not journaled: they are not the app's traffic.
 */

import { badRequest } from "../errors.ts";
import type { HeaderReader, Outcome } from "../request/exchange.ts";
import { globToRegExp } from "../request/faults.ts";
import { KeptMap } from "../request/kept-map.ts";
import { DETAIL_CAPACITY, DetailArena, type SideView } from "./journal-detail.ts";

/** What the request log and `onRequest` see of one request. */
export interface JournalEntry {
  at: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  userId: string | null;
}

/** One request as a reader sees it. */
export interface JournalView extends JournalEntry {
  /** Increases by one per request of this world: `since=ID` reads what came after. */
  id: number;
  /** The query string as sent (`?format=pdf`), or "". */
  query: string;
  /** Headers and bodies, keys redacted: for the newest requests only (DETAIL_CAPACITY). */
  request?: SideView;
  response?: SideView;
}

/** One entry as the filters read it. */
interface Stored {
  id: number;
  entry: JournalEntry;
  query: string;
  /** Its headers and bodies went into the arena (slot `(id - 1) % detailCapacity`, until written over). */
  detailed: boolean;
}

export interface JournalFilter {
  method?: string;
  /** A glob over the path: `*` within a segment, `**` across segments. */
  path?: string;
  /** A status (`201`) or a class (`4xx`). */
  status?: string | number;
  userId?: string;
  /** An instant (entries at or after it, on the virtual clock) or an entry ID (entries after it). */
  since?: string | number;
  limit?: number;
}

export const JOURNAL_CAPACITY = 1000;

/**
 * Why columns and not an object per request: an entry lives for the next thousand requests, long enough to
 * be moved to the old generation, where every entry written over is garbage only a full collection finds.
 * An object and its strings per request were most of what a busy simulator promoted (about 230 of 260
 * bytes an auth/me), and with the heap held tight (src/cli/memory.ts) a full collection every 30,000
 * requests. Each column holds small integers or strings the journal already had (a path, query or instant
 * it has seen is stored as the copy it holds), so the request's own objects die young. The columns grow as
 * entries come, so that a world that serves few requests (a sandbox) holds little.
 */
export class Journal {
  private next = 0;
  private size = 0;
  private seq = 0;
  private readonly ats: string[] = [];
  private readonly methods: string[] = [];
  private readonly paths: string[] = [];
  private readonly queries: string[] = [];
  private readonly users: (string | null)[] = [];
  private readonly statuses: number[] = [];
  /** Hundredths of a millisecond, as `ms` is rounded: an integer, where a fraction would be a heap number. */
  private readonly centis: number[] = [];
  /** Its headers and bodies went into the arena (slot `(id - 1) % detailCapacity`, until written over). */
  private readonly detailed: boolean[] = [];
  /** The copy of each method, path and query the journal holds (1,024 distinct ones at most). */
  private readonly interned = new KeptMap<string, string>(1024);
  private lastAt = "";

  private readonly arena: DetailArena;

  readonly capacity: number;
  readonly detailCapacity: number;
  constructor(capacity = JOURNAL_CAPACITY, detailCapacity = DETAIL_CAPACITY) {
    this.capacity = capacity;
    this.detailCapacity = detailCapacity;
    this.arena = new DetailArena(detailCapacity);
  }

  /** Adds a request; with its headers, body and answer, the newest keep those too. */
  add(
    entry: JournalEntry,
    query: string,
    headers?: HeaderReader,
    body?: string | null,
    answer?: Outcome,
  ): void {
    const id = ++this.seq;
    const detailed = headers !== undefined && answer !== undefined;
    // Written at `next`: the columns' end until they are `capacity` long, then over the oldest entry.
    const i = this.next;
    // The same instant as the entry before (many requests share one under load): the copy already held.
    if (entry.at !== this.lastAt) this.lastAt = entry.at;
    this.ats[i] = this.lastAt;
    this.methods[i] = this.intern(entry.method);
    this.paths[i] = this.intern(entry.path);
    this.queries[i] = this.intern(query);
    this.users[i] = entry.userId;
    this.statuses[i] = entry.status;
    this.centis[i] = Math.round(entry.ms * 100);
    this.detailed[i] = detailed;
    if (detailed) this.arena.write((id - 1) % this.detailCapacity, headers, body ?? null, answer);
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }

  /** The copy of `text` the journal already holds, else `text`, kept from now on. */
  private intern(text: string): string {
    return this.interned.get(text) ?? this.interned.keep(text, text);
  }

  /** The entry `back` places before the next one to be written (1: the newest), and its ID. */
  private stored(back: number): Stored {
    const i = (this.next - back + this.capacity) % this.capacity;
    const entry: JournalEntry = {
      at: this.ats[i] as string,
      method: this.methods[i] as string,
      path: this.paths[i] as string,
      status: this.statuses[i] as number,
      ms: (this.centis[i] as number) / 100,
      userId: this.users[i] ?? null,
    };
    const id = this.seq - back + 1;
    return { id, entry, query: this.queries[i] as string, detailed: this.detailed[i] === true };
  }

  private viewOf(s: Stored): JournalView {
    const view: JournalView = { id: s.id, ...s.entry, query: s.query };
    if (s.detailed && s.id > this.seq - this.detailCapacity)
      Object.assign(view, this.arena.read((s.id - 1) % this.detailCapacity));
    return view;
  }

  /** Newest first: what matches `filter`. */
  find(filter: JournalFilter = {}): JournalView[] {
    const matches = matcher(filter);
    const limit = filter.limit ?? this.capacity;
    const out: JournalView[] = [];
    for (let back = 1; back <= this.size && out.length < limit; back++) {
      const e = this.stored(back);
      if (matches(e)) out.push(this.viewOf(e));
    }
    return out;
  }

  clear(): void {
    this.next = 0;
    this.size = 0;
  }
}

/** `sim.requests(filter)` and `sim.clearRequests()`: `user` is a manifest handle or a user ID. */
export function journalApi(journal: Journal, users: () => Record<string, { id: string }>) {
  return {
    requests: ({ user, ...filter }: Omit<JournalFilter, "userId"> & { user?: string } = {}): JournalView[] =>
      journal.find(user === undefined ? filter : { ...filter, userId: userIdFor(user, users()) }),
    clearRequests: (): void => journal.clear(),
  };
}

const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The user a journal filter names: a manifest handle, or a user ID. Anything else is a mistake said with
 * the known handles (it answered [], which reads as "no requests").
 */
export function userIdFor(user: string, users: Record<string, { id: string }>): string {
  const byHandle = users[user]?.id;
  if (byHandle !== undefined) return byHandle;
  if (USER_ID.test(user) || Object.values(users).some((u) => u.id === user)) return user;
  throw badRequest(`user must be a handle (${Object.keys(users).join(", ")}) or a user ID, not "${user}"`);
}

function matcher(f: JournalFilter): (s: Stored) => boolean {
  const method = f.method?.toUpperCase();
  const path = f.path === undefined ? null : globToRegExp(f.path);
  const status = f.status === undefined ? null : String(f.status).toLowerCase();
  const sinceId = typeof f.since === "number" ? f.since : null;
  const sinceAt = typeof f.since === "string" ? Date.parse(f.since) : null;
  return ({ id, entry: e }) =>
    (method === undefined || e.method === method) &&
    (path === null || path.test(e.path)) &&
    (status === null ||
      (status.endsWith("xx") ? String(e.status)[0] === status[0] : String(e.status) === status)) &&
    (f.userId === undefined || e.userId === f.userId) &&
    (sinceId === null || id > sinceId) &&
    (sinceAt === null || Date.parse(e.at) >= sinceAt);
}
