/** The deliberate faults that the checks of checks/ratelimit.ts must each report. */

import * as checks from "../../checks/ratelimit.ts";
import type { FaultCase } from "../fault-kit.ts";
import { casesOf } from "../fault-kit.ts";
import { callerOf, keyOf, withHeaders } from "../harness.ts";
import { remember } from "./helpers.ts";

export const RATELIMIT_FAULTS: FaultCase[] = [
  ...casesOf(checks.rateLimit, {
    "Retry-After missing on 429": async (req, next) => {
      const res = await next(req);
      return res.status === 429 ? withHeaders(res, (h) => h.delete("retry-after")) : res;
    },
    "no 429 at all (the limiter never refuses)": async (req, next) => {
      const res = await next(req);
      if (res.status !== 429) return res;
      return new Response(JSON.stringify({ id: "someone" }), {
        status: 200,
        headers: { "content-type": "application/json", "ratelimit-limit": "5", "ratelimit-remaining": "0" },
      });
    },
  }),
  ...casesOf(checks.rateLimit, {
    "RateLimit-Remaining counts every account's requests": async (req, next, env) => {
      const used = remember(env, "used", () => new Map<string, number>());
      const res = await next(req);
      const limit = Number(res.headers.get("ratelimit-limit"));
      const left = Number(res.headers.get("ratelimit-remaining"));
      if (!Number.isFinite(limit) || !Number.isFinite(left) || res.status === 429) return res;
      used.set(keyOf(req) ?? "", limit - left);
      const all = [...used.values()].reduce((a, b) => a + b, 0);
      return withHeaders(res, (h) => h.set("ratelimit-remaining", String(Math.max(0, limit - all))));
    },
    "Retry-After: 0 on a 429 (retry at once, and be refused again)": async (req, next) => {
      const res = await next(req);
      return res.status === 429 ? withHeaders(res, (h) => h.set("retry-after", "0")) : res;
    },
    "RateLimit-Remaining one too high on every served request": async (req, next) => {
      const res = await next(req);
      const left = Number(res.headers.get("ratelimit-remaining"));
      if (res.status === 429 || !Number.isFinite(left)) return res;
      return withHeaders(res, (h) => h.set("ratelimit-remaining", String(left + 1)));
    },
    "RateLimit-Remaining rises within a window (every third request shows more left)": async (
      req,
      next,
      env,
    ) => {
      const res = await next(req);
      const left = Number(res.headers.get("ratelimit-remaining"));
      const limit = Number(res.headers.get("ratelimit-limit"));
      const n = remember(env, "served", () => ({ count: 0 }));
      if (res.status === 429 || !Number.isFinite(left) || ++n.count % 3 !== 0 || left + 2 >= limit - 1)
        return res;
      return withHeaders(res, (h) => h.set("ratelimit-remaining", String(left + 2)));
    },
    "every key counts a window of its own (an account's other keys do not spend it)": async (
      req,
      next,
      env,
    ) => {
      // The simulator counts the account; this server counts each key, and lets a key through (and says
      // what it has left) by its own count, whatever the account spent.
      const counts = remember(env, "perKey", () => new Map<string, { window: number; n: number }>());
      const res = await next(req);
      const limit = Number(res.headers.get("ratelimit-limit"));
      if (!Number.isFinite(limit)) return res;
      const window = Math.floor(env.sim.clock.now() / 60_000);
      const key = keyOf(req) ?? "";
      const c = counts.get(key);
      const n = c && c.window === window ? c.n + 1 : 1;
      counts.set(key, { window, n });
      if (n > limit) return res;
      const headers = { "ratelimit-limit": String(limit), "ratelimit-remaining": String(limit - n) };
      if (res.status !== 429)
        return withHeaders(res, (h) => h.set("ratelimit-remaining", headers["ratelimit-remaining"]));
      const who = callerOf(req, env) ?? "member";
      return new Response(JSON.stringify({ id: env.sim.manifest().users[who]?.id }), {
        status: 200,
        headers: { "content-type": "application/json", ...headers },
      });
    },
    "the rate-limit budget is per key, not per account": async (req, next, env) => {
      // Every key spends its own budget: a second key of a refused account is let through.
      const refused = remember(env, "refusedKeys", () => new Set<string>());
      const res = await next(req);
      const key = keyOf(req) ?? "";
      if (res.status !== 429) return res;
      if (refused.size === 0 || refused.has(key)) {
        refused.add(key);
        return res;
      }
      return new Response(JSON.stringify({ id: env.sim.manifest().users.member?.id }), {
        status: 200,
        headers: { "content-type": "application/json", "ratelimit-limit": "5", "ratelimit-remaining": "4" },
      });
    },
  }),
];
