/** The deliberate faults that the checks of checks/domain/api-keys.ts must each report. */

import * as checks from "../../../checks/domain/api-keys.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { casesOf, editWhen, is, on } from "../../fault-kit.ts";
import { answer, callerOf, editJson, envelope, keyOf, pathOf } from "../../harness.ts";
import { remember } from "../helpers.ts";

export const API_KEYS_FAULTS: FaultCase[] = [
  ...casesOf(checks.keySecrets, "response/schema", {
    "the creation response of an API key has no secret": editWhen(on("POST", /\/api-keys$/, 201), (b) => ({
      ...b,
      key: undefined,
    })),
  }),
  ...casesOf(checks.keySecrets, {
    "the secret `key` leaked in API key listings": async (req, next, env) => {
      const res = await next(req);
      if (is(req, "GET", /\/api-keys$/))
        return editJson(res, (b) => (Array.isArray(b) ? b.map((k) => ({ ...k, key: keyOf(req) })) : b));
      if (is(req, "POST", /\/api-keys$/) && res.status === 201) {
        const copy = res.clone();
        const body = await copy.json();
        env.memory.set("lastKey", body.key);
      }
      return res;
    },
    "API key listing oldest first": editWhen(on("GET", /\/api-keys$/), (b) =>
      Array.isArray(b) ? [...b].reverse() : b,
    ),
  }),
  ...casesOf(checks.keyAccess, {
    "a non-owner can delete an API key of another account (404 replaced by 204)": async (req, next) => {
      const res = await next(req);
      return is(req, "DELETE", /\/api-keys\//) && res.status === 404
        ? new Response(null, { status: 204, headers: res.headers })
        : res;
    },
  }),
  ...casesOf(checks.selfDelete, {
    "self-deleted key keeps working": async (req, next) =>
      is(req, "DELETE", /\/api-keys\//) ? answer(204) : next(req),
  }),
  ...casesOf(checks.identity, {
    "GET /auth/me names another user": async (req, next, env) => {
      const res = await next(req);
      const other = Object.entries(env.sim.manifest().users).find(([h]) => h !== callerOf(req, env))?.[1];
      return is(req, "GET", /\/auth\/me$/) && res.status === 200 && other
        ? editJson(res, (b) => ({ ...b, id: other.id }))
        : res;
    },
  }),
  ...casesOf(checks.selfDelete, {
    "deleting another key also retires the key that asked (a rotation locks the account out)": async (
      req,
      next,
      env,
    ) => {
      const retired = remember(env, "retired-callers", () => new Set<string>());
      const caller = keyOf(req) ?? "";
      if (retired.has(caller)) return envelope(401, "Unauthorized", pathOf(req));
      const res = await next(req);
      if (is(req, "DELETE", /\/api-keys\/c[a-z0-9]{24}$/) && res.status === 204) {
        // Only when the key deleted is not the caller's own (the self-delete is right as it is).
        const me = await next(
          new Request(req.url.replace(/\/api-keys\/.*$/, "/auth/me"), { headers: req.headers }),
        );
        if (me.status === 200) retired.add(caller);
      }
      return res;
    },
  }),
  ...casesOf(checks.keySecrets, {
    "a key's use never shows in the listing (lastUsedAt stays null)": async (req, next) => {
      const res = await next(req);
      if (!is(req, "GET", /\/api-keys$/) || res.status !== 200) return res;
      return editJson(res, (b) => {
        for (const k of b as { lastUsedAt: string | null }[]) k.lastUsedAt = null;
      });
    },
  }),
  ...casesOf(checks.keyAccess, {
    "API keys listed for an account without an active subscription": async (req, next, env) =>
      is(req, "GET", /\/api-keys$/) && callerOf(req, env) === "outsider" ? answer(200, []) : next(req),
    "an SSO-linked account can create an API key": async (req, next, env) =>
      is(req, "POST", /\/api-keys$/) && callerOf(req, env) === "sso"
        ? answer(201, {
            id: `c${"0".repeat(24)}`,
            name: null,
            key: "service_conformancefault",
            createdAt: "2026-01-01T00:00:00.000Z",
          })
        : next(req),
  }),
  ...casesOf(checks.keySecrets, "response/schema", {
    "an API key ID that is not a cuid": editWhen(on("GET", /\/api-keys$/, 200), (b) => {
      if (Array.isArray(b)) for (const k of b) k.id = `key_${k.id}`;
    }),
  }),
];
