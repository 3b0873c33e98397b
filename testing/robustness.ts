/**
 * Shared pieces of the robustness suite: a simulator served over real HTTP on an ephemeral port, a raw
 * socket client for requests no well-behaved client would send, a parser for what comes back, and the one
 * rule every answer must obey: a 4xx error envelope, or a success the contract documents; never a 5xx.
 */
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import v8 from "node:v8";
import vm from "node:vm";
import { operations } from "../src/contract/operations.ts";
import { checkResponse } from "../src/contract/responses.ts";
import { Router } from "../src/core/request/router.ts";
import { type RunningServer, startServer } from "../src/node/server.ts";
import type { SandboxHost, Simulator, SimulatorOptions } from "../src/simulator.ts";
import { createSandboxes, createSimulator } from "../src/simulator.ts";

const router = new Router(operations);

export interface RunningSim {
  sim: Simulator;
  /** What the server serves: the default world `sim` with sandboxes beside it, as `npm start` does. */
  host: SandboxHost;
  server: RunningServer;
  base: string;
  port: number;
  /** Non-ApiError throws the simulator answered as 500: every one is a bug. */
  bugs: { error: unknown; where: unknown }[];
  /** Host failures (a response stream that errored, a rejected fetch). */
  hostErrors: { error: unknown; where: unknown }[];
  close(): Promise<void>;
}

/**
 * The default scenario on a manual clock, with room for four sandboxes, behind the node:http host on
 * 127.0.0.1, port 0.
 */
export async function serve(options: SimulatorOptions = {}): Promise<RunningSim> {
  const bugs: RunningSim["bugs"] = [];
  const hostErrors: RunningSim["hostErrors"] = [];
  const all: SimulatorOptions = {
    clock: "manual",
    onError: (error, where) => bugs.push({ error, where }),
    ...options,
  };
  const sim = createSimulator(all);
  const host = createSandboxes({ ...all, maxSandboxes: 4 }, sim);
  await sim.ready;
  const server = await startServer(host, {
    port: 0,
    host: "127.0.0.1",
    onError: (error, where) => {
      // A client that went away mid-request is the point of some tests, not a failure of the host.
      if (error instanceof Error && error.name === "AbortError") return;
      hostErrors.push({ error, where });
    },
  });
  return {
    sim,
    host,
    server,
    base: server.url,
    port: server.port,
    bugs,
    hostErrors,
    close: () => server.close(),
  };
}

export interface RawResponse {
  status: number;
  reason: string;
  headers: Headers;
  body: Buffer;
}

/**
 * Parses the complete HTTP/1.1 responses at the start of `buf` (Content-Length, chunked, or, when the
 * connection has closed, read-until-close bodies). Interim 1xx answers are skipped.
 */
export function parseResponses(
  buf: Buffer,
  options: { closed?: boolean; head?: boolean } = {},
): { responses: RawResponse[]; rest: Buffer } {
  const responses: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const end = buf.indexOf("\r\n\r\n", at);
    if (end < 0) break;
    const lines = buf.subarray(at, end).toString("latin1").split("\r\n");
    const m = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(lines[0] ?? "");
    if (!m) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0])}`);
    const status = Number(m[1]);
    const headers = new Headers();
    for (const line of lines.slice(1)) {
      const i = line.indexOf(":");
      if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
    }
    let bodyStart = end + 4;
    if (status < 200) {
      at = bodyStart;
      continue;
    }
    let body: Buffer;
    const length = headers.get("content-length");
    if (options.head || status === 204 || status === 304) {
      body = Buffer.alloc(0);
    } else if (headers.get("transfer-encoding")?.toLowerCase().includes("chunked")) {
      const parts: Buffer[] = [];
      let p = bodyStart;
      let done = false;
      for (;;) {
        const lineEnd = buf.indexOf("\r\n", p);
        if (lineEnd < 0) break;
        const size = Number.parseInt(buf.subarray(p, lineEnd).toString("latin1"), 16);
        if (size === 0) {
          const trailerEnd = buf.indexOf("\r\n", lineEnd + 2);
          if (trailerEnd < 0) break;
          p = trailerEnd + 2;
          done = true;
          break;
        }
        if (buf.length < lineEnd + 2 + size + 2) break;
        parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
        p = lineEnd + 2 + size + 2;
      }
      if (!done) break;
      body = Buffer.concat(parts);
      bodyStart = p;
      responses.push({ status, reason: m[2] ?? "", headers, body });
      at = bodyStart;
      continue;
    } else if (length !== null) {
      const n = Number(length);
      if (buf.length < bodyStart + n) break;
      body = buf.subarray(bodyStart, bodyStart + n);
      bodyStart += n;
    } else if (options.closed) {
      body = buf.subarray(bodyStart);
      bodyStart = buf.length;
    } else {
      break;
    }
    responses.push({ status, reason: m[2] ?? "", headers, body });
    at = bodyStart;
  }
  return { responses, rest: buf.subarray(at) };
}

export type RawStep = string | Buffer | { delayMs: number } | { destroy: true };

export interface RawResult {
  responses: RawResponse[];
  /** Every byte the server sent. */
  data: Buffer;
  /** The server closed the connection (rather than us, after the answers we waited for). */
  closedByServer: boolean;
  /** What came back is not HTTP/1.1. */
  garbled: boolean;
}

/**
 * What the socket sends until `enough` says so, the server closes or fails, or `timeoutMs` passes; the socket
 * is destroyed then. (The simulator's own tooling: the kit has its reader, and neither imports the other.)
 */
function untilEnough(
  socket: net.Socket,
  enough: (data: Buffer) => boolean,
  timeoutMs: number,
): Promise<{ data: Buffer; closedByServer: boolean }> {
  return new Promise((resolve) => {
    let data = Buffer.alloc(0);
    let closedByServer = false;
    const done = (): void => {
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on("error", () => {});
      socket.destroy();
      resolve({ data, closedByServer });
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (enough(data)) done();
    });
    for (const event of ["end", "error"])
      socket.on(event, () => {
        closedByServer = true;
        done();
      });
    socket.on("close", done);
  });
}

/**
 * Sends raw bytes (with pauses, or an abrupt close) on a fresh connection and collects what comes back:
 * until `expect` responses are complete, the server closes, or `timeoutMs` passes.
 */
export function raw(
  port: number,
  steps: readonly RawStep[],
  options: { expect?: number; timeoutMs?: number; head?: boolean } = {},
): Promise<RawResult> {
  const expect = options.expect ?? 1;
  const head = options.head ?? false;
  const socket = net.connect(port, "127.0.0.1");
  const enough = (data: Buffer): boolean => {
    try {
      return parseResponses(data, { head }).responses.length >= expect;
    } catch {
      return false; // not HTTP: wait for the close
    }
  };
  socket.once("connect", async () => {
    for (const step of steps) {
      if (socket.destroyed) return;
      if (typeof step === "string" || Buffer.isBuffer(step)) socket.write(step);
      else if ("delayMs" in step) await sleep(step.delayMs);
      else return void socket.destroy();
    }
  });
  return untilEnough(socket, enough, options.timeoutMs ?? 5_000).then(({ data, closedByServer }) => {
    try {
      return {
        responses: parseResponses(data, { closed: true, head }).responses,
        data,
        closedByServer,
        garbled: false,
      };
    } catch {
      return { responses: [], data, closedByServer, garbled: true };
    }
  });
}

export interface WireAnswer {
  method: string;
  /** The request target as sent (path and query). */
  target: string;
  status: number;
  headers: Headers;
  body: string;
}

/** Paths outside the API whose errors are HTML pages for a browser, not envelopes. */
const HTML_PAGES = /^(\/sandboxes\/[a-z0-9-]+)?\/checkout\//;

/** What is wrong with an answer: a 5xx, a 4xx that is not the envelope, or an undocumented success. */
export function answerProblems(a: WireAnswer): string[] {
  const problems: string[] = [];
  let pathname: string;
  try {
    pathname = new URL(a.target, "http://sim.test").pathname;
  } catch {
    pathname = a.target;
  }
  if (a.status >= 500) return [`${a.status} answer: ${a.body.slice(0, 300)}`];
  if (a.status >= 400) {
    if (a.method === "HEAD") return problems;
    if (HTML_PAGES.test(pathname) && (a.headers.get("content-type") ?? "").startsWith("text/html")) {
      return problems;
    }
    if (!(a.headers.get("content-type") ?? "").startsWith("application/json")) {
      problems.push(`${a.status} with Content-Type ${a.headers.get("content-type")}`);
    }
    let env: Record<string, unknown>;
    try {
      env = JSON.parse(a.body) as Record<string, unknown>;
    } catch {
      return [...problems, `${a.status} body is not JSON: ${a.body.slice(0, 200)}`];
    }
    if (
      env === null ||
      typeof env !== "object" ||
      env.statusCode !== a.status ||
      typeof env.statusMessage !== "string" ||
      typeof env.message !== "string" ||
      typeof env.url !== "string" ||
      env.error !== true
    ) {
      problems.push(`${a.status} body is not the error envelope: ${a.body.slice(0, 300)}`);
    }
    return problems;
  }
  const match = router.match(a.method === "HEAD" ? "GET" : a.method, pathname);
  if (match.kind === "found") {
    const body = a.method === "HEAD" ? null : a.body;
    if (body !== null) {
      for (const issue of checkResponse(match.op.operationId, a.status, a.headers, body)) {
        problems.push(`${match.op.operationId} ${a.status}: ${issue.code} ${issue.message}`);
      }
    }
  } else if (!/^\/(__sim(\/|$)|checkout\/|sandboxes\/|_openapi\.json$)/.test(pathname)) {
    problems.push(`${a.status} success on ${pathname}, which is no operation of the contract`);
  }
  return problems;
}

let gc: (() => void) | undefined;

/** A full garbage collection, so heap figures measure what is live rather than what is not collected yet. */
export function collectGarbage(): void {
  if (!gc) {
    v8.setFlagsFromString("--expose-gc");
    gc = vm.runInNewContext("gc") as () => void;
  }
  gc();
  gc();
}

/** Raw keys of every user of the manifest, by handle. */
export function keysByHandle(sim: Simulator): Map<string, string> {
  return new Map(Object.entries(sim.manifest().users).map(([h, u]) => [h, u.apiKey]));
}
