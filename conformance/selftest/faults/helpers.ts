/** What the faults of several checks files share: keys kept per body, callers resent, edits of progress. */
import { AUD, bodyOf, editWhen, is, on, withBody } from "../fault-kit.ts";
import type { Fault, FaultEnv } from "../harness.ts";
import { callerOf, editJson, envelope, keyOf, pathOf } from "../harness.ts";

/** The outsider's 404 for the private Audience turned into a 403 that says it exists, for `methods`. */
export const deniedNotHidden =
  (methods: (method: string) => boolean): Fault =>
  async (req, next, env) => {
    const res = await next(req);
    const privateId = env.sim.manifest().audiences.private?.id ?? "?";
    if (
      methods(req.method) &&
      res.status === 404 &&
      callerOf(req, env) === "outsider" &&
      pathOf(req).includes(privateId)
    )
      return envelope(403, "Access denied", pathOf(req));
    return res;
  };

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

export const removedMembers = (env: FaultEnv) => remember(env, "removed", () => new Set<string>());

/** Notes every member the owner removed (the simulator still does the removal). */
export async function noteRemoval(req: Request, next: (r: Request) => Promise<Response>, env: FaultEnv) {
  const res = await next(req);
  const m = /\/members\/([0-9a-f-]{36})$/.exec(pathOf(req));
  if (req.method === "DELETE" && m && res.status === 204) removedMembers(env).add(m[1] as string);
  return res;
}

/**
 * A deleted key keeps working under one prefix: requests there are served as the account that deleted it
 * (whose key still works), as a server with a per-prefix key cache would.
 */
export function deletedKeyAlive(prefix: string): Fault {
  return async (req, next, env) => {
    const secrets = remember(env, "secrets", () => new Map<string, string>());
    const deleted = remember(env, "deleted", () => new Map<string, string>());
    const key = keyOf(req) ?? "";
    const stand = deleted.get(key);
    if (stand && pathOf(req).startsWith(prefix)) return next(as(req, stand));
    const res = await next(req);
    if (is(req, "POST", /\/api-keys$/) && res.status === 201) {
      const body = (await res.clone().json()) as { id: string; key: string };
      secrets.set(body.id, body.key);
    }
    const m = /\/api-keys\/(c[a-z0-9]{24})$/.exec(pathOf(req));
    const gone = m && secrets.get(m[1] as string);
    if (req.method === "DELETE" && res.status === 204 && gone && gone !== key) deleted.set(gone, key);
    return res;
  };
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

/** Rewrites every Formation detail with `edit`. */
export function editFormation(edit: (data: Record<string, unknown>) => void): Fault {
  return async (req, next) => {
    const res = await next(req);
    if (!is(req, "GET", /\/formations\/[0-9a-f-]{36}$/)) return res;
    return editJson(res, (b) => {
      if (b?.data) edit(b.data);
    });
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

/** A checkout body with both consents given: what a fault sends again in place of a refused one. */
export const withConsent = (j: Json): Json => ({
  ...j,
  metadata: { ...(j.metadata as Json), legalAcceptance: { termsAccepted: true, withdrawalConsent: true } },
});

export const PROGRESS = new RegExp(`/audiences/${AUD}/progress$`);

export const editProgress = (edit: (d: Json & { readiness: Json; members: { update: Json }[] }) => void) =>
  editWhen(on("GET", PROGRESS, 200), (b) => {
    if (b?.data?.readiness) edit(b.data);
  });

export const regions = new Intl.DisplayNames(["en"], { type: "region" });
