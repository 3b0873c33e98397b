/**
 * Load: 50 connections for a bounded time (ROBUSTNESS_LOAD_MS, default 15 s) on a mixed read/write
 * workload of every kind of call, over real HTTP. Zero client errors, zero 5xx, every answer documented.
 * Then the rate limiter at its boundary under concurrency: with a limit of 100 per minute, 150 requests at
 * once for one account get exactly 100 answers and 50 refusals (429 with Retry-After), and the successes'
 * RateLimit-Remaining values are 99 down to 0, each exactly once.
 */
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerProblems, collectGarbage, type RunningSim, serve } from "../../testing/robustness.ts";
import type { Manifest } from "../core/world/manifest.ts";

const LOAD_MS = Number(process.env.ROBUSTNESS_LOAD_MS ?? 15_000);
const CONNECTIONS = 50;
const MiB = 1024 * 1024;

let s: RunningSim;
let m: Manifest;

beforeAll(async () => {
  s = await serve({ rateLimitPerMinute: 1_000_000_000 });
  m = s.sim.manifest();
});

afterAll(async () => {
  await s?.close();
});

interface Call {
  method: string;
  path: string;
  as: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The mixed workload: mostly reads, a steady share of writes, one NDJSON stream now and then. */
function workload(i: number): Call {
  const main = m.audiences.main?.id as string;
  const pub = m.audiences.public?.id as string;
  const large = m.audiences.large?.id as string;
  const form = m.formations.mainReady?.id as string;
  const roles = ["owner", "teammate", "admin", "member", "outsider", "publisher"];
  const as = roles[i % roles.length] as string;
  const calls: Call[] = [
    { method: "GET", path: "/api/v1/auth/me", as },
    { method: "GET", path: `/api/v1/audiences/${main}`, as: "owner" },
    { method: "GET", path: `/api/v1/audiences/${pub}?members=preview`, as },
    { method: "GET", path: `/api/v1/audiences/${main}/formations?limit=10`, as: "owner" },
    { method: "GET", path: `/api/v1/audiences/${main}/formations/${form}`, as: "owner" },
    { method: "GET", path: `/api/v1/audiences/${main}/progress`, as: "owner" },
    { method: "GET", path: `/api/v1/audiences/${main}/collaborators`, as: "owner" },
    {
      method: "GET",
      path: `/api/v1/audiences/${large}/filter-attributes?filters=${encodeURIComponent('{"country":["DE","FR"]}')}`,
      as,
    },
    { method: "GET", path: "/api/v1/api-keys", as: "owner" },
    { method: "PUT", path: `/api/v1/audiences/${main}`, as: "owner", body: { name: `Renamed ${i}` } },
    { method: "POST", path: `/api/v1/audiences/${pub}/follow`, as },
    { method: "DELETE", path: `/api/v1/audiences/${pub}/follow`, as },
    { method: "POST", path: "/api/v1/api-keys", as: "owner", body: { name: `load ${i}` } },
    {
      method: "POST",
      path: `/api/v1/audiences/${main}/formations/preview`,
      as: "owner",
      body: {},
      headers: { accept: "application/x-ndjson" },
    },
    {
      method: "POST",
      path: `/api/v1/audiences/${main}/export`,
      as: "owner",
      body: { kind: "brief", format: "md" },
    },
    { method: "GET", path: "/api/v1/audiences/00000000-0000-4000-8000-000000000000", as },
    { method: "GET", path: "/v1/auth/me", as: "nobody" },
  ];
  return calls[i % calls.length] as Call;
}

function headersOf(h: Record<string, string | string[] | undefined>): Headers {
  const out = new Headers();
  for (const [k, v] of Object.entries(h)) if (v !== undefined) for (const x of [v].flat()) out.append(k, x);
  return out;
}

describe("load", () => {
  it(
    `${CONNECTIONS} connections, mixed workload, ${LOAD_MS / 1000} s: no errors, no 5xx, all documented`,
    async () => {
      const pool = new Pool(s.base, { connections: CONNECTIONS, pipelining: 1 });
      const deadline = Date.now() + LOAD_MS;
      const statuses = new Map<number, number>();
      const errors: string[] = [];
      let n = 0;
      const worker = async (w: number): Promise<void> => {
        for (let i = w; Date.now() < deadline; i += CONNECTIONS) {
          const c = workload(i + n++);
          const key = m.users[c.as]?.apiKey ?? "service_nobody";
          try {
            const res = await pool.request({
              method: c.method,
              path: c.path,
              headers: {
                authorization: `Bearer ${key}`,
                ...(c.body !== undefined ? { "content-type": "application/json" } : {}),
                ...c.headers,
              },
              ...(c.body !== undefined ? { body: JSON.stringify(c.body) } : {}),
            });
            const text = await res.body.text();
            statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
            const problems = answerProblems({
              method: c.method,
              target: c.path,
              status: res.statusCode,
              headers: headersOf(res.headers),
              body: text,
            });
            if (problems.length > 0 && errors.length < 20)
              errors.push(`${c.method} ${c.path}: ${problems.join("; ")}`);
          } catch (error) {
            if (errors.length < 20) errors.push(`${c.method} ${c.path}: ${String(error)}`);
          }
        }
      };
      const started = Date.now();
      await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
      const seconds = (Date.now() - started) / 1000;
      await pool.close();
      const total = [...statuses.values()].reduce((a, b) => a + b, 0);
      console.log(
        `load: ${total} requests in ${seconds.toFixed(1)} s (${Math.round(total / seconds)}/s) on ${CONNECTIONS} connections; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
      expect(errors).toEqual([]);
      expect([...statuses.keys()].filter((code) => code >= 500)).toEqual([]);
      expect(total).toBeGreaterThan(500);
      expect(s.bugs).toEqual([]);
      expect(s.hostErrors).toEqual([]);
      collectGarbage();
      expect(process.memoryUsage().heapUsed).toBeLessThan(512 * MiB);
    },
    LOAD_MS + 60_000,
  );

  it("the rate limiter is exact at its boundary under concurrency: 150 at once, limit 100", async () => {
    const config = await fetch(`${s.base}/__sim/config`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rateLimitPerMinute: 100 }),
    });
    expect(config.status).toBe(200);
    // A fresh window: the account has not been used, and a minute of virtual time passes anyway.
    s.sim.advance(60_000);
    const key = m.users.solo?.apiKey as string;
    const pool = new Pool(s.base, { connections: 150, pipelining: 1 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 150 }, async () => {
          const res = await pool.request({
            method: "GET",
            path: "/api/v1/auth/me",
            headers: { authorization: `Bearer ${key}` },
          });
          await res.body.text();
          return {
            status: res.statusCode,
            remaining: Number(res.headers["ratelimit-remaining"]),
            limit: res.headers["ratelimit-limit"],
            retryAfter: res.headers["retry-after"],
          };
        }),
      );
      const ok = answers.filter((a) => a.status === 200);
      const limited = answers.filter((a) => a.status === 429);
      expect(ok).toHaveLength(100);
      expect(limited).toHaveLength(50);
      expect(ok.map((a) => a.remaining).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 100 }, (_, i) => i),
      );
      for (const a of limited) {
        expect(a.remaining).toBe(0);
        expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(Number(a.retryAfter)).toBeLessThanOrEqual(60);
      }
      expect(answers.every((a) => a.limit === "100")).toBe(true);
    } finally {
      await pool.close();
    }
    expect(s.bugs).toEqual([]);
  }, 60_000);
});
