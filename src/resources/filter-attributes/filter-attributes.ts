/**
 * Filtering an Audience's members by their filter attributes (description, "Audiences: filter
 * attributes"). Any viewer may read it; others get 404 `Audience not found`.
 *
 * `filters` is a JSON object mapping attribute keys to alternative values (OR) or to null (Minds without a
 * value); attributes combine with AND. Each facet counts the Minds that match every other attribute's
 * selection, so a facet shows what choosing another value of its own attribute would give.
 *
 * The Minds read are coded as integers once per state (`buildFilterIndex`); one pass over those codes
 * serves every facet: a Mind that fails no selected attribute counts in all facets and matches; a Mind that
 * fails exactly one counts only in the facet of the attribute it fails; a Mind that fails two or more
 * counts nowhere. Limits are read from the contract, and its compiled validator is the final word on
 * whether a selection is acceptable.
 */

import { LIMITS } from "../../contract/limits.ts";
import type { components } from "../../contract/types.gen.ts";
import { validatorFor } from "../../contract/validate.ts";
import { type ApiError, badRequest } from "../../core/errors.ts";
import type { ResourceModule } from "../../core/resource.ts";
import type { MindRecord, State } from "../../core/world/state.ts";
import type { FilterAttributeKey, FilterAttributes } from "../../generators/index.ts";
import { FILTER_ATTRIBUTE_KEYS } from "../../generators/index.ts";
import { viewable } from "../access.ts";

const SELECTION_SCHEMA = "#/components/schemas/FilterSelection";

/** Minds read per request; a larger Audience is `truncated`. */
export const MAX_MINDS_READ = LIMITS.mindsRead;
/** Characters of the `filters` value. */
export const MAX_FILTERS_CHARS = LIMITS.filtersChars;
/** Values selected per attribute. */
export const MAX_VALUES_PER_ATTRIBUTE = LIMITS.filterValuesPerAttribute;
/** Values returned per facet. */
export const MAX_FACET_VALUES = LIMITS.facetValues;

/** Per attribute: the accepted values, or null for "no value". Attributes absent from the map are free. */
export type FilterSelection = Map<FilterAttributeKey, ReadonlySet<string> | null>;

/** The answer's shape is the contract's. */
export type FilterAttributesView = components["schemas"]["FilterAttributes"];
export type FacetView = FilterAttributesView["facets"][number];

const KNOWN_KEYS: ReadonlySet<string> = new Set(FILTER_ATTRIBUTE_KEYS);

const invalidFilters = (reason: string): ApiError => badRequest("Invalid filters", { reason });

/**
 * Parses the `filters` query value. Absent (or empty) selects everything. Simulator decision: an empty
 * array puts no condition on its attribute, like an attribute left out.
 */
export function parseFilters(raw: string | null): FilterSelection {
  const selection: FilterSelection = new Map();
  if (raw === null || raw === "") return selection;
  if (raw.length > MAX_FILTERS_CHARS && [...raw].length > MAX_FILTERS_CHARS) {
    throw invalidFilters(`filters must be at most ${MAX_FILTERS_CHARS} characters`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidFilters("filters is not valid JSON");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw invalidFilters("filters must be a JSON object");
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (!KNOWN_KEYS.has(key)) {
      throw invalidFilters(`Unknown filter attribute ${JSON.stringify(key)}`);
    }
    if (value === null) continue;
    if (!Array.isArray(value)) throw invalidFilters(`${key} must be an array of strings or null`);
    if (value.length > MAX_VALUES_PER_ATTRIBUTE) {
      throw invalidFilters(`${key} allows at most ${MAX_VALUES_PER_ATTRIBUTE} values`);
    }
    if (!value.every((v) => typeof v === "string")) throw invalidFilters(`Values of ${key} must be strings`);
  }
  // The contract decides; the checks above only name the reason.
  if (!validatorFor(SELECTION_SCHEMA)(parsed)) throw invalidFilters("filters does not match FilterSelection");
  for (const [key, value] of Object.entries(parsed as Record<string, string[] | null>)) {
    if (value === null) selection.set(key as FilterAttributeKey, null);
    else if (value.length > 0) selection.set(key as FilterAttributeKey, new Set(value));
  }
  return selection;
}

/** Facet order: the description's attribute keys, which `readRow` mirrors (checked once at load, below it). */
const ROW_KEYS = FILTER_ATTRIBUTE_KEYS;
const FACETS = ROW_KEYS.length;

/**
 * A Mind's raw values in facet order, written into `row`: one scratch row for a whole index, since this runs
 * for every Mind of one. Named property reads, not keyed ones: attribute objects come in many shapes.
 */
function readRow(a: FilterAttributes, row: unknown[]): unknown[] {
  row[0] = a.perspective;
  row[1] = a.industry;
  row[2] = a.role;
  row[3] = a.country;
  row[4] = a.companySize;
  row[5] = a.technology;
  row[6] = a.businessModel;
  return row;
}

for (const [f, key] of ROW_KEYS.entries())
  if (readRow({ [key]: key } as FilterAttributes, [])[f] !== key || readRow({}, []).length !== FACETS)
    throw new Error(`filter-attributes: readRow()[${f}] is not ${key}`);

/** A value counts only as a non-empty string; anything else is "no value". */
const isValue = (v: unknown): v is string => typeof v === "string" && v !== "";

/** What the index needs of a Mind. */
export type IndexedMind = Pick<MindRecord, "id" | "attributes">;

/** A facet's values, sorted (so their order breaks ties in counts), with their codes. */
interface FacetValues {
  values: string[];
  codes: Int32Array;
}

/**
 * The Minds one request reads, as integers, so that a query neither looks up a record nor compares a
 * string. One code space for all facets: code f is "no value" for facet f, and every other (facet, value)
 * gets the next code as it is first seen, so a code indexes a query's counters and rejections directly.
 */
export interface FilterIndex {
  totalMinds: number;
  truncated: boolean;
  attributedMinds: number;
  /** The Minds read, sorted by ID: a query emits its matches already in answer order. */
  ids: readonly string[];
  /** Row-major, rows in `ids` order: the code of row r's facet f at `r * FACETS + f`. */
  cells: Int32Array;
  codeCount: number;
  facets: FacetValues[];
}

/** An index's codes as built, with what they were built from, to tell whether they still hold. */
interface Encoded {
  /** The IDs of the Minds read, in member order. */
  readIds: string[];
  /** Positions in `readIds`, by ID. */
  order: Int32Array;
  /** `cells` in member order. */
  memberCells: Int32Array;
  /** The value of each code; "" for the "no value" codes. */
  codeValues: string[];
  ids: string[];
  cells: Int32Array;
  facets: FacetValues[];
}

/**
 * The last codes built per member list. A write anywhere in the state drops the memoized index, though it
 * rarely touches these members: checking the codes against the records is cheaper than coding them anew,
 * and sorting the IDs costs more than both. Codes are reused only for exactly the same IDs and values,
 * the ID order only for the same IDs; a join or leave sorts again.
 */
const lastEncoded = new WeakMap<readonly string[], Encoded>();

/**
 * The index of the first `limit` member IDs, in stored order; IDs that name no Mind still use up the
 * limit, as the description's "reads at most" counts member entries. Pure in effect: what it keeps
 * between calls is used only where it gives the same index.
 */
export function buildFilterIndex(
  minds: ReadonlyMap<string, IndexedMind>,
  memberIds: readonly string[],
  limit = MAX_MINDS_READ,
): FilterIndex {
  const { encoded, attributed } = reuseOrEncode(memberIds, mindsRead(minds, memberIds, limit));
  return {
    totalMinds: memberIds.length,
    truncated: memberIds.length > limit,
    attributedMinds: attributed,
    ids: encoded.ids,
    cells: encoded.cells,
    codeCount: encoded.codeValues.length,
    facets: encoded.facets,
  };
}

function reuseOrEncode(memberIds: readonly string[], read: readonly IndexedMind[]) {
  const last = lastEncoded.get(memberIds);
  let fresh: { encoded: Encoded; attributed: number };
  if (last !== undefined && hasIds(read, last.readIds)) {
    const attributed = attributedIfSame(read, last);
    if (attributed >= 0) return { encoded: last, attributed };
    fresh = encode(read, last.order);
  } else fresh = encode(read, idOrder(read));
  lastEncoded.set(memberIds, fresh.encoded);
  return fresh;
}

function mindsRead(
  minds: ReadonlyMap<string, IndexedMind>,
  memberIds: readonly string[],
  limit: number,
): IndexedMind[] {
  const read: IndexedMind[] = [];
  const end = Math.min(memberIds.length, limit);
  for (let i = 0; i < end; i++) {
    const m = minds.get(memberIds[i] as string);
    if (m) read.push(m);
  }
  return read;
}

function hasIds(read: readonly IndexedMind[], ids: readonly string[]): boolean {
  if (ids.length !== read.length) return false;
  for (let i = 0; i < ids.length; i++) if (ids[i] !== (read[i] as IndexedMind).id) return false;
  return true;
}

function idOrder(read: readonly IndexedMind[]): Int32Array {
  const ids = read.map((m) => m.id);
  return Int32Array.from(ids.keys()).sort((a, b) => {
    const x = ids[a] as string;
    const y = ids[b] as string;
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/**
 * Visits every member's facet cells in member order (`at` counts cells) and counts the attributed Minds,
 * as truthy as `attributedMinds` always was: a value that is no string counts there, yet is "no value" in a
 * facet. A visit that answers false stops the walk with -1.
 */
function walkCells(
  read: readonly IndexedMind[],
  visit: (at: number, f: number, v: unknown) => boolean,
): number {
  let attributed = 0;
  const row: unknown[] = new Array(FACETS);
  for (let i = 0, at = 0; i < read.length; i++) {
    readRow((read[i] as IndexedMind).attributes, row);
    let any = false;
    for (let f = 0; f < FACETS; f++, at++) {
      const v = row[f];
      if (v) any = true;
      if (!visit(at, f, v)) return -1;
    }
    if (any) attributed++;
  }
  return attributed;
}

/** The attributed Minds if every value is the one `last` coded, else -1. */
function attributedIfSame(read: readonly IndexedMind[], last: Encoded): number {
  const { memberCells, codeValues } = last;
  return walkCells(read, (at, _f, v) => (isValue(v) ? v : "") === codeValues[memberCells[at] as number]);
}

/** Codes every row: in member order first, the order records were created and lie in memory in. */
function encode(read: readonly IndexedMind[], order: Int32Array) {
  const dictionaries = ROW_KEYS.map(() => new Map<string, number>());
  const codeValues: string[] = ROW_KEYS.map(() => "");
  const memberCells = new Int32Array(read.length * FACETS);
  const attributed = walkCells(read, (at, f, v) => {
    memberCells[at] = isValue(v) ? codeOf(dictionaries[f] as Map<string, number>, codeValues, v) : f;
    return true;
  });
  const encoded: Encoded = {
    readIds: read.map((m) => m.id),
    order,
    memberCells,
    codeValues,
    ids: Array.from(order, (i) => (read[i] as IndexedMind).id),
    cells: rowsInOrder(memberCells, order),
    facets: dictionaries.map(facetValues),
  };
  return { encoded, attributed };
}

function codeOf(dictionary: Map<string, number>, codeValues: string[], v: string): number {
  let code = dictionary.get(v);
  if (code === undefined) {
    code = codeValues.push(v) - 1;
    dictionary.set(v, code);
  }
  return code;
}

function rowsInOrder(memberCells: Int32Array, order: Int32Array): Int32Array {
  const cells = new Int32Array(memberCells.length);
  for (let r = 0, at = 0; r < order.length; r++) {
    const from = (order[r] as number) * FACETS;
    for (let f = 0; f < FACETS; f++, at++) cells[at] = memberCells[from + f] as number;
  }
  return cells;
}

function facetValues(dictionary: Map<string, number>): FacetValues {
  const values = [...dictionary.keys()].sort();
  return { values, codes: Int32Array.from(values, (v) => dictionary.get(v) as number) };
}

/**
 * Pure: the answer under a selection. Each selected attribute turns into rejected codes; a row then
 * fails as many selected attributes as it has rejected cells. A Mind that fails none counts in every
 * facet and matches; one that fails exactly one counts only in that attribute's facet.
 */
export function queryFilterIndex(
  index: FilterIndex,
  selection: FilterSelection,
  maxFacetValues = MAX_FACET_VALUES,
): FilterAttributesView {
  const { cells, ids } = index;
  const rejected = new Uint8Array(index.codeCount);
  const selected: number[] = [];
  for (const [key, accepts] of selection) {
    const f = ROW_KEYS.indexOf(key);
    selected.push(f);
    reject(rejected, f, index.facets[f] as FacetValues, accepts);
  }
  const counts = new Int32Array(index.codeCount);
  const matched: string[] = [];
  for (let r = 0, row = 0; r < ids.length; r++, row += FACETS) {
    let failures = 0;
    let failedCell = 0;
    for (let s = 0; s < selected.length; s++) {
      const cell = cells[row + (selected[s] as number)] as number;
      if (rejected[cell] === 1 && ++failures === 1) failedCell = cell;
    }
    if (failures === 0) {
      matched.push(ids[r] as string);
      for (let f = 0; f < FACETS; f++) bump(counts, cells[row + f] as number);
    } else if (failures === 1) bump(counts, failedCell);
  }
  return {
    totalMinds: index.totalMinds,
    attributedMinds: index.attributedMinds,
    matchCount: matched.length,
    mindIds: matched,
    truncated: index.truncated,
    facets: ROW_KEYS.map((key, f) => facet(key, f, index.facets[f] as FacetValues, counts, maxFacetValues)),
  };
}

const bump = (counts: Int32Array, code: number): void => {
  counts[code] = (counts[code] as number) + 1;
};

/** Marks every code of facet `f` but the accepted ones; values no Mind has accept nothing. */
function reject(
  rejected: Uint8Array,
  f: number,
  { values, codes }: FacetValues,
  accepts: ReadonlySet<string> | null,
): void {
  rejected[f] = accepts === null ? 0 : 1;
  for (let i = 0; i < values.length; i++) {
    rejected[codes[i] as number] = accepts?.has(values[i] as string) ? 0 : 1;
  }
}

/** A facet's counted values, most frequent first, ties in value order. */
function facet(
  key: FilterAttributeKey,
  f: number,
  { values, codes }: FacetValues,
  counts: Int32Array,
  maxValues: number,
): FacetView {
  const count = (i: number) => counts[codes[i] as number] as number;
  const seen: number[] = [];
  for (let i = 0; i < values.length; i++) if (count(i) > 0) seen.push(i);
  seen.sort((a, b) => count(b) - count(a) || a - b);
  return {
    key,
    values: seen.slice(0, maxValues).map((i) => ({ value: values[i] as string, count: count(i) })),
    unknownCount: counts[f] as number,
  };
}

/** Pure: the filter-attributes answer for an Audience's members under a selection. */
export function computeFilterAttributes(
  state: State,
  memberIds: readonly string[],
  selection: FilterSelection,
): FilterAttributesView {
  return queryFilterIndex(buildFilterIndex(state.minds, memberIds), selection);
}

export const filterAttributes: ResourceModule = {
  routes: {
    getFilterAttributes: {
      pure: true,
      // The contract's maxLength is checked by the engine; it still says "Invalid filters" like every other case.
      invalidParameter: (name) =>
        name === "filters" ? invalidFilters(`filters must be at most ${MAX_FILTERS_CHARS} characters`) : null,
      authorize: (ctx) => void viewable(ctx.state, ctx.params.audienceId ?? "", ctx.caller),
      handler: (ctx) => {
        const { audience } = viewable(ctx.state, ctx.params.audienceId ?? "", ctx.caller);
        const selection = parseFilters(ctx.url.searchParams.get("filters"));
        // Every filter of this Audience reads the same index until the state may have changed.
        const index = ctx.memo(`filter-index ${audience.id}`, () =>
          buildFilterIndex(ctx.state.minds, audience.memberIds),
        );
        return {
          status: 200,
          body: { data: queryFilterIndex(index, selection) },
        };
      },
    },
  },
};
