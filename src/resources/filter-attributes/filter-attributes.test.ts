import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../../../testing/harness.ts";
import { expectAudienceIdErrors, expectError, harness, VIEWS } from "../../../testing/harness.ts";
import type { FilterAttributeKey, FilterAttributes } from "../../generators/index.ts";
import { FILTER_ATTRIBUTE_KEYS } from "../../generators/index.ts";
import {
  buildFilterIndex,
  type FilterAttributesView,
  type FilterSelection,
  type IndexedMind,
  MAX_FACET_VALUES,
  MAX_MINDS_READ,
  MAX_VALUES_PER_ATTRIBUTE,
  queryFilterIndex,
} from "./filter-attributes.ts";

// Reads change nothing, so one simulator serves the whole file.
let h: Harness;
beforeAll(async () => {
  h = await harness({ rateLimitPerMinute: 1_000_000 });
});

type Selection = Partial<Record<FilterAttributeKey, string[] | null>>;

interface Facet {
  key: FilterAttributeKey;
  values: { value: string; count: number }[];
  unknownCount: number;
}
interface FilterAnswer {
  totalMinds: number;
  attributedMinds: number;
  matchCount: number;
  mindIds: string[];
  truncated: boolean;
  facets: Facet[];
}

const path = (handle: string, filters?: unknown) =>
  `/api/v1/audiences/${h.id("audiences", handle)}/filter-attributes${
    filters === undefined
      ? ""
      : `?filters=${encodeURIComponent(typeof filters === "string" ? filters : JSON.stringify(filters))}`
  }`;

async function read(handle: string, filters?: unknown, as = "owner"): Promise<FilterAnswer> {
  const r = await h.call("GET", path(handle, filters), { as });
  expect(r.status).toBe(200);
  return r.body.data as FilterAnswer;
}

/** The Minds one request reads: the first 5000 members, in member order. */
function readMinds(handle: string) {
  const a = h.audience(handle);
  return (a?.memberIds ?? []).slice(0, MAX_MINDS_READ).flatMap((id) => h.sim.state.minds.get(id) ?? []);
}

const valueIn = (m: { attributes: Partial<Record<string, string>> }, k: string) =>
  m.attributes[k] || undefined;

/** The rules of the description, computed the slow and obvious way. */
function bruteForce(handle: string, selection: Selection): FilterAnswer {
  const minds = readMinds(handle);
  const total = h.audience(handle)?.memberIds.length ?? 0;
  const active = Object.entries(selection).filter(([, v]) => v === null || (v as string[]).length > 0) as [
    FilterAttributeKey,
    string[] | null,
  ][];
  const passes = (m: (typeof minds)[number], except: FilterAttributeKey | null) =>
    active.every(([k, values]) => {
      if (k === except) return true;
      const v = valueIn(m, k);
      return values === null ? v === undefined : v !== undefined && values.includes(v);
    });
  const matching = minds.filter((m) => passes(m, null));
  return {
    totalMinds: total,
    attributedMinds: minds.filter((m) => FILTER_ATTRIBUTE_KEYS.some((k) => valueIn(m, k) !== undefined))
      .length,
    matchCount: matching.length,
    mindIds: matching.map((m) => m.id).sort(),
    truncated: total > MAX_MINDS_READ,
    facets: FILTER_ATTRIBUTE_KEYS.map((key) => {
      const counted = minds.filter((m) => passes(m, key));
      const counts = new Map<string, number>();
      for (const m of counted) {
        const v = valueIn(m, key);
        if (v !== undefined) counts.set(v, (counts.get(v) ?? 0) + 1);
      }
      return {
        key,
        values: [...counts]
          .map(([value, count]) => ({ value, count }))
          .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
          .slice(0, MAX_FACET_VALUES),
        unknownCount: counted.filter((m) => valueIn(m, key) === undefined).length,
      };
    }),
  };
}

/** Random selections over the values the Audience's Minds really have, plus one nobody has. */
function selections(handle: string): fc.Arbitrary<Selection> {
  const observed = new Map<FilterAttributeKey, string[]>();
  for (const k of FILTER_ATTRIBUTE_KEYS) {
    const values = new Set(readMinds(handle).flatMap((m) => valueIn(m, k) ?? []));
    observed.set(k, [...values, "No such value"]);
  }
  const entry = (k: FilterAttributeKey) =>
    fc.oneof(
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 4, arbitrary: fc.subarray(observed.get(k) ?? [], { minLength: 0, maxLength: 6 }) },
    );
  return fc.record(Object.fromEntries(FILTER_ATTRIBUTE_KEYS.map((k) => [k, entry(k)])), {
    requiredKeys: [],
  }) as fc.Arbitrary<Selection>;
}

describe("GET /audiences/{audienceId}/filter-attributes", () => {
  it("without filters: every member read matches, with all seven facets in the description's order", async () => {
    const d = await read("main");
    const members = h.audience("main")?.memberIds ?? [];
    expect(d.totalMinds).toBe(members.length);
    expect(d.matchCount).toBe(members.length);
    expect(d.mindIds).toEqual([...members].sort());
    expect(d.truncated).toBe(false);
    expect(d.attributedMinds).toBeGreaterThan(0);
    expect(d.facets.map((f) => f.key)).toEqual([...FILTER_ATTRIBUTE_KEYS]);
    for (const f of d.facets) {
      const sum = f.values.reduce((n, v) => n + v.count, 0);
      expect(sum + f.unknownCount).toBe(members.length);
      const order = [...f.values].sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
      expect(f.values).toEqual(order);
    }
    // main's generated members miss some values: the facets must say so.
    expect(d.facets.some((f) => f.unknownCount > 0)).toBe(true);
    expect(d).toEqual(bruteForce("main", {}));
  });

  it("ORs the values of one attribute and ANDs attributes", async () => {
    const all = await read("main");
    const [c1, c2] = all.facets.find((f) => f.key === "country")?.values ?? [];
    const [i1] = all.facets.find((f) => f.key === "industry")?.values ?? [];
    if (!c1 || !c2 || !i1) throw new Error("main has too few values");
    const either = await read("main", { country: [c1.value, c2.value] });
    expect(either.matchCount).toBe(c1.count + c2.count);
    const both = await read("main", { country: [c1.value, c2.value], industry: [i1.value] });
    const minds = readMinds("main");
    for (const id of both.mindIds) {
      const m = minds.find((x) => x.id === id);
      expect([c1.value, c2.value]).toContain(m?.attributes.country);
      expect(m?.attributes.industry).toBe(i1.value);
    }
    expect(both.matchCount).toBeLessThanOrEqual(either.matchCount);
  });

  it("selects Minds without a value with null", async () => {
    const d = await read("main", { industry: null });
    const minds = readMinds("main");
    expect(d.matchCount).toBe(minds.filter((m) => !m.attributes.industry).length);
    expect(d.matchCount).toBeGreaterThan(0);
    const industry = d.facets.find((f) => f.key === "industry");
    // The facet of a selected attribute ignores its own selection.
    expect(industry?.values.length).toBeGreaterThan(0);
  });

  it("counts each facet over the Minds that match every other attribute's selection (random selections)", async () => {
    await fc.assert(
      fc.asyncProperty(selections("main"), async (selection) => {
        expect(await read("main", selection)).toEqual(bruteForce("main", selection));
      }),
      { numRuns: 60 },
    );
  });

  it("holds on the 5200-member Audience too, reading only the first 5000 members", async () => {
    await fc.assert(
      fc.asyncProperty(selections("large"), async (selection) => {
        expect(await read("large", selection)).toEqual(bruteForce("large", selection));
      }),
      { numRuns: 6 },
    );
  });

  it("reports truncated for an Audience over 5000 members; totalMinds still counts every member", async () => {
    const d = await read("large");
    expect(d).toMatchObject({ totalMinds: 5200, matchCount: MAX_MINDS_READ, truncated: true });
    const country = d.facets.find((f) => f.key === "country");
    expect((country?.values ?? []).reduce((n, v) => n + v.count, 0) + (country?.unknownCount ?? 0)).toBe(
      5000,
    );
  });

  it("answers an Audience without members with zeros", async () => {
    expect(await read("empty")).toEqual({
      totalMinds: 0,
      attributedMinds: 0,
      matchCount: 0,
      mindIds: [],
      truncated: false,
      facets: FILTER_ATTRIBUTE_KEYS.map((key) => ({ key, values: [], unknownCount: 0 })),
    });
  });

  it("treats an empty selection array and an empty filters value as no condition", async () => {
    const all = await read("main");
    expect(await read("main", { country: [] })).toEqual(all);
    expect(await read("main", "")).toEqual(all);
    expect(await read("main", {})).toEqual(all);
  });

  it.each(VIEWS)("is readable by %s on %s", async (who, aud) => {
    const r = await h.call("GET", path(aud), { as: who });
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toContain("no-store");
  });

  it.each([
    ["outsider", "main"],
    ["solo", "private"],
    ["publisher", "main"],
  ])("answers 404 Audience not found to %s on %s", async (who, aud) => {
    const r = await h.call("GET", path(aud, { country: ["DE"] }), { as: who });
    expectError(r, 404, "Audience not found");
  });

  it("answers 404 for a missing Audience and 400 for a malformed ID", async () => {
    await expectAudienceIdErrors(h, (id) => `/api/v1/audiences/${id}/filter-attributes`);
  });

  it.each([
    ["not JSON", "{country:", /not valid JSON/],
    ["a JSON array", "[]", /JSON object/],
    ["a JSON string", '"DE"', /JSON object/],
    ["JSON null", "null", /JSON object/],
    ["an unknown attribute", { colour: ["red"] }, /Unknown filter attribute "colour"/],
    ["a prototype key", '{"__proto__":["x"]}', /Unknown filter attribute/],
    ["a string value", { country: "DE" }, /country must be an array of strings or null/],
    ["an object value", { country: { DE: true } }, /country must be an array/],
    ["a number in the values", { country: ["DE", 7] }, /Values of country must be strings/],
    ["null in the values", { country: [null] }, /Values of country must be strings/],
    [
      "more than 50 values",
      { country: Array.from({ length: MAX_VALUES_PER_ATTRIBUTE + 1 }, (_, i) => `C${i}`) },
      /at most 50 values/,
    ],
  ])("answers 400 Invalid filters for %s, with a reason", async (_n, filters, reason) => {
    const r = await h.call("GET", path("main", filters));
    expectError(r, 400, "Invalid filters");
    expect(r.body.data.reason).toMatch(reason);
  });

  it("answers from the members as they are after a write, not as the last read saw them", async () => {
    const members = `/api/v1/audiences/${h.id("audiences", "main")}/members`;
    const mindId = h.id("minds", "ownLoose");
    const before = await read("main");
    expect((await h.call("POST", members, { body: { mindId } })).status).toBeLessThan(300);
    const after = await read("main");
    expect((await h.call("DELETE", `${members}/${mindId}`)).status).toBeLessThan(300);
    expect(after.totalMinds).toBe(before.totalMinds + 1);
    expect(after.mindIds).toContain(mindId);
    expect(await read("main")).toEqual(before);
  });

  it("accepts 50 values for one attribute", async () => {
    const values = Array.from({ length: MAX_VALUES_PER_ATTRIBUTE }, (_, i) => `C${i}`);
    const d = await read("main", { country: values });
    expect(d.matchCount).toBe(0);
  });

  it("accepts filters of exactly 8192 characters and refuses 8193", async () => {
    const of = (n: number) => JSON.stringify({ country: ["x".repeat(n - '{"country":[""]}'.length)] });
    expect(of(8192)).toHaveLength(8192);
    expect((await h.call("GET", path("main", of(8192)))).status).toBe(200);
    const r = await h.call("GET", path("main", of(8193)));
    expectError(r, 400, "Invalid filters");
    expect(r.body.data.reason).toContain("8192");
  });
});

/**
 * The one-pass computation the index replaced, kept as the reference: a Mind that fails no selected
 * attribute counts in every facet and matches, one that fails exactly one counts in that facet only.
 */
function reference(
  minds: ReadonlyMap<string, IndexedMind>,
  memberIds: readonly string[],
  selection: FilterSelection,
  limit: number,
  maxFacetValues: number,
): FilterAttributesView {
  const keys = [...FILTER_ATTRIBUTE_KEYS];
  const valueAt = (a: FilterAttributes, f: number): string | undefined => {
    const v: unknown = a[keys[f] as FilterAttributeKey];
    return typeof v === "string" && v !== "" ? v : undefined;
  };
  const selected = [...selection].map(([key, accepts]) => ({ facet: keys.indexOf(key), accepts }));
  const counts = keys.map(() => new Map<string, number>());
  const unknown = keys.map(() => 0);
  const tally = (a: FilterAttributes, f: number) => {
    const v = valueAt(a, f);
    if (v === undefined) unknown[f] = (unknown[f] as number) + 1;
    else counts[f]?.set(v, (counts[f]?.get(v) ?? 0) + 1);
  };
  const matched: string[] = [];
  let attributed = 0;
  for (const id of memberIds.slice(0, limit)) {
    const m = minds.get(id);
    if (!m) continue;
    if (keys.some((k) => m.attributes[k])) attributed++;
    const failed = selected.filter(({ facet, accepts }) => {
      const v = valueAt(m.attributes, facet);
      return accepts === null ? v !== undefined : v === undefined || !accepts.has(v);
    });
    if (failed.length === 0) {
      matched.push(m.id);
      for (let f = 0; f < keys.length; f++) tally(m.attributes, f);
    } else if (failed.length === 1) tally(m.attributes, failed[0]?.facet as number);
  }
  matched.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    totalMinds: memberIds.length,
    attributedMinds: attributed,
    matchCount: matched.length,
    mindIds: matched,
    truncated: memberIds.length > limit,
    facets: keys.map((key, f) => ({
      key,
      values: [...(counts[f] as Map<string, number>)]
        .map(([value, count]) => ({ value, count }))
        .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
        .slice(0, maxFacetValues),
      unknownCount: unknown[f] as number,
    })),
  };
}

// Code units that order differently from code points or locales ("\uffff" sorts after the surrogates of
// "😀"), empty strings, and raw values that are no strings, which a restored state could hold.
const unit = fc.constantFrom("a", "B", "b", "é", "😀", "\uffff", "0", " ");
const text = fc.string({ unit, maxLength: 3 });
const rawValue = fc.oneof(
  { weight: 8, arbitrary: text },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(0, 1, null, true, "__proto__", "constructor") },
);
const attributes = fc
  .record(Object.fromEntries(FILTER_ATTRIBUTE_KEYS.map((k) => [k, rawValue])), { requiredKeys: [] })
  .map((a) => a as FilterAttributes);

interface World {
  minds: Map<string, IndexedMind>;
  memberIds: string[];
  ids: string[];
}

const world: fc.Arbitrary<World> = fc.uniqueArray(text, { minLength: 1, maxLength: 12 }).chain((ids) =>
  fc
    .record({
      minds: fc.array(attributes, { minLength: ids.length, maxLength: ids.length }),
      // Some members name no Mind (the last ID), and members may repeat.
      memberIds: fc.array(fc.constantFrom(...ids), { maxLength: 40 }),
    })
    .map(({ minds, memberIds }) => ({
      // Copies: the changes below edit them in place, and fast-check may replay the generated values.
      minds: new Map(ids.slice(0, -1).map((id, i) => [id, { id, attributes: { ...minds[i] } }])),
      memberIds: [...memberIds],
      ids,
    })),
);

const selection: fc.Arbitrary<FilterSelection> = fc
  .array(
    fc.tuple(
      fc.constantFrom(...FILTER_ATTRIBUTE_KEYS),
      // Empty sets too, though parseFilters never makes one: they accept nothing.
      fc.option(
        fc.uniqueArray(text, { maxLength: 4 }).map((v) => new Set(v)),
        { freq: 4 },
      ),
    ),
    { maxLength: 4 },
  )
  .map((entries) => new Map(entries));

const limits = fc.record({
  mindsRead: fc.integer({ min: 0, max: 45 }),
  facetValues: fc.integer({ min: 1, max: 6 }),
});

/** A change to a world between two builds over the same member list. */
const change = fc.oneof(
  fc.record({
    kind: fc.constant("value" as const),
    at: fc.nat(),
    key: fc.constantFrom(...FILTER_ATTRIBUTE_KEYS),
    value: rawValue,
  }),
  fc.record({ kind: fc.constant("record" as const), at: fc.nat(), attributes }),
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("join" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("leave" as const), at: fc.nat() }),
);

type Change = typeof change extends fc.Arbitrary<infer T> ? T : never;

function apply(w: World, c: Change): void {
  const id = w.ids[c.at % w.ids.length] as string;
  const m = w.minds.get(id);
  if (c.kind === "value" && m) (m.attributes as Record<string, unknown>)[c.key] = c.value;
  else if (c.kind === "record" && m) w.minds.set(id, { id, attributes: { ...c.attributes } });
  else if (c.kind === "delete") w.minds.delete(id);
  else if (c.kind === "join") w.memberIds.push(id);
  else if (c.kind === "leave") w.memberIds.splice(c.at % (w.memberIds.length + 1), 1);
}

/** Compares the JSON texts, showing only where they part: a full diff of two large answers takes minutes. */
function expectSameJson(actual: unknown, expected: unknown): void {
  const a = JSON.stringify(actual);
  const b = JSON.stringify(expected);
  if (a === b) return;
  let i = 0;
  while (a[i] === b[i]) i++;
  expect(a.slice(Math.max(0, i - 60), i + 60)).toBe(b.slice(Math.max(0, i - 60), i + 60));
}

function same(w: World, sel: FilterSelection, l: { mindsRead: number; facetValues: number }): void {
  const index = buildFilterIndex(w.minds, w.memberIds, l.mindsRead);
  expectSameJson(
    queryFilterIndex(index, sel, l.facetValues),
    reference(w.minds, w.memberIds, sel, l.mindsRead, l.facetValues),
  );
}

describe("the filter index", () => {
  it("answers byte for byte as the one-pass computation (random members, values, selections, limits)", () => {
    fc.assert(
      fc.property(world, selection, limits, (w, sel, l) => {
        same(w, sel, l);
      }),
      { numRuns: 1000 },
    );
  });

  it("still does when records or the member list changed in place since the last build", () => {
    fc.assert(
      fc.property(
        world,
        fc.array(change, { maxLength: 4 }),
        fc.array(selection, { minLength: 1, maxLength: 3 }),
        limits,
        (w, changes, sels, l) => {
          buildFilterIndex(w.minds, w.memberIds, l.mindsRead);
          for (const c of changes) apply(w, c);
          for (const sel of sels) same(w, sel, l);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("answers the 5200-member Audience as the one-pass computation, for random selections", () => {
    const memberIds = h.audience("large")?.memberIds ?? [];
    const minds = h.sim.state.minds;
    const index = buildFilterIndex(minds, memberIds);
    const asMap = (sel: Selection): FilterSelection =>
      new Map(Object.entries(sel).map(([k, v]) => [k as FilterAttributeKey, v === null ? null : new Set(v)]));
    fc.assert(
      fc.property(selections("large").map(asMap), (sel) => {
        expectSameJson(
          queryFilterIndex(index, sel),
          reference(minds, memberIds, sel, MAX_MINDS_READ, MAX_FACET_VALUES),
        );
      }),
      { numRuns: 30 },
    );
  });
});
