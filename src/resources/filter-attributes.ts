/**
 * Filtering an Audience's members by their filter attributes (description, "Audiences: filter
 * attributes"). Any viewer may read it; others get 404 `Audience not found`.
 *
 * `filters` is a JSON object mapping attribute keys to alternative values (OR) or to null (Minds without a
 * value); attributes combine with AND. Each facet counts the Minds that match every other attribute's
 * selection, so a facet shows what choosing another value of its own attribute would give.
 *
 * One pass over the Minds read serves every facet: a Mind that fails no selected attribute counts in all
 * facets and matches; a Mind that fails exactly one counts only in the facet of the attribute it fails;
 * a Mind that fails two or more counts nowhere. Limits are read from the contract, and its compiled
 * validator is the final word on whether a selection is acceptable.
 */

import {
  FILTER_ATTRIBUTE_KEYS,
  type FilterAttributeKey,
  type FilterAttributes,
} from "../../fixtures/index.ts";
import { resolvePointer } from "../contract/document.ts";
import { validatorFor } from "../contract/validate.ts";
import { type ApiError, badRequest } from "../core/errors.ts";
import type { ResourceModule } from "../core/route.ts";
import type { State } from "../core/state.ts";
import { viewable } from "./access.ts";

const OPERATION = "#/paths/~1audiences~1{audienceId}~1filter-attributes/get";
const SELECTION_SCHEMA = "#/components/schemas/FilterSelection";

function contractNumber(pointer: string): number {
  const v = resolvePointer(pointer);
  if (typeof v !== "number") throw new Error(`The contract sets no number at ${pointer}`);
  return v;
}

/** Minds read per request; a larger Audience is `truncated`. */
export const MAX_MINDS_READ = contractNumber(`${OPERATION}/x-max-minds-read`);
/** Characters of the `filters` value. */
export const MAX_FILTERS_CHARS = contractNumber(`${OPERATION}/parameters/0/schema/maxLength`);
/** Values selected per attribute. */
export const MAX_VALUES_PER_ATTRIBUTE = contractNumber(
  `${SELECTION_SCHEMA}/additionalProperties/oneOf/0/maxItems`,
);
/** Values returned per facet. */
export const MAX_FACET_VALUES = contractNumber(
  "#/components/schemas/FilterAttributes/properties/facets/items/properties/values/maxItems",
);

/** Per attribute: the accepted values, or null for "no value". Attributes absent from the map are free. */
export type FilterSelection = Map<FilterAttributeKey, ReadonlySet<string> | null>;

export interface FacetView {
  key: FilterAttributeKey;
  values: { value: string; count: number }[];
  unknownCount: number;
}

export interface FilterAttributesView {
  totalMinds: number;
  attributedMinds: number;
  matchCount: number;
  mindIds: string[];
  truncated: boolean;
  facets: FacetView[];
}

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

/** Facet order: FILTER_ATTRIBUTE_KEYS, which `valueAt` mirrors (checked once at load). */
const ROW_KEYS = [
  "perspective",
  "industry",
  "role",
  "country",
  "companySize",
  "technology",
  "businessModel",
] as const satisfies readonly FilterAttributeKey[];
if (ROW_KEYS.join() !== FILTER_ATTRIBUTE_KEYS.join())
  throw new Error("filter-attributes: ROW_KEYS are stale");

/**
 * A Mind's value for the facet at `k`, or undefined for "no value" (absent or empty). Named property
 * reads, not keyed ones: attribute objects come in many shapes, and this is the hot loop of a 5000-Mind read.
 */
function valueAt(a: FilterAttributes, k: number): string | undefined {
  let v: string | undefined;
  switch (k) {
    case 0:
      v = a.perspective;
      break;
    case 1:
      v = a.industry;
      break;
    case 2:
      v = a.role;
      break;
    case 3:
      v = a.country;
      break;
    case 4:
      v = a.companySize;
      break;
    case 5:
      v = a.technology;
      break;
    default:
      v = a.businessModel;
  }
  return typeof v === "string" && v !== "" ? v : undefined;
}

const hasAnyValue = (a: FilterAttributes): boolean =>
  !!(a.perspective || a.industry || a.role || a.country || a.companySize || a.technology || a.businessModel);

/** Pure: the filter-attributes answer for an Audience's members under a selection. */
export function computeFilterAttributes(
  state: State,
  memberIds: readonly string[],
  selection: FilterSelection,
): FilterAttributesView {
  const n = ROW_KEYS.length;
  const selected = [...selection.entries()].map(([key, accepts]) => ({
    facet: ROW_KEYS.indexOf(key),
    accepts,
  }));
  // One lookup per tally: a value seen before is a counter object bumped in place.
  const counts = ROW_KEYS.map(() => new Map<string, { n: number }>());
  const unknown: number[] = ROW_KEYS.map(() => 0);
  const matched: string[] = [];
  let attributed = 0;

  const tally = (a: FilterAttributes, facet: number): void => {
    const v = valueAt(a, facet);
    if (v === undefined) unknown[facet] = (unknown[facet] as number) + 1;
    else {
      const c = counts[facet] as Map<string, { n: number }>;
      const counter = c.get(v);
      if (counter) counter.n++;
      else c.set(v, { n: 1 });
    }
  };

  const limit = Math.min(memberIds.length, MAX_MINDS_READ);
  for (let i = 0; i < limit; i++) {
    const m = state.minds.get(memberIds[i] as string);
    if (!m) continue;
    const a = m.attributes;
    if (hasAnyValue(a)) attributed++;
    let failures = 0;
    let failedFacet = -1;
    for (let s = 0; s < selected.length && failures < 2; s++) {
      const { facet, accepts } = selected[s] as (typeof selected)[number];
      const v = valueAt(a, facet);
      if (accepts === null ? v !== undefined : v === undefined || !accepts.has(v)) {
        failures++;
        failedFacet = facet;
      }
    }
    if (failures === 0) {
      matched.push(m.id);
      for (let f = 0; f < n; f++) tally(a, f);
    } else if (failures === 1) {
      tally(a, failedFacet);
    }
  }

  matched.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    totalMinds: memberIds.length,
    attributedMinds: attributed,
    matchCount: matched.length,
    mindIds: matched,
    truncated: memberIds.length > MAX_MINDS_READ,
    facets: ROW_KEYS.map((key, f) => ({
      key,
      values: [...(counts[f] as Map<string, { n: number }>).entries()]
        .map(([value, c]) => ({ value, count: c.n }))
        .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
        .slice(0, MAX_FACET_VALUES),
      unknownCount: unknown[f] as number,
    })),
  };
}

export const filterAttributes: ResourceModule = {
  routes: {
    getFilterAttributes: {
      // The contract's maxLength is checked by the engine; it still says "Invalid filters" like every other case.
      invalidParameter: (name) =>
        name === "filters" ? invalidFilters(`filters must be at most ${MAX_FILTERS_CHARS} characters`) : null,
      authorize: (ctx) => void viewable(ctx.state, ctx.params.audienceId ?? "", ctx.caller),
      handler: (ctx) => {
        const { audience } = viewable(ctx.state, ctx.params.audienceId ?? "", ctx.caller);
        const selection = parseFilters(ctx.query.get("filters"));
        return {
          status: 200,
          body: { data: computeFilterAttributes(ctx.state, audience.memberIds, selection) },
        };
      },
    },
  },
};
