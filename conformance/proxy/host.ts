/**
 * The validating proxy's own HTTP host: node:http on both sides, the kit's own (it shares the contract with
 * the simulator, never its server). Every request goes to the upstream as it came; the answer's bytes are
 * passed on as they arrive, untouched, and a copy of them is judged after the exchange has ended, off the
 * forwarding path (judge.ts). With `errors` an answer is held until judged, and one that breaks a counted
 * rule becomes a 502 naming it. What the HTTP layer refuses is answered in the API's envelope (400, 408,
 * 417, 431), as the simulator does.
 */
import http, { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from "node:http";
import https from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { type Contract, ownContract } from "../../src/contract/contract.ts";
import { withContract } from "../lib/description/contract.ts";
import { type Finding, Judge, type Observed } from "./judge.ts";
import { counts, envelopeBody, ownPage, type ProxyOptions, violationBody } from "./proxy.ts";
import { Recorder } from "./record.ts";

/**
 * Exchanges are judged in batches, off the forwarding path: when this many wait, or this long after the
 * first of them. One judge run after another keeps its code and data warm; judged one by one, between
 * forwards, an exchange cost five times what it costs in a batch (25 against 5 µs, measured).
 */
const BATCH = 64;
const BATCH_MS = 10;

/** Response bodies are judged up to this size; a longer one (a large download) by status and headers. */
const JUDGED_BODY_BYTES = 1024 * 1024;

/** Headers of one connection, not of the exchange (RFC 9110 §7.6.1), and those the proxy sets itself. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "expect",
  // The proxy reads the answers it judges: it asks for them uncompressed.
  "accept-encoding",
]);

export interface ProxyServer {
  url: string;
  judge: Judge;
  /** With `record`: the world the traffic showed. */
  recorder: Recorder | null;
  close(): Promise<void>;
}

export async function serveProxy(
  options: ProxyOptions & { port: number; host: string },
): Promise<ProxyServer> {
  const proxy = new Forwarder(options);
  // The heads the contract allows, and no larger (`x-max-header-bytes` beside the longest valid target).
  const serverOptions = { ...SERVER_OPTIONS, maxHeaderSize: proxy.contract.sizes.maxHead };
  const server = http.createServer(serverOptions, (req, res) => proxy.serve(req, res));
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    res.writeContinue();
    proxy.serve(req, res);
  });
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) =>
    sendJson(res, 417, envelopeBody(417, "Expectation Failed", pathOf(req.url ?? "/"))),
  );
  server.on("clientError", onClientError);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    // Whoever reads the verdicts sees every exchange that has ended, none left waiting in a batch.
    get judge() {
      proxy.flush();
      return proxy.judge;
    },
    get recorder() {
      proxy.flush();
      return proxy.recorder;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          proxy.flush();
          proxy.agent.destroy();
          resolve();
        });
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      }),
  };
}

const SERVER_OPTIONS: http.ServerOptions = {
  keepAlive: true,
  keepAliveTimeout: 10_000,
  headersTimeout: 30_000,
  requestTimeout: 120_000,
  noDelay: true,
  requireHostHeader: false,
};

/** Forwards each exchange to the upstream and hands a copy of it to the judge. */
class Forwarder {
  private readonly upstream: URL;
  private readonly base: string;
  private readonly client: typeof http | typeof https;
  readonly agent: http.Agent;
  readonly recorder: Recorder | null;
  readonly judge: Judge;
  /** What every exchange is judged against: the contract the proxy was handed. */
  readonly contract: Contract;
  private readonly now: () => number;
  private waiting: Observed[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;

  private readonly options: ProxyOptions;
  constructor(options: ProxyOptions) {
    this.options = options;
    this.contract = options.contract ?? ownContract;
    this.upstream = new URL(options.upstream.replace(/\/$/, ""));
    this.base = this.upstream.pathname.replace(/\/$/, "");
    this.client = this.upstream.protocol === "https:" ? https : http;
    this.agent = new this.client.Agent({ keepAlive: true, maxSockets: 256 });
    this.now = options.now ?? Date.now;
    this.recorder = options.record ? new Recorder() : null;
    this.judge = new Judge(this.upstream.href.replace(/\/$/, ""), this.now(), this.recorder);
  }

  serve(req: IncomingMessage, res: ServerResponse): void {
    const target = req.url ?? "/";
    const path = pathOf(target);
    if (path === "/__proxy" || path.startsWith("/__proxy/")) {
      this.flush();
      const page = withContract(this.contract, () => ownPage(path, this.judge));
      res.writeHead(page.status, page.headers);
      return void res.end(page.body);
    }
    const started = performance.now();
    const at = this.now();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () =>
      this.forward(req, res, target, chunks.length ? Buffer.concat(chunks) : null, started, at),
    );
  }

  private forward(
    req: IncomingMessage,
    res: ServerResponse,
    target: string,
    body: Buffer | null,
    started: number,
    at: number,
  ): void {
    const { judged, sent } = requestHeaders(req.rawHeaders);
    sent.host = this.upstream.host;
    const up = this.client.request({
      protocol: this.upstream.protocol,
      hostname: this.upstream.hostname,
      port: this.upstream.port,
      path: this.base + target,
      method: req.method,
      headers: sent,
      agent: this.agent,
    });
    res.on("close", () => {
      if (!res.writableFinished) up.destroy();
    });
    up.on("error", (e: Error & { code?: string }) => this.unreachable(res, target, e));
    up.on("response", (answer) => {
      const observed = (responseBody: string | null): Observed => ({
        method: req.method ?? "GET",
        path: pathOf(target),
        url: `http://${req.headers.host ?? "proxy"}${target}`,
        requestHeaders: judged,
        requestBody: body ? body.toString("utf8") : null,
        status: answer.statusCode ?? 502,
        responseHeaders: judgedHeaders(answer.rawHeaders),
        responseBody,
        ms: performance.now() - started,
        at,
      });
      if (this.options.errors) return this.held(answer, res, target, observed);
      passOn(answer, res, (text) => this.later(observed(text)));
    });
    up.end(body ?? undefined);
  }

  private unreachable(res: ServerResponse, target: string, e: Error & { code?: string }): void {
    if (res.headersSent) return void res.destroy();
    const reason = e.code ?? e.message;
    this.judge.unreachable(pathOf(target), reason, this.now());
    sendJson(
      res,
      502,
      envelopeBody(502, "Bad Gateway", pathOf(target), {
        message: `The proxy could not reach its upstream: ${reason}`,
        data: { code: "UPSTREAM_UNREACHABLE", upstream: this.judge.report.upstream },
      }),
    );
  }

  /** `--errors`: the whole answer is read and judged before anything of it is sent. */
  private held(
    answer: IncomingMessage,
    res: ServerResponse,
    target: string,
    observed: (body: string | null) => Observed,
  ): void {
    const parts: Buffer[] = [];
    answer.on("data", (c: Buffer) => parts.push(c));
    answer.on("end", () => {
      const bytes = Buffer.concat(parts);
      const text = bytes.byteLength <= JUDGED_BODY_BYTES ? bytes.toString("utf8") : null;
      const found = withContract(this.contract, () => this.record(observed(text)));
      const broken = found.filter((f) => counts(this.options.failOn ?? "any", f));
      if (broken.length > 0) return sendJson(res, 502, violationBody(pathOf(target), broken));
      res.writeHead(answer.statusCode ?? 502, responseHeaders(answer.rawHeaders));
      res.end(bytes);
    });
  }

  /** Queues an exchange that has been passed on, to be judged with the next batch (BATCH). */
  private later(o: Observed): void {
    this.waiting.push(o);
    // A full batch is judged on the next tick: after `res.end()` has handed the answer to its socket.
    if (this.waiting.length === BATCH) process.nextTick(() => this.flush());
    else this.timer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  /** Judges every exchange waiting, in the order they ended. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.waiting;
    this.waiting = [];
    withContract(this.contract, () => {
      for (const o of batch) this.record(o);
    });
  }

  /** Judging never stands in the way of forwarding: an exchange the judge cannot read is passed on as is. */
  private record(o: Observed): Finding[] {
    let found: Finding[];
    try {
      found = this.judge.judge(o);
    } catch (e) {
      this.options.onError?.(e);
      return [];
    }
    for (const f of found) this.options.onFinding?.(f);
    return found;
  }
}

/**
 * The answer's bytes passed on as they come (backpressure kept), and a copy, up to JUDGED_BODY_BYTES, given
 * to `judged` once the answer has ended: after the client has it.
 */
function passOn(answer: IncomingMessage, res: ServerResponse, judged: (text: string | null) => void): void {
  res.writeHead(answer.statusCode ?? 502, responseHeaders(answer.rawHeaders));
  const kept: Buffer[] = [];
  let size = 0;
  answer.on("data", (c: Buffer) => {
    if (size <= JUDGED_BODY_BYTES) kept.push(c);
    size += c.byteLength;
    if (!res.write(c)) {
      answer.pause();
      res.once("drain", () => answer.resume());
    }
  });
  answer.on("end", () => {
    res.end();
    judged(size <= JUDGED_BODY_BYTES ? Buffer.concat(kept, size).toString("utf8") : null);
  });
  answer.on("error", () => res.destroy());
}

/** The request's headers as the judge reads them (names in lower case) and as the upstream gets them. */
function requestHeaders(raw: readonly string[]): {
  judged: Record<string, string>;
  sent: OutgoingHttpHeaders;
} {
  const judged: Record<string, string> = {};
  const sent: OutgoingHttpHeaders = { "accept-encoding": "identity" };
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    judged[name] = judged[name] === undefined ? value : `${judged[name]}, ${value}`;
    if (!HOP_BY_HOP.has(name)) sent[name] = judged[name];
  }
  return { judged, sent };
}

/** The upstream's headers as passed on: its own, but for those of its connection. */
function responseHeaders(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (name === "connection" || name === "keep-alive" || name === "transfer-encoding") continue;
    out.push(raw[i] as string, raw[i + 1] as string);
  }
  return out;
}

/** The answer's headers as the judge reads them (names in lower case, repeats joined), from the raw list. */
function judgedHeaders(raw: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    out[name] = out[name] === undefined ? value : `${out[name]}, ${value}`;
  }
  return out;
}

const pathOf = (target: string): string => {
  const q = target.indexOf("?");
  return q < 0 ? target : target.slice(0, q);
};

function sendJson(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * What node:http's parser refuses, answered in the envelope rather than its bare defaults. A twin of the
 * simulator's (src/node/server.ts), on purpose: the proxy checks the simulator as it checks any deployment,
 * so it shares the description with it (src/contract), never its host.
 */
function onClientError(error: Error & { code?: string }, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) return void socket.destroy();
  const [status, message] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [431, "Request Header Fields Too Large"]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request Timeout"]
        : [400, "Bad Request"];
  const body = envelopeBody(status, message, "");
  socket.end(
    `HTTP/1.1 ${status} ${message}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
