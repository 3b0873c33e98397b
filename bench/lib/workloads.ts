/**
 * The benchmark's endpoints, as autocannon request lists for a server whose API lives under `base`.
 * Every target gets the same requests, with the same IDs (taken from the simulator's manifest) and the
 * same key; the mocks simply answer them from the contract's examples or schemas.
 */
import type { Request } from "autocannon";
import { COUNTRY_CODES, INDUSTRIES } from "../../src/generators/vocabulary.ts";

/**
 * More distinct selections than the simulator keeps rendered answers for (src/core/world/memo.ts keeps 256), in
 * turn: every answer is computed, which is what a user clicking through filters costs.
 */
const VARIED_FILTERS = 300;
function variedFilters(): Record<string, string[]>[] {
  const countries = COUNTRY_CODES.slice(0, 10);
  const industries = INDUSTRIES.map(([name]) => name).slice(0, 10);
  const pairs = <T>(xs: readonly T[]): T[][] => xs.flatMap((a, i) => xs.slice(i + 1).map((b) => [a, b]));
  const all = pairs(countries).flatMap((country) =>
    pairs(industries).map((industry) => ({ country, industry })),
  );
  return all.slice(0, VARIED_FILTERS);
}

export type EndpointId = "auth-me" | "audience" | "filter" | "filter-varied" | "preview" | "mixed" | "writes";
export const ENDPOINT_IDS: readonly EndpointId[] = [
  "auth-me",
  "audience",
  "filter",
  "filter-varied",
  "preview",
  "mixed",
  "writes",
];

/** Workloads that only mean something on the simulator (they change its world); peers skip them. */
export const SIMULATOR_ONLY: ReadonlySet<EndpointId> = new Set(["writes"]);
/** The durable simulator is measured on what it changes: writes, and the mixed run. */
export const DURABLE_ENDPOINTS: ReadonlySet<EndpointId> = new Set(["writes", "mixed"]);

export const ENDPOINT_LABELS: Record<EndpointId, string> = {
  "auth-me": "GET auth/me",
  audience: "GET audiences/{main}",
  filter: "GET audiences/{large}/filter-attributes (2 attributes)",
  "filter-varied": `GET audiences/{large}/filter-attributes (${VARIED_FILTERS} selections in turn)`,
  preview: "POST audiences/{main}/formations/preview (NDJSON)",
  mixed: "mixed read/write",
  writes: "PUT audiences/{main} (a rename: every request a change)",
};

export interface Fixture {
  /** The owner's API key. */
  key: string;
  mainId: string;
  largeId: string;
  /** A Mind of the owner's that is in no Audience: added to and removed from `main` by the mixed run. */
  looseMindId: string;
}

export const FILTERS = { country: ["US", "DE"], industry: ["Software", "Healthcare"] };

export const PREVIEW_BODY = JSON.stringify({
  userInput: "Split by how they adopt new tools",
  priorHypothesis: null,
});

export function endpointRequests(id: EndpointId, base: string, f: Fixture): Request[] {
  const auth = { authorization: `Bearer ${f.key}` };
  const json = { ...auth, "content-type": "application/json" };
  switch (id) {
    case "auth-me":
      return [{ method: "GET", path: `${base}/auth/me`, headers: auth }];
    case "audience":
      return [{ method: "GET", path: `${base}/audiences/${f.mainId}`, headers: auth }];
    case "filter":
      return [
        {
          method: "GET",
          path: `${base}/audiences/${f.largeId}/filter-attributes?filters=${encodeURIComponent(JSON.stringify(FILTERS))}`,
          headers: auth,
        },
      ];
    case "filter-varied":
      return variedFilters().map((selection) => ({
        method: "GET",
        path: `${base}/audiences/${f.largeId}/filter-attributes?filters=${encodeURIComponent(JSON.stringify(selection))}`,
        headers: auth,
      }));
    case "preview":
      return [
        {
          method: "POST",
          path: `${base}/audiences/${f.mainId}/formations/preview`,
          headers: { ...json, accept: "application/x-ndjson" },
          body: PREVIEW_BODY,
        },
      ];
    case "writes":
      return [
        {
          method: "PUT",
          path: `${base}/audiences/${f.mainId}`,
          headers: json,
          body: JSON.stringify({ name: "Benchmark rename" }),
        },
      ];
    case "mixed":
      // Per connection, round and round: reads, an API key created and deleted again, a member added
      // and removed again. Five reads to four writes; the state is back where it was after each cycle.
      return [
        { method: "GET", path: `${base}/auth/me`, headers: auth },
        { method: "GET", path: `${base}/audiences/${f.mainId}`, headers: auth },
        {
          method: "POST",
          path: `${base}/api-keys`,
          headers: json,
          body: JSON.stringify({ name: "bench" }),
          onResponse: (status, body, context) => {
            if (status !== 201) return;
            try {
              context.keyId = (JSON.parse(body) as { id?: unknown }).id;
            } catch {}
          },
        },
        { method: "GET", path: `${base}/api-keys`, headers: auth },
        {
          method: "DELETE",
          path: `${base}/api-keys/unknown`,
          headers: auth,
          setupRequest: (req, context) => ({
            ...req,
            path: `${base}/api-keys/${typeof context.keyId === "string" ? context.keyId : "unknown"}`,
          }),
        },
        {
          method: "POST",
          path: `${base}/audiences/${f.mainId}/members`,
          headers: json,
          body: JSON.stringify({ mindId: f.looseMindId }),
        },
        { method: "GET", path: `${base}/audiences/${f.mainId}/progress`, headers: auth },
        { method: "DELETE", path: `${base}/audiences/${f.mainId}/members/${f.looseMindId}`, headers: auth },
        { method: "GET", path: `${base}/audiences/${f.mainId}/formations`, headers: auth },
      ];
  }
}
