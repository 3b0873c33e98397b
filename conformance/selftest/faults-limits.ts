/**
 * Faults against the limit checks.
 */

import {
  bodySizes,
  duplicateLimits,
  filterLimits,
  keyName,
  memberIdCount,
  pagination,
  subgroupCounts,
  userInput,
} from "../checks/limits.ts";
import { pendingRecalibrations } from "../checks/recalibrate.ts";
import { bodyOf, casesOf, type FaultCase, is, withBody } from "./fault-kit.ts";
import { editJson, envelope, pathOf, withStatus } from "./harness.ts";

export const LIMITS_FAULTS: FaultCase[] = [
  ...casesOf(pendingRecalibrations, {
    "an eleventh pending recalibration accepted": async (req, next) => {
      const res = await next(req);
      if (res.status !== 409 || !is(req, "POST", /\/recalibrate$/)) return res;
      return editJson(withStatus(res, 202), () => ({
        data: {
          operation: {
            id: "op-fake",
            requestKey: "rk",
            status: "queued",
            progress: 0,
            statusUrl: "/x",
            result: null,
            error: null,
          },
        },
      }));
    },
  }),
  ...casesOf(memberIdCount, {
    "1001 member IDs accepted": async (req, next) => {
      if (!is(req, "POST", /\/members$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as { mindIds?: string[] } | undefined;
      if (b?.mindIds && b.mindIds.length > 1000)
        return next(withBody(copy, { mindIds: b.mindIds.slice(0, 1000) }));
      return next(copy);
    },
  }),
  ...casesOf(subgroupCounts, {
    "reserved subgroup id accepted": async (req, next) => {
      if (!is(req, "POST", /\/formations$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const h = (json as { hypothesis?: { subgroups?: { id: string }[] } })?.hypothesis;
      if (h?.subgroups?.some((s) => s.id === "__other")) {
        for (const s of h.subgroups) if (s.id === "__other") s.id = "other-renamed";
        return next(withBody(copy, json));
      }
      return next(copy);
    },
  }),
  ...casesOf(userInput, {
    "userInput of 2001 characters accepted": async (req, next) => {
      if (!is(req, "POST", /\/preview$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as { userInput?: string } | undefined;
      if (b?.userInput && b.userInput.trim().length > 2000)
        return next(withBody(copy, { ...b, userInput: b.userInput.trim().slice(0, 2000) }));
      return next(copy);
    },
  }),
  ...casesOf(keyName, {
    "API key name of 101 characters accepted": async (req, next) => {
      if (!is(req, "POST", /\/api-keys$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as { name?: unknown } | undefined;
      if (typeof b?.name === "string" && b.name.trim().length > 100)
        return next(withBody(copy, { name: b.name.trim().slice(0, 100) }));
      return next(copy);
    },
  }),
  ...casesOf(bodySizes, {
    "a body of exactly 64 KiB refused with 413": async (req, next) => {
      if (Number(req.headers.get("content-length")) === 65536)
        return envelope(413, "Payload Too Large", pathOf(req));
      return next(req);
    },
  }),
  ...casesOf(pagination, {
    "pagination limit 0 accepted": async (req, next) => {
      const url = new URL(req.url);
      if (url.searchParams.get("limit") === "0") url.searchParams.set("limit", "1");
      return next(new Request(url, { method: req.method, headers: req.headers }));
    },
  }),
  ...casesOf(filterLimits, {
    "filters of 51 values accepted": async (req, next) => {
      const url = new URL(req.url);
      const f = url.searchParams.get("filters");
      if (f?.includes('"C50"')) url.searchParams.set("filters", f.replace(',"C50"', ""));
      return next(new Request(url, { method: req.method, headers: req.headers }));
    },
  }),
  ...casesOf(duplicateLimits, {
    "129-character idempotency key honoured (not ignored)": async (req, next) => {
      const key = req.headers.get("x-service-idempotency-key");
      if (!key || key.length <= 128) return next(req);
      const headers = new Headers(req.headers);
      headers.set("x-service-idempotency-key", key.slice(0, 128));
      return next(new Request(req.url, { method: req.method, headers, body: await req.text() }));
    },
  }),
];
