/**
 * Sandboxes: two partners on one URL never see each other, by key alone; each has its own control plane,
 * opened only by its token or the operator's; limits and idle lifetime hold.
 */
import { describe, expect, it } from "vitest";
import { PRICE_CATALOGUE } from "../../scenarios/catalogue.ts";
import { createSandboxes, createSimulator, sandboxOptions } from "../../simulator.ts";
import type { Manifest } from "./manifest.ts";
import { SANDBOX_KEY_PREFIX, sandboxOfKey, sandboxSpec } from "./sandboxes.ts";

const ORIGIN = "http://sim.test";
const OPERATOR = "operator-secret";

interface Created {
  id: string;
  controlToken: string;
  manifest: Manifest;
}

function setup(options: Parameters<typeof createSandboxes>[0] = {}) {
  let now = Date.UTC(2026, 10, 25);
  const host = createSandboxes({ controlToken: OPERATOR, wallClock: () => now, ...options });
  const call = async (
    method: string,
    path: string,
    opts: { key?: string; token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    const token = opts.token === undefined ? OPERATOR : opts.token;
    if (token !== null) headers["x-sim-control-token"] = token;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const res = await host.fetch(
      new Request(`${ORIGIN}${path}`, {
        method,
        headers,
        ...(opts.body !== undefined
          ? { body: typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body) }
          : {}),
      }),
    );
    const text = await res.text();
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: res.status, headers: res.headers, body };
  };
  const create = async (body: unknown = {}) => {
    const r = await call("POST", "/__sim/sandboxes", { body });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as Created;
  };
  const owner = (c: Created) => c.manifest.users.owner?.apiKey as string;
  const main = async () => (await call("GET", "/__sim/manifest")).body as Manifest;
  return { host, call, create, owner, main, tick: (ms: number) => (now += ms) };
}

describe("sandboxes", () => {
  it("give two sandboxes of the same seed distinct keys that name them, and the same world", async () => {
    const { create, owner, call, main } = setup();
    const a = await create({ seed: 7 });
    const b = await create({ seed: 7 });
    expect(a.id).not.toBe(b.id);
    expect(a.id).toMatch(/^[a-z2-7]{12}$/);
    const keysOf = (m: Manifest) => Object.values(m.users).map((u) => u.apiKey);
    const mainKeys = keysOf(await main());
    for (const k of keysOf(a.manifest)) {
      expect(k.startsWith(`${SANDBOX_KEY_PREFIX}${a.id}_`)).toBe(true);
      expect(sandboxOfKey(k)).toBe(a.id);
      expect(keysOf(b.manifest)).not.toContain(k);
      expect(mainKeys).not.toContain(k);
    }
    // The same world all the same: IDs may repeat across sandboxes, keys never.
    expect(a.manifest.audiences).toEqual(b.manifest.audiences);
    const me = await call("GET", "/api/v1/auth/me", { key: owner(a), token: null });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ id: a.manifest.users.owner?.id });
  });

  it("keeps a change, a reset, a fault, a clock move, a rate limit and a delete inside one sandbox", async () => {
    const { create, owner, call, main } = setup();
    const a = await create({ seed: 3 });
    const b = await create({ seed: 3 });
    const mainBefore = await main();
    const audience = a.manifest.audiences.main?.id as string;
    const path = `/api/v1/audiences/${audience}`;
    const nameIn = async (c: Created) =>
      (await call("GET", path, { key: owner(c), token: null })).body.data.name as string;
    const bName = await nameIn(b);
    const mainKey = mainBefore.users.owner?.apiKey as string;
    const mainAudience = `/api/v1/audiences/${mainBefore.audiences.main?.id}`;
    const mainName = async () =>
      (await call("GET", mainAudience, { key: mainKey, token: null })).body.data.name as string;
    const mainNameBefore = await mainName();

    const renamed = await call("PUT", path, { key: owner(a), token: null, body: { name: "Only in A" } });
    expect(renamed.status).toBe(200);
    expect(await nameIn(a)).toBe("Only in A");
    expect(await nameIn(b)).toBe(bName);

    const ctl = (c: Created, method: string, rest: string, body?: unknown) =>
      call(method, `/__sim/sandboxes/${c.id}${rest}`, { token: c.controlToken, body });
    expect((await ctl(a, "POST", "/faults", { path: "/api/v1/auth/me", status: 503 })).status).toBe(201);
    expect((await ctl(a, "PATCH", "/config", { rateLimitPerMinute: 2 })).status).toBe(200);
    expect((await ctl(a, "POST", "/clock/advance", { ms: 3_600_000 })).status).toBe(200);
    expect((await call("GET", "/api/v1/auth/me", { key: owner(a), token: null })).status).toBe(503);
    const inB = await call("GET", "/api/v1/auth/me", { key: owner(b), token: null });
    expect(inB.status).toBe(200);
    expect(inB.headers.get("ratelimit-limit")).toBe("300");
    expect((await ctl(b, "GET", "/manifest")).body.now).toBe(b.manifest.now);
    expect((await ctl(a, "GET", "/manifest")).body.now).not.toBe(a.manifest.now);
    expect((await ctl(b, "GET", "/faults")).body).toEqual([]);
    expect((await ctl(a, "GET", "/requests?limit=5")).body.length).toBeGreaterThan(0);

    // A reset with another seed makes new keys in A; B's keep working.
    const reset = await ctl(a, "POST", "/reset", { seed: 99 });
    expect(reset.status).toBe(200);
    expect(reset.body.users.owner.apiKey.startsWith(`${SANDBOX_KEY_PREFIX}${a.id}_`)).toBe(true);
    expect((await call("GET", "/api/v1/auth/me", { key: owner(a), token: null })).status).toBe(401);
    expect((await call("GET", "/api/v1/auth/me", { key: owner(b), token: null })).status).toBe(200);

    expect((await ctl(a, "DELETE", "")).status).toBe(204);
    const gone = await call("GET", "/api/v1/auth/me", { key: reset.body.users.owner.apiKey, token: null });
    expect(gone.status).toBe(401);
    expect(gone.body).toMatchObject({ error: true, statusCode: 401 });
    expect((await call("GET", "/api/v1/auth/me", { key: owner(b), token: null })).status).toBe(200);
    // Nor did anything of it reach the default world: its keys, clock, data, faults and configuration.
    expect(await main()).toEqual(mainBefore);
    expect(await mainName()).toBe(mainNameBefore);
    expect((await call("GET", "/__sim/faults")).body).toEqual([]);
    expect((await call("GET", "/__sim/config")).body.rateLimitPerMinute).toBe(300);
    expect((await call("GET", "/api/v1/auth/me", { key: mainKey, token: null })).status).toBe(200);
  });

  it("opens a sandbox's control plane to its token and the operator's, to nobody else, and changes nothing", async () => {
    const { create, call } = setup();
    const a = await create();
    const b = await create();
    for (const token of [b.controlToken, null, "", `${a.controlToken}x`]) {
      const wrong = await call("POST", `/__sim/sandboxes/${a.id}/clock/advance`, {
        token,
        body: { ms: 1000 },
      });
      expect(wrong.status).toBe(404);
      expect(wrong.body).toMatchObject({ error: true, statusCode: 404 });
      expect((await call("DELETE", `/__sim/sandboxes/${a.id}`, { token })).status).toBe(404);
    }
    // Nor does its page base lead to its control plane.
    for (const rest of ["/__sim/clock/advance", "/__sim/reset", "/__sim"]) {
      const sideways = await call("POST", `/sandboxes/${a.id}${rest}`, { token: null, body: { ms: 1000 } });
      expect(sideways.status).toBe(404);
    }
    const manifest = await call("GET", `/__sim/sandboxes/${a.id}/manifest`, { token: a.controlToken });
    expect(manifest.body.now).toBe(a.manifest.now);
    expect((await call("GET", `/__sim/sandboxes/${a.id}/manifest`)).status).toBe(200);
    // Creating and listing are the operator's.
    expect((await call("POST", "/__sim/sandboxes", { token: a.controlToken, body: {} })).status).toBe(401);
    expect((await call("GET", "/__sim/sandboxes", { token: null })).status).toBe(401);
    const listed = await call("GET", "/__sim/sandboxes");
    expect(listed.body.map((s: { id: string }) => s.id).sort()).toEqual([a.id, b.id].sort());
    expect(listed.body[0]).toMatchObject({ scenario: "default", seed: 1, ageSeconds: 0, idleSeconds: 0 });
    expect(JSON.stringify(listed.body)).not.toContain(a.controlToken);
  });

  it("builds each sandbox's engine with a control plane of its own token and the operator's, nobody else's", async () => {
    const spec = sandboxSpec({ id: "aaaaaaaaaaaa", controlToken: "sbt_own", scenario: "default", seed: 1 });
    const engine = createSimulator(sandboxOptions({ controlToken: OPERATOR }, spec));
    const manifest = (token?: string) =>
      engine.fetch(
        new Request(`${ORIGIN}/__sim/manifest`, token ? { headers: { "x-sim-control-token": token } } : {}),
      );
    expect((await manifest()).status).toBe(401);
    expect((await manifest("sbt_other")).status).toBe(401);
    expect((await manifest("sbt_own")).status).toBe(200);
    expect((await manifest(OPERATOR)).status).toBe(200);
  });

  it("refuses bad input in the envelope, and past --max-sandboxes with 429", async () => {
    const { call } = setup({ maxSandboxes: 2 });
    expect((await call("POST", "/__sim/sandboxes", { body: "{not json" })).status).toBe(400);
    expect((await call("POST", "/__sim/sandboxes", { body: [] })).status).toBe(400);
    const unknown = await call("POST", "/__sim/sandboxes", { body: { scenario: "nope" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.statusMessage).toContain("Known scenarios");
    expect((await call("POST", "/__sim/sandboxes", { body: { seed: -1 } })).status).toBe(400);
    const wrong = await call("PUT", "/__sim/sandboxes");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD, POST");
    // Asked for at once: the worlds build concurrently, and still only two are made.
    const at = await Promise.all([1, 2, 3].map(() => call("POST", "/__sim/sandboxes", { body: {} })));
    expect(at.map((r) => r.status).sort()).toEqual([201, 201, 429]);
    const full = await call("POST", "/__sim/sandboxes", { body: { scenario: "at-limits" } });
    expect(full.status).toBe(429);
    expect(full.body).toMatchObject({ error: true, statusCode: 429 });
    expect((await call("GET", "/__sim/sandboxes")).body).toHaveLength(2);
    expect((await call("GET", "/__sim/sandboxes/aaaaaaaaaaaa/manifest")).status).toBe(404);
    expect((await call("GET", "/sandboxes/aaaaaaaaaaaa/checkout/x")).status).toBe(404);
  });

  it("removes a sandbox idle past its lifetime; its keys then get 401", async () => {
    const { call, create, owner, tick } = setup({ idleTtlMs: 60_000 });
    const idle = await create();
    const busy = await create();
    for (let i = 0; i < 3; i++) {
      tick(30_000);
      expect((await call("GET", "/api/v1/auth/me", { key: owner(busy), token: null })).status).toBe(200);
    }
    expect((await call("GET", "/api/v1/auth/me", { key: owner(idle), token: null })).status).toBe(401);
    expect((await call("GET", "/__sim/sandboxes")).body.map((s: { id: string }) => s.id)).toEqual([busy.id]);
  });

  it("serves a sandbox's checkout page under /sandboxes/<id>/, where its continue_url points", async () => {
    const { call, create, owner } = setup();
    const a = await create();
    const p = PRICE_CATALOGUE.credits;
    const session = await call("POST", "/api/acp/checkout_sessions", {
      key: owner(a),
      token: null,
      headers: { "idempotency-key": "sandbox-1" },
      body: {
        line_items: [{ id: p.id, name: p.name, unit_amount: p.unitAmount }],
        currency: p.currency,
        capabilities: {},
      },
    });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const url = new URL(session.body.continue_url);
    expect(url.pathname).toBe(`/sandboxes/${a.id}/checkout/${session.body.id}`);
    const page = await call("GET", url.pathname, { token: null });
    expect(page.status).toBe(200);
    expect(page.body).toContain(`action="${url.pathname}/complete"`);
    const done = await call("POST", `${url.pathname}/complete`, { token: null });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(url.pathname);
    // The default world has no such session.
    expect((await call("GET", `/checkout/${session.body.id}`, { token: null })).status).toBe(404);
  });

  it("has no sandbox endpoint when the control plane is off; keys still route", async () => {
    const { call } = setup({ control: false });
    expect((await call("POST", "/__sim/sandboxes", { body: {} })).status).toBe(404);
    expect((await call("GET", "/__sim/sandboxes")).status).toBe(404);
  });
});
