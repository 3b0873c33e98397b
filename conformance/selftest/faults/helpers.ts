/** What the faults of several checks files share: keys per body, callers resent, remembered state, progress edits. */
import { AUD, bodyOf, editWhen, is, on, withBody } from "../fault-kit.ts";
import type { Fault, FaultEnv } from "../harness.ts";
import { callerOf, envelope, pathOf } from "../harness.ts";

/** Per-server memory of a fault, created on first use. */
export function remember<T>(env: FaultEnv, name: string, make: () => T): T {
  if (!env.memory.has(name)) env.memory.set(name, make());
  return env.memory.get(name) as T;
}

export function keyFor(env: FaultEnv, role: string): string {
  return env.sim.manifest().users[role]?.apiKey as string;
}

export function as(req: Request, key: string): Request {
  const headers = new Headers(req.headers);
  headers.set("authorization", `Bearer ${key}`);
  return new Request(req.url, { method: req.method, headers, body: req.body, duplex: "half" } as RequestInit);
}

/** One role's requests of one kind are served with the owner's rights: an access rule skipped. */
export function servedAsOwner(role: string, method: string, path: RegExp): Fault {
  return async (req, next, env) =>
    is(req, method, path) && callerOf(req, env) === role ? next(as(req, keyFor(env, "owner"))) : next(req);
}

/** Posts to `path` with the idempotency header changed when the body contains `marker`: replays break. */
export function keyPerBody(path: RegExp, header: string, marker: string): Fault {
  return async (req, next) => {
    if (!is(req, "POST", path)) return next(req);
    const text = await req.text();
    const headers = new Headers(req.headers);
    const key = headers.get(header);
    if (key && text.includes(marker)) headers.set(header, `${key}-${marker}`);
    return next(new Request(req.url, { method: "POST", headers, body: text }));
  };
}

export const UUID = "[0-9a-f-]{36}";

/**
 * Answers a refusal (`status`) to the callers `who` picks by the same request made as `handle` (the
 * owner unless said): what one who may not do it is then served.
 */
export const resentAs =
  (method: string, re: RegExp, status: number, who: (h: string | null) => boolean, handle = "owner"): Fault =>
  async (req, next, env) => {
    if (!is(req, method, re) || !who(callerOf(req, env))) return next(req);
    const text = await req.text();
    const again = () =>
      new Request(req.url, { method: req.method, headers: req.headers, body: text || null });
    const res = await next(again());
    return res.status === status ? next(as(again(), keyFor(env, handle))) : res;
  };

/** Refuses with 404 (as hidden) what the callers `who` picks would be served. */
export const hiddenFrom =
  (method: string, re: RegExp, who: (h: string | null) => boolean): Fault =>
  async (req, next, env) =>
    is(req, method, re) && who(callerOf(req, env))
      ? envelope(404, "Audience not found", pathOf(req))
      : next(req);

export type Json = Record<string, unknown>;

/** A refused request sent again with its JSON body changed by `fix`, when `refused` says so. */
export const retried =
  (
    method: string,
    re: RegExp,
    refused: (status: number, json: Json) => boolean,
    fix: (json: Json) => Json,
  ): Fault =>
  async (req, next) => {
    if (!is(req, method, re)) return next(req);
    const { req: again, json } = await bodyOf(req);
    const res = await next(again);
    const j = (json ?? {}) as Json;
    return refused(res.status, j) ? next(withBody(again, fix(j))) : res;
  };

/** The same request, its body given again as read, with one header changed. */
export function withHeader(req: Request, name: string, value: string, body: string): Request {
  const headers = new Headers(req.headers);
  headers.set(name, value);
  return new Request(req.url, { method: req.method, headers, ...(body ? { body } : {}) });
}

export const PROGRESS = new RegExp(`/audiences/${AUD}/progress$`);

export const editProgress = (edit: (d: Json & { readiness: Json; members: { update: Json }[] }) => void) =>
  editWhen(on("GET", PROGRESS, 200), (b) => {
    if (b?.data?.readiness) edit(b.data);
  });
