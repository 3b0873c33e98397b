/**
 * API keys of two accounts: created, used on every v1 prefix, listed and deleted in any order. A key
 * belongs to one account only: the other account can neither list nor delete it.
 */

import type { Role } from "../lib/http/target.ts";
import type { CheckContext } from "../lib/running/context.ts";
import { fresh } from "../lib/running/helpers.ts";
import { type KeyRec, liveKeys, pick, type World } from "./model.ts";
import type { Cast, Step } from "./steps.ts";

type S<K extends Step["k"]> = Extract<Step, { k: K }>;

/** Every v1 prefix agrees on whether the key authenticates, and on whose it is. */
async function observeKey(c: CheckContext, cast: Cast, k: KeyRec): Promise<void> {
  const userId = c.info.users[k.account];
  for (const prefix of cast.prefixes) {
    const ex = await c.call({ op: "getMe", as: { key: k.key, label: `${k.account}_new` }, prefix });
    const expected = k.alive ? 200 : 401;
    if (
      !c.expect(
        ex.status === expected,
        "keys/delete-immediate",
        `a ${k.alive ? "live" : "deleted"} key of ${k.account} answered ${ex.status} under ${prefix}, not ${expected}`,
        ex,
      )
    )
      continue;
    if (k.alive && userId && ex.status === 200)
      c.expect(
        ex.body?.id === userId,
        "keys/delete-immediate",
        `GET ${prefix}/auth/me named ${ex.body?.id}, not ${userId}`,
        ex,
      );
  }
  // The checkout endpoints take the same service authentication: a deleted key is refused there too.
  const acp = await c.call({
    op: "getCheckoutSession",
    params: { id: "cs_conformance_unknown" },
    as: { key: k.key, label: `${k.account}_new` },
  });
  const expected = k.alive ? 404 : 401;
  c.expectStatus(
    acp,
    expected,
    "keys/delete-immediate",
    `a ${k.alive ? "live" : "deleted"} key of ${k.account} reading an unknown checkout session`,
  );
}

export async function createKey(c: CheckContext, w: World, cast: Cast, s: S<"createKey">): Promise<void> {
  const prefix = pick(cast.prefixes, s.prefix);
  const ex = await c.call({ op: "createApiKey", as: c.as(s.as), json: { name: fresh("world") }, prefix });
  if (!c.expectStatus(ex, 201, "keys/secret-once", "creating a key")) return;
  const k: KeyRec = { id: ex.body?.id, key: ex.body?.key, account: s.as, alive: true };
  if (!c.expect(typeof k.key === "string", "keys/secret-once", "the creation response has no key", ex))
    return;
  w.keys.push(k);
  c.coverage.transition("apiKey", "∅", "live");
  await observeKey(c, cast, k);
}

export async function useKey(c: CheckContext, w: World, cast: Cast, s: S<"useKey">): Promise<void> {
  const k = w.keys[s.key % w.keys.length];
  if (k) await observeKey(c, cast, k);
}

export async function deleteKey(c: CheckContext, w: World, cast: Cast, s: S<"deleteKey">): Promise<void> {
  const k = w.keys[s.key % w.keys.length];
  if (!k) return;
  const prefix = pick(cast.prefixes, s.prefix);
  const ex = await c.call({ op: "deleteApiKey", params: { keyId: k.id }, as: c.as(s.as), prefix });
  const expected = k.alive && k.account === s.as ? 204 : 404;
  const what = !k.alive
    ? "an already deleted key"
    : k.account === s.as
      ? "its own key"
      : "another account's key";
  c.expectStatus(ex, expected, "keys/own-account-only", `${s.as} deleting ${what}`);
  if (expected === 204 && ex.status === 204) {
    k.alive = false;
    c.coverage.transition("apiKey", "live", "deleted");
  }
  // The deleted key is refused, and every other key (of either account) still works.
  for (const other of w.keys) await observeKey(c, cast, other);
}

export async function listKeys(c: CheckContext, w: World, _cast: Cast, s: S<"listKeys">): Promise<void> {
  const ex = await c.call({ op: "listApiKeys", as: c.as(s.as) });
  if (
    !c.expect(
      ex.status === 200 && Array.isArray(ex.body),
      "keys/listing-order",
      `listing keys answered ${ex.status}`,
      ex,
    )
  )
    return;
  const rows = ex.body as { id: string; createdAt: string }[];
  const ids = new Set(rows.map((r) => r.id));
  for (const k of w.keys) {
    const listed = ids.has(k.id);
    const should = k.alive && k.account === s.as;
    c.expect(
      listed === should,
      "keys/own-account-only",
      `${s.as}'s listing ${listed ? "shows" : "lacks"} ${k.alive ? "live" : "deleted"} key ${k.id} of ${k.account}`,
      ex,
    );
    c.expect(!ex.text.includes(k.key), "keys/secret-once", "a key listing contains a secret", ex);
  }
  const times = rows.map((r) => Date.parse(r.createdAt));
  c.expect(
    times.every((t, i) => i === 0 || (times[i - 1] as number) >= t),
    "keys/listing-order",
    "keys are not listed by createdAt descending",
    ex,
  );
}

/** Deletes what the sequence left alive, each with its own account's key. */
export async function cleanupKeys(c: CheckContext, w: World): Promise<void> {
  const accounts = new Set(w.keys.map((k) => k.account));
  for (const a of accounts as Set<Role>)
    for (const k of liveKeys(w, a))
      await c.call({ op: "deleteApiKey", params: { keyId: k.id }, as: c.as(a) });
}
