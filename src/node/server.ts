/**
 * A thin node:http host for the simulator: every request goes through `sim.handle` as a light
 * `SimRequest` (src/core/request/exchange.ts), and the answer is written back whole, or as it streams when it is a
 * `Response`. A plain fetch handler (`{ fetch(Request) }`, such as a test's wrapper or another mock) is
 * served too: its requests are made real `Request`s. The host adds no behaviour of its own
 * beyond HTTP plumbing: client disconnects abort the request's signal and stop the response stream,
 * malformed HTTP gets the error envelope, and nothing a client does can crash the process.
 *
 * A request body is read only when the simulator asks for it, whole (`bodyBytes`) and no further than the
 * operation's cap, so a body over the cap is refused without being read in full; a handler that wants a
 * stream gets a web stream, made on first use, that reads the socket only as fast as it is consumed. When
 * a response is finished before its request body was (a 413, or an answer that never needed the body), the
 * rest is drained for a bounded time and size, so the client reads the answer rather than a connection
 * reset; past that bound the connection is closed (./request-body.ts).
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { MAX_REQUEST_HEAD_BYTES, MAX_REQUEST_TARGET_BYTES } from "../contract/request-size.ts";
import { ApiError } from "../core/errors.ts";
import type { HeaderReader, Outcome, SimRequest } from "../core/request/exchange.ts";
import { Answer, LineStream } from "../core/request/exchange.ts";
import { renderError } from "../core/request/render.ts";
import { bodyStream, linger, readWhole } from "./request-body.ts";
import { envelope, type InFlight, send, writeAnswer, writeEnvelope, writeLines } from "./respond.ts";
import { keepTickShape } from "./tick-shape.ts";

/**
 * The part of a simulator the host needs: an answer, or its promise (an answer ready at once is written
 * without waiting a turn: `Simulator.respond`).
 */
export interface Handler {
  handle(request: SimRequest): Outcome | Promise<Outcome>;
}

/** Anything that serves web Requests. */
export interface FetchHandler {
  fetch(request: Request): Promise<Response>;
}

export interface ServerOptions {
  port: number;
  host: string;
  /** Host failures that are not the client's doing (a response stream that errors, a rejected fetch). */
  onError?: (error: unknown, where: { method: string; path: string }) => void;
  /** How long `close()` lets in-flight requests finish before it cuts them (default 2 s). */
  closeGraceMs?: number;
}

export interface RunningServer {
  /** The origin, e.g. `http://127.0.0.1:4010`. */
  url: string;
  /** The port actually bound (useful with port 0). */
  port: number;
  /** Stops accepting connections, lets in-flight requests finish briefly, then cuts the rest. */
  close(): Promise<void>;
  server: http.Server;
}

/** How long `close()` waits for in-flight requests (say, an open NDJSON stream) before cutting them. */
const CLOSE_GRACE_MS = 2_000;

/** A Host header we may put in a URL as is: a name or IP literal and an optional port, nothing else. */
const HOST_RE = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::\d{0,5})?$/;

const noop = (): void => {};

export function startServer(served: Handler | FetchHandler, options: ServerOptions): Promise<RunningServer> {
  keepTickShape();
  const handler = asHandler(served);
  const onError = options.onError ?? defaultOnError;
  let fallbackOrigin = `http://${urlHost(options.host)}:${options.port}`;
  const serve = (req: IncomingMessage, res: ServerResponse, expectContinue: boolean): void => {
    try {
      handle(handler, req, res, fallbackOrigin, onError, expectContinue);
    } catch (error) {
      hostFailed(error, { method: req.method ?? "", path: req.url ?? "" }, res, onError);
    }
  };

  const server = http.createServer(
    {
      keepAlive: true,
      keepAliveTimeout: 10_000,
      headersTimeout: 30_000,
      requestTimeout: 120_000,
      noDelay: true,
      // Every request the contract allows fits, however its characters encode (src/contract/request-size.ts).
      maxHeaderSize: MAX_REQUEST_HEAD_BYTES,
      // Node's own answer to a missing Host is a bare 400; `handle` answers it in the envelope instead.
      requireHostHeader: false,
    },
    (req, res) => serve(req, res, false),
  );
  // `Expect: 100-continue`: the simulator decides first; the client is told to go on only if it reads the body.
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => serve(req, res, true));
  // Any other expectation: Node's default is a bare 417.
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    writeEnvelope(res, 417, "Expectation Failed", pathOf(req.url), { connection: "close" });
  });
  server.on("clientError", onClientError);
  // A client may half-close its socket once its request is sent (HTTP/1.1 allows it): it still gets its
  // answer, however long the answer takes (Node otherwise drops a request whose answer was not yet started).
  (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;

  return new Promise((resolve, reject) => {
    const onListenError = (error: Error): void => reject(error);
    server.once("error", onListenError);
    server.listen(options.port, options.host, () => {
      server.off("error", onListenError);
      server.on("error", (error) => onError(error, { method: "", path: "" }));
      const port = (server.address() as AddressInfo).port;
      fallbackOrigin = `http://${urlHost(options.host)}:${port}`;
      resolve({
        url: fallbackOrigin,
        port,
        server,
        close: () => closeServer(server, options.closeGraceMs ?? CLOSE_GRACE_MS),
      });
    });
  });
}

function closeServer(server: http.Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    // Not unref'd: a caller awaiting close() is owed its end, and a connection whose answer never comes
    // (a handler that hangs) would otherwise leave nothing to cut it, and the promise unsettled.
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

function signalOf(ex: InFlight): AbortSignal {
  if (ex.abort === null) {
    ex.abort = new AbortController();
    if (ex.closed) ex.abort.abort();
  }
  return ex.abort.signal;
}

/** Request headers as node:http read them, looked up like `Headers.get` (names ignore case, repeats join). */
class RawHeaders implements HeaderReader {
  readonly raw: readonly string[];
  constructor(raw: readonly string[]) {
    this.raw = raw;
  }

  get(name: string): string | null {
    const raw = this.raw;
    const wanted = name.toLowerCase();
    let found: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      const n = raw[i] as string;
      if (n.length !== wanted.length || n.toLowerCase() !== wanted) continue;
      const v = raw[i + 1] as string;
      found = found === null ? v : `${found}, ${v}`;
    }
    return found;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  entries(): [string, string][] {
    const out: [string, string][] = [];
    for (let i = 0; i < this.raw.length; i += 2)
      out.push([(this.raw[i] as string).toLowerCase(), this.raw[i + 1] as string]);
    return out;
  }

  /** For the journal, without a pair a header. */
  lines(): string {
    let lines = "";
    for (let i = 0; i < this.raw.length; i += 2)
      lines += `${(this.raw[i] as string).toLowerCase()}: ${this.raw[i + 1] as string}\n`;
    return lines;
  }
}

class HostRequest implements SimRequest {
  private stream: ReadableStream<Uint8Array> | null = null;

  readonly method: string;
  readonly url: string;
  readonly headers: RawHeaders;
  /** Null when the request has no body. */
  private readonly source: { req: IncomingMessage; res: ServerResponse } | null;
  private readonly ex: InFlight;
  constructor(
    method: string,
    url: string,
    headers: RawHeaders,
    source: { req: IncomingMessage; res: ServerResponse } | null,
    ex: InFlight,
  ) {
    this.method = method;
    this.url = url;
    this.headers = headers;
    this.source = source;
    this.ex = ex;
  }

  get signal(): AbortSignal {
    return signalOf(this.ex);
  }

  /** For handlers that want a stream (a fetch handler's Request): made on first use. */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.source !== null && this.stream === null)
      this.stream = bodyStream(this.source.req, this.source.res, this.ex);
    return this.stream;
  }

  /**
   * The simulator's way: the body in one piece, with no web stream between the socket and it. A field, so
   * that it may be passed on alone (a sandbox hands the request to its own engine). Made for every request:
   * made in the constructor only for requests with a body, it cost the NDJSON preview 87 microseconds of CPU a
   * request instead of 52, most of it more garbage collection (A/B, twice; the cause not pinned down),
   * while the mixed cycle and auth/me measured the same either way.
   */
  readonly bodyBytes = (maxBytes: number): Promise<Uint8Array | null | "too large"> =>
    this.source === null
      ? Promise.resolve(null)
      : readWhole(this.source.req, this.source.res, this.ex, maxBytes);
}

const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE"]);

/** The path of an absolute URL (a host request's), for the envelope of an answer no handler gives. */
function pathOfUrl(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "";
  }
}

function asHandler(served: Handler | FetchHandler): Handler {
  if ("handle" in served && typeof served.handle === "function") return served;
  const fetchHandler = served as FetchHandler;
  return {
    handle: async (request) => {
      let web: Request;
      try {
        web = webRequest(request);
      } catch {
        // A method the Fetch standard forbids (CONNECT, TRACE) can reach no fetch handler, so it is
        // not allowed here; anything else no Request can carry (a header fetch refuses) is a bad request.
        const path = pathOfUrl(request.url);
        if (FORBIDDEN_METHODS.has(request.method.toUpperCase()))
          return renderError(new ApiError(405, "Method Not Allowed"), path, {});
        return renderError(new ApiError(400, "Bad Request"), path, {});
      }
      return fetchHandler.fetch(web);
    },
  };
}

/** A real Request, for handlers that want one. */
function webRequest(request: SimRequest): Request {
  const headers = new Headers();
  const raw = (request.headers as RawHeaders).raw;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return new Request(request.url, {
    method: request.method,
    headers,
    signal: request.signal,
    ...(request.body ? { body: request.body, duplex: "half" as const } : {}),
  });
}

/** The host itself failed (not the handler) at `where`: said, and the connection cut. */
function hostFailed(
  error: unknown,
  where: { method: string; path: string },
  res: ServerResponse,
  onError: OnError,
): void {
  onError(error, where);
  if (!res.destroyed) res.destroy();
}

type OnError = NonNullable<ServerOptions["onError"]>;

/**
 * Not async, and the handler's promise (if it gives one) met with one `then`: an async function, its
 * `await` and the catch around it were three promises and three turns of the microtask queue per request.
 */
function handle(
  handler: Handler,
  req: IncomingMessage,
  res: ServerResponse,
  fallbackOrigin: string,
  onError: OnError,
  expectContinue: boolean,
): void {
  const method = req.method ?? "GET";
  const url = req.url ?? "/";
  if (url.length > MAX_REQUEST_TARGET_BYTES) {
    writeEnvelope(res, 414, "URI Too Long", "", { connection: "close" });
    return;
  }
  const target = requestTarget(url);
  if (target === null) {
    writeEnvelope(res, 400, "Bad Request");
    return;
  }
  const ex: Exchange = {
    method,
    target,
    res,
    onError,
    closed: false,
    bodyAbandoned: false,
    expectContinue: false,
    reader: null,
    lines: null,
    abort: null,
  };
  const raw = req.rawHeaders;
  let host: string | undefined;
  let hosts = 0;
  let hasBody = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const n = name.length;
    if (n === 4 && name.toLowerCase() === "host") {
      host ??= raw[i + 1];
      hosts++;
    } else if (
      (n === 14 && name.toLowerCase() === "content-length" && raw[i + 1] !== "0") ||
      (n === 17 && name.toLowerCase() === "transfer-encoding")
    ) {
      hasBody = true;
    }
  }
  // HTTP/1.1 asks for exactly one Host (RFC 9112, section 3.2); HTTP/1.0 may have none.
  if (hosts > 1 || (hosts === 0 && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1)) {
    writeEnvelope(res, 400, hosts > 1 ? "More than one Host header" : "Missing Host header", pathOf(target), {
      connection: "close",
    });
    return;
  }
  const origin = host !== undefined && HOST_RE.test(host) ? `http://${host}` : fallbackOrigin;
  const withBody = hasBody && method !== "GET" && method !== "HEAD";
  ex.expectContinue = expectContinue && withBody;
  const request = new HostRequest(
    method,
    origin + target,
    new RawHeaders(raw),
    withBody ? { req, res } : null,
    ex,
  );
  (res as InFlightResponse)[IN_FLIGHT] = ex;
  res.on("close", closeInFlight);

  if (withBody) {
    // Whatever of the body nobody read (still on the wire, or paused in the socket's buffer) is drained,
    // else the connection could not carry the next request.
    res.once("finish", () => {
      if (!req.readableEnded) linger(req, ex);
    });
  }

  let answered: Outcome | Promise<Outcome>;
  try {
    answered = handler.handle(request);
  } catch (error) {
    handlerFailed(error, ex);
    return;
  }
  if (!isPromise(answered)) {
    delivered(answered, ex);
    return;
  }
  answered.then(
    (outcome) => delivered(outcome, ex),
    (error) => handlerFailed(error, ex),
  );
}

function isPromise(answered: Outcome | Promise<Outcome>): answered is Promise<Outcome> {
  return typeof (answered as { then?: unknown }).then === "function";
}

/** A request in flight, with what its answer's writing and failures need to know of it. */
interface Exchange extends InFlight {
  method: string;
  target: string;
  res: ServerResponse;
  onError: OnError;
}

/** The handler threw or rejected: told to `onError`, answered 500 in the envelope (if the client still waits). */
function handlerFailed(error: unknown, ex: Exchange): void {
  const { method, target, res, onError } = ex;
  if (ex.closed) return;
  try {
    onError(error, { method, path: target });
    writeEnvelope(res, 500, "Internal Server Error", pathOf(target));
  } catch (failure) {
    writeFailed(failure, ex);
  }
}

/** Writing `ex`'s answer failed: the host's failure (hostFailed), not the handler's. */
function writeFailed(error: unknown, ex: Exchange): void {
  hostFailed(error, { method: ex.method, path: ex.target }, ex.res, ex.onError);
}

/**
 * The handler's outcome, written: a whole answer at the end of this turn, lines and streams as they come.
 * What fails while writing is the host's failure, reported here, not the handler's.
 */
function delivered(outcome: Outcome, ex: Exchange): void {
  const { method, target, res, onError } = ex;
  try {
    if (outcome instanceof Answer) {
      answerThisTurn(() => {
        try {
          writeAnswer(method, res, outcome, ex);
        } catch (error) {
          writeFailed(error, ex);
        }
      });
    } else if (outcome instanceof LineStream) writeLines(method, res, outcome, ex, onError, target);
    else send(method, res, outcome, ex, onError, target).catch((error) => writeFailed(error, ex));
  } catch (error) {
    writeFailed(error, ex);
  }
}

/**
 * Every response's "close" listener is this one function, which finds its exchange on the response: a
 * closure and `once`'s wrapper for each request were a fair part of what a small answer allocated.
 */
const IN_FLIGHT = Symbol("in flight");
type InFlightResponse = ServerResponse & { [IN_FLIGHT]: InFlight };

function closeInFlight(this: InFlightResponse): void {
  if (this.writableFinished) return;
  const ex = this[IN_FLIGHT];
  ex.closed = true;
  ex.abort?.abort();
  ex.reader?.cancel().catch(noop);
  ex.lines?.stop();
}

/**
 * Whole answers made in one turn of the event loop are written together at its end (`setImmediate`, after
 * the turn's I/O): a client with several connections then finds them together and sends its next requests
 * together, instead of waking for each answer (the mixed benchmark: 7 to 10% less CPU a request). A turn is
 * short, so an answer waits microseconds; a stream (NDJSON, a file) starts at once.
 */
let turnAnswers: (() => void)[] = [];

function answerThisTurn(write: () => void): void {
  if (turnAnswers.push(write) === 1) setImmediate(writeTurnAnswers);
}

function writeTurnAnswers(): void {
  const writes = turnAnswers;
  turnAnswers = [];
  for (const write of writes) write();
}

/** The path and query of the request target; absolute-form (`GET http://h/p`) is reduced to its path. */
function requestTarget(url: string): string | null {
  if (url.charCodeAt(0) === 47 /* "/" */) return url;
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.pathname + u.search : null;
  } catch {
    return null;
  }
}

/** The path of a request target, without its query: what an envelope's `url` holds. */
function pathOf(target: string | undefined): string {
  if (target === undefined || target.charCodeAt(0) !== 47 /* "/" */) return "";
  const q = target.indexOf("?");
  return q < 0 ? target : target.slice(0, q);
}

/**
 * Malformed HTTP (or a header or request timeout): answer the envelope if we still can, then close. The
 * validating proxy has a twin (conformance/proxy/host.ts): a checker shares no code with what it checks.
 */
function onClientError(error: Error & { code?: string }, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, message] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [431, "Request Header Fields Too Large"]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request Timeout"]
        : [400, "Bad Request"];
  const body = envelope(status, message);
  socket.end(
    `HTTP/1.1 ${status} ${message}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function urlHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

function defaultOnError(error: unknown, where: { method: string; path: string }): void {
  console.error(`[server] ${where.method} ${where.path}:`, error);
}
