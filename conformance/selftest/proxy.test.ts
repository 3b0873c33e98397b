/**
 * The validating proxy in front of the simulator: real clients (undici, and Node's own fetch) through it.
 * A clean session is judged clean; faulty upstreams (the self-test's servers) are reported under the rule
 * they break, by single exchanges and by a key's sequence; a misbehaving client is reported as the
 * client's doing while the simulator's answers stay clean; an unreachable upstream is a 502, not a crash.
 */
import http from "node:http";
import { type AddressInfo, connect } from "node:net";
import { gzipSync } from "node:zlib";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { allChecks } from "../checks/index.ts";
import type { Violation } from "../lib/reporting/report.ts";
import { runCheck } from "../lib/running/context.ts";
import { hypothesis } from "../lib/running/helpers.ts";
import { serveProxy } from "../proxy/host.ts";
import type { Finding } from "../proxy/judge.ts";
import { FAULTS } from "./faults.ts";
import { type BrokenServer, brokenServer, type Fault } from "./harness.ts";

interface Rig {
  server: BrokenServer;
  proxy: Awaited<ReturnType<typeof serveProxy>>;
  url: string;
  close(): Promise<void>;
}

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) await r.close();
});

async function rig(fault: Fault | null, options: { errors?: boolean } = {}): Promise<Rig> {
  const server = await brokenServer(fault);
  const proxy = await serveProxy({ upstream: server.info.baseUrl, ...options, port: 0, host: "127.0.0.1" });
  const front = proxy;
  const r = {
    server,
    proxy,
    url: front.url,
    close: async () => {
      await front.close();
      await server.close();
    },
  };
  rigs.push(r);
  return r;
}

/** A client session that touches most of the API the way an integration would, through `base`. */
async function session(base: string, key: string, ids: { audience: string; mind: string }): Promise<void> {
  const auth = { authorization: `Bearer ${key}` };
  const json = { ...auth, "content-type": "application/json" };
  const get = async (path: string, headers: Record<string, string> = auth) => {
    const res = await request(`${base}${path}`, { headers });
    await res.body.text();
    return res.statusCode;
  };
  expect(await get("/api/v1/auth/me")).toBe(200);
  expect(await get("/v1/auth/me")).toBe(200);
  expect(await get(`/api/v1/audiences/${ids.audience}`)).toBe(200);
  expect(await get(`/api/v1/audiences/${ids.audience}/formations?limit=2`)).toBe(200);
  expect(await get(`/api/v1/audiences/${ids.audience}/filter-attributes`)).toBe(200);
  expect(await get(`/api/v1/audiences/${ids.audience}/progress`)).toBe(200);
  expect(await get(`/api/v1/audiences/${ids.audience}/collaborators`)).toBe(200);
  expect(await get("/api/v1/audiences/00000000-0000-4000-8000-000000000000")).toBe(404);
  // Node's own fetch: a key made, listed, used and deleted.
  const made = await fetch(`${base}/api/v1/api-keys`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ name: "through the proxy" }),
  });
  expect(made.status).toBe(201);
  const key2 = (await made.json()) as { id: string; key: string };
  expect((await fetch(`${base}/api/v1/api-keys`, { headers: auth })).status).toBe(200);
  expect(
    (await fetch(`${base}/api/v1/auth/me`, { headers: { authorization: `Bearer ${key2.key}` } })).status,
  ).toBe(200);
  const del = await fetch(`${base}/api/v1/api-keys/${key2.id}`, { method: "DELETE", headers: auth });
  expect(del.status).toBe(204);
  expect(
    (await fetch(`${base}/api/v1/auth/me`, { headers: { authorization: `Bearer ${key2.key}` } })).status,
  ).toBe(401);
  // The NDJSON preview, streamed through.
  const preview = await fetch(`${base}/api/v1/audiences/${ids.audience}/formations/preview`, {
    method: "POST",
    headers: { ...json, accept: "application/x-ndjson" },
    body: JSON.stringify({ hypothesis: hypothesis(2) }),
  });
  const text = await preview.text();
  expect(preview.status, text.slice(0, 300)).toBe(200);
}

const idsOf = (s: BrokenServer) => ({
  audience: s.info.audiences.main as string,
  mind: s.info.minds.ownLoose as string,
});

describe("the validating proxy", () => {
  it("judges a clean session against the simulator clean, and counts what it saw", async () => {
    const r = await rig(null);
    await session(r.url, r.server.info.keys.owner as string, idsOf(r.server));
    const report = r.proxy.judge.report;
    // The session checks that a key it deleted is refused: the client's doing, said on its side only.
    expect(report.violations.map((v) => `${v.side} ${v.who} ${v.check}`)).toEqual([
      "client client client/deleted-key",
    ]);
    expect(report.exchanges).toBeGreaterThanOrEqual(14);
    expect(report.operations.getMe?.statuses).toEqual({ 200: 3, 401: 1 });
    expect(report.integration.notFound).toBe(1);
  });

  it("finds nothing against the simulator in all the traffic of the kit's own checks", async () => {
    const r = await rig(null);
    const info = { ...r.server.info, baseUrl: r.url };
    for (const d of allChecks.filter((c) => /^(generic|limits|domain)\//.test(c.name)))
      await runCheck(d, info);
    const upstream = r.proxy.judge.report.violations.filter(
      (v) => v.who === "response" || v.who === "server",
    );
    expect(upstream.map((v) => `${v.ruleId}: ${v.message}`)).toEqual([]);
    // The kit sends what the contract refuses on purpose: the proxy sees the client's side of it.
    expect(r.proxy.judge.report.violations.filter((v) => v.who === "request").length).toBeGreaterThan(50);
  }, 120_000);

  // Faults one exchange shows to anyone holding the contract, met by the kit's own check sent through the
  // proxy as its client: the proxy must report the rule the kit reports. The others need more than one
  // exchange and the contract: who may see what, what exists, or a change of state.
  const NEEDS_MORE = new Set([
    "403 instead of 404 for an Audience the caller cannot view",
    "a different message for a hidden Audience than for a missing one",
    "403 instead of 404 for a write to an Audience the caller cannot view",
    "any service_ key authenticates as the owner",
    "a rejected body still creates the API key",
    "/v1 prefix not served",
    "a blank ID the contract allows answered 400 as if it were missing",
    "unknown ID on a read answered 200 instead of 404",
    // One exchange cannot tell a non-member from a missing Audience: both are answered about the pair.
    "removing a Mind that is not a member answers 404",
  ]);
  // The contract's response checks judge the contract/responses rule, in the kit and the proxy alike.
  const ruleOf = (v: Violation): string => {
    const id = v.ruleId ?? v.check;
    return id.startsWith("response/") ? "contract/responses" : id;
  };
  /** Faults of rules one answer shows beyond its schema, which the proxy judges too (answers.ts). */
  const ONE_ANSWER = new Set([
    "API key listing oldest first",
    "collaborators listed newest first",
    "filter mindIds not sorted",
    "country facet values given as country names, not ISO codes",
    "softWarn only above its threshold, not from it",
    "progress reports failed members",
    "a brief offered as xlsx",
    "a ready Formation keeps its build progress",
  ]);
  const single = FAULTS.filter(
    (f) =>
      !f.layer &&
      (/^(generic|response)\//.test(f.reportedBy) || ONE_ANSWER.has(f.name)) &&
      !NEEDS_MORE.has(f.name),
  );
  it("has the faults it sorts", () => {
    for (const n of [...NEEDS_MORE, ...ONE_ANSWER])
      expect(
        FAULTS.some((f) => f.name === n),
        n,
      ).toBe(true);
    expect(single.length).toBeGreaterThanOrEqual(15);
  });
  for (const c of single) {
    it(`reports a faulty upstream: ${c.name} → ${c.reportedBy}`, async () => {
      const r = await rig(c.fault);
      const info = { ...r.server.info, baseUrl: r.url };
      const kit: string[] = [];
      for (const d of c.checks)
        kit.push(
          ...(await runCheck(d, info).catch((e) => (e as { violations?: Violation[] }).violations ?? []))
            .filter((v) => v.check.startsWith(c.reportedBy))
            .map(ruleOf),
        );
      expect(kit.length, "the kit reports it through the proxy").toBeGreaterThan(0);
      const upstream = r.proxy.judge.report.violations.filter(
        (v) => v.who === "response" || v.who === "server",
      );
      const rules = new Set(upstream.map(ruleOf));
      expect(
        kit.some((k) => rules.has(k)),
        `the kit: ${[...new Set(kit)]}; the proxy: ${[...rules]}`,
      ).toBe(true);
    });
  }

  it("reports what a key's sequence shows: a deleted key still working", async () => {
    const fault = FAULTS.find((f) => f.name === "a deleted key keeps working under /v1");
    const r = await rig(fault?.fault ?? null);
    const auth = { authorization: `Bearer ${r.server.info.keys.owner}`, "content-type": "application/json" };
    const made = (await (
      await fetch(`${r.url}/api/v1/api-keys`, { method: "POST", headers: auth, body: "{}" })
    ).json()) as {
      id: string;
      key: string;
    };
    await fetch(`${r.url}/api/v1/api-keys/${made.id}`, { method: "DELETE", headers: auth });
    const still = await fetch(`${r.url}/v1/auth/me`, { headers: { authorization: `Bearer ${made.key}` } });
    expect(still.status).toBe(200);
    const found = r.proxy.judge.report.violations.filter((v) => v.ruleId === "keys/delete-immediate");
    expect(found.map((v) => v.who)).toEqual(["server"]);
  });

  it("takes a refusal for a cause it cannot see (access, state) as right for a request with a bad body", async () => {
    const r = await rig(null);
    const auth = {
      authorization: `Bearer ${r.server.info.keys.outsider}`,
      "content-type": "application/json",
    };
    // The outsider cannot see `private`: access first (404) or the body first (400), both are right.
    const hidden = `${r.url}/api/v1/audiences/${r.server.info.audiences.private}/formations`;
    const res = await fetch(hidden, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ hypothesis: 1 }),
    });
    expect(res.status).toBe(404);
    await res.text();
    expect(r.proxy.judge.report.violations.filter((v) => v.side === "upstream")).toEqual([]);
    expect(r.proxy.judge.report.violations.map((v) => v.ruleId)).toContain("input/invalid-400");
  });

  it("still wants a 4xx of the problem's own status where no other cause is documented", async () => {
    // createFormation documents 404 but not 403: a 403 to its bad body is no documented cause.
    const fault: Fault = async (req, next) =>
      req.method === "POST" && new URL(req.url).pathname.endsWith("/formations")
        ? new Response(
            JSON.stringify({
              statusCode: 403,
              statusMessage: "Forbidden",
              message: "Forbidden",
              url: new URL(req.url).pathname,
              error: true,
            }),
            {
              status: 403,
              headers: {
                "content-type": "application/json",
                "ratelimit-limit": "300",
                "ratelimit-remaining": "299",
              },
            },
          )
        : next(req);
    const r = await rig(fault);
    const auth = { authorization: `Bearer ${r.server.info.keys.owner}`, "content-type": "application/json" };
    const res = await fetch(`${r.url}/api/v1/audiences/${idsOf(r.server).audience}/formations`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ hypothesis: 1 }),
    });
    expect(res.status).toBe(403);
    await res.text();
    const up = r.proxy.judge.report.violations.filter(
      (v) => v.side === "upstream" && v.ruleId === "input/invalid-400",
    );
    expect(up.length).toBeGreaterThan(0);
  });

  it("reports a listing that shows a key's secret, on the upstream's side", async () => {
    const fault = FAULTS.find((f) => f.name === "the secret `key` leaked in API key listings");
    const r = await rig(fault?.fault ?? null);
    const auth = { authorization: `Bearer ${r.server.info.keys.owner}`, "content-type": "application/json" };
    await fetch(`${r.url}/api/v1/api-keys`, { method: "POST", headers: auth, body: "{}" });
    expect((await fetch(`${r.url}/api/v1/api-keys`, { headers: auth })).status).toBe(200);
    const found = r.proxy.judge.report.violations.filter((v) => v.ruleId === "keys/secret-once");
    expect(found.map((v) => `${v.side} ${v.check}`)).toEqual(["upstream sequence/secret-listed"]);
  });

  it.each([
    "NDJSON stream without `done`",
    "NDJSON events out of order (status before meta)",
  ])("judges a preview stream that went through by its events: %s", async (name) => {
    const fault = FAULTS.find((f) => f.name === name);
    const r = await rig(fault?.fault ?? null);
    const res = await fetch(`${r.url}/api/v1/audiences/${idsOf(r.server).audience}/formations/preview`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${r.server.info.keys.owner}`,
        "content-type": "application/json",
        accept: "application/x-ndjson",
      },
      body: JSON.stringify({ hypothesis: hypothesis(2) }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const found = r.proxy.judge.report.violations.filter((v) => v.ruleId === "preview/stream");
    expect(found.map((v) => `${v.side} ${v.check}`)).toEqual(["upstream stream/preview-events"]);
    expect(found[0]?.message).toMatch(/^events /);
  });

  it("reports a client that uses a key it deleted, or sends an idempotency key the API ignores", async () => {
    const r = await rig(null);
    const auth = { authorization: `Bearer ${r.server.info.keys.owner}`, "content-type": "application/json" };
    const made = (await (
      await fetch(`${r.url}/api/v1/api-keys`, { method: "POST", headers: auth, body: "{}" })
    ).json()) as { id: string; key: string };
    await fetch(`${r.url}/api/v1/api-keys/${made.id}`, { method: "DELETE", headers: auth });
    const gone = await fetch(`${r.url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${made.key}` } });
    expect(gone.status).toBe(401);
    const long = await fetch(`${r.url}/api/v1/audiences/${idsOf(r.server).audience}/duplicate`, {
      method: "POST",
      headers: { ...auth, "x-service-idempotency-key": "k".repeat(129) },
      body: "{}",
    });
    expect(long.status).toBeLessThan(300);
    // A query parameter whose content the contract types as JSON, sent as something else.
    for (const filters of ["country=DE", JSON.stringify({ colour: ["blue"] })]) {
      const res = await fetch(
        `${r.url}/api/v1/audiences/${idsOf(r.server).audience}/filter-attributes?filters=${encodeURIComponent(filters)}`,
        { headers: auth },
      );
      expect(res.status).toBe(400);
    }
    const found = r.proxy.judge.report.violations.map((v) => `${v.side} ${v.check}`);
    expect(found).toEqual([
      "client client/deleted-key",
      "client client/idempotency-key-ignored",
      "client request/parameter",
      "client request/parameter",
    ]);
    expect(r.proxy.judge.report.violations[2]?.message).toMatch(
      /sent the query parameter filters: "country=DE" is not JSON/,
    );
    expect(r.proxy.judge.report.violations[3]?.message).toMatch(/filters: its JSON is not a FilterSelection/);
    expect(r.proxy.judge.report.violations[1]?.message).toMatch(
      /of 129 characters; the API ignores one over 128/,
    );
  });

  it("reports a deleted Formation read back, and a page after hasMore that holds nothing", async () => {
    const deleted = FAULTS.find((f) => f.name === "a deleted Formation is still readable");
    const phantom = FAULTS.find(
      (f) => f.name === "hasMore true on a last page that ends at a multiple of limit",
    );
    const both: Fault = (req, next, env) =>
      (deleted?.fault as Fault)(req, (r) => (phantom?.fault as Fault)(r, next, env), env);
    const r = await rig(both);
    const auth = { authorization: `Bearer ${r.server.info.keys.owner}`, "content-type": "application/json" };
    const list = `${r.url}/api/v1/audiences/${idsOf(r.server).audience}/formations`;
    const made = await fetch(list, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ hypothesis: hypothesis(2) }),
    });
    expect(made.status).toBeLessThan(300);
    const id = ((await made.json()) as { data: { id: string } }).data.id;
    expect((await fetch(`${list}/${id}`, { method: "DELETE", headers: auth })).status).toBe(204);
    expect((await fetch(`${list}/${id}`, { headers: auth })).status).toBe(200);
    // Every Formation on one page, then the page its hasMore promised.
    const first = (await (await fetch(`${list}?limit=100`, { headers: auth })).json()) as {
      pagination: { total: number };
    };
    const total = first.pagination.total;
    await fetch(`${list}?limit=${total}&offset=0`, { headers: auth });
    await fetch(`${list}?limit=${total}&offset=${total}`, { headers: auth });
    const rules = r.proxy.judge.report.violations.map((v) => `${v.who} ${v.ruleId} ${v.check}`);
    expect(rules).toContain("server formations/lifecycle sequence/read-after-delete");
    expect(rules).toContain("server formations/pagination sequence/phantom-page");
  });

  it("reports an idempotency key replayed with another body that made a second copy", async () => {
    const fault = FAULTS.find(
      (f) => f.name === "duplicate with the same key and another name makes a second copy",
    );
    const r = await rig(fault?.fault ?? null);
    const headers = {
      authorization: `Bearer ${r.server.info.keys.teammate}`,
      "content-type": "application/json",
      "x-service-idempotency-key": "proxy-replay-1",
    };
    // The same key, first without a name and then with one: another body, which must not make more work.
    for (const body of [{}, { name: "copy two" }]) {
      const res = await fetch(`${r.url}/api/v1/audiences/${idsOf(r.server).audience}/duplicate`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
      expect(res.status).toBeLessThan(300);
    }
    const found = r.proxy.judge.report.violations.filter((v) => v.ruleId === "duplicate/replay");
    expect(found.map((v) => `${v.who} ${v.check}`)).toEqual(["server sequence/idempotency-replay"]);
  });

  it("reports a misbehaving client, and the simulator's answers to it as clean", async () => {
    const r = await rig(null);
    await r.server.sim.fetch(
      new Request("http://sim/__sim/config", {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ rateLimitPerMinute: 3 }),
      }),
    );
    const auth = { authorization: `Bearer ${r.server.info.keys.teammate}` };
    const main = idsOf(r.server).audience;
    // An invalid body, and a write retried without an idempotency key.
    await fetch(`${r.url}/api/v1/api-keys`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: "{",
    });
    for (let i = 0; i < 2; i++)
      await fetch(`${r.url}/api/v1/audiences/${main}/duplicate`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ name: "retried" }),
      });
    // Past the limit, and straight back in spite of Retry-After.
    let refused = 0;
    for (let i = 0; i < 3; i++)
      if ((await fetch(`${r.url}/api/v1/auth/me`, { headers: auth })).status === 429) refused++;
    expect(refused).toBeGreaterThan(0);
    const by = (who: Finding["who"]) => r.proxy.judge.report.violations.filter((v) => v.who === who);
    expect(
      by("response")
        .concat(by("server"))
        .map((v) => v.message),
    ).toEqual([]);
    const client = [...by("request"), ...by("client")].map((v) => v.check);
    expect(client).toContain("request/body");
    expect(client).toContain("client/retry-without-idempotency-key");
    expect(client).toContain("client/retry-after");
    expect(r.proxy.judge.report.integration.rateLimited).toBeGreaterThan(0);
  });

  it("forwards hostile requests for the upstream to answer, reports them, and keeps serving", async () => {
    const r = await rig(null);
    const auth = `Bearer ${r.server.info.keys.owner}`;
    const { port } = new URL(r.url);
    const raw = (text: string) =>
      new Promise<string>((done) => {
        // Written, not half-closed: a client that waits for its answer (`Connection: close` ends it).
        const socket = connect(Number(port), "127.0.0.1", () => socket.write(text));
        let got = "";
        socket.on("data", (b) => (got += b));
        socket.on("close", () => done(got));
        socket.on("error", () => done(got));
      });
    const answers = [
      await raw(
        `GET /api/v1/audiences/%E0%A4%A HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nConnection: close\r\n\r\n`,
      ),
      await raw(
        `DELETE /api/v1/api-keys/%ZZ HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nConnection: close\r\n\r\n`,
      ),
      await raw(`PROPFIND /api/v1/auth/me HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
      await raw(
        `POST /api/v1/api-keys HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: 4\r\nConnection: close\r\n\r\n\u00ff\u00fe{[`,
      ),
      await raw("NOT HTTP AT ALL\r\n\r\n"),
    ];
    for (const [i, a] of answers.entries()) expect(a, String(i)).toMatch(/^HTTP\/1\.1 4\d\d /);
    expect((await fetch(`${r.url}/__proxy/report`)).status).toBe(200);
    expect(r.proxy.judge.report.violations.some((v) => v.who === "request")).toBe(true);
    expect(r.proxy.judge.report.violations.filter((v) => v.who === "response" || v.who === "server")).toEqual(
      [],
    );
  });

  it("passes on a compressed answer readable, as the client's fetch would read it", async () => {
    const asked: string[] = [];
    const upstream = http.createServer((req, res) => {
      asked.push(String(req.headers["accept-encoding"]));
      // An upstream that compresses whatever it is asked.
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync(JSON.stringify({ id: "00000000-0000-4000-8000-000000000000" })));
    });
    await new Promise<void>((done) => upstream.listen(0, "127.0.0.1", done));
    const front = await serveProxy({
      upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      port: 0,
      host: "127.0.0.1",
    });
    try {
      const res = await fetch(`${front.url}/api/v1/auth/me`, {
        headers: { authorization: "Bearer service_x" },
      });
      expect(await res.json()).toEqual({ id: "00000000-0000-4000-8000-000000000000" });
      expect(asked).toEqual(["identity"]);
    } finally {
      await front.close();
      upstream.close();
    }
  });

  it("answers 502 in the envelope for an unreachable upstream, reports it, and keeps serving", async () => {
    const proxy = await serveProxy({ upstream: "http://127.0.0.1:9", port: 0, host: "127.0.0.1" });
    const front = proxy;
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${front.url}/api/v1/auth/me`);
        expect(res.status).toBe(502);
        const body = (await res.json()) as {
          statusCode: number;
          url: string;
          error: boolean;
          data: { code: string };
        };
        expect(body).toMatchObject({
          statusCode: 502,
          url: "/api/v1/auth/me",
          error: true,
          data: { code: "UPSTREAM_UNREACHABLE" },
        });
      }
      expect(proxy.judge.report.violations.map((v) => v.check)).toEqual([
        "proxy/upstream-unreachable",
        "proxy/upstream-unreachable",
      ]);
      expect((await fetch(`${front.url}/__proxy/report`)).status).toBe(200);
    } finally {
      await front.close();
    }
  });

  it("with --errors, turns an answer that breaks a rule into a 502 naming it", async () => {
    const fault = FAULTS.find((f) => f.name === "Cache-Control missing on private Audience answers");
    const r = await rig(fault?.fault ?? null, { errors: true });
    const res = await fetch(`${r.url}/api/v1/audiences/${idsOf(r.server).audience}`, {
      headers: { authorization: `Bearer ${r.server.info.keys.owner}` },
    });
    expect(res.status).toBe(502);
    const body = (await res.json()) as {
      statusCode: number;
      data: { code: string; violations: { check: string }[] };
    };
    expect(body.statusCode).toBe(502);
    expect(body.data.code).toBe("CONTRACT_VIOLATION");
    expect(body.data.violations.map((v) => v.check)).toContain("response/non-cacheable");
    // A right answer passes unchanged.
    const clean = await rig(null, { errors: true });
    const ok = await fetch(`${clean.url}/api/v1/audiences/${idsOf(clean.server).audience}`, {
      headers: { authorization: `Bearer ${clean.server.info.keys.owner}` },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toMatch(/no-store|private/);
  });
});
