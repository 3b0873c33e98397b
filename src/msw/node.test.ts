/**
 * The MSW host (msw/node `setupServer` + global fetch) and the Node host (`startServer`) answer alike: the
 * same scenario, seed and request sequence (every operation at least once, errors included, the checkout
 * page, the control plane and `Prefer`) give the same statuses, bodies and key headers, and every answer
 * of a contract operation satisfies the contract.
 */
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "../contract/operations.ts";
import { checkResponse } from "../contract/responses.ts";
import { Router } from "../core/request/router.ts";
import { nodeHandler } from "../node/host.ts";
import { type RunningServer, startServer } from "../node/server.ts";
import { createSimulator } from "../simulator.ts";
import { belongsToApi, createHandlers } from "./index.ts";

const SEED = 7;
const MSW_ORIGIN = "http://sim.test";
const KEY_HEADERS = [
  "content-type",
  "ratelimit-limit",
  "ratelimit-remaining",
  "retry-after",
  "cache-control",
  "allow",
  "location",
  "content-disposition",
  "preference-applied",
  "x-sim-prefer-fallback",
];
const router = new Router(operations);

interface Step {
  label: string;
  method: string;
  path: string;
  as?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  /** Not a contract operation's documented answer (Prefer's 422, a 405): skip the contract check. */
  unchecked?: boolean;
}

interface Recorded {
  label: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Runs the sequence against `origin` with global fetch; returns what came back, origin-neutral. */
async function runSequence(
  origin: string,
): Promise<{ recorded: Recorded[]; issues: string[]; operationIds: Set<string> }> {
  const recorded: Recorded[] = [];
  const operationIds = new Set<string>();
  const issues: string[] = [];
  const manifest = (await (await fetch(`${origin}/__sim/manifest`)).json()) as {
    users: Record<string, { apiKey: string; id: string }>;
    audiences: Record<string, { id: string }>;
    minds: Record<string, { id: string }>;
    formations: Record<string, { id: string }>;
    prices: Record<string, { id: string }>;
  };
  const MAIN = manifest.audiences.main!.id;
  const PUB = manifest.audiences.public!.id;
  const EMPTY = manifest.audiences.empty!.id;
  const MIND = manifest.minds.ownLoose!.id;
  const ADMIN = manifest.users.admin!.id;
  const FORM = manifest.formations.mainReady!.id;
  const PRICE = manifest.prices.credits!.id;
  const A = `/api/v1/audiences/${MAIN}`;
  const NO_SUCH = "00000000-0000-4000-8000-000000000000";

  const send = async (
    label: string,
    method: string,
    path: string,
    more: Omit<Step, "label" | "method" | "path"> = {},
  ): Promise<any> => {
    const step: Step = { label, method, path, ...more };
    const headers: Record<string, string> = { ...step.headers };
    const as = step.as === undefined ? "owner" : step.as;
    if (as !== null) headers.authorization = `Bearer ${manifest.users[as]!.apiKey}`;
    let body: string | undefined;
    if (step.body !== undefined) {
      body = typeof step.body === "string" ? step.body : JSON.stringify(step.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(`${origin}${step.path}`, {
      method: step.method,
      headers,
      redirect: "manual",
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    const m = router.match(step.method, new URL(`${origin}${step.path}`).pathname);
    if (m.kind === "found") operationIds.add(m.op.operationId);
    if (m.kind === "found" && !step.unchecked) {
      for (const issue of checkResponse(m.op.operationId, res.status, res.headers, text))
        issues.push(`${step.label}: ${res.status} ${issue.code} ${issue.message}`);
    }
    const neutral = text.replaceAll(origin, "{origin}");
    let parsed: unknown = neutral;
    try {
      parsed = JSON.parse(neutral);
    } catch {
      // NDJSON, HTML, Markdown: compared as text.
    }
    const keyHeaders: Record<string, string> = {};
    for (const h of KEY_HEADERS) {
      const v = res.headers.get(h);
      if (v !== null) keyHeaders[h] = v.replaceAll(origin, "{origin}");
    }
    // The journal's `ms` is real time spent, and the request headers are each host's own (node:http's `host`
    // and `connection`, a fetch's defaults): what differs between hosts.
    if (Array.isArray(parsed))
      parsed = parsed.map((e) =>
        e && typeof e === "object" ? { ...e, ms: 0, request: { ...e.request, headers: {} } } : e,
      );
    recorded.push({ label: step.label, status: res.status, headers: keyHeaders, body: parsed });
    return parsed;
  };

  await send("me", "GET", "/api/v1/auth/me");
  await send("me without a key", "GET", "/api/v1/auth/me", { as: null });
  await send("me with a bad key", "GET", "/v1/auth/me", { headers: { authorization: "Bearer x" }, as: null });
  await send("keys under /v1", "GET", "/v1/api-keys");
  const created = await send("create key", "POST", "/api/v1/api-keys", { body: { name: "laptop" } });
  await send("create key, no name", "POST", "/api/v1/api-keys", { body: {} });
  await send("create key, bad JSON", "POST", "/api/v1/api-keys", { body: "{nope" });
  await send("create key as sso", "POST", "/api/v1/api-keys", { body: { name: "x" }, as: "sso" });
  await send("delete key", "DELETE", `/api/v1/api-keys/${created.data?.id ?? created.id}`);
  await send("delete key again", "DELETE", `/api/v1/api-keys/${created.data?.id ?? created.id}`);
  await send("audience", "GET", `${A}?members=preview`);
  await send("audience, unknown", "GET", `/api/v1/audiences/${NO_SUCH}`);
  await send("audience as outsider", "GET", A, { as: "outsider" });
  await send("rename", "PUT", A, { body: { name: "Renamed" } });
  await send("duplicate", "POST", `${A}/duplicate`, {
    body: {},
    headers: { "x-service-idempotency-key": "copy-1" },
  });
  await send("follow", "POST", `/api/v1/audiences/${PUB}/follow`);
  await send("unfollow", "DELETE", `/api/v1/audiences/${PUB}/follow`);
  await send("collaborators", "GET", `${A}/collaborators`);
  await send("remove collaborator", "DELETE", `${A}/collaborators/${ADMIN}`);
  await send("add member", "POST", `${A}/members`, { body: { mindId: MIND } });
  await send("remove member", "DELETE", `${A}/members/${MIND}`);
  await send(
    "filter attributes",
    "GET",
    `${A}/filter-attributes?filters=${encodeURIComponent('{"country":["DE","FR"]}')}`,
  );
  await send("formations", "GET", `${A}/formations?limit=10`);
  const formation = await send("create formation", "POST", `${A}/formations`, {
    body: {
      hypothesis: {
        intent: "Split by seniority",
        subgroups: [
          { id: "junior", label: "Junior", definition: "Early-career staff" },
          { id: "senior", label: "Senior", definition: "Senior managers and directors" },
        ],
      },
    },
  });
  const newForm = formation.data?.id ?? formation.id;
  await send("create formation, bad body", "POST", `${A}/formations`, { body: { hypothesis: 3 } });
  await send("formation", "GET", `${A}/formations/${FORM}`);
  await send("recompute", "POST", `${A}/formations/${FORM}/recompute`);
  await send("preview (ndjson)", "POST", `${A}/formations/preview`, {
    body: {},
    headers: { accept: "application/x-ndjson" },
  });
  await send("progress", "GET", `${A}/progress`);
  await send("recalibrate", "POST", `${A}/recalibrate`, {
    body: { deepen: { topics: ["pricing sensitivity"] } },
  });
  const recalibration = await send("recalibrate (operation)", "POST", `${A}/recalibrate`, {
    body: { instruction: "Focus on buyers at mid-sized firms" },
  });
  await send("recalibration status", "GET", `${A}/recalibrate/operations/${recalibration.data.operation.id}`);
  await send("export", "POST", `${A}/export`, { body: { kind: "brief", format: "md" } });
  await send("export status", "GET", `${A}/export-status?kind=brief&format=md`);
  await send("advance", "POST", "/__sim/clock/advance", { body: { ms: 120_000 }, as: null });
  await send("new formation, later", "GET", `${A}/formations/${newForm}`);
  await send("export download", "GET", `${A}/export-download?kind=brief&format=md`);
  await send("delete formation", "DELETE", `${A}/formations/${FORM}`);
  await send("delete audience", "DELETE", `/api/v1/audiences/${EMPTY}`);
  const session = await send("checkout session", "POST", "/api/acp/checkout_sessions", {
    body: { line_items: [{ id: PRICE }], currency: "usd", capabilities: {} },
    headers: { "idempotency-key": "order-1" },
  });
  await send("checkout, unknown price", "POST", "/api/acp/checkout_sessions", {
    body: { line_items: [{ id: "price_nope" }], currency: "usd", capabilities: {} },
  });
  await send("get session", "GET", `/api/acp/checkout_sessions/${session.id}`);
  await send("refresh session", "POST", `/api/acp/checkout_sessions/${session.id}`);
  await send("checkout page", "GET", `/checkout/${session.id}`, { as: null });
  await send("complete session", "POST", `/api/acp/checkout_sessions/${session.id}/complete`);
  await send("cancel session", "POST", `/api/acp/checkout_sessions/${session.id}/cancel`);
  await send("session, unknown", "GET", "/api/acp/checkout_sessions/cs_nope");
  await send("openapi", "GET", "/_openapi.json", { as: null });
  await send("prefer 429", "GET", "/api/v1/auth/me", { headers: { prefer: "code=429" } });
  await send("prefer example", "GET", "/api/v1/auth/me", {
    headers: { prefer: "code=401, example=missingKey" },
  });
  await send("prefer undocumented", "GET", "/api/v1/auth/me", {
    headers: { prefer: "code=418" },
    unchecked: true,
  });
  await send("prefer dynamic", "GET", "/api/v1/auth/me", {
    headers: { prefer: "dynamic=true" },
    unchecked: true,
  });
  await send("method not allowed", "PATCH", "/api/v1/auth/me");
  await send("unknown path", "GET", "/api/v1/nope");
  await send("requests journal", "GET", "/__sim/requests?limit=3", { as: null });
  return { recorded, issues, operationIds };
}

describe("MSW host and Node host answer alike", () => {
  let viaMsw: Awaited<ReturnType<typeof runSequence>>;
  let viaNode: Awaited<ReturnType<typeof runSequence>>;
  let server: RunningServer;

  beforeAll(async () => {
    const handlers = createHandlers({ scenario: "default", seed: SEED, clock: "manual", origin: MSW_ORIGIN });
    const msw = setupServer(...handlers);
    msw.listen({ onUnhandledRequest: "error" });
    try {
      viaMsw = await runSequence(MSW_ORIGIN);
    } finally {
      msw.close();
    }
    const sim = createSimulator({ scenario: "default", seed: SEED, clock: "manual" });
    await sim.ready;
    server = await startServer(nodeHandler(sim), { port: 0, host: "127.0.0.1" });
    viaNode = await runSequence(server.url);
  });
  afterAll(() => server?.close());

  it("covers every operation of the contract", () => {
    const missing = operations.map((o) => o.operationId).filter((id) => !viaMsw.operationIds.has(id));
    expect(missing).toEqual([]);
  });

  it("every answer of a contract operation satisfies the contract, in both hosts", () => {
    expect(viaMsw.issues).toEqual([]);
    expect(viaNode.issues).toEqual([]);
  });

  it("same statuses, bodies and key headers", () => {
    expect(viaMsw.recorded.map((r) => `${r.label} ${r.status}`)).toEqual(
      viaNode.recorded.map((r) => `${r.label} ${r.status}`),
    );
    for (let i = 0; i < viaNode.recorded.length; i++) {
      const [m, n] = [viaMsw.recorded[i]!, viaNode.recorded[i]!];
      expect(m.headers, m.label).toEqual(n.headers);
      expect(m.body, m.label).toEqual(n.body);
    }
  });

  it("the sequence does what it says (a Formation gets built, the export is ready)", () => {
    const by = new Map(viaMsw.recorded.map((r) => [r.label, r]));
    expect((by.get("create formation")?.body as any).data.status).toBe("building");
    expect((by.get("new formation, later")?.body as any).data.status).toBe("ready");
    expect(by.get("export download")?.status).toBe(200);
    expect(by.get("checkout page")?.headers["content-type"]).toContain("text/html");
    expect(by.get("prefer dynamic")?.headers["x-sim-prefer-fallback"]).toMatch(/Node host/);
    expect(
      viaNode.recorded.find((r) => r.label === "prefer dynamic")?.headers["x-sim-prefer-fallback"],
    ).toMatch(/Node host/);
  });

  it("the sequence has errors as well as successes", () => {
    const statuses = new Set(viaNode.recorded.map((r) => r.status));
    for (const s of [200, 201, 204, 400, 401, 404, 405, 422, 429]) expect(statuses, String(s)).toContain(s);
  });
});

describe("createHandlers", () => {
  it("serves only the API's paths and, with origin, only that origin", async () => {
    expect(
      [
        "/api/v1/auth/me",
        "/v1/x",
        "/api/acp/checkout_sessions",
        "/_openapi.json",
        "/__sim/manifest",
        "/checkout/cs_1",
      ].every(belongsToApi),
    ).toBe(true);
    expect(["/", "/index.html", "/api/v2/x", "/assets/app.js", "/v10/x"].some(belongsToApi)).toBe(false);

    // A real server behind: what the handlers let through reaches it.
    const sim = createSimulator({ clock: "manual" });
    await sim.ready;
    const real = await startServer(nodeHandler(sim), { port: 0, host: "127.0.0.1" });
    const handlers = createHandlers({ clock: "manual", origin: MSW_ORIGIN });
    await handlers.simulator.ready;
    const msw = setupServer(...handlers);
    msw.listen({ onUnhandledRequest: "bypass" });
    try {
      const docs = await fetch(`${real.url}/`);
      expect(docs.headers.get("content-type")).toContain("text/html");
      await docs.text();
      const other = await fetch(`${real.url}/api/v1/auth/me`, {
        headers: { authorization: `Bearer ${sim.manifest().users.owner!.apiKey}` },
      });
      expect(other.status).toBe(200);
      await other.text();
      // The handlers' own simulator is a different world (other keys): the real server answered above.
      const mine = await fetch(`${MSW_ORIGIN}/api/v1/auth/me`, {
        headers: { authorization: `Bearer ${handlers.simulator.manifest().users.owner!.apiKey}` },
      });
      expect(mine.status).toBe(200);
    } finally {
      msw.close();
      await real.close();
    }
  });

  it("exposes the simulator: advance the clock, read the manifest", async () => {
    const handlers = createHandlers({ clock: "manual" });
    const sim = handlers.simulator;
    expect(handlers.simulator).toBe(sim);
    await sim.ready;
    const before = sim.manifest().now;
    expect(Date.parse(sim.advance(60_000)) - Date.parse(before)).toBe(60_000);
  });

  it("applies latency, fixed or a range", async () => {
    const handlers = createHandlers({ clock: "manual", latency: [40, 60], origin: MSW_ORIGIN });
    const msw = setupServer(...handlers);
    msw.listen({ onUnhandledRequest: "error" });
    try {
      await handlers.simulator.ready;
      const key = handlers.simulator.manifest().users.owner!.apiKey;
      const t0 = performance.now();
      const r = await fetch(`${MSW_ORIGIN}/api/v1/auth/me`, { headers: { authorization: `Bearer ${key}` } });
      const ms = performance.now() - t0;
      expect(r.status).toBe(200);
      expect(ms).toBeGreaterThanOrEqual(38);
      expect(handlers.simulator.config.latencyMs).toEqual([40, 60]);
    } finally {
      msw.close();
    }
  });
});
