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
import { Router } from "../core/router.ts";
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

  const send = async (step: Step): Promise<any> => {
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
    // The journal's `ms` is real time spent, the one thing that differs between hosts.
    if (Array.isArray(parsed)) parsed = parsed.map((e) => (e && typeof e === "object" ? { ...e, ms: 0 } : e));
    recorded.push({ label: step.label, status: res.status, headers: keyHeaders, body: parsed });
    return parsed;
  };

  await send({ label: "me", method: "GET", path: "/api/v1/auth/me" });
  await send({ label: "me without a key", method: "GET", path: "/api/v1/auth/me", as: null });
  await send({
    label: "me with a bad key",
    method: "GET",
    path: "/v1/auth/me",
    headers: { authorization: "Bearer x" },
    as: null,
  });
  await send({ label: "keys under /v1", method: "GET", path: "/v1/api-keys" });
  const created = await send({
    label: "create key",
    method: "POST",
    path: "/api/v1/api-keys",
    body: { name: "laptop" },
  });
  await send({ label: "create key, no name", method: "POST", path: "/api/v1/api-keys", body: {} });
  await send({ label: "create key, bad JSON", method: "POST", path: "/api/v1/api-keys", body: "{nope" });
  await send({
    label: "create key as sso",
    method: "POST",
    path: "/api/v1/api-keys",
    body: { name: "x" },
    as: "sso",
  });
  await send({
    label: "delete key",
    method: "DELETE",
    path: `/api/v1/api-keys/${created.data?.id ?? created.id}`,
  });
  await send({
    label: "delete key again",
    method: "DELETE",
    path: `/api/v1/api-keys/${created.data?.id ?? created.id}`,
  });
  await send({ label: "audience", method: "GET", path: `${A}?members=preview` });
  await send({ label: "audience, unknown", method: "GET", path: `/api/v1/audiences/${NO_SUCH}` });
  await send({ label: "audience as outsider", method: "GET", path: A, as: "outsider" });
  await send({ label: "rename", method: "PUT", path: A, body: { name: "Renamed" } });
  await send({
    label: "duplicate",
    method: "POST",
    path: `${A}/duplicate`,
    body: {},
    headers: { "x-service-idempotency-key": "copy-1" },
  });
  await send({ label: "follow", method: "POST", path: `/api/v1/audiences/${PUB}/follow` });
  await send({ label: "unfollow", method: "DELETE", path: `/api/v1/audiences/${PUB}/follow` });
  await send({ label: "collaborators", method: "GET", path: `${A}/collaborators` });
  await send({ label: "remove collaborator", method: "DELETE", path: `${A}/collaborators/${ADMIN}` });
  await send({ label: "add member", method: "POST", path: `${A}/members`, body: { mindId: MIND } });
  await send({ label: "remove member", method: "DELETE", path: `${A}/members/${MIND}` });
  await send({
    label: "filter attributes",
    method: "GET",
    path: `${A}/filter-attributes?filters=${encodeURIComponent('{"country":["DE","FR"]}')}`,
  });
  await send({ label: "formations", method: "GET", path: `${A}/formations?limit=10` });
  const formation = await send({
    label: "create formation",
    method: "POST",
    path: `${A}/formations`,
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
  await send({
    label: "create formation, bad body",
    method: "POST",
    path: `${A}/formations`,
    body: { hypothesis: 3 },
  });
  await send({ label: "formation", method: "GET", path: `${A}/formations/${FORM}` });
  await send({ label: "recompute", method: "POST", path: `${A}/formations/${FORM}/recompute` });
  await send({
    label: "preview (ndjson)",
    method: "POST",
    path: `${A}/formations/preview`,
    body: {},
    headers: { accept: "application/x-ndjson" },
  });
  await send({ label: "progress", method: "GET", path: `${A}/progress` });
  await send({
    label: "recalibrate",
    method: "POST",
    path: `${A}/recalibrate`,
    body: { deepen: { topics: ["pricing sensitivity"] } },
  });
  const recalibration = await send({
    label: "recalibrate (operation)",
    method: "POST",
    path: `${A}/recalibrate`,
    body: { instruction: "Focus on buyers at mid-sized firms" },
  });
  await send({
    label: "recalibration status",
    method: "GET",
    path: `${A}/recalibrate/operations/${recalibration.data.operation.id}`,
  });
  await send({ label: "export", method: "POST", path: `${A}/export`, body: { kind: "brief", format: "md" } });
  await send({ label: "export status", method: "GET", path: `${A}/export-status?kind=brief&format=md` });
  await send({
    label: "advance",
    method: "POST",
    path: "/__sim/clock/advance",
    body: { ms: 120_000 },
    as: null,
  });
  await send({ label: "new formation, later", method: "GET", path: `${A}/formations/${newForm}` });
  await send({ label: "export download", method: "GET", path: `${A}/export-download?kind=brief&format=md` });
  await send({ label: "delete formation", method: "DELETE", path: `${A}/formations/${FORM}` });
  await send({ label: "delete audience", method: "DELETE", path: `/api/v1/audiences/${EMPTY}` });
  const session = await send({
    label: "checkout session",
    method: "POST",
    path: "/api/acp/checkout_sessions",
    body: { line_items: [{ id: PRICE }], currency: "usd", capabilities: {} },
    headers: { "idempotency-key": "order-1" },
  });
  await send({
    label: "checkout, unknown price",
    method: "POST",
    path: "/api/acp/checkout_sessions",
    body: { line_items: [{ id: "price_nope" }], currency: "usd", capabilities: {} },
  });
  await send({ label: "get session", method: "GET", path: `/api/acp/checkout_sessions/${session.id}` });
  await send({ label: "refresh session", method: "POST", path: `/api/acp/checkout_sessions/${session.id}` });
  await send({ label: "checkout page", method: "GET", path: `/checkout/${session.id}`, as: null });
  await send({
    label: "complete session",
    method: "POST",
    path: `/api/acp/checkout_sessions/${session.id}/complete`,
  });
  await send({
    label: "cancel session",
    method: "POST",
    path: `/api/acp/checkout_sessions/${session.id}/cancel`,
  });
  await send({ label: "session, unknown", method: "GET", path: "/api/acp/checkout_sessions/cs_nope" });
  await send({ label: "openapi", method: "GET", path: "/_openapi.json", as: null });
  await send({
    label: "prefer 429",
    method: "GET",
    path: "/api/v1/auth/me",
    headers: { prefer: "code=429" },
  });
  await send({
    label: "prefer example",
    method: "GET",
    path: "/api/v1/auth/me",
    headers: { prefer: "code=401, example=missingKey" },
  });
  await send({
    label: "prefer undocumented",
    method: "GET",
    path: "/api/v1/auth/me",
    headers: { prefer: "code=418" },
    unchecked: true,
  });
  await send({
    label: "prefer dynamic",
    method: "GET",
    path: "/api/v1/auth/me",
    headers: { prefer: "dynamic=true" },
    unchecked: true,
  });
  await send({ label: "method not allowed", method: "PATCH", path: "/api/v1/auth/me" });
  await send({ label: "unknown path", method: "GET", path: "/api/v1/nope" });
  await send({ label: "requests journal", method: "GET", path: "/__sim/requests?limit=3", as: null });
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
