import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSimulator, type Simulator } from "../simulator.ts";
import { CORS_EXPOSED_HEADERS, CORS_REQUEST_HEADERS, parseCorsOrigin } from "./cors.ts";
import { nodeHandler } from "./host.ts";
import { type RunningServer, startServer } from "./server.ts";

const APP = "http://localhost:5173";

async function serve(corsOrigins?: string[]): Promise<{ sim: Simulator; server: RunningServer }> {
  const sim = createSimulator({ clock: "manual" });
  await sim.ready;
  const server = await startServer(nodeHandler(sim, corsOrigins ? { corsOrigins } : {}), {
    port: 0,
    host: "127.0.0.1",
  });
  return { sim, server };
}

async function call(url: string, method: string, headers: Record<string, string>) {
  const r = await request(url, { method: method as "GET", headers });
  const text = await r.body.text();
  return { status: r.statusCode, headers: r.headers as Record<string, string | undefined>, text };
}

describe("CORS on the Node host", () => {
  let any: { sim: Simulator; server: RunningServer };
  let listed: { sim: Simulator; server: RunningServer };
  beforeAll(async () => {
    any = await serve();
    listed = await serve([APP, "https://app.example.com"]);
  });
  afterAll(async () => {
    await any.server.close();
    await listed.server.close();
  });

  const preflight = (base: string, origin: string, method = "POST") =>
    call(`${base}/api/v1/audiences/x/formations`, "OPTIONS", {
      origin,
      "access-control-request-method": method,
      "access-control-request-headers": "authorization, content-type, x-service-idempotency-key, prefer",
    });

  it("answers a preflight with the API's methods and headers (default: any origin)", async () => {
    const r = await preflight(any.server.url, APP);
    expect(r.status).toBe(204);
    expect(r.headers["access-control-allow-origin"]).toBe("*");
    for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE"])
      expect(r.headers["access-control-allow-methods"]).toContain(m);
    const allowed = (r.headers["access-control-allow-headers"] ?? "").toLowerCase().split(/,\s*/);
    for (const h of CORS_REQUEST_HEADERS) expect(allowed).toContain(h.toLowerCase());
    for (const h of ["idempotency-key", "api-version", "x-sim-control-token"]) expect(allowed).toContain(h);
    expect(r.headers["access-control-max-age"]).toBe("600");
    expect(r.headers["access-control-allow-credentials"]).toBeUndefined();
  });

  it("exposes the rate-limit headers and Retry-After on actual responses", async () => {
    const key = any.sim.manifest().users.owner!.apiKey;
    const r = await call(`${any.server.url}/api/v1/auth/me`, "GET", {
      origin: APP,
      authorization: `Bearer ${key}`,
    });
    expect(r.status).toBe(200);
    expect(r.headers["access-control-allow-origin"]).toBe("*");
    const exposed = (r.headers["access-control-expose-headers"] ?? "").split(/,\s*/);
    for (const h of ["RateLimit-Limit", "RateLimit-Remaining", "Retry-After", "Content-Disposition"])
      expect(exposed).toContain(h);
    expect(exposed).toEqual([...CORS_EXPOSED_HEADERS]);
    expect(r.headers["ratelimit-remaining"]).toBeDefined();
    // Errors carry them too, so the app can read a 401 or 429.
    const e = await call(`${any.server.url}/api/v1/auth/me`, "GET", { origin: APP });
    expect(e.status).toBe(401);
    expect(e.headers["access-control-allow-origin"]).toBe("*");
  });

  it("leaves requests without Origin untouched", async () => {
    const r = await call(`${any.server.url}/api/v1/auth/me`, "GET", {});
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
    // An OPTIONS that is no preflight is the API's own answer.
    const o = await call(`${any.server.url}/api/v1/auth/me`, "OPTIONS", { origin: APP });
    expect(o.status).toBe(405);
  });

  it("with --cors-origin, allows only the listed origins", async () => {
    const ok = await preflight(listed.server.url, APP);
    expect(ok.status).toBe(204);
    expect(ok.headers["access-control-allow-origin"]).toBe(APP);
    expect(ok.headers.vary).toContain("Origin");
    const no = await preflight(listed.server.url, "http://evil.example");
    expect(no.status).toBe(403);
    expect(no.headers["access-control-allow-origin"]).toBeUndefined();
    expect(JSON.parse(no.text)).toMatchObject({
      statusCode: 403,
      error: true,
      message: expect.stringContaining("Origin http://evil.example is not allowed"),
    });
    const key = listed.sim.manifest().users.owner!.apiKey;
    const actual = await call(`${listed.server.url}/api/v1/auth/me`, "GET", {
      origin: "http://evil.example",
      authorization: `Bearer ${key}`,
    });
    expect(actual.status).toBe(200);
    expect(actual.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("gives a preview's pulled lines the same headers, its Vary joined with Origin's", async () => {
    const m = listed.sim.manifest();
    const r = await request(
      `${listed.server.url}/api/v1/audiences/${m.audiences.main?.id}/formations/preview`,
      {
        method: "POST",
        headers: {
          origin: APP,
          authorization: `Bearer ${m.users.owner?.apiKey}`,
          "content-type": "application/json",
        },
        body: '{"userInput":"by country"}',
      },
    );
    expect(r.statusCode).toBe(200);
    expect(r.headers["access-control-allow-origin"]).toBe(APP);
    expect(r.headers.vary).toBe("Accept, Origin");
    const lines = (await r.body.text()).trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(["meta", "status", "subgroups", "done"]);
  });

  it("parses --cors-origin values", () => {
    expect(parseCorsOrigin("http://localhost:5173/")).toBe("http://localhost:5173");
    expect(parseCorsOrigin("*")).toBe("*");
    expect(() => parseCorsOrigin("ftp://x")).toThrow(/not an origin/);
  });
});
