/**
 * Filter attributes, case by case: read by every account (404 where it may not see), every matching Mind
 * counted in every facet, at most 200 values a facet, truncation past what one request reads; the filters'
 * refusals and bounds; `null` selecting the Minds without a value; a selected attribute's facet counted over
 * the other attributes' selections only.
 */
import type { Role } from "../lib/http/target.ts";
import type { CheckContext } from "../lib/running/context.ts";
import {
  type Answer,
  both,
  type Case,
  type CaseWorld,
  is,
  NOBODY,
  ok,
  onAud,
  ownerOn,
  refused,
} from "./case.ts";
import { EVERYONE } from "./cast.ts";
import { refusedStep } from "./given.ts";
import { viewerRead } from "./viewers.ts";

// ---- filter attributes ----

const sortedIds = {
  holds: (v: unknown) => Array.isArray(v) && v.every((id, i) => i === 0 || String(v[i - 1]) < String(id)),
  says: "are not sorted by ID, each once",
  breaks: (v: unknown) =>
    Array.isArray(v) && v.length ? [...v].reverse().concat(v.slice(0, 1)) : [NOBODY, NOBODY],
} as const;

const countsIds = {
  holds: (v: unknown, body: unknown) => {
    const d = (body as { data?: { mindIds?: unknown[]; truncated?: boolean } })?.data;
    return d?.truncated === true || v === d?.mindIds?.length;
  },
  says: "is not the number of mindIds",
  breaks: (v: unknown) => (typeof v === "number" ? v + 1 : 1),
} as const;

const facetsBounded = {
  holds: (v: unknown) =>
    Array.isArray(v) && v.every((f) => Array.isArray(f?.values) && f.values.length <= 200),
  says: "has a facet with more than 200 values",
  breaks: (v: unknown) =>
    Array.isArray(v) && v[0]
      ? [
          { ...v[0], values: Array.from({ length: 201 }, (_, i) => ({ value: `v${i}`, count: 1 })) },
          ...v.slice(1),
        ]
      : v,
} as const;

/** Every matching Mind has a value of an attribute or counts as unknown: no facet is cut short of them. */
const facetsCover = {
  holds: (v: unknown, body: unknown) => {
    const d = (body as { data?: { matchCount?: number; truncated?: boolean } })?.data;
    if (!Array.isArray(v) || d?.truncated) return Array.isArray(v);
    return v.every(
      (f) =>
        (f?.values?.length ?? 0) >= 200 ||
        (f.values as { count: number }[]).reduce((n, x) => n + x.count, 0) + (f.unknownCount ?? 0) >=
          (d?.matchCount ?? 0),
    );
  },
  says: "has a facet (under 200 values) whose values and unknowns count fewer Minds than match",
  breaks: (v: unknown) =>
    Array.isArray(v) ? v.map((f) => ({ ...f, values: (f?.values ?? []).slice(0, 1), unknownCount: 0 })) : v,
} as const;

const filters = (role: Role, handle: string): Case =>
  viewerRead({
    op: "getFilterAttributes",
    role,
    handle,
    rule: "filters/selection",
    seen: "read",
    answer: [
      ok(200, {
        "data.mindIds": sortedIds,
        "data.matchCount": countsIds,
        "data.truncated": is(false),
        "data.facets": both(facetsBounded, facetsCover),
      }),
    ],
  });

function badFilters(what: string, value: string): Case {
  return {
    id: `getFilterAttributes owner on main: ${what}`,
    rule: "filters/limits",
    op: "getFilterAttributes",
    as: "owner",
    request: onAud("main", { query: { filters: value } }),
    expect: [refused(400)],
  };
}

export const FILTER_CASES: Case[] = [
  ...EVERYONE.flatMap((r) => ["main", "private", "public", "soloAudience"].map((h) => filters(r, h))),
  {
    id: "getFilterAttributes outsider on large: more Minds than one request reads, truncated",
    rule: "filters/truncation",
    op: "getFilterAttributes",
    as: "outsider",
    request: onAud("large"),
    expect: [ok(200, { "data.truncated": is(true), "data.facets": facetsBounded })],
  },
  badFilters("filters that are not JSON", "{country:"),
  badFilters("an unknown attribute", JSON.stringify({ shoeSize: ["42"] })),
  badFilters("values that are not a list", JSON.stringify({ country: "DE" })),
  badFilters("a value that is not a string", JSON.stringify({ country: [49] })),
  badFilters(
    "51 values of one attribute",
    JSON.stringify({ industry: Array.from({ length: 51 }, (_, i) => `i${i}`) }),
  ),
  badFilters("a list, not an object", JSON.stringify([{ country: ["DE"] }])),
  {
    id: "getFilterAttributes owner on main: 50 values of one attribute",
    rule: "filters/limits",
    op: "getFilterAttributes",
    as: "owner",
    request: onAud("main", {
      query: { filters: JSON.stringify({ industry: Array.from({ length: 50 }, (_, i) => `i${i}`) }) },
    }),
    expect: [ok(200, { "data.matchCount": countsIds })],
  },
  // With the first attribute that has a value in the unfiltered facets, and that value (facetsFirst).
  selecting("null selects the Minds without a value", null, (w) => [
    ok(200, { "data.matchCount": is(w.made.unknown) }),
  ]),
  selecting(
    "one selected value; its facet still counts every value",
    (w) => [w.made.value],
    (w) => [
      ok(200, {
        "data.matchCount": is(w.made.count),
        "data.facets": facetIs(w.made.key as string, w.made.facet),
      }),
    ],
  ),
];

/** The owner filtering main by the first attribute of its facets, selecting `values` (from the world). */
function selecting(
  what: string,
  values: null | ((w: CaseWorld) => unknown[]),
  expect: (w: CaseWorld) => Answer[],
): Case {
  return ownerOn("main", "getFilterAttributes", "filters/selection", what, {
    given: facetsFirst,
    mutates: false,
    request: onAud("main", (w) => ({
      query: { filters: JSON.stringify({ [w.made.key as string]: values === null ? null : values(w) }) },
    })),
    expect,
  });
}

/** The unfiltered facets of main: the first attribute with a value, its first value and counts. */
async function facetsFirst(
  ctx: CheckContext,
  w: CaseWorld,
): Promise<{ made: Record<string, unknown> } | { unmade: string }> {
  const ex = await ctx.call({
    op: "getFilterAttributes",
    params: { audienceId: w.aud("main") },
    as: ctx.as("owner"),
  });
  if (ex.status !== 200) return refusedStep(ex, 200, "owner reading main's filter attributes");
  const facet = (ex.body?.data?.facets ?? []).find(
    (f: { values?: unknown[] }) => (f.values?.length ?? 0) > 0,
  );
  if (!facet) return { unmade: "main has no filter attribute with a value" };
  return {
    made: {
      key: facet.key,
      value: facet.values[0].value,
      count: facet.values[0].count,
      unknown: facet.unknownCount,
      facet,
    },
  };
}

const facetIs = (key: string, facet: unknown) =>
  ({
    holds: (v: unknown) =>
      Array.isArray(v) && JSON.stringify(v.find((f) => f?.key === key)) === JSON.stringify(facet),
    says: `has another ${key} facet than with no selection (a selected attribute's facet counts the others' selections only)`,
    breaks: (v: unknown) =>
      Array.isArray(v) ? v.map((f) => (f?.key === key ? { ...f, values: f.values.slice(0, 1) } : f)) : v,
  }) as const;
