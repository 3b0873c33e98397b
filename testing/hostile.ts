/**
 * Generators of hostile requests for the robustness suite: paths built from the contract's templates with
 * every kind of bad parameter, header sets no sane client sends, and bodies meant to break parsers.
 */
import fc from "fast-check";
import { operations } from "../src/contract/operations.ts";
import type { Manifest } from "../src/core/world/manifest.ts";

export interface HostileRequest {
  method: string;
  target: string;
  /** Name/value pairs; names may repeat. */
  headers: [string, string][];
  body: string | Buffer | null;
}

const MB = 1024 * 1024;

/** Path segments that have broken routers and decoders before. */
const NASTY_SEGMENTS = [
  "",
  ".",
  "..",
  "%2e%2e",
  "%2E%2E%2F%2E%2E",
  "%",
  "%2",
  "%ZZ",
  "%00",
  "%2F",
  "%5C",
  "%C0%AF",
  "%E2%82",
  "%FF%FE",
  "%F0%9F%92%A9",
  "%EF%BF%BD",
  "__proto__",
  "constructor",
  "prototype",
  "hasOwnProperty",
  "toString",
  "null",
  "undefined",
  "NaN",
  "-1",
  "0",
  "1e309",
  "9".repeat(400),
  "00000000-0000-0000-0000-000000000000",
  "*",
  "preview",
  ";jsessionid=1",
  "a?b=c",
];

/** Keys of the contract's request bodies, so that some bodies get past the first checks. */
const BODY_KEYS = [
  "name",
  "isPublic",
  "isSharedWithTeam",
  "mindId",
  "mindIds",
  "hypothesis",
  "intent",
  "subgroups",
  "id",
  "label",
  "definition",
  "userInput",
  "priorHypothesis",
  "deepen",
  "instruction",
  "sources",
  "requestedDistribution",
  "query",
  "distributions",
  "format",
  "kind",
  "force",
  "line_items",
  "currency",
  "capabilities",
  "metadata",
  "unit_amount",
  "quantity",
  "__proto__",
  "constructor",
  "prototype",
];

export function ids(manifest: Manifest): string[] {
  return [
    ...Object.values(manifest.audiences).map((a) => a.id),
    ...Object.values(manifest.minds).map((m) => m.id),
    ...Object.values(manifest.formations).map((f) => f.id),
    ...Object.values(manifest.users).map((u) => u.id),
    ...Object.values(manifest.prices).map((p) => p.id),
  ];
}

function segment(known: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...known) },
    { weight: 3, arbitrary: fc.constantFrom(...NASTY_SEGMENTS) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 12 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 8 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.integer({ min: 300, max: 9000 }).map((n) => "x".repeat(n)) },
  );
}

const QUERIES = [
  "",
  "?members=preview",
  "?members=all",
  "?members=",
  "?limit=0",
  "?limit=-1",
  "?limit=1e400",
  "?limit=10&limit=20",
  "?cursor=%ZZ",
  "?kind=brief&format=md",
  "?kind=brief&format=exe",
  "?filters=%7B%22country%22%3A%5B%22DE%22%5D%7D",
  "?filters=%7B",
  "?filters=%7B%22__proto__%22%3A%5B%22x%22%5D%7D",
  "?__proto__[x]=1",
  "?a=%00",
  "?&&&==",
];

/** A sandbox the runs may use (and a key and token that name one that does not exist). */
export interface SandboxUnderTest {
  id: string;
  controlToken: string;
  key: string;
}

/** A path from a contract template, a control-plane or page path, or nothing like any of them. */
export function target(manifest: Manifest, sandbox?: SandboxUnderTest): fc.Arbitrary<string> {
  const known = ids(manifest);
  const templates = operations.flatMap((op) => op.prefixes.map((p) => `${p}${op.path}`));
  const fromTemplate = fc
    .tuple(fc.constantFrom(...templates), fc.array(segment(known), { minLength: 4, maxLength: 4 }))
    .map(([t, segs]) => {
      let i = 0;
      return t.replace(/\{[^}]+\}/g, () => segs[i++ % segs.length] as string);
    });
  const mangled = fc
    .tuple(fromTemplate, fc.constantFrom("", "/", "//", "/..", "/./x", "/%2e%2e/", "/extra"))
    .map(([p, tail]) => p + tail);
  const random = fc
    .array(segment(known), { minLength: 0, maxLength: 6 })
    .chain((segs) =>
      fc
        .constantFrom(
          "/api/v1",
          "/v1",
          "/api/acp",
          "",
          "/__sim",
          "/checkout",
          "/api",
          "/sandboxes",
          "/__sim/sandboxes",
        )
        .map((prefix) => `${prefix}/${segs.join("/")}`),
    );
  const control = fc.constantFrom(
    "/__sim/manifest",
    "/__sim/scenarios",
    "/__sim/config",
    "/__sim/requests?limit=5",
    "/__sim/requests?limit=x",
    "/__sim/faults",
    "/__sim/clock/advance",
    "/_openapi.json",
    "/__sim/sandboxes",
    "/__sim/sandboxes/",
    "/__sim/sandboxes/zzzzzzzzzzzz/manifest",
    "/sandboxes/zzzzzzzzzzzz/checkout/x",
    ...(sandbox
      ? [
          `/__sim/sandboxes/${sandbox.id}`,
          `/__sim/sandboxes/${sandbox.id}/manifest`,
          `/__sim/sandboxes/${sandbox.id}/faults`,
          `/__sim/sandboxes/${sandbox.id}/config`,
          `/__sim/sandboxes/${sandbox.id}/clock/advance`,
          `/__sim/sandboxes/${sandbox.id}/nope`,
          `/sandboxes/${sandbox.id}/checkout/${sandbox.id}`,
          `/sandboxes/${sandbox.id}/`,
          `/sandboxes/${sandbox.id}/__sim/reset`,
          `/sandboxes/${sandbox.id}/__sim/faults`,
        ]
      : []),
  );
  return fc
    .tuple(
      fc.oneof(
        { weight: 6, arbitrary: fromTemplate },
        { weight: 2, arbitrary: mangled },
        { weight: 2, arbitrary: random },
        { weight: 1, arbitrary: control },
      ),
      fc.constantFrom(...QUERIES),
    )
    .map(([p, q]) => p + q);
}

export const METHODS = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE") },
  { weight: 1, arbitrary: fc.constantFrom("HEAD", "OPTIONS", "PROPFIND", "PURGE", "SEARCH", "REPORT") },
);

/** Authorization headers: every role's key, a sandbox's, and every way to get one wrong. */
export function authorization(manifest: Manifest, sandbox?: SandboxUnderTest): fc.Arbitrary<string> {
  const keys = [...Object.values(manifest.users).map((u) => u.apiKey), ...(sandbox ? [sandbox.key] : [])];
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...keys).map((k) => `Bearer ${k}`) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        "Bearer",
        "Bearer ",
        "Bearer service_",
        "Bearer service_x",
        `Bearer ${keys[0]}x`,
        `Bearer ${keys[0]} ${keys[1]}`,
        `bearer\t${keys[0]}`,
        `Basic ${Buffer.from("a:b").toString("base64")}`,
        `Bearer service_${"A".repeat(8000)}`,
        "Bearer ../../etc/passwd",
        "Bearer %00",
        "Token service_abc",
        "Bearer service_sbx_zzzzzzzzzzzz_abc",
        "Bearer service_sbx__",
      ),
    },
  );
}

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "APPLICATION/JSON",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/json, text/plain",
  "",
  ";;;",
];

const ACCEPTS = [
  "*/*",
  "application/json",
  "application/x-ndjson",
  "text/html",
  "application/json;q=0",
  "application/x-ndjson;q=0.5, application/json;q=0.6",
  "garbage;;;q=x",
  "image/png",
  "",
];

export function headers(manifest: Manifest, sandbox?: SandboxUnderTest): fc.Arbitrary<[string, string][]> {
  const pair = fc.oneof(
    {
      weight: 5,
      arbitrary: authorization(manifest, sandbox).map((v): [string, string] => ["authorization", v]),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("", "nope", ...(sandbox ? [sandbox.controlToken] : []))
        .map((v): [string, string] => ["x-sim-control-token", v]),
    },
    {
      weight: 4,
      arbitrary: fc.constantFrom(...CONTENT_TYPES).map((v): [string, string] => ["content-type", v]),
    },
    { weight: 2, arbitrary: fc.constantFrom(...ACCEPTS).map((v): [string, string] => ["accept", v]) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom("x-service-idempotency-key", "idempotency-key")
        .chain((name) =>
          fc
            .oneof(
              fc.constantFrom("", " ", "k1", "x".repeat(300), "\u00e9t\u00e9", "a,b"),
              fc.string({ maxLength: 20 }),
            )
            .map((v): [string, string] => [name, v]),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<[string, string]>(
        ["content-encoding", "gzip"],
        ["content-encoding", "br, identity"],
        ["x-forwarded-host", "evil.example"],
        ["x-forwarded-proto", "gopher"],
        ["origin", "https://evil.example"],
        ["range", "bytes=0-1"],
        ["if-none-match", "*"],
        ["x-sim-control-token", "nope"],
        ["cookie", "session=__proto__"],
        ["x-large", "v".repeat(12_000)],
        ["user-agent", "\u00ff\u00fe odd latin1 bytes"],
      ),
    },
  );
  // No `Expect: 100-continue` here: undici refuses it, and after two refusals its pool hangs (a client bug);
  // the raw-socket runs send it instead.
  return fc.array(pair, { maxLength: 6 });
}

function nested(depth: number, kind: "array" | "object"): string {
  return kind === "array"
    ? "[".repeat(depth) + "]".repeat(depth)
    : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
}

/** A JSON object of contract keys with values of every kind (some of them right). */
const plausible = fc
  .dictionary(
    fc.constantFrom(...BODY_KEYS),
    fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.constantFrom("md", "pdf", "brief", "usd", "price_credits", "x".repeat(5000), -1, 1e308, true),
    ),
    { maxKeys: 4 },
  )
  .map((o) => JSON.stringify(o));

export const BODIES: fc.Arbitrary<string | Buffer | null> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 4, arbitrary: plausible },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "",
      "{",
      "}",
      "nul",
      "{'a':1}",
      '{"a":1,}',
      '{"a":1}{"b":2}',
      "[1,2",
      "\u0000",
      "\ufeff{}",
      "{}",
      "[]",
      "null",
      "0",
      '"string"',
      "1e400",
      "-1e400",
      "123456789012345678901234567890123456789",
      `{"name":${"9".repeat(500)}}`,
      '{"name":1e999}',
      '{"__proto__":{"polluted":true},"name":"p"}',
      '{"constructor":{"prototype":{"polluted":true}},"name":"c"}',
      '{"name":"a","name":"b"}',
      '{"name":"\\ud800"}',
      "name=x&isPublic=true",
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.integer({ min: 60, max: 20_000 }), fc.constantFrom<"array" | "object">("array", "object"))
      .map(([d, k]) => nested(d, k)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      Buffer.from([0xc3, 0x28]),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
      Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? "null") },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        () => JSON.stringify({ name: "a".repeat(MB) }),
        () => JSON.stringify({ deepen: { topics: ["x".repeat(MB)] } }),
        () => "x".repeat(MB + 10),
      )
      .map((make) => make()),
  },
);

export function hostileRequest(manifest: Manifest, sandbox?: SandboxUnderTest): fc.Arbitrary<HostileRequest> {
  return fc
    .record({
      method: METHODS,
      target: target(manifest, sandbox),
      headers: headers(manifest, sandbox),
      body: BODIES,
    })
    .map((r) => ({
      ...r,
      // Bodies on GET and HEAD are not what these runs are about (undici refuses them anyway).
      body: r.method === "GET" || r.method === "HEAD" ? null : r.body,
    }));
}

/** For reports: the request without megabytes of body. */
export function describeRequest(r: HostileRequest): string {
  const body =
    r.body === null
      ? "(no body)"
      : Buffer.isBuffer(r.body)
        ? `bytes ${r.body.subarray(0, 40).toString("hex")}${r.body.length > 40 ? "…" : ""}`
        : `${JSON.stringify(r.body.slice(0, 120))}${r.body.length > 120 ? `… (${r.body.length} chars)` : ""}`;
  const hs = r.headers.map(([n, v]) => `${n}: ${v.length > 80 ? `${v.slice(0, 80)}…` : v}`).join(" | ");
  return `${r.method} ${r.target.length > 200 ? `${r.target.slice(0, 200)}…` : r.target} [${hs}] ${body}`;
}
