/**
 * Hostile input over real HTTP: random requests (methods, paths, parameters, headers, bodies), malformed
 * HTTP on raw sockets, slow and truncated bodies, clients that hang up mid-upload and mid-stream. Every
 * answer is a 4xx envelope or a success the contract documents, never a 5xx; the server keeps answering;
 * the heap stays bounded; and a request that is refused (or only reads) leaves the state exactly as it was.
 *
 * Time-boxed: each property runs for a fixed time (ROBUSTNESS_FUZZ_MS, default below) with a seed printed
 * in the test name (fixed unless ROBUSTNESS_SEED=<n> or =random); ROBUSTNESS_TRACE=<file> logs every request sent.
 */
import { appendFileSync } from "node:fs";
import fc from "fast-check";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostileRequest, SandboxUnderTest } from "../../testing/hostile.ts";
import { describeRequest, hostileRequest } from "../../testing/hostile.ts";
import type { RawStep, RunningSim, WireAnswer } from "../../testing/robustness.ts";
import { answerProblems, collectGarbage, raw, serve } from "../../testing/robustness.ts";
import { operations } from "../contract/operations.ts";
import type { Snapshot } from "../core/persistence/snapshot.ts";
import { stateDigest } from "../core/world/digest.ts";
import type { Manifest } from "../core/world/manifest.ts";

// Fixed, so that a red run replays as it was; `ROBUSTNESS_SEED=random` explores (the seed is in the test names).
const SEED =
  process.env.ROBUSTNESS_SEED === "random"
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env.ROBUSTNESS_SEED ?? 20261125);
const FUZZ_MS = Number(process.env.ROBUSTNESS_FUZZ_MS ?? 15_000);
const MiB = 1024 * 1024;

let s: RunningSim;
let pool: Pool;
let initial: Snapshot;
let digestNow: string;
let ownerKey: string;
let sandbox: SandboxUnderTest;

beforeAll(async () => {
  // No rate limit in the way: the fuzzer sends thousands of requests with the same few keys.
  s = await serve({ rateLimitPerMinute: 1_000_000_000 });
  pool = new Pool(s.base, { connections: 2, pipelining: 1, bodyTimeout: 20_000, headersTimeout: 20_000 });
  initial = s.sim.snapshot();
  digestNow = stateDigest(s.sim.state);
  ownerKey = s.sim.manifest().users.owner?.apiKey as string;
  const made = await s.host.fetch(new Request(`${s.base}/__sim/sandboxes`, { method: "POST", body: "{}" }));
  const body = (await made.json()) as { id: string; controlToken: string; manifest: Manifest };
  sandbox = {
    id: body.id,
    controlToken: body.controlToken,
    key: body.manifest.users.owner?.apiKey as string,
  };
});

afterAll(async () => {
  await pool?.close();
  await s?.close();
});

/** Puts back the world, config and faults when a request legitimately changed them. */
function resetWorld(): void {
  s.sim.restore(initial);
  s.sim.faults.clear();
  digestNow = stateDigest(s.sim.state);
}

function flatHeaders(h: Record<string, string | string[] | undefined>): Headers {
  const out = new Headers();
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
  }
  return out;
}

type Sent = { answer: WireAnswer } | { clientError: string } | { tolerated: string };

async function send(r: HostileRequest): Promise<Sent> {
  if (process.env.ROBUSTNESS_TRACE)
    appendFileSync(
      process.env.ROBUSTNESS_TRACE,
      `${Date.now()} > ${JSON.stringify({ ...r, body: r.body === null ? null : Buffer.isBuffer(r.body) ? { hex: r.body.toString("hex") } : r.body.length > 100_000 ? `LONG ${r.body.length}` : r.body })}\n`,
    );
  try {
    const res = await pool.request({
      method: r.method,
      path: r.target,
      headers: r.headers.flat(),
      body: r.body,
      // A request that gets no answer is a failure of its own, reported with the request.
      signal: AbortSignal.timeout(10_000),
    });
    const body = r.method === "HEAD" ? "" : await res.body.text();
    if (process.env.ROBUSTNESS_TRACE)
      appendFileSync(process.env.ROBUSTNESS_TRACE, `${Date.now()} < ${res.statusCode}\n`);
    return {
      answer: {
        method: r.method,
        target: r.target,
        status: res.statusCode,
        headers: flatHeaders(res.headers),
        body,
      },
    };
  } catch (error) {
    const e = error as Error & { code?: string };
    if (process.env.ROBUSTNESS_TRACE)
      appendFileSync(process.env.ROBUSTNESS_TRACE, `${Date.now()} ! ${e.code} ${e.message}\n`);
    // undici refuses to send some of what we generate (bad header characters, a body on CONNECT...).
    if (e.code === "UND_ERR_INVALID_ARG" || e.code === "UND_ERR_NOT_SUPPORTED")
      return { clientError: e.message };
    // A body over the cap is answered 413 at once and the rest drained for a bounded size: past that the
    // server cuts the connection, which the client may see before it reads the answer.
    const size = r.body === null ? 0 : Buffer.byteLength(r.body);
    if (size > 512 * 1024 && /socket|closed|reset|EPIPE/i.test(`${e.code} ${e.message}`)) {
      return { tolerated: `${e.code}: ${e.message}` };
    }
    if (e.name === "TimeoutError" || e.name === "AbortError") {
      throw new Error(`${describeRequest(r)} got no answer within 10 s`);
    }
    throw new Error(`${describeRequest(r)} failed on the client: ${e.code ?? e.name}: ${e.message}`);
  }
}

async function healthy(): Promise<void> {
  const res = await pool.request({
    method: "GET",
    path: "/api/v1/auth/me",
    headers: { authorization: `Bearer ${ownerKey}` },
  });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`the server stopped answering: auth/me → ${res.statusCode}`);
}

/**
 * Sends one run of requests in order and checks every answer. The state digest is taken before and after:
 * if every request of the run was refused or only read, it must not have moved.
 */
async function checkRun(requests: HostileRequest[]): Promise<void> {
  try {
    await checkRunOnce(requests);
  } catch (error) {
    // Shrinking replays smaller runs: each must start from the same world.
    resetWorld();
    throw error;
  }
}

async function checkRunOnce(requests: HostileRequest[]): Promise<void> {
  const before = digestNow;
  let changedLegitimately = false;
  for (const r of requests) {
    const sent = await send(r);
    if (!("answer" in sent)) continue;
    const problems = answerProblems(sent.answer);
    if (problems.length > 0) throw new Error(`${describeRequest(r)}\n→ ${problems.join("\n→ ")}`);
    const a = sent.answer;
    if (a.status < 400 && r.method !== "GET" && r.method !== "HEAD") changedLegitimately = true;
  }
  const after = stateDigest(s.sim.state);
  if (!changedLegitimately && after !== before) {
    throw new Error(
      `the state changed although every request was refused or only read:\n${requests.map(describeRequest).join("\n")}`,
    );
  }
  if (
    after !== before ||
    s.sim.faults.list().length > 0 ||
    s.sim.config.rateLimitPerMinute !== 1_000_000_000
  ) {
    resetWorld();
  } else {
    digestNow = after;
  }
  if (s.bugs.length > 0) throw new Error(`bug answered 500: ${String(s.bugs[0]?.error)}`);
}

describe(`hostile input over HTTP (seed ${SEED})`, () => {
  it(
    `random methods, paths, headers and bodies: 4xx envelope or documented success, state kept (seed ${SEED})`,
    async () => {
      const manifest = s.sim.manifest();
      await fc.assert(
        fc.asyncProperty(
          fc.array(hostileRequest(manifest, sandbox), { minLength: 1, maxLength: 6 }),
          async (rs) => {
            await checkRun(rs);
          },
        ),
        { seed: SEED, numRuns: 1_000_000, interruptAfterTimeLimit: FUZZ_MS, endOnFailure: false },
      );
      await healthy();
      expect(s.bugs).toEqual([]);
      expect(s.hostErrors).toEqual([]);
    },
    FUZZ_MS + 90_000,
  );

  it("every operation that takes a body refuses the classic parser-breakers, unchanged state, no pollution", async () => {
    const m = s.sim.manifest();
    const values: Record<string, string> = {
      audienceId: m.audiences.main?.id as string,
      formationId: m.formations.mainReady?.id as string,
      mindId: m.minds.ownLoose?.id as string,
      userId: m.users.admin?.id as string,
      keyId: "missing",
      id: "cs_missing",
    };
    const bodies: [string, string | Buffer][] = [
      ["application/json", "{"],
      ["text/plain", '{"name":"x"}'],
      ["application/json", Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])],
      ["application/json", "[".repeat(100_000) + "]".repeat(100_000)],
      ["application/json", '{"a":'.repeat(5_000) + "1" + "}".repeat(5_000)],
      ["application/json", `{"name":1e400,"mindIds":[${"9".repeat(1000)}],"limit":-1e400}`],
      [
        "application/json",
        '{"__proto__":{"polluted":1,"isAdmin":true},"constructor":{"prototype":{"polluted":1}},"hypothesis":{"__proto__":{"x":1}}}',
      ],
      ["application/json", JSON.stringify({ name: "a".repeat(MiB) })],
      ["application/json", JSON.stringify({ name: "\u0000\ud83d\ude00\u202e", isPublic: "yes" })],
    ];
    const bodyOps = operations.filter((op) => op.bodySchemaRef !== null);
    expect(bodyOps.length).toBeGreaterThan(5);
    for (const op of bodyOps) {
      const path = op.prefixes[0] + op.path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? "x");
      const before = stateDigest(s.sim.state);
      let changed = false;
      for (const [type, body] of bodies) {
        const r: HostileRequest = {
          method: op.method,
          target: path,
          headers: [
            ["authorization", `Bearer ${ownerKey}`],
            ["content-type", type],
          ],
          body,
        };
        const sent = await send(r);
        if (!("answer" in sent)) continue;
        expect(answerProblems(sent.answer), describeRequest(r)).toEqual([]);
        if (sent.answer.status < 400) changed = true;
      }
      if (!changed) expect(stateDigest(s.sim.state), `${op.operationId} changed the state`).toBe(before);
      resetWorld();
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("x");
    expect(s.bugs).toEqual([]);
  }, 90_000);

  it(`malformed HTTP, slow and truncated bodies on raw sockets (seed ${SEED})`, async () => {
    const m = s.sim.manifest();
    const main = m.audiences.main?.id as string;
    const auth = `Authorization: Bearer ${ownerKey}\r\n`;
    const line = fc.oneof(
      fc.constantFrom(
        "GET /api/v1/auth/me HTTP/1.1",
        `POST /api/v1/audiences/${main}/members HTTP/1.1`,
        "POST /api/v1/api-keys HTTP/1.1",
        `PUT /api/v1/audiences/${main} HTTP/1.1`,
        "GET * HTTP/1.1",
        "GET http://evil.example/api/v1/auth/me HTTP/1.1",
        "GET //api/v1/auth/me HTTP/1.1",
        "GET /api/v1/auth/me HTTP/1.0",
        "GET /api/v1/auth/me HTTP/2.0",
        "GET /api/v1/auth/me HTTP/1.1x",
        "GET /api/v1/auth/me",
        "G ET /api/v1/auth/me HTTP/1.1",
        "get /api/v1/auth/me HTTP/1.1",
        "FOO /api/v1/auth/me HTTP/1.1",
        "CONNECT 127.0.0.1:1 HTTP/1.1",
        "TRACE /api/v1/auth/me HTTP/1.1",
        `GET /api/v1/audiences/${main}/../../auth/me HTTP/1.1`,
        "GET /api/v1/audiences/\u00e9\u00e8 HTTP/1.1",
        "GET /api/v1/audiences/a b HTTP/1.1",
        `GET /${"a".repeat(20_000)} HTTP/1.1`,
        "",
        "\r\n\r\n",
      ),
      fc.string({ unit: "binary", maxLength: 60 }),
    );
    const header = fc.constantFrom(
      auth,
      auth + auth,
      "Host: sim.test\r\n",
      "Host: sim.test\r\nHost: other.test\r\n",
      "Host: evil/../x\r\n",
      "Host: [::1\r\n",
      "Content-Type: application/json\r\n",
      "Content-Type: text/plain\r\n",
      "Content-Length: abc\r\n",
      "Content-Length: 5\r\nContent-Length: 6\r\n",
      "Content-Length: -1\r\n",
      "Content-Length: 99999999999999999999\r\n",
      "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n",
      "Transfer-Encoding: gzip, chunked\r\n",
      "Transfer-Encoding: identity\r\n",
      "NoColonHere\r\n",
      ": empty-name\r\n",
      "X-Bad\u0001: v\r\n",
      "X-Folded: a\r\n b\r\n",
      "X-Latin: \u00ff\u00fe\u00e9\r\n",
      `X-Huge: ${"h".repeat(20_000)}\r\n`,
      "Expect: 100-continue\r\n",
      "Connection: close\r\n",
      "Connection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n",
    );
    const body = fc.oneof(
      fc.constant({ declared: "", parts: [] as string[] }),
      fc
        .tuple(
          fc.constantFrom('{"mindId":"x"}', '{"name":"raw"}', "{", '{"name":"\u00e9"}', "x".repeat(70_000)),
          fc.integer({ min: -20, max: 20 }),
          fc.integer({ min: 1, max: 5 }),
        )
        .map(([text, skew, pieces]) => {
          // skew < 0 declares less than is sent, > 0 more (a truncated body).
          const bytes = Buffer.byteLength(text);
          const declared = `Content-Length: ${Math.max(0, bytes + skew)}\r\n`;
          const size = Math.ceil(text.length / pieces);
          const parts: string[] = [];
          for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
          return { declared, parts };
        }),
      fc.constantFrom(
        { declared: "Transfer-Encoding: chunked\r\n", parts: ["e\r\n", '{"name":"chk"}\r\n', "0\r\n\r\n"] },
        { declared: "Transfer-Encoding: chunked\r\n", parts: ["zz\r\n{}\r\n0\r\n\r\n"] },
        { declared: "Transfer-Encoding: chunked\r\n", parts: ["2;ext=1\r\n{}\r\n"] },
        { declared: "Transfer-Encoding: chunked\r\n", parts: ["ffffffffffffffff\r\n{}"] },
      ),
    );
    const ending = fc.constantFrom<"wait" | "destroy">("wait", "wait", "destroy");
    const delay = fc.integer({ min: 0, max: 40 });

    let before = stateDigest(s.sim.state);
    await fc.assert(
      fc.asyncProperty(
        line,
        fc.array(header, { maxLength: 4 }),
        body,
        ending,
        delay,
        async (requestLine, hs, b, end, pause) => {
          try {
            await rawRun(requestLine, hs, b, end, pause);
          } catch (error) {
            resetWorld();
            before = stateDigest(s.sim.state);
            throw error;
          }
        },
      ),
      { seed: SEED, numRuns: 1_000_000, interruptAfterTimeLimit: Math.round(FUZZ_MS * 0.6) },
    );
    expect(s.bugs).toEqual([]);
    expect(s.hostErrors).toEqual([]);

    async function rawRun(
      requestLine: string,
      hs: string[],
      b: { declared: string; parts: readonly string[] },
      end: "wait" | "destroy",
      pause: number,
    ): Promise<void> {
      const head = `${requestLine}\r\nHost: 127.0.0.1\r\n${hs.join("")}${b.declared}\r\n`;
      const steps: RawStep[] = [Buffer.from(head, "latin1")];
      for (const part of b.parts) steps.push({ delayMs: pause }, Buffer.from(part, "utf8"));
      if (end === "destroy") steps.push({ delayMs: pause }, { destroy: true });
      const result = await raw(s.port, steps, { timeoutMs: 1_500, head: requestLine.startsWith("HEAD") });
      const method = requestLine.split(" ")[0] ?? "";
      const target = requestLine.split(" ")[1] ?? "/";
      let mutated = false;
      for (const res of result.responses) {
        const answer: WireAnswer = {
          method,
          target: targetPath(target),
          status: res.status,
          headers: res.headers,
          body: res.body.toString("utf8"),
        };
        const problems = answerProblems(answer);
        if (problems.length > 0) {
          throw new Error(`${JSON.stringify(head.slice(0, 300))}\n→ ${problems.join("\n→ ")}`);
        }
        if (res.status < 400 && method !== "GET") mutated = true;
      }
      if (result.garbled) throw new Error(`unparseable answer to ${JSON.stringify(head.slice(0, 200))}`);
      const after = stateDigest(s.sim.state);
      if (!mutated && after !== before) {
        throw new Error(`state changed by a refused raw request: ${JSON.stringify(head.slice(0, 300))}`);
      }
      if (after !== before) resetWorld();
      before = stateDigest(s.sim.state);
      await healthy();
    }
  }, 120_000);

  it("clients that hang up mid-upload and mid NDJSON preview change nothing and break nothing", async () => {
    const m = s.sim.manifest();
    const main = m.audiences.main?.id as string;
    const large = m.audiences.large?.id as string;
    const before = stateDigest(s.sim.state);
    for (let i = 0; i < 12; i++) {
      const audience = i % 2 === 0 ? main : large;
      const body = "{}";
      // Mid-stream: read the first bytes of the NDJSON preview, then hang up.
      const preview = await raw(
        s.port,
        [
          `POST /api/v1/audiences/${audience}/formations/preview HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ownerKey}\r\n` +
            `Accept: application/x-ndjson\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
          { delayMs: i * 3 },
          { destroy: true },
        ],
        { timeoutMs: 3_000, expect: 99 },
      );
      expect(preview.data.toString("latin1")).toMatch(/^HTTP\/1\.1 200|^$/);
      // Mid-upload: declare a body, send part of it, hang up.
      await raw(
        s.port,
        [
          `POST /api/v1/audiences/${main}/members HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ownerKey}\r\n` +
            `Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"mindIds":["`,
          "a".repeat(i * 1000),
          { delayMs: i },
          { destroy: true },
        ],
        { timeoutMs: 2_000 },
      );
    }
    // And through a real client that aborts while reading the stream.
    for (let i = 0; i < 6; i++) {
      const ac = new AbortController();
      const res = await pool.request({
        method: "POST",
        path: `/api/v1/audiences/${large}/formations/preview`,
        headers: {
          authorization: `Bearer ${ownerKey}`,
          accept: "application/x-ndjson",
          "content-type": "application/json",
        },
        body: "{}",
        signal: ac.signal,
      });
      expect(res.statusCode).toBe(200);
      const it = res.body[Symbol.asyncIterator]();
      await it.next();
      ac.abort();
      await res.body.text().catch(() => {});
    }
    await new Promise((r) => setTimeout(r, 200));
    await healthy();
    expect(stateDigest(s.sim.state)).toBe(before);
    expect(s.bugs).toEqual([]);
    expect(s.hostErrors).toEqual([]);
  }, 60_000);

  it(
    `the heap stays bounded: another round of the same runs leaves it where it was (seed ${SEED})`,
    async () => {
      // Everything above has warmed up what is built once (compiled validators, code, pools): from here on,
      // more requests must not mean more memory.
      await healthy();
      collectGarbage();
      const before = process.memoryUsage().heapUsed;
      const manifest = s.sim.manifest();
      await fc.assert(
        fc.asyncProperty(
          fc.array(hostileRequest(manifest, sandbox), { minLength: 1, maxLength: 6 }),
          checkRun,
        ),
        { seed: SEED + 1, numRuns: 1_000_000, interruptAfterTimeLimit: Math.round(FUZZ_MS / 3) },
      );
      await healthy();
      collectGarbage();
      const { heapUsed, rss } = process.memoryUsage();
      const growth = heapUsed - before;
      expect(growth, `heap grew by ${(growth / MiB).toFixed(1)} MiB`).toBeLessThan(32 * MiB);
      expect(heapUsed, `heap ${(heapUsed / MiB).toFixed(0)} MiB`).toBeLessThan(512 * MiB);
      expect(rss, `RSS ${(rss / MiB).toFixed(0)} MiB`).toBeLessThan(1024 * MiB);
      expect(s.bugs).toEqual([]);
    },
    FUZZ_MS + 60_000,
  );
});

/** The path a request target names: absolute-form (`http://host/p`) is served as its path, like origin-form. */
function targetPath(target: string): string {
  if (target.startsWith("/")) return target;
  try {
    const u = new URL(target);
    return `${u.pathname}${u.search}`;
  } catch {
    return "/";
  }
}
