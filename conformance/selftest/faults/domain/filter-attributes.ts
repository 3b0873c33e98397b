/** The deliberate faults that the checks of checks/domain/filter-attributes.ts must each report. */

import { LIMITS } from "../../../../src/contract/limits.ts";
import * as checks from "../../../checks/domain/filter-attributes.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { casesOf, editWhen, is, on } from "../../fault-kit.ts";
import { editJson, keyOf } from "../../harness.ts";
import { as } from "../helpers.ts";

const regions = new Intl.DisplayNames(["en"], { type: "region" });

export const FILTER_ATTRIBUTES_FAULTS: FaultCase[] = [
  ...casesOf(checks.facets, {
    "facet counts off by one": async (req, next) => {
      const res = await next(req);
      if (!is(req, "GET", /\/filter-attributes$/) || !new URL(req.url).searchParams.has("filters"))
        return res;
      return editJson(res, (b) => {
        for (const f of b.data.facets) for (const v of f.values) v.count += 1;
      });
    },
    "filter mindIds not sorted": editWhen(on("GET", /\/filter-attributes$/), (b) => {
      b?.data?.mindIds?.reverse();
    }),
  }),
  ...casesOf(checks.largeAudience, {
    "filter attributes of an Audience over the Minds read per request not marked truncated": editWhen(
      on("GET", /\/filter-attributes$/),
      (b) => {
        if (b?.data && b.data.totalMinds > LIMITS.mindsRead) b.data.truncated = false;
      },
    ),
  }),
  ...casesOf(checks.facets, {
    "facets ignore the selection: every facet counts the whole Audience": async (req, next) => {
      const url = new URL(req.url);
      if (!is(req, "GET", /\/filter-attributes$/) || !url.searchParams.has("filters")) return next(req);
      const all = new URL(url);
      all.searchParams.delete("filters");
      const whole = await (await next(new Request(all, { headers: req.headers }))).json();
      return editJson(await next(req), (b) => {
        if (b?.data && whole?.data?.facets) b.data.facets = whole.data.facets;
      });
    },
    // The facet of a selected attribute counted over the whole selection, its own included: only the
    // selected values keep a count, so a client cannot show what widening the selection would add.
    "a selected attribute's facet counts the whole selection, not every other attribute's": async (
      req,
      next,
    ) => {
      const url = new URL(req.url);
      const raw = url.searchParams.get("filters");
      if (!is(req, "GET", /\/filter-attributes$/) || !raw) return next(req);
      let f: Record<string, unknown>;
      try {
        f = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return next(req);
      }
      return editJson(await next(req), (b) => {
        for (const facet of b?.data?.facets ?? []) {
          const sel = f[facet.key];
          if (sel === undefined) continue;
          facet.values = Array.isArray(sel)
            ? facet.values.filter((v: { value: string }) => sel.includes(v.value))
            : [];
          if (sel !== null) facet.unknownCount = 0;
        }
      });
    },
    "a null filter value selects the Minds with any value instead of those with none": async (req, next) => {
      const url = new URL(req.url);
      const raw = url.searchParams.get("filters");
      let f: Record<string, unknown>;
      try {
        f = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      } catch {
        return next(req);
      }
      const nulls = Object.keys(f).filter((k) => f[k] === null);
      if (nulls.length === 0) return next(req);
      const without = Object.fromEntries(Object.entries(f).filter(([, v]) => v !== null));
      const all = new URL(url);
      all.searchParams.set("filters", JSON.stringify(without));
      const key = keyOf(req) ?? "";
      const everyone = await (await next(as(new Request(all, { headers: req.headers }), key))).json();
      const res = await next(req);
      return editJson(res, (b) => {
        const none = new Set<string>(b.data.mindIds);
        b.data.mindIds = (everyone.data.mindIds as string[]).filter((id) => !none.has(id));
        b.data.matchCount = b.data.mindIds.length;
      });
    },
    "a null filter value is ignored (selects every Mind)": async (req, next) => {
      const url = new URL(req.url);
      const raw = url.searchParams.get("filters");
      if (!raw) return next(req);
      try {
        const f = JSON.parse(raw) as Record<string, unknown>;
        for (const k of Object.keys(f)) if (f[k] === null) delete f[k];
        url.searchParams.set("filters", JSON.stringify(f));
      } catch {
        return next(req);
      }
      return next(as(new Request(url, { method: req.method, headers: req.headers }), keyOf(req) ?? ""));
    },
  }),
  ...casesOf(checks.facets, {
    "country facet values given as country names, not ISO codes": editWhen(
      on("GET", /\/filter-attributes$/, 200),
      (b) => {
        for (const f of b?.data?.facets ?? [])
          if (f.key === "country") for (const v of f.values) v.value = regions.of(v.value) ?? v.value;
      },
    ),
  }),
];
