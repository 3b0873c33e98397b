/**
 * In-process HTTP for tests: a simulator on a manual clock, calls by manifest handle, and every response
 * checked against openapi.json (status documented, headers, Content-Type, body schema). A test that gets
 * an undocumented answer fails even if it did not think to look.
 */

import { beforeEach, expect } from "vitest";
import { operations } from "../src/contract/operations.ts";
import { checkResponse } from "../src/contract/responses.ts";
import { Router } from "../src/core/request/router.ts";
import { LayeredMap } from "../src/core/world/layered-map.ts";
import type { AudienceRecord, FormationRecord, UserRecord } from "../src/core/world/state.ts";
import { createSimulator, type Simulator, type SimulatorOptions } from "../src/simulator.ts";

const router = new Router(operations);

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when there is none or it is not JSON. */
  body: T;
}

export interface CallOptions {
  /** A user handle from the manifest, a raw key, or null for no Authorization header. */
  as?: string | null;
  body?: unknown;
  /** A raw body string, sent as is (typed `application/json` unless `headers` or `untyped` say otherwise). */
  raw?: string;
  /** Send the body without a Content-Type header. */
  untyped?: boolean;
  headers?: Record<string, string>;
  /** Skip the contract check (for requests to undocumented routes). */
  unchecked?: boolean;
}

export interface Harness {
  sim: Simulator;
  call<T = any>(method: string, path: string, opts?: CallOptions): Promise<CallResult<T>>;
  /** The manifest ID of a handle in one of its sections. */
  id(section: "users" | "audiences" | "minds" | "formations", handle: string): string;
  key(user: string): string;
  /** The state's records for manifest handles, as they are now. */
  audience(handle: string): AudienceRecord;
  formation(handle: string): FormationRecord;
  user(handle: string): UserRecord;
  /** How many Minds a user owns. */
  ownedBy(handle: string): number;
  /** Everything a request could change, except API keys' `lastUsedAt` (every authenticated call sets it). */
  snapshot(): string;
  /** Runs a request that must be refused with `status` and checks that it changed nothing. */
  refused(
    method: string,
    path: string,
    opts: CallOptions | undefined,
    status: number,
    statusMessage?: string,
  ): Promise<CallResult>;
}

/**
 * The default scenario's users who may view main: its owner and direct admin (its managers), a direct
 * member, a team member, a Study viewer.
 */
export const MAIN_VIEWERS = ["owner", "admin", "member", "teammate", "studyViewer"];

/** Who views what in the default scenario: main's viewers, and two viewers of the public Audience (its publisher aside). */
export const VIEWS: [user: string, audience: string][] = [
  ...MAIN_VIEWERS.map((user): [string, string] => [user, "main"]),
  ["outsider", "public"],
  ["owner", "public"],
];

/** The default scenario's users other than main's owner: each may not change main (or not even see it). */
export const NOT_MAIN_OWNERS = ["admin", "member", "teammate", "studyViewer", "outsider"];

/** Asserts an error answer: its status and the envelope's statusMessage. */
export function expectError(
  r: Pick<CallResult, "status" | "body">,
  status: number,
  statusMessage: string,
): void {
  expect(r.status).toBe(status);
  expect(r.body.statusMessage).toBe(statusMessage);
}

/** An Audience ID that names nothing, and one that is not an ID at all. */
export const NO_AUDIENCE = { missing: "0b7c6d5e-4f3a-4b2c-9d1e-0f9e8d7c6b5a", malformed: "xyz" };

/** `GET` of the path `at` builds for an Audience ID: 404 for a missing Audience, 400 for a malformed ID. */
export async function expectAudienceIdErrors(h: Harness, at: (audienceId: string) => string): Promise<void> {
  expect((await h.call("GET", at(NO_AUDIENCE.missing))).status).toBe(404);
  expectError(await h.call("GET", at(NO_AUDIENCE.malformed)), 400, "Invalid audience ID format");
}

function found<T>(record: T | undefined, what: string): T {
  if (record === undefined) throw new Error(`no ${what}`);
  return record;
}

export async function harness(options: SimulatorOptions = {}): Promise<Harness> {
  const sim = createSimulator({
    clock: "manual",
    verifyKeptAnswers: true,
    onError: (e) => {
      throw e;
    },
    ...options,
  });
  await sim.ready;
  const h: Harness = {
    sim,
    id: (section, handle) => {
      const entry = (sim.manifest()[section] as Record<string, { id: string }>)[handle];
      if (!entry) throw new Error(`No ${section} handle ${handle}`);
      return entry.id;
    },
    key: (user) => {
      const u = sim.manifest().users[user];
      if (!u) throw new Error(`No user ${user}`);
      return u.apiKey;
    },
    audience: (handle) => found(sim.state.audiences.get(h.id("audiences", handle)), `audience ${handle}`),
    formation: (handle) => found(sim.state.formations.get(h.id("formations", handle)), `formation ${handle}`),
    user: (handle) => found(sim.state.users.get(h.id("users", handle)), `user ${handle}`),
    ownedBy: (handle) =>
      [...sim.state.minds.values()].filter((m) => m.ownerId === h.id("users", handle)).length,
    snapshot: () => {
      const s = sim.state;
      const table = <T>(m: Map<string, T>) => [...m.entries()];
      return JSON.stringify({
        users: table(s.users),
        teams: table(s.teams),
        // The Minds over a template's (frozen, shared, never changed): what this world holds beyond them
        // says all, without reading (or making) thousands of shared Minds twice a refusal.
        minds: s.minds instanceof LayeredMap ? layerOf(s.minds) : table(s.minds),
        audiences: table(s.audiences),
        studies: table(s.studies),
        formations: table(s.formations),
        idempotency: table(s.idempotency),
        extra: [...s.extra.entries()].map(([k, v]) => [k, table(v)]),
        jobs: sim.clock.pending(),
      });
    },
    refused: async (method, path, opts, status, statusMessage) => {
      const before = h.snapshot();
      const r = await h.call(method, path, opts);
      expect(r.status).toBe(status);
      if (statusMessage !== undefined) expect(r.body.statusMessage).toBe(statusMessage);
      expect(h.snapshot()).toBe(before);
      return r;
    },
    call: async (method, path, opts = {}) => {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      const as = opts.as === undefined ? "owner" : opts.as;
      if (as !== null) headers.authorization = `Bearer ${as.startsWith("service_") ? as : h.key(as)}`;
      let body: string | undefined = opts.raw;
      if (opts.body !== undefined) body = JSON.stringify(opts.body);
      const typed = Object.keys(headers).some((n) => n.toLowerCase() === "content-type");
      if (body !== undefined && !typed && !opts.untyped) headers["content-type"] = "application/json";
      const res = await sim.fetch(
        new Request(`http://sim.test${path}`, { method, headers, ...(body !== undefined ? { body } : {}) }),
      );
      const text = method === "HEAD" ? "" : await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      if (!opts.unchecked) assertDocumented(method, path, res, text);
      return { status: res.status, headers: res.headers, text, body: parsed as any };
    },
  };
  return h;
}

/** A layered table as the snapshot compares it: its own layer, and which base it lies over. */
function layerOf<V>(m: LayeredMap<string, V>) {
  const { base, own, hidden } = m.layer();
  let id = BASES.get(base);
  if (id === undefined) {
    id = BASES_SEEN.next++;
    BASES.set(base, id);
  }
  return { base: id, own, hidden };
}
const BASES = new WeakMap<object, number>();
const BASES_SEEN = { next: 0 };

function assertDocumented(method: string, path: string, res: Response, text: string): void {
  const m = router.match(method, new URL(`http://x${path}`).pathname);
  if (m.kind !== "found") return;
  const issues = checkResponse(m.op.operationId, res.status, res.headers, text);
  if (issues.length > 0) {
    throw new Error(
      `${method} ${path} → ${res.status} breaks the contract:\n${JSON.stringify(issues, null, 2)}\nbody: ${text.slice(0, 500)}`,
    );
  }
}

/**
 * A record as the state holds it now, for tests that keep hold of one across requests: Mind records are
 * replaced rather than changed (src/core/world/template.ts), so a reference taken earlier goes stale. Reading
 * a field reads the current record; setting one replaces the record with a copy that has it.
 */
export function live<T extends object>(table: Map<string, T>, id: string): T {
  const current = (): T => {
    const record = table.get(id);
    if (!record) throw new Error(`no record ${id}`);
    return record;
  };
  return new Proxy({} as T, {
    get: (_, field) => current()[field as keyof T],
    set: (_, field, value) => {
      table.set(id, { ...current(), [field]: value });
      return true;
    },
  });
}

/**
 * A harness whose recorded changes are listed as they come: `METHOD url` for a request, the kind for any
 * other change. For tests of what is (and is not) recorded.
 */
export async function recordingHarness(
  options: SimulatorOptions = {},
): Promise<{ h: Harness; recorded: string[] }> {
  const recorded: string[] = [];
  const h = await harness({
    ...options,
    changes: { record: (c) => void recorded.push(c.kind === "request" ? `${c.method} ${c.url}` : c.kind) },
  });
  return { h, recorded };
}

/**
 * A harness made anew for every test. `fresh()` registers the `beforeEach` where it is called (at a file's
 * top, or in a describe whose tests need a world); `h` always reads the running test's harness, so
 * helpers written once at a file's top reach the world of whichever test calls them.
 */
export function harnessEachTest(options: SimulatorOptions = {}): { h: Harness; fresh: () => void } {
  let current: Harness | undefined;
  const h = new Proxy({} as Harness, {
    get: (_target, key) => {
      if (!current)
        throw new Error("no harness yet: call fresh() where the tests that need one are declared");
      return Reflect.get(current, key);
    },
  });
  const fresh = () =>
    beforeEach(async () => {
      current = await harness(options);
    });
  return { h, fresh };
}
