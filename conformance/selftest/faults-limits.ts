/**
 * Faults against the limit checks.
 */

import { LIMITS } from "../../src/contract/limits.ts";
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
    "one member ID past the limit accepted": async (req, next) => {
      if (!is(req, "POST", /\/members$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as { mindIds?: string[] } | undefined;
      if (b?.mindIds && b.mindIds.length > LIMITS.mindIdsBeforeDeduplication)
        return next(withBody(copy, { mindIds: b.mindIds.slice(0, LIMITS.mindIdsBeforeDeduplication) }));
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
      if (b?.userInput && b.userInput.trim().length > LIMITS.userInput)
        return next(withBody(copy, { ...b, userInput: b.userInput.trim().slice(0, LIMITS.userInput) }));
      return next(copy);
    },
  }),
  ...casesOf(keyName, {
    "API key name of 101 characters accepted": async (req, next) => {
      if (!is(req, "POST", /\/api-keys$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as { name?: unknown } | undefined;
      if (typeof b?.name === "string" && b.name.trim().length > LIMITS.apiKeyName)
        return next(withBody(copy, { name: b.name.trim().slice(0, LIMITS.apiKeyName) }));
      return next(copy);
    },
  }),
  ...casesOf(bodySizes, {
    "a body of exactly x-max-body-bytes refused with 413": async (req, next) => {
      if (Number(req.headers.get("content-length")) === LIMITS.previewBody)
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
      if (!key || key.length <= LIMITS.idempotencyKey) return next(req);
      const headers = new Headers(req.headers);
      headers.set("x-service-idempotency-key", key.slice(0, LIMITS.idempotencyKey));
      return next(new Request(req.url, { method: req.method, headers, body: await req.text() }));
    },
  }),
];
