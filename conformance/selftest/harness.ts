/**
 * Deliberately broken servers for the kit's self-test: the real simulator behind a fetch wrapper that
 * breaks one thing. A fault sees each request and the simulator's answer and may change either.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { startServer } from "../../src/node/server.ts";
import { createSandboxes, createSimulator, type Simulator } from "../../src/simulator.ts";
import { discover, type TargetInfo } from "../lib/http/target.ts";
import { configOf } from "../lib/planning/config-of.ts";
import type { Violation } from "../lib/reporting/report.ts";
import { type CheckDef, type RunOptions, runCheck, UNDECLARED_RULE } from "../lib/running/context.ts";

export interface FaultEnv {
  sim: Simulator;
  /** Per-server memory for stateful faults. */
  memory: Map<string, unknown>;
}

export type Fault = (
  req: Request,
  next: (r: Request) => Promise<Response>,
  env: FaultEnv,
) => Promise<Response>;

export interface BrokenServer {
  info: TargetInfo;
  /** The simulator behind the fault, for tests that look at its world directly. */
  sim: Simulator;
  close(): Promise<void>;
}

/**
 * Which HTTP layer serves the broken simulator: the project's node host, or node:http with its defaults
 * (bare 400/417 answers, a 16 KiB head), as a server that forwards to a correct core would have, or
 * node:http taking heads of any size (so a target the host would refuse reaches the fetch handler).
 */
export type HttpLayer = "host" | "node-defaults" | "node-large-heads";

export async function brokenServer(
  fault: Fault | null,
  seed = 7,
  layer: HttpLayer = "host",
): Promise<BrokenServer> {
  const options = { clock: "manual" as const, wallClock: Date.now };
  const sim = createSimulator(options);
  const server = await serveBroken(sim, fault, layer, createSandboxes(options, sim));
  const info = await discover({
    target: server.url,
    config: null,
    seed,
    runs: null,
    readOnly: false,
    noReset: false,
    controlToken: null,
    runId: `selftest-${process.pid}`,
  });
  return { info, sim, close: server.close };
}

/**
 * `sim` behind `fault` (the control plane passes untouched), served over `layer` on a free port; with
 * `host`, sandboxes beside it (as `serve` has them), whose requests pass the fault too.
 */
export async function serveBroken(
  sim: Simulator,
  fault: Fault | null,
  layer: HttpLayer,
  host: { fetch(req: Request): Promise<Response> } = sim,
): Promise<{ url: string; close(): Promise<void> }> {
  const env: FaultEnv = { sim, memory: new Map() };
  const handler = {
    fetch: (req: Request) => {
      const control = new URL(req.url).pathname.startsWith("/__sim");
      return fault && !control ? fault(req, (r) => host.fetch(r), env) : host.fetch(req);
    },
  };
  return layer === "host"
    ? await startServer(handler, { port: 0, host: "127.0.0.1", onError: () => {} })
    : await plainServer(handler.fetch, layer === "node-large-heads" ? 1 << 22 : undefined);
}

/** The operator's control token of a deployment-mode server: the kit is never given it. */
const OPERATOR = "selftest-operator";

/**
 * The same broken simulator seen as a deployment: its clock runs in real time (`speed` times faster, so
 * that builds, exports and recalibrations finish within a test), its control plane is closed behind a
 * token, and the kit reaches it through a config file written as a team would write one, with the
 * resources the checks change marked changeable. The rate limit is lifted unless one is given (then the
 * config declares it too).
 */
export async function deploymentServer(
  fault: Fault | null,
  layer: HttpLayer = "host",
  {
    speed = 10,
    seed = 7,
    rateLimitPerMinute = null,
    deep = true,
    countedInOnePlace = false,
    changeable,
    realSeconds = false,
  }: {
    speed?: number;
    seed?: number;
    rateLimitPerMinute?: number | null;
    deep?: boolean;
    /** The config says the deployment counts each account in one place (`rateLimitCountedInOnePlace`). */
    countedInOnePlace?: boolean;
    /** The Audiences the config lets the run change (configOf's choice unless given). */
    changeable?: readonly string[];
    /**
     * `Retry-After` in the seconds the kit waits, not the simulator's (a window of a minute passes in
     * 60/speed real seconds): a deployment whose every window the kit waits out as a real one would be.
     */
    realSeconds?: boolean;
  } = {},
): Promise<BrokenServer> {
  const start = Date.now();
  const sim = createSimulator({
    clock: "real",
    wallClock: () => start + (Date.now() - start) * speed,
    controlToken: OPERATOR,
    rateLimitPerMinute: rateLimitPerMinute ?? 1_000_000,
  });
  const scaled: Fault | null = realSeconds ? scaleRetryAfter(fault, speed) : fault;
  const server = await serveBroken(sim, scaled, layer);
  await sim.ready;
  // Its machines take seconds of real time (less when the clock runs fast): held to twice that and more.
  const deadlines = {
    formationBuildMs: 8_000,
    exportMs: 8_000,
    recalibrationMs: 30_000,
    researchMs: 40_000,
  };
  const config = configOf(sim.manifest(), server.url, {
    pollTimeoutMs: 15_000,
    rateLimitPerMinute,
    deadlines,
    ...(changeable ? { changeable } : {}),
  });
  if (countedInOnePlace) config.rateLimitCountedInOnePlace = true;
  // The team offers one collaborator the run may remove for good.
  // (admin: the rate-limit check spends member's window just before, at the end of a quick run)
  config.consumable = { collaborator: { audience: "main", role: "admin" } };
  // The kit reads the file once, when it resolves the target.
  const dir = mkdtempSync(join(tmpdir(), "kit-deployment-"));
  try {
    const file = join(dir, "config.json");
    writeFileSync(file, JSON.stringify(config, null, 2));
    const info = await discover({
      target: null,
      config: file,
      seed,
      runs: null,
      readOnly: false,
      noReset: true,
      controlToken: null,
      deep,
      runId: `selftest-deployment-${process.pid}`,
    });
    return { info, sim, close: server.close };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `fault`, then every `Retry-After` in real seconds: the simulator's, divided by its clock's speed. */
function scaleRetryAfter(fault: Fault | null, speed: number): Fault {
  return async (req, next, env) => {
    const res = await (fault ? fault(req, next, env) : next(req));
    const ra = Number(res.headers.get("retry-after"));
    if (!Number.isFinite(ra) || ra <= 0) return res;
    return withHeaders(res, (h) => h.set("retry-after", String(Math.max(1, Math.ceil(ra / speed)))));
  };
}

/** node:http as it comes, forwarding every request to `fetch`. */
async function plainServer(
  fetch: (r: Request) => Promise<Response>,
  maxHeaderSize?: number,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(maxHeaderSize ? { maxHeaderSize } : {}, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
    const hasBody = req.method !== "GET" && req.method !== "HEAD" && chunks.length > 0;
    const answer = await fetch(
      new Request(`http://${req.headers.host ?? "localhost"}${req.url}`, {
        method: req.method ?? "GET",
        headers,
        ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
      }),
    );
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Asserts that `found` holds a report of `c`'s check and no finding under a rule its check does not
 * declare; on failure, says what was reported instead.
 */
export function expectReported(found: readonly Violation[], c: { reportedBy: string }): void {
  expect(found.filter((v) => v.rule.includes(UNDECLARED_RULE)).map((v) => `${v.check}: ${v.rule}`)).toEqual(
    [],
  );
  const hit = found.filter((v) => v.check.startsWith(c.reportedBy));
  const seen = [...new Set(found.map((v) => `${v.check}: ${v.message}`))].slice(0, 5).join(" | ");
  expect(hit.length, `not reported by ${c.reportedBy}; reported: ${seen || "nothing"}`).toBeGreaterThan(0);
}

/** Runs checks and returns every violation (a check that could not finish contributes what it found). */
export async function runAll(
  checks: readonly CheckDef[],
  info: TargetInfo,
  options: RunOptions = {},
): Promise<Violation[]> {
  const out: Violation[] = [];
  for (const def of checks) {
    try {
      out.push(...(await runCheck(def, info, undefined, options)));
    } catch (e) {
      const partial = (e as { violations?: Violation[] }).violations;
      if (!partial) throw e;
      out.push(...partial);
    }
  }
  return out;
}

// ---- helpers for writing faults ----

export function pathOf(req: Request): string {
  return new URL(req.url).pathname;
}

/** A copy of a response with its JSON body changed by `edit` (bodies that are not JSON pass unchanged). */
// biome-ignore lint/suspicious/noExplicitAny: faults edit response bodies field by field
export async function editJson(res: Response, edit: (body: any) => unknown): Promise<Response> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, res);
  }
  const next = edit(body);
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(next === undefined ? body : next), { status: res.status, headers });
}

export async function withHeaders(res: Response, edit: (h: Headers) => void): Promise<Response> {
  const headers = new Headers(res.headers);
  edit(headers);
  // A 204 or 304 may carry no body at all, not even an empty one.
  const body = res.status === 204 || res.status === 304 ? null : await res.arrayBuffer();
  return new Response(body, { status: res.status, headers });
}

export function withStatus(res: Response, status: number): Response {
  return new Response(res.body, { status, headers: res.headers });
}

/** An answer a fault makes up instead of the simulator's: JSON (or no body), with rate-limit headers. */
export function answer(status: number, body?: unknown, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json; charset=utf-8" }),
      "ratelimit-limit": "300",
      "ratelimit-remaining": "299",
      ...headers,
    },
  });
}

export function envelope(status: number, message: string, url: string, extra: object = {}): Response {
  return answer(status, { statusCode: status, statusMessage: message, message, url, error: true, ...extra });
}

export function keyOf(req: Request): string | null {
  const m = /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "");
  return m ? (m[1] as string) : null;
}

/** The manifest handle of the caller, or null. */
export function callerOf(req: Request, env: FaultEnv): string | null {
  const key = keyOf(req);
  const users = env.sim.manifest().users;
  return Object.entries(users).find(([, u]) => u.apiKey === key)?.[0] ?? null;
}
