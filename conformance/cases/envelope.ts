/**
 * Cases every operation shares, stated once in the description: both v1 prefixes, the error envelope,
 * rate-limit headers and private answers that no cache keeps, optional bodies left out, bodies that are
 * not JSON (415, nothing made), bodies at and past `x-max-body-bytes`, targets and heads past what the
 * document allows, the OpenAPI document itself, the forms IDs and times take, listing orders and codes.
 */
import { MAX_REQUEST_HEAD_BYTES, MAX_REQUEST_TARGET_BYTES } from "../../src/contract/request-size.ts";
import { limits } from "../lib/description/contract.ts";
import { MissingHandle } from "../lib/running/context.ts";
import { hypothesis, padded } from "../lib/running/helpers.ts";
import { type Case, type Field, is, NOBODY, ok, onAud, PRESENT, refused } from "./case.ts";
import { mainFormations, noFormationMade, refusedStep } from "./given.ts";

const matches = (re: RegExp, what: string): Field => ({
  holds: (v) => typeof v === "string" && re.test(v),
  says: `is not ${what}`,
  breaks: () => "not-of-its-form",
});

const RATE_HEADERS = {
  "ratelimit-limit": matches(/^\d+$/, "a whole number"),
  "ratelimit-remaining": matches(/^\d+$/, "a whole number"),
};
const NO_STORE = matches(
  /no-store|private|no-cache/,
  "a directive that keeps caches from storing a private answer",
);

const ENVELOPE = (path: RegExp) => ({
  statusCode: is(404),
  error: is(true),
  url: matches(path, "the request path"),
  message: {
    holds: (v: unknown, body: unknown) => v === (body as { statusMessage?: unknown })?.statusMessage,
    says: "is not statusMessage",
    breaks: () => "another message",
  } as Field,
});

const REGIONS = new Intl.DisplayNames(["en"], { type: "region" });
const countries: Field = {
  holds: (v) =>
    Array.isArray(v) &&
    (v.find((f) => f?.key === "country")?.values ?? []).every(
      (x: { value?: unknown }) =>
        typeof x.value === "string" && /^[A-Z]{2}$/.test(x.value) && REGIONS.of(x.value) !== x.value,
    ),
  says: "has a country value that is no ISO 3166-1 alpha-2 code",
  breaks: (v) =>
    Array.isArray(v)
      ? v.map((f) => (f?.key === "country" ? { ...f, values: [{ value: "Germany", count: 1 }] } : f))
      : v,
};

/** Thrown where a case needs a second v1 prefix the target does not serve: the case is left. */
class MissingPrefix extends MissingHandle {
  constructor() {
    super("extraPrefixes (a second v1 prefix, /v1 on the API host)");
  }
}

const SHARED: Case[] = [
  {
    id: "getAudience owner on main under /v1: the same Audience as under /api/v1",
    rule: "versioning/prefixes",
    op: "getAudience",
    as: "owner",
    request: (w) => {
      const prefix = w.info.extraPrefixes[0];
      if (!prefix) throw new MissingPrefix();
      return { params: { audienceId: w.aud("main") }, query: { members: "preview" }, prefix };
    },
    expect: (w) => [ok(200, { "data.id": is(w.aud("main")), "data.currentMemberRole": is("owner") })],
  },
  {
    id: "getAudience owner: an ID that names nothing, in the envelope",
    rule: "errors/envelope",
    op: "getAudience",
    as: "owner",
    request: () => ({ params: { audienceId: NOBODY } }),
    expect: [
      { status: 404, message: "Audience not found", fields: ENVELOPE(new RegExp(`/audiences/${NOBODY}$`)) },
    ],
  },
  {
    id: "getAudience owner on main: rate-limit headers, and no cache keeps the private answer",
    rule: "limits/rate-limit",
    also: ["contract/responses"],
    op: "getAudience",
    as: "owner",
    request: onAud("main", { query: { members: "preview" } }),
    expect: [{ status: 200, headers: { ...RATE_HEADERS, "cache-control": NO_STORE } }],
  },
  {
    id: "listFormations owner on main: no cache keeps a Formation answer",
    rule: "contract/responses",
    op: "listFormations",
    as: "owner",
    request: onAud("main"),
    expect: [{ status: 200, headers: { "cache-control": NO_STORE } }],
  },
  {
    id: "createFormation owner on main: a private answer no cache keeps",
    rule: "contract/responses",
    op: "createFormation",
    as: "owner",
    request: onAud("main", {
      json: { hypothesis: hypothesis(2, "private") },
    }),
    expect: [{ status: 200, headers: { "cache-control": NO_STORE } }],
  },
  {
    id: "getAudienceProgress owner on main: reconciledAt in epoch milliseconds",
    rule: "contract/responses",
    op: "getAudienceProgress",
    as: "owner",
    request: onAud("main"),
    expect: [
      ok(200, {
        "data.reconciledAt": {
          holds: (v) => Number.isInteger(v) && (v as number) > 1e12,
          says: "is not epoch milliseconds",
          breaks: (v) => Math.floor(Number(v) / 1000),
        },
      }),
    ],
  },
  {
    id: "createApiKey owner: the key's ID is a cuid",
    rule: "contract/responses",
    op: "createApiKey",
    as: "owner",
    request: () => ({ json: { name: "cuid" } }),
    expect: [ok(201, { id: matches(/^c[a-z0-9]{24}$/, "a cuid") })],
  },
  {
    id: "getOpenApiDocument: the OpenAPI 3.1.0 description",
    rule: "contract/responses",
    op: "getOpenApiDocument",
    as: null,
    request: () => ({}),
    expect: [ok(200, { openapi: is("3.1.0"), paths: PRESENT })],
  },
  {
    id: "getFilterAttributes owner on main: country values are ISO 3166-1 alpha-2 codes",
    rule: "filters/values",
    op: "getFilterAttributes",
    as: "owner",
    request: onAud("main"),
    expect: [ok(200, { "data.facets": countries })],
  },
];

const BODIES: Case[] = [
  ...(
    [
      [
        "exportAudience",
        "an export",
        (w: Parameters<Case["request"]>[0]) => ({ params: { audienceId: w.aud("main") } }),
        200,
      ],
      [
        "duplicateAudience",
        "a copy",
        (w: Parameters<Case["request"]>[0]) => ({ params: { audienceId: w.aud("private") } }),
        201,
      ],
      ["createApiKey", "a key", () => ({}), 201],
    ] as const
  ).map(
    ([op, what, params, status]): Case => ({
      id: `${op} owner: ${what} without its optional body`,
      rule: "input/optional-body",
      op,
      as: "owner",
      request: (w) => params(w),
      expect: [ok(status)],
    }),
  ),
  {
    id: "createFormation owner on main: a JSON body sent as text/plain is 415, and nothing is made",
    rule: "input/media-type-415",
    op: "createFormation",
    as: "owner",
    mutates: true,
    given: mainFormations,
    request: onAud("main", {
      body: JSON.stringify({ hypothesis: hypothesis(2) }),
      headers: { "content-type": "text/plain" },
    }),
    expect: [refused(415)],
    after: [noFormationMade],
  },
  {
    id: "createFormation owner on main: application/json with a charset, in capitals, is JSON",
    rule: "input/media-type-415",
    op: "createFormation",
    as: "owner",
    request: onAud("main", {
      body: JSON.stringify({ hypothesis: hypothesis(2) }),
      headers: { "content-type": "Application/JSON; charset=UTF-8" },
    }),
    expect: [ok(200)],
  },
  ...(["createFormation", "addMembers", "previewFormation"] as const).flatMap((op): Case[] => {
    const json =
      op === "addMembers"
        ? { mindId: NOBODY }
        : op === "createFormation"
          ? { hypothesis: hypothesis(2) }
          : {};
    const cap = () => limits().membersBody;
    const handle = op === "addMembers" ? "private" : "main";
    return [
      {
        id: `${op} owner on ${handle}: a body one byte past x-max-body-bytes is 413`,
        rule: "input/body-size-413",
        op,
        as: "owner",
        request: onAud(handle, {
          body: padded(JSON.stringify(json), cap() + 1),
          headers: { "content-type": "application/json", accept: "application/json" },
        }),
        expect: [refused(413)],
      },
      {
        id: `${op} owner on ${handle}: a body of exactly x-max-body-bytes is read`,
        rule: "input/body-size-413",
        op,
        as: "owner",
        request: onAud(handle, {
          body: padded(JSON.stringify(json), cap()),
          headers: { "content-type": "application/json", accept: "application/json" },
        }),
        // addMembers names a Mind that is nothing: read, then refused for that (404), never 413.
        expect: [op === "addMembers" ? refused(404) : ok(200)],
      },
    ];
  }),
];

const LAYER: Case[] = [
  {
    id: "getFilterAttributes owner on main: a target past twice the longest allowed is 414, url empty",
    rule: "http/layer",
    op: "getFilterAttributes",
    as: "owner",
    request: onAud("main", {
      query: { filters: "x".repeat(MAX_REQUEST_TARGET_BYTES + 1) },
    }),
    expect: [{ status: 414, fields: { url: is(""), error: is(true), statusCode: is(414) } }],
  },
  {
    id: "getMe owner: a head past the longest target and x-max-header-bytes is 431",
    rule: "http/layer",
    op: "getMe",
    as: "owner",
    request: () => ({ headers: { "x-filler": "h".repeat(MAX_REQUEST_HEAD_BYTES + 1) } }),
    expect: [{ status: 431, fields: { error: is(true), statusCode: is(431) } }],
  },
];

const ORDERS: Case[] = [
  {
    id: "listApiKeys owner: two keys made one after the other, the later first",
    rule: "keys/listing-order",
    op: "listApiKeys",
    as: "owner",
    given: async (ctx, _w, later) => {
      const ids: string[] = [];
      for (const name of ["older", "newer"]) {
        const ex = await ctx.call({ op: "createApiKey", as: ctx.as("owner"), json: { name } });
        if (ex.status !== 201) return refusedStep(ex, 201, `creating the ${name} key`);
        ids.push(ex.body?.id);
        later(() => ctx.call({ op: "deleteApiKey", params: { keyId: ex.body?.id }, as: ctx.as("owner") }));
        // Apart in time, so that the order is the description's and not a tie's.
        await ctx.target.advance(1_000);
      }
      return { made: { older: ids[0], newer: ids[1] } };
    },
    request: () => ({}),
    expect: (w) => [ok(200, { "": before(w.made.newer as string, w.made.older as string) })],
  },
];

const before = (first: string, second: string): Field => ({
  holds: (v) =>
    Array.isArray(v) &&
    v.findIndex((k) => k?.id === first) >= 0 &&
    v.findIndex((k) => k?.id === first) < v.findIndex((k) => k?.id === second),
  says: `does not list ${first} (newer) before ${second}`,
  breaks: (v) => (Array.isArray(v) ? [...v].reverse() : v),
});

export const SHARED_CASES: Case[] = [...SHARED, ...BODIES, ...LAYER, ...ORDERS];
