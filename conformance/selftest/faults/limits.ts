/** The deliberate faults that the checks of checks/limits.ts must each report. */

import { LIMITS } from "../../../src/contract/limits.ts";
import * as checks from "../../checks/limits.ts";
import { schemaAt } from "../../lib/description/contract.ts";
import type { FaultCase } from "../fault-kit.ts";
import { bodyOf, casesOf, editWhen, is, on, withBody } from "../fault-kit.ts";
import { editJson, envelope, pathOf } from "../harness.ts";
import { type Json, retried } from "./helpers.ts";

export const LIMITS_FAULTS: FaultCase[] = [
  ...casesOf(checks.memberIdCount, {
    "one member ID past the limit accepted": async (req, next) => {
      if (!is(req, "POST", /\/members$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as { mindIds?: string[] } | undefined;
      if (b?.mindIds && b.mindIds.length > LIMITS.mindIdsBeforeDeduplication)
        return next(withBody(copy, { mindIds: b.mindIds.slice(0, LIMITS.mindIdsBeforeDeduplication) }));
      return next(copy);
    },
  }),
  ...casesOf(checks.subgroupCounts, {
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
  ...casesOf(checks.userInput, {
    "userInput of 2001 characters accepted": async (req, next) => {
      if (!is(req, "POST", /\/preview$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as { userInput?: string } | undefined;
      if (b?.userInput && b.userInput.trim().length > LIMITS.userInput)
        return next(withBody(copy, { ...b, userInput: b.userInput.trim().slice(0, LIMITS.userInput) }));
      return next(copy);
    },
  }),
  ...casesOf(checks.keyName, {
    "API key name of 101 characters accepted": async (req, next) => {
      if (!is(req, "POST", /\/api-keys$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as { name?: unknown } | undefined;
      if (typeof b?.name === "string" && b.name.trim().length > LIMITS.apiKeyName)
        return next(withBody(copy, { name: b.name.trim().slice(0, LIMITS.apiKeyName) }));
      return next(copy);
    },
  }),
  ...casesOf(checks.bodySizes, {
    "a body of exactly x-max-body-bytes refused with 413": async (req, next) => {
      if (Number(req.headers.get("content-length")) === LIMITS.previewBody)
        return envelope(413, "Payload Too Large", pathOf(req));
      return next(req);
    },
  }),
  ...casesOf(checks.pagination, {
    "pagination limit 0 accepted": async (req, next) => {
      const url = new URL(req.url);
      if (url.searchParams.get("limit") === "0") url.searchParams.set("limit", "1");
      return next(new Request(url, { method: req.method, headers: req.headers }));
    },
  }),
  ...casesOf(checks.filterLimits, {
    "filters of 51 values accepted": async (req, next) => {
      const url = new URL(req.url);
      const f = url.searchParams.get("filters");
      if (f?.includes('"C50"')) url.searchParams.set("filters", f.replace(',"C50"', ""));
      return next(new Request(url, { method: req.method, headers: req.headers }));
    },
  }),
  ...casesOf(checks.duplicateLimits, {
    "129-character idempotency key honoured (not ignored)": async (req, next) => {
      const key = req.headers.get("x-service-idempotency-key");
      if (!key || key.length <= LIMITS.idempotencyKey) return next(req);
      const headers = new Headers(req.headers);
      headers.set("x-service-idempotency-key", key.slice(0, LIMITS.idempotencyKey));
      return next(new Request(req.url, { method: req.method, headers, body: await req.text() }));
    },
  }),
  ...casesOf(checks.keyName, {
    "an API key listing shows another name than the creation answered": async (req, next) => {
      const res = await next(req);
      if (!is(req, "GET", /\/api-keys$/)) return res;
      return editJson(res, (rows) => {
        if (Array.isArray(rows)) for (const r of rows) if (r.name === null) r.name = "";
      });
    },
  }),
  ...casesOf(checks.duplicateLimits, {
    "a copy's name of 201 characters is cut to 200 instead of refused": async (req, next) => {
      if (!is(req, "POST", /\/duplicate$/)) return next(req);
      const { req: again, json } = await bodyOf(req);
      const name = (json as { name?: unknown } | undefined)?.name;
      return typeof name === "string" && name.length > 200
        ? next(withBody(again, { ...(json as object), name: name.slice(0, 200) }))
        : next(again);
    },
  }),
  ...casesOf(checks.bodySizes, {
    "a body over x-max-body-bytes answered 400, not 413": async (req, next) => {
      const res = await next(req);
      return res.status === 413 ? envelope(400, "Invalid input", pathOf(req)) : res;
    },
  }),
  ...casesOf(checks.subgroupCounts, {
    "a blank intent accepted": async (req, next) => {
      if (!is(req, "POST", /\/formations$/)) return next(req);
      const { req: again, json } = await bodyOf(req);
      const h = (json as { hypothesis?: { intent?: unknown } } | undefined)?.hypothesis;
      if (!h || typeof h.intent !== "string" || h.intent.trim() !== "") return next(again);
      return next(withBody(again, { ...(json as object), hypothesis: { ...h, intent: "Split" } }));
    },
  }),
  ...casesOf(checks.keyName, {
    "a blank API key name stored as an empty string, not null": editWhen(
      on("POST", /\/api-keys$/, 201),
      (b) => {
        if (b?.name === null) b.name = "";
      },
    ),
  }),
  ...casesOf(checks.filterLimits, {
    "filters naming an attribute the contract does not list accepted": async (req, next) => {
      const url = new URL(req.url);
      const filters = url.searchParams.get("filters");
      if (req.method !== "GET" || !/\/filter-attributes$/.test(url.pathname) || !filters) return next(req);
      const res = await next(req);
      if (res.status !== 400) return res;
      try {
        const known = schemaAt("#/components/schemas/FilterAttributeKey").enum as string[];
        const parsed = JSON.parse(filters) as Json;
        const kept = Object.fromEntries(Object.entries(parsed).filter(([k]) => known.includes(k)));
        if (Object.keys(kept).length === Object.keys(parsed).length) return res;
        url.searchParams.set("filters", JSON.stringify(kept));
        return next(new Request(url, { headers: req.headers }));
      } catch {
        return res;
      }
    },
  }),
  ...casesOf(checks.subgroupCounts, {
    "two subgroups with the same id accepted": retried(
      "POST",
      /\/formations$/,
      (status, j) => {
        const ids =
          ((j.hypothesis as Json | undefined)?.subgroups as Json[] | undefined)?.map((x) => x.id) ?? [];
        return status === 400 && new Set(ids).size < ids.length;
      },
      (j) => {
        const h = j.hypothesis as { subgroups: Json[] };
        return {
          ...j,
          hypothesis: { ...h, subgroups: h.subgroups.map((x, i) => ({ ...x, id: `${x.id}-${i}` })) },
        };
      },
    ),
    "sixteen subgroups accepted": retried(
      "POST",
      /\/formations$/,
      (status, j) =>
        status === 400 &&
        ((j.hypothesis as Json | undefined)?.subgroups as unknown[] | undefined)?.length === 16,
      (j) => {
        const h = j.hypothesis as { subgroups: Json[] };
        return { ...j, hypothesis: { ...h, subgroups: h.subgroups.slice(0, 15) } };
      },
    ),
  }),
];
