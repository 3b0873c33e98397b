/**
 * Generic checks: generated from the operation table, so a new operation in openapi.json is covered with
 * no new code. Every exchange they make is also held to the response rules (documented status, schema,
 * Content-Type, envelope, rate-limit headers, never 5xx).
 */
import fc from "fast-check";
import { isAcp, isV1, type Operation, operations, resolve } from "../lib/description/contract.ts";
import type { RuleId } from "../lib/description/rules.ts";
import type { Exchange } from "../lib/http/http.ts";
import type { Role } from "../lib/http/target.ts";
import { breakOne, mutations, NOT_AN_OBJECT, NOT_JSON, validBody } from "../lib/properties/arbitraries.ts";
import type { PathParams } from "../lib/properties/resources.ts";
import { hasShape, malformedArb, realParams, unknownArb } from "../lib/properties/resources.ts";
import { fingerprint } from "../lib/properties/state.ts";
import { type CheckContext, type CheckDef, check } from "../lib/running/context.ts";
import { wrongMethod } from "./generic/methods.ts";
import { optionalBodies } from "./generic/optional-bodies.ts";

const authenticated = (): Operation[] => operations().filter((o) => o.authenticated);
const isRead = (o: Operation) => o.method === "GET";
const pathParams = (o: Operation) => o.parameters.filter((p) => p.in === "path");

/** A schema-valid body sample for an operation, so that only the thing under test is wrong. */
function sampleBody(o: Operation, seed: number): unknown {
  if (!o.bodySchemaRef) return undefined;
  if (o.operationId === "createCheckoutSession")
    return { line_items: [{ id: "price_conformance" }], currency: "usd", capabilities: {} };
  return fc.sample(validBody(o.bodySchemaRef), { numRuns: 1, seed })[0];
}

function acpHeaders(o: Operation, seed: number): Record<string, string> {
  return o.operationId === "createCheckoutSession"
    ? { "idempotency-key": `conformance-${seed}-${Date.now()}` }
    : {};
}

/**
 * Calls `o` with these path parameters and a valid body, so only the parameters can be wrong, as someone
 * it would otherwise serve: for reads a reader of main other than the owner where the target has one (the
 * owner's rate-limit window is the one every check wants), for writes who the refused bodies come from.
 */
const callWith = (ctx: CheckContext, o: Operation, params: PathParams): Promise<Exchange> =>
  ctx.call({
    op: o.operationId,
    params,
    as: ctx.as(
      isRead(o) ? (ctx.target.has("admin") ? "admin" : "owner") : (bodyCaller(ctx, o.operationId) ?? "owner"),
    ),
    json: sampleBody(o, ctx.info.seed),
    headers: acpHeaders(o, ctx.info.seed),
  });

/** Unknown-but-well-formed values for every path parameter (so nothing real can be touched). */
function unknownParams(o: Operation, seed: number): PathParams {
  return Object.fromEntries(
    pathParams(o).map((p, i) => [
      p.name,
      fc.sample(unknownArb(p.schema), { numRuns: 1, seed: seed + i })[0] as string,
    ]),
  );
}

/** Authorization headers that carry no valid key. */
function badAuthorizations(ctx: CheckContext): { label: string; value: string | null }[] {
  const some = Object.values(ctx.info.keys)[0] ?? "service_x";
  return [
    { label: "no Authorization header", value: null },
    { label: "empty bearer", value: "Bearer " },
    { label: "scheme only", value: "Bearer" },
    { label: "Basic credentials", value: "Basic dXNlcjpwYXNz" },
    { label: "not a service_ key", value: "Bearer not-a-key" },
    { label: "unknown service_ key", value: "Bearer service_ConformanceUnknownKey0000000000000000000" },
    { label: "a real key with a character added", value: `Bearer ${some}x` },
    { label: "a real key without the scheme", value: some },
  ];
}

export const authCheck = check("generic/auth-401", ["auth/401", "errors/envelope"], {
  async run(ctx) {
    for (const o of authenticated()) {
      const prefixes = isV1(o) ? ctx.target.v1Prefixes() : [ctx.target.prefixFor(o.prefixes)];
      for (const [pi, prefix] of prefixes.entries()) {
        const variants = pi === 0 ? badAuthorizations(ctx) : badAuthorizations(ctx).slice(0, 2);
        for (const v of variants) await ctx.part(() => expect401(ctx, o, prefix, v.value, v.label));
      }
    }
    // Arbitrary junk in the header, against random operations.
    const junk = fc
      .tuple(
        fc.constantFrom(...authenticated()),
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 60 }).map((s) => `Bearer ${s.trim() || "x"}`),
          fc.stringMatching(/^service_[A-Za-z0-9]{1,60}$/).map((s) => `Bearer ${s}`),
          fc.stringMatching(/^[A-Za-z]{1,10} [!-~]{1,40}$/),
        ),
      )
      .filter(([, value]) => !Object.values(ctx.info.keys).some((k) => value.endsWith(` ${k}`)));
    await ctx.property(
      "junk Authorization",
      junk,
      async ([o, value]) => {
        await ctx.part(() => expect401(ctx, o, ctx.target.prefixFor(o.prefixes), value, "junk"));
      },
      { numRuns: 25 },
    );
  },
});

async function expect401(
  ctx: CheckContext,
  o: Operation,
  prefix: string,
  auth: string | null,
  label: string,
) {
  const seed = ctx.info.seed;
  const ex = await ctx.call({
    op: o.operationId,
    prefix,
    params: unknownParams(o, seed),
    headers: acpHeaders(o, seed),
    json: sampleBody(o, seed),
    as: null,
    ...(auth !== null ? { authorization: auth } : {}),
  });
  ctx.requireStatus(ex, 401, "auth/401", `${label}:`);
  if (isV1(o)) {
    const msg = ex.body?.statusMessage;
    ctx.expect(msg === "Unauthorized", "auth/401", `${label}: statusMessage is ${JSON.stringify(msg)}`, ex);
  }
}

function malformedCheck(reads: boolean): CheckDef {
  return {
    name: `generic/malformed-ids-${reads ? "reads" : "writes"}`,
    rules: ["ids/malformed-400", "ids/messages"],
    title: `${reads ? "reads" : "writes"}: a malformed path ID gives the documented 400 (or 404 where no 400 is documented), with the message x-error-messages names`,
    needs: { roles: ["owner"], audiences: ["main"], ...(reads ? {} : { changeable: ["main"] }) },
    mutates: !reads,
    async run(ctx) {
      for (const o of operations().filter((x) => isRead(x) === reads && x.authenticated)) {
        for (const p of pathParams(o).filter((x) => hasShape(x.schema))) {
          const expected = o.statuses.includes(400) ? 400 : o.statuses.includes(404) ? 404 : null;
          const params = paramsExcept(o, ctx, p.name);
          if (expected === null || params === null) continue;
          await ctx.property(
            `${o.operationId}.${p.name}`,
            malformedArb(p.schema),
            async (bad) => {
              const ex = await callWith(ctx, o, { ...params, [p.name]: bad });
              ctx.coverage.limit(
                `${o.operationId}:path:${p.name}:${resolve(p.schema).format ? "format" : "pattern"}`,
              );
              if (ctx.expectStatus(ex, expected, "ids/malformed-400", `${p.name}=${JSON.stringify(bad)}`))
                expectMessage(ctx, ex, expected === 400 ? p.messages?.invalid : undefined, p.name);
            },
            { numRuns: 4 },
          );
          // A blank value is "missing": the other message of the pair.
          if (expected === 400 && p.messages) {
            const ex = await callWith(ctx, o, { ...params, [p.name]: " " });
            if (ctx.expectStatus(ex, 400, "ids/malformed-400", `${p.name} blank`))
              expectMessage(ctx, ex, p.messages.missing, `${p.name} blank`);
          }
        }
      }
    },
  };
}

/** `x-error-messages` states the exact words, unlike other messages ("wording may change"). */
function expectMessage(ctx: CheckContext, ex: Exchange, message: string | undefined, label: string): void {
  const got = ex.body?.statusMessage;
  // Where x-error-messages states none, the words are free ("wording may change"): nothing to hold.
  ctx.expect(
    message === undefined || got === message,
    "ids/messages",
    `${label}: statusMessage ${JSON.stringify(got)}, not ${JSON.stringify(message)}`,
    ex,
  );
}

export const malformedReads = malformedCheck(true);
export const malformedWrites = malformedCheck(false);

/** Path parameters whose unknown value is answered as success, not 404, by the description. */
const IDEMPOTENT_UNKNOWN: Record<string, string> = {
  "removeMember.mindId": "Removing a non-member still returns 204",
};

function unknownCheck(reads: boolean): CheckDef {
  return {
    name: `generic/unknown-ids-${reads ? "reads" : "writes"}`,
    rules: ["ids/unknown-404"],
    title: `${reads ? "reads" : "writes"}: an ID that names nothing gives 404`,
    needs: { roles: ["owner"], audiences: ["main"], ...(reads ? {} : { changeable: ["main"] }) },
    mutates: !reads,
    async run(ctx) {
      for (const o of operations().filter((x) => isRead(x) === reads && x.authenticated)) {
        if (!o.statuses.includes(404)) continue;
        for (const p of pathParams(o)) {
          const others = paramsExcept(o, ctx, p.name);
          if (others === null) continue;
          await ctx.property(
            `${o.operationId}.${p.name}`,
            unknownArb(p.schema),
            async (unknown) => {
              const ex = await callWith(ctx, o, { ...others, [p.name]: unknown });
              const idempotent = IDEMPOTENT_UNKNOWN[`${o.operationId}.${p.name}`];
              if (idempotent) {
                const ok = ex.status >= 200 && ex.status < 300;
                ctx.expect(ok, "ids/unknown-404", `unknown ${p.name} answered ${ex.status}`, ex);
              } else {
                ctx.expectStatus(ex, 404, "ids/unknown-404", `unknown ${p.name}`);
              }
            },
            { numRuns: 2 },
          );
          // A parameter the contract gives no shape (any string) has no malformed value: a blank one names
          // nothing, and is answered 404, not 400 "… ID is required".
          if (!hasShape(p.schema) && !IDEMPOTENT_UNKNOWN[`${o.operationId}.${p.name}`]) {
            const ex = await callWith(ctx, o, { ...others, [p.name]: " " });
            ctx.expectStatus(ex, 404, "ids/unknown-404", `blank ${p.name}, which the contract allows`);
          }
        }
      }
    },
  };
}

/** Real values for every path parameter but `name`, or null when the target has none for one of them. */
function paramsExcept(o: Operation, ctx: CheckContext, name: string): PathParams | null {
  const out: PathParams = {};
  for (const p of pathParams(o)) {
    if (p.name === name) continue;
    const real = realParams({ ...o, parameters: [p] }, ctx.target);
    if (typeof real === "string") return null;
    Object.assign(out, real);
  }
  return out;
}

export const unknownReads = unknownCheck(true);
export const unknownWrites = unknownCheck(false);

function hiddenCheck(reads: boolean): CheckDef {
  return {
    name: `generic/hidden-existence-${reads ? "reads" : "writes"}`,
    rules: ["access/hidden-as-404"],
    title: `${reads ? "reads" : "writes"}: an Audience the caller cannot view answers exactly like one that does not exist (404, never 403)`,
    needs: {
      roles: ["outsider"],
      audiences: ["private", "main"],
      ...(reads ? {} : { changeable: ["private"] }),
    },
    mutates: !reads,
    async run(ctx) {
      for (const o of operations().filter((x) => isRead(x) === reads && x.authenticated && !isAcp(x))) {
        if (!o.statuses.includes(404) || !pathParams(o).some((p) => p.name === "audienceId")) continue;
        const real = realParams(o, ctx.target, "main");
        if (typeof real === "string") continue;
        const call = (audienceId: string) =>
          ctx.call({
            op: o.operationId,
            params: { ...real, audienceId },
            as: ctx.as("outsider"),
            json: sampleBody(o, ctx.info.seed),
          });
        const hidden = await call(ctx.target.audience("private"));
        const missing = await call(
          fc.sample(fc.uuid({ version: 4 }), { numRuns: 1, seed: ctx.info.seed })[0] as string,
        );
        await ctx.part(() => compareHidden(ctx, o, hidden, missing));
      }
    },
  };
}

function compareHidden(ctx: CheckContext, o: Operation, hidden: Exchange, missing: Exchange): void {
  ctx.require(
    hidden.status === 404,
    "access/hidden-as-404",
    `${o.operationId}: a private Audience answered ${hidden.status} to an outsider, not 404`,
    hidden,
  );
  const a = hidden.body ?? {};
  const b = missing.body ?? {};
  ctx.expect(
    a.statusMessage === b.statusMessage && a.data?.code === b.data?.code,
    "access/hidden-as-404",
    `${o.operationId}: a private Audience (${JSON.stringify(a.statusMessage)}) and a missing one (${JSON.stringify(b.statusMessage)}) answer differently`,
    hidden,
  );
}

export const hiddenReads = hiddenCheck(true);
export const hiddenWrites = hiddenCheck(false);

/** Resources the operation could change, read before and after: the GET operations() its path extends. */
function probesFor(o: Operation): Operation[] {
  return operations().filter(
    (g) =>
      g.method === "GET" &&
      g.authenticated &&
      !isAcp(g) &&
      (o.path === g.path || o.path.startsWith(`${g.path}/`)) &&
      pathParams(g).every((p) => pathParams(o).some((q) => q.name === p.name)),
  );
}

/** The state `probes` read, as `caller` sees it (its own keys, sessions and Audiences). */
async function probe(
  ctx: CheckContext,
  probes: Operation[],
  params: PathParams,
  caller: Role,
): Promise<string> {
  const parts: string[] = [];
  for (const g of probes) {
    const ex = await ctx.call({ op: g.operationId, params, as: ctx.as(caller) });
    parts.push(`${g.operationId}:${ex.status}:${fingerprint(ex.json)}`);
  }
  return parts.join("\n");
}

/**
 * Who sends the refused bodies: someone the operation would otherwise serve, so that nothing but the
 * body is wrong (the owner is at the premium Mind cap, so a duplicate could be refused for the plan).
 * Besides the owner where only the owner is served, they are spread over the accounts: against a
 * deployment each account has its own rate-limit window, and the owner's is the one every check wants.
 */
const BODY_CALLERS: Record<string, Role[]> = {
  createApiKey: ["solo"],
  updateAudience: ["admin"],
  duplicateAudience: ["teammate"],
  createFormation: ["member"],
  previewFormation: ["admin"],
  createCheckoutSession: ["sso"],
};

function bodyCaller(ctx: CheckContext, operationId: string): Role | null {
  const callers = BODY_CALLERS[operationId];
  const found = callers?.find((r) => ctx.target.has(r));
  if (found) return found;
  // A duplicate by the owner could be refused for the plan's Mind cap, not for its body.
  if (operationId === "duplicateAudience") return null;
  return ctx.target.has("owner") ? "owner" : null;
}

export const invalidBodies = check("generic/invalid-bodies", ["input/invalid-400"], {
  title: "bodies not JSON, not an object, or breaking one schema constraint: 400, and nothing changes",
  needs: { roles: ["owner"], changeable: ["main"] },
  mutates: true,
  async run(ctx) {
    await refusedBodies(ctx, "input/invalid-400", "rejected requests", async (o, params, caller, sent) => {
      const send = async (rule: string, text: string) => {
        const ex = await ctx.call({
          op: o.operationId,
          params,
          as: ctx.as(caller),
          body: text,
          headers: { "content-type": "application/json", ...acpHeaders(o, sent.length + ctx.info.seed) },
        });
        sent.push(ex);
        ctx.expectStatus(ex, 400, "input/invalid-400", `${rule}:`);
      };
      for (const c of [...NOT_JSON, ...NOT_AN_OBJECT]) await send(c.rule, c.text);
      const pointer = o.bodySchemaRef as string;
      const ms = mutations({ $ref: pointer });
      await ctx.property(
        `${o.operationId} one constraint broken`,
        validBody(pointer),
        async (valid) => {
          for (const m of ms) {
            const broken = breakOne(pointer, valid, m);
            if (broken === null) continue;
            ctx.coverage.limit(`${o.operationId}:${m.where}:${m.keyword}`);
            await send(m.rule, JSON.stringify(broken));
          }
        },
        { numRuns: 2 },
      );
    });
  },
});

/**
 * For every authenticated operation that takes a JSON body, on a real resource and as a caller it would
 * otherwise serve: runs `send`, which makes requests that must all be refused, and reports if what the
 * operation could change (read before and after) changed.
 */
async function refusedBodies(
  ctx: CheckContext,
  rule: RuleId,
  what: string,
  send: (o: Operation, params: PathParams, caller: Role, sent: Exchange[]) => Promise<void>,
): Promise<void> {
  for (const o of operations().filter((x) => x.bodySchemaRef && x.authenticated)) {
    const params = realParams(o, ctx.target);
    if (typeof params === "string") continue;
    const caller = bodyCaller(ctx, o.operationId);
    if (!caller) continue;
    const probes = probesFor(o);
    const before = await probe(ctx, probes, params, caller);
    const sent: Exchange[] = [];
    await send(o, params, caller, sent);
    const after = await probe(ctx, probes, params, caller);
    if (before !== after) {
      ctx.report({
        rule,
        message: `${o.operationId}: state read through ${probes.map((p) => p.operationId).join(", ")} changed after ${sent.length} ${what} (first difference: ${firstDifference(before, after)})`,
        exchange: sent.find((e) => e.status < 300) ?? sent[0] ?? null,
      });
    }
  }
}

/** Content-Types a JSON operation must refuse even when the bytes are valid JSON. */
const NOT_JSON_TYPES = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"];

export const mediaTypes = check("generic/media-type", ["input/media-type-415"], {
  needs: { roles: ["owner"], changeable: ["main"] },
  mutates: true,
  async run(ctx) {
    await refusedBodies(
      ctx,
      "input/media-type-415",
      "bodies of the wrong type",
      async (o, params, caller, sent) => {
        const text = JSON.stringify(sampleBody(o, ctx.info.seed) ?? {});
        for (const [i, type] of [...NOT_JSON_TYPES, null].entries()) {
          const ex = await ctx.call({
            op: o.operationId,
            params,
            as: ctx.as(caller),
            body: text,
            headers: {
              ...(type === null ? {} : { "content-type": type }),
              ...acpHeaders(o, i + ctx.info.seed),
            },
          });
          sent.push(ex);
          ctx.coverage.limit(`${o.operationId}:content-type`);
          ctx.expectStatus(
            ex,
            415,
            "input/media-type-415",
            `${o.operationId}: a JSON body sent as ${type ?? "no Content-Type"}`,
          );
        }
        // A JSON media type with parameters is still JSON: a body (here a wrong one, so that nothing
        // changes) is judged as JSON, not refused as another type.
        for (const type of ["application/json; charset=utf-8", "Application/JSON"]) {
          const ex = await ctx.call({
            op: o.operationId,
            params,
            as: ctx.as(caller),
            body: "[]",
            headers: { "content-type": type, ...acpHeaders(o, ctx.info.seed + 7) },
          });
          sent.push(ex);
          ctx.expect(
            ex.status !== 415,
            "input/media-type-415",
            `${o.operationId}: a body sent as ${type} was refused as another media type (415)`,
            ex,
          );
        }
      },
    );
  },
});

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `…${a.slice(Math.max(0, i - 60), i + 60)}… became …${b.slice(Math.max(0, i - 60), i + 60)}…`;
}

export const invalidQuery = check("generic/invalid-query", ["input/invalid-400"], {
  title: "query parameters outside their schema are answered 400",
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    for (const o of operations().filter((x) => isRead(x) && x.statuses.includes(400))) {
      const params = realParams(o, ctx.target);
      if (typeof params === "string") continue;
      for (const p of o.parameters.filter((x) => x.in === "query")) {
        const s = resolve(p.schema);
        if (s.contentMediaType) continue; // JSON-in-a-string (`filters`): the limits check covers it
        for (const bad of badScalars(s)) {
          const ex = await ctx.call({
            op: o.operationId,
            params,
            as: ctx.as("owner"),
            query: { [p.name]: bad.value },
          });
          ctx.coverage.limit(`${o.operationId}:query:${p.name}:${bad.keyword}`);
          ctx.expectStatus(
            ex,
            400,
            "input/invalid-400",
            `${p.name}=${JSON.stringify(bad.value)} (${bad.keyword})`,
          );
        }
      }
    }
  },
});

/** Scalar query values that break the schema, one constraint each. */
export function badScalars(s: Record<string, unknown>): { keyword: string; value: string }[] {
  const out: { keyword: string; value: string }[] = [];
  if (s.type === "integer") {
    out.push({ keyword: "type", value: "abc" }, { keyword: "type", value: "1.5" });
    if (typeof s.minimum === "number") out.push({ keyword: "minimum", value: String(s.minimum - 1) });
    if (typeof s.maximum === "number") out.push({ keyword: "maximum", value: String(s.maximum + 1) });
  }
  if (Array.isArray(s.enum)) out.push({ keyword: "enum", value: "not-in-the-enum" });
  return out;
}

export const prefixes = check("generic/v1-prefixes", ["versioning/prefixes"], {
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    const [main, ...others] = ctx.target.v1Prefixes();
    if (!main) return ctx.inconclusive("the target names no v1 prefix");
    for (const o of operations().filter((x) => isRead(x) && isV1(x))) {
      const params = realParams(o, ctx.target);
      if (typeof params === "string") continue;
      const a = await ctx.call({ op: o.operationId, params, as: ctx.as("owner"), prefix: main });
      for (const prefix of others) {
        const b = await ctx.call({ op: o.operationId, params, as: ctx.as("owner"), prefix });
        ctx.expect(
          a.status === b.status,
          "versioning/prefixes",
          `${o.operationId}: ${main} answered ${a.status}, ${prefix} answered ${b.status}`,
          b,
        );
      }
    }
  },
});

export const validReads = check("generic/valid-reads", ["contract/responses"], {
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    for (const o of operations().filter(isRead)) {
      const params = realParams(o, ctx.target);
      if (typeof params === "string") continue;
      const ex = await ctx.call({
        op: o.operationId,
        params,
        ...(o.authenticated ? { as: ctx.as("owner") } : {}),
      });
      // A download exists only once an export is ready; its 404 is the documented "nothing to download".
      if (o.operationId === "downloadExport" && ex.status === 404) continue;
      ctx.expect(
        ex.status >= 200 && ex.status < 300,
        "contract/responses",
        `${o.operationId} answered ${ex.status}`,
        ex,
      );
    }
  },
});

export const genericChecks: CheckDef[] = [
  validReads,
  authCheck,
  malformedReads,
  malformedWrites,
  unknownReads,
  unknownWrites,
  hiddenReads,
  hiddenWrites,
  invalidQuery,
  invalidBodies,
  optionalBodies,
  mediaTypes,
  prefixes,
  wrongMethod,
];
