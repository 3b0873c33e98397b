import { describe, expect, it } from "vitest";
import { harness } from "../../../testing/harness.ts";
import { ownContract } from "../../contract/contract.ts";
import { resolvePointer } from "../../contract/document.ts";
import { type Operation, operations } from "../../contract/operations.ts";
import { checkResponse } from "../../contract/responses.ts";
import { parsePrefer, sampleSchema } from "./preferred-answers.ts";

type Json = Record<string, any>;

/** A concrete path for an operation; Prefer answers before any ID is looked at. */
function concrete(op: Operation): string {
  return `${op.prefixes[0]}${op.path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000")}`;
}

function responseOf(op: Operation, status: number): Json {
  let r = resolvePointer(
    `#/paths/${op.path.replaceAll("/", "~1")}/${op.method.toLowerCase()}/responses/${status}`,
  ) as Json;
  while (r.$ref) r = resolvePointer(r.$ref) as Json;
  return r;
}

const withoutUrl = (b: any) =>
  b && typeof b === "object" && b.error === true ? { ...b, url: undefined } : b;

describe("parsePrefer", () => {
  it("reads Prism's preferences and ignores others", () => {
    expect(parsePrefer("code=404")).toEqual({ code: 404 });
    expect(parsePrefer('code=200, example="big one", dynamic=true')).toEqual({
      code: 200,
      example: "big one",
      dynamic: true,
    });
    expect(parsePrefer("return=minimal, respond-async")).toBeNull();
    expect(parsePrefer("dynamic=false; foo=bar")).toEqual({ dynamic: false });
  });

  it("refuses malformed values with a 422", () => {
    for (const bad of ["code=abc", "code=99", "code=600", "example=", "dynamic=maybe"]) {
      expect(() => parsePrefer(bad), bad).toThrow(expect.objectContaining({ status: 422 }));
    }
  });
});

describe("Prefer: code= and example=", async () => {
  const h = await harness({ rateLimitPerMinute: 1_000_000 });

  const cases = operations
    .filter((op) => op.authenticated)
    .flatMap((op) => op.statuses.map((status) => ({ op, status })));

  it.each(
    cases.map((c) => [`${c.op.operationId} ${c.status}`, c] as const),
  )("%s: answers the documented status with a contract-valid body", async (_, { op, status }) => {
    const r = await h.call(op.method, concrete(op), { headers: { prefer: `code=${status}` } });
    expect(r.status).toBe(status);
    expect(r.headers.get("preference-applied")).toBe(`code=${status}`);
    expect(checkResponse(op.operationId, r.status, r.headers, r.text)).toEqual([]);
    const media = Object.values((responseOf(op, status).content ?? {}) as Json)[0] as Json | undefined;
    if (media?.examples) {
      const first = (Object.values(media.examples)[0] as Json).value;
      if (r.headers.get("content-type")?.startsWith("application/json"))
        expect(withoutUrl(r.body)).toEqual(withoutUrl(first));
    }
    if (r.body?.error === true) expect(r.body.url).toBe(concrete(op));
  });

  const named = operations.flatMap((op) =>
    op.statuses.flatMap((status) =>
      Object.entries((responseOf(op, status).content ?? {}) as Json).flatMap(([mediaType, m]) =>
        Object.entries(((m as Json).examples ?? {}) as Json).map(([name, ex]) => ({
          op,
          status,
          mediaType,
          name,
          value: (ex as Json).value,
        })),
      ),
    ),
  );

  it("serves every named example of the contract by name", async () => {
    expect(named.length).toBeGreaterThan(20);
    for (const { op, status, mediaType, name, value } of named) {
      if (!op.authenticated) continue;
      const r = await h.call(op.method, concrete(op), {
        headers: { prefer: `code=${status}, example=${name}`, accept: mediaType },
      });
      expect(r.status, `${op.operationId} ${status} ${name}`).toBe(status);
      expect(r.headers.get("preference-applied")).toBe(`code=${status}, example=${name}`);
      if (mediaType === "application/json") expect(withoutUrl(r.body)).toEqual(withoutUrl(value));
    }
  });

  it("finds a named example without code=", async () => {
    const hit = named.find((n) => n.op.authenticated && n.status >= 400)!;
    const r = await h.call(hit.op.method, concrete(hit.op), { headers: { prefer: `example=${hit.name}` } });
    expect(r.status).toBe(hit.status);
  });

  it("answers 422 naming the documented codes for an undocumented one", async () => {
    const r = await h.call("GET", "/api/v1/auth/me", { headers: { prefer: "code=418" }, unchecked: true });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({
      statusCode: 422,
      error: true,
      url: "/api/v1/auth/me",
      message: "getMe does not document status 418; it documents 200, 401, 414, 429, 431",
      data: { code: "PREFER_UNDOCUMENTED_STATUS", requested: 418, documented: [200, 401, 414, 429, 431] },
    });
  });

  it("answers 422 listing the examples for an unknown example name", async () => {
    const r = await h.call("GET", "/api/v1/auth/me", {
      headers: { prefer: "code=401, example=nope" },
      unchecked: true,
    });
    expect(r.status).toBe(422);
    expect(r.body.data).toMatchObject({ code: "PREFER_UNKNOWN_EXAMPLE", example: "nope", status: 401 });
    expect(r.body.message).toMatch(/has no example named "nope" for status 401; it has missingKey/);
  });

  it("still authenticates first: no key is a 401 whatever is preferred", async () => {
    const r = await h.call("GET", "/api/v1/auth/me", { as: null, headers: { prefer: "code=200" } });
    expect(r.status).toBe(401);
    expect(r.headers.get("preference-applied")).toBeNull();
  });

  it("changes no state: a preferred 204 on DELETE deletes nothing", async () => {
    const id = h.id("audiences", "empty");
    const r = await h.call("DELETE", `/api/v1/audiences/${id}`, { headers: { prefer: "code=204" } });
    expect(r.status).toBe(204);
    expect((await h.call("GET", `/api/v1/audiences/${id}`)).status).toBe(200);
  });

  it("picks the media type the Accept header asks for", async () => {
    const r = await h.call("GET", "/api/v1/audiences/x/export-download", {
      headers: { prefer: "code=200", accept: "text/markdown" },
    });
    expect(r.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
  });

  it("leaves requests with other preferences alone", async () => {
    const r = await h.call("GET", "/api/v1/auth/me", { headers: { prefer: "return=minimal" } });
    expect(r.status).toBe(200);
    expect(r.body.id ?? r.body.data?.id).toBe(h.id("users", "owner"));
    expect(r.headers.get("preference-applied")).toBeNull();
  });

  it("without a generator, dynamic=true serves the example and says so", async () => {
    const r = await h.call("GET", "/api/v1/auth/me", { headers: { prefer: "dynamic=true" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-sim-prefer-fallback")).toMatch(/needs the Node host/);
    expect(r.headers.get("preference-applied")).toBe("code=200");
  });

  it("uses an injected generator for dynamic=true and falls back when it gives up", async () => {
    const seen: unknown[] = [];
    const g = await harness({
      generateBody: (input) => {
        seen.push(input);
        return input.status === 200 ? { data: { generated: true } } : undefined;
      },
    });
    const r = await g.call("GET", "/api/v1/auth/me", {
      headers: { prefer: "dynamic=true" },
      unchecked: true,
    });
    expect(r.body).toEqual({ data: { generated: true } });
    expect(r.headers.get("preference-applied")).toBe("code=200, dynamic=true");
    expect(seen[0]).toMatchObject({ operationId: "getMe", status: 200, mediaType: "application/json" });
    const f = await g.call("GET", "/api/v1/auth/me", { headers: { prefer: "code=401, dynamic=true" } });
    expect(f.status).toBe(401);
    expect(f.headers.get("x-sim-prefer-fallback")).toMatch(/no contract-valid body/);
  });

  it("says why a host's generator cannot run at all (its optional peer missing) instead of a vague fallback", async () => {
    const missing = "@stoplight/prism-http is not installed (an optional peer)";
    const g = await harness({ generateBody: Object.assign(async () => undefined, { unavailable: missing }) });
    const r = await g.call("GET", "/api/v1/auth/me", { headers: { prefer: "dynamic=true" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-sim-prefer-fallback")).toBe(
      `dynamic=true: ${missing}; served the contract's example`,
    );
    expect(r.headers.get("preference-applied")).toBe("code=200");
  });
});

describe("sampleSchema", () => {
  it("builds a body that satisfies a schema from its shape alone", () => {
    expect(
      sampleSchema(
        {
          type: "object",
          required: ["id", "n", "tags", "kind"],
          properties: {
            id: { type: "string", format: "uuid" },
            n: { type: "integer", minimum: 1 },
            tags: { type: "array", minItems: 1, items: { type: "string", minLength: 2 } },
            kind: { enum: ["a", "b"] },
          },
        },
        0,
        ownContract,
      ),
    ).toEqual({ id: "00000000-0000-4000-8000-000000000000", n: 1, tags: ["xx"], kind: "a" });
  });
});
