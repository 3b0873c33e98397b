/**
 * Identity and API keys, case by case: `auth/me` for every account; key management by every plan,
 * subscription and SSO link (list, create, delete: an SSO-linked account lists and deletes, only creating
 * is refused); names at and past their limit, blank, null, missing and of the wrong type; deletion of one's
 * own key, of another account's, of one already deleted, and of the key the request itself uses.
 */
import type { Role } from "../lib/http/target.ts";
import type { Answer, Case, CaseWorld, Effect } from "./case.ts";
import { both, is, NOBODY, ok, onMade, PRESENT, refused } from "./case.ts";
import { account, EVERYONE } from "./cast.ts";
import { ownKey } from "./given.ts";

const FORBIDDEN = "Forbidden";
const SSO_REFUSED = "API keys are disabled for this SSO-linked account";
const NOT_FOUND = "API key not found";
const TOO_LONG = "name must be 100 characters or fewer";
const NOT_A_STRING = "name must be a string";
const UNAUTHORIZED = "Unauthorized";

/** After the case: whether a key it made or deleted still authenticates (`GET /auth/me` with it). */
const getMeWith = (what: string, as: Effect["as"], expect: Effect["expect"]): Effect => ({
  what,
  op: "getMe",
  as,
  request: () => ({}),
  expect,
});

/** A key ID of the right form that names no key. */
const UNKNOWN_KEY = `c${"0".repeat(20)}c0de`;

const secretFree = {
  holds: (v: unknown) => Array.isArray(v) && v.every((k) => k && typeof k === "object" && !("key" in k)),
  says: "a listed key carries its secret (`key`)",
  breaks: (v: unknown) => (Array.isArray(v) ? [...v, { id: UNKNOWN_KEY, key: "service_leaked" }] : v),
} as const;

const subscribed = (w: CaseWorld, r: Role) => account(w.info, r).subscription;

function me(role: Role): Case {
  return {
    id: `getMe ${role}: the key owner's user ID`,
    rule: "keys/me",
    op: "getMe",
    as: role,
    request: () => ({}),
    expect: (w) => [ok(200, { id: w.info.users[role] ? is(w.info.users[role]) : PRESENT })],
  };
}

function list(role: Role): Case {
  return {
    id: `listApiKeys ${role}: listed with an active subscription, 403 without`,
    rule: "keys/subscription-sso",
    op: "listApiKeys",
    as: role,
    request: () => ({}),
    expect: (w) => (subscribed(w, role) ? [ok(200, { "": secretFree })] : [refused(403, FORBIDDEN)]),
  };
}

function create(role: Role): Case {
  return {
    id: `createApiKey ${role}: made with an active subscription unless SSO-linked`,
    rule: "keys/subscription-sso",
    also: ["keys/secret-once"],
    op: "createApiKey",
    as: role,
    request: () => ({ json: { name: `case key of ${role}` } }),
    expect: (w) => {
      const a = account(w.info, role);
      if (!a.subscription) return [refused(403, FORBIDDEN)];
      if (a.sso) return [refused(403, SSO_REFUSED)];
      return [ok(201, { name: is(`case key of ${role}`), key: startsWithService, id: PRESENT })];
    },
  };
}

const startsWithService = {
  holds: (v: unknown) => typeof v === "string" && /^service_./.test(v),
  says: "the secret does not start with service_",
  breaks: () => null,
} as const;

/** Deleting a key ID that names nothing: 404 for an account that may manage keys (SSO-linked included). */
function deleteUnknown(role: Role): Case {
  return {
    id: `deleteApiKey ${role}: an unknown key is 404 to an account that manages keys, refused without a subscription`,
    rule: "keys/subscription-sso",
    op: "deleteApiKey",
    as: role,
    request: () => ({ params: { keyId: UNKNOWN_KEY } }),
    // Without a subscription the 403 and the 404 are both true; the description orders neither first.
    expect: (w) =>
      subscribed(w, role) ? [refused(404, NOT_FOUND)] : [refused(403, FORBIDDEN), refused(404, NOT_FOUND)],
  };
}

/** What creating a key with `name` stores: the name the description says it keeps. */
function named(id: string, name: unknown, stored: Answer["fields"] | null, body = true): Case {
  return {
    id: `createApiKey owner: ${id}`,
    rule: "keys/name-limit",
    op: "createApiKey",
    as: "owner",
    request: () => (body ? { json: name === undefined ? {} : { name } } : {}),
    expect: stored ? [ok(201, stored)] : [refused(400, typeof name === "string" ? TOO_LONG : NOT_A_STRING)],
  };
}

const NAMES: Case[] = [
  named("a name of 100 characters is kept", "n".repeat(100), { name: is("n".repeat(100)) }),
  named("a name of 101 characters is refused", "n".repeat(101), null),
  named("100 characters after trimming are kept", `  ${"t".repeat(100)}  `, {
    name: { oneOf: ["t".repeat(100), `  ${"t".repeat(100)}  `] },
  }),
  named("101 characters after trimming are refused", ` ${"t".repeat(101)} `, null),
  named("an empty name stores null", "", { name: is(null) }),
  named("a null name stores null", null, { name: is(null) }),
  named("a missing name stores null", undefined, { name: is(null) }),
  named("no body at all stores null", undefined, { name: is(null) }, false),
  named("a number is not a name", 42, null),
  named("a boolean is not a name", true, null),
  named("an array is not a name", ["x"], null),
  named("an object is not a name", { first: "x" }, null),
];

const DELETIONS: Case[] = [
  {
    id: "deleteApiKey owner: its own key is deleted (204, empty) and stops authenticating at once",
    rule: "keys/delete-immediate",
    op: "deleteApiKey",
    as: "owner",
    given: (ctx, _w, later) => ownKey(ctx, "owner", later),
    request: onMade("keyId"),
    expect: [ok(204, { "": is(undefined) })],
    after: [
      getMeWith("the deleted key authenticates", (w) => ({ key: w.made.key as string, label: "owner_new" }), [
        refused(401, UNAUTHORIZED),
      ]),
      {
        what: "deleting it again",
        op: "deleteApiKey",
        as: "owner",
        request: onMade("keyId"),
        expect: [refused(404, NOT_FOUND)],
      },
    ],
  },
  {
    id: "deleteApiKey teammate: a Team subscription deletes its own key",
    rule: "keys/subscription-sso",
    op: "deleteApiKey",
    as: "teammate",
    given: (ctx, _w, later) => ownKey(ctx, "teammate", later),
    request: onMade("keyId"),
    expect: [ok(204)],
  },
  {
    id: "deleteApiKey owner: the key the request uses deletes itself",
    rule: "keys/delete-immediate",
    op: "deleteApiKey",
    as: "owner",
    given: async (ctx, _w, later) => {
      const m = await ownKey(ctx, "owner", later);
      return "unmade" in m ? m : { ...m, as: { key: m.made.key as string, label: "owner_new" } };
    },
    request: onMade("keyId"),
    expect: [ok(204)],
    after: [getMeWith("the key that deleted itself authenticates", "case", [refused(401, UNAUTHORIZED)])],
  },
  {
    id: "deleteApiKey owner: another account's key is 404 and keeps working",
    rule: "keys/own-account-only",
    op: "deleteApiKey",
    as: "owner",
    given: (ctx, _w, later) => ownKey(ctx, "teammate", later),
    request: onMade("keyId"),
    expect: [refused(404, NOT_FOUND)],
    after: [
      getMeWith(
        "the other account's key authenticates",
        (w) => ({ key: w.made.key as string, label: "teammate_new" }),
        (w) => [ok(200, w.info.users.teammate ? { id: is(w.info.users.teammate) } : {})],
      ),
      {
        what: "the other account lists its key",
        op: "listApiKeys",
        as: "teammate",
        request: () => ({}),
        expect: (w) => [ok(200, { "": listsId(w.made.keyId as string) })],
      },
    ],
  },
  {
    id: "createApiKey owner: a new key is listed, without its secret, newest first",
    rule: "keys/secret-once",
    op: "listApiKeys",
    as: "owner",
    given: (ctx, _w, later) => ownKey(ctx, "owner", later),
    request: () => ({}),
    expect: (w) => [ok(200, { "": both(secretFree, newestFirst(w.made.keyId)) })],
  },
  {
    id: "deleteApiKey owner: a malformed key ID",
    rule: "ids/messages",
    op: "deleteApiKey",
    as: "owner",
    request: () => ({ params: { keyId: "not-a-key" } }),
    expect: [refused(400, "Invalid API key ID format")],
  },
  {
    id: "deleteApiKey outsider: a malformed key ID without a subscription",
    rule: "keys/subscription-sso",
    op: "deleteApiKey",
    as: "outsider",
    request: () => ({ params: { keyId: "not-a-key" } }),
    expect: [refused(400, "Invalid API key ID format"), refused(403, FORBIDDEN)],
  },
];

/** Rows by createdAt descending, the new key among the newest (keys made in one instant tie). */
const newestFirst = (id: unknown) =>
  ({
    holds: (v: unknown) => {
      if (!Array.isArray(v)) return false;
      const times = v.map((k) => Date.parse(k?.createdAt));
      const mine = v.find((k) => k?.id === id);
      return (
        times.every((t, i) => i === 0 || (times[i - 1] as number) >= t) &&
        mine !== undefined &&
        Date.parse(mine.createdAt) === times[0]
      );
    },
    says: `is not newest first with the new key ${String(id)} among the newest`,
    breaks: (v: unknown) =>
      Array.isArray(v)
        ? [...v.filter((k) => k?.id !== id), ...v.filter((k) => k?.id === id)].reverse().slice(1)
        : v,
  }) as const;

const listsId = (id: string) =>
  ({
    holds: (v: unknown) => Array.isArray(v) && v.some((k) => k?.id === id),
    says: `the key ${id} is not listed`,
    breaks: (v: unknown) => (Array.isArray(v) ? v.filter((k) => k?.id !== id) : v),
  }) as const;

const AUTH: Case[] = [
  {
    id: "getMe without a key",
    rule: "auth/401",
    op: "getMe",
    as: null,
    request: () => ({}),
    expect: [refused(401, UNAUTHORIZED)],
  },
  {
    id: "getMe with a key that names nobody",
    rule: "auth/401",
    op: "getMe",
    as: null,
    request: () => ({ authorization: `Bearer service_${NOBODY.replaceAll("-", "")}` }),
    expect: [refused(401, UNAUTHORIZED)],
  },
  {
    id: "listApiKeys with a key that is not Bearer",
    rule: "auth/401",
    op: "listApiKeys",
    as: null,
    request: (w) => ({ authorization: `Basic ${w.info.keys.owner ?? "service_x"}` }),
    expect: [refused(401, UNAUTHORIZED)],
  },
];

export const KEY_CASES: Case[] = [
  ...EVERYONE.map(me),
  ...EVERYONE.map(list),
  ...EVERYONE.map(create),
  ...EVERYONE.map(deleteUnknown),
  ...NAMES,
  ...DELETIONS,
  ...AUTH,
];
