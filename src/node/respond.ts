/**
 * Writing the simulator's outcome to node:http: an Answer whole, in one write with its Content-Length; a
 * Response as it streams, the chunks it has ready at once gathered into one write, held back by the socket.
 */
import type { ServerResponse } from "node:http";
import { ApiError } from "../core/errors.ts";
import type { Answer, LineStream } from "../core/request/exchange.ts";

const NO_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const PENDING = Symbol("pending");
/** How much of a stream's ready output is gathered into one write at most. */
const STREAM_BATCH_BYTES = 64 * 1024;
const noop = (): void => {};

/** Per-request bookkeeping shared by the body stream, the disconnect handler and the response writer. */
export interface InFlight {
  /** The client went away before the response finished. */
  closed: boolean;
  /** Nobody will read the request body any more; what still arrives is drained. */
  bodyAbandoned: boolean;
  /** The client sent `Expect: 100-continue` and has not been told to go on yet. */
  expectContinue: boolean;
  /** The response body being streamed, so a disconnect can cancel it at once. */
  reader: ReadableStreamDefaultReader<Uint8Array> | null;
  /** The lines being written, so a disconnect stops them at once. */
  lines: LineStream | null;
  /** Made when first asked for: most requests finish without anyone looking at their signal. */
  abort: AbortController | null;
}

/** A complete answer: one write, with its Content-Length. */
export function writeAnswer(method: string, res: ServerResponse, answer: Answer, ex: InFlight): void {
  if (ex.closed) return;
  const head: string[] = [];
  let length = false;
  for (const name in answer.headers) {
    head.push(name, answer.headers[name] as string);
    if (name === "content-length") length = true;
  }
  // Answered before the client was told to send its body: the connection cannot carry another request.
  if (ex.expectContinue) head.push("connection", "close");
  if (answer.body === null || NO_BODY_STATUS.has(answer.status)) {
    res.writeHead(answer.status, head);
    res.end();
    return;
  }
  // Encoded once, here: measuring a text's length and then writing it encoded it twice.
  const body = typeof answer.body === "string" ? Buffer.from(answer.body) : answer.body;
  if (!length) head.push("content-length", String(body.byteLength));
  res.writeHead(answer.status, head);
  if (method === "HEAD") res.end();
  else res.end(body);
}

/**
 * Lines made as the socket takes them: each is asked for only when the one before is written, and the
 * lines made in one go leave in one write (a syscall per line was most of what a preview cost).
 */
export function writeLines(
  method: string,
  res: ServerResponse,
  lines: LineStream,
  ex: InFlight,
  onError: (error: unknown, where: { method: string; path: string }) => void,
  path: string,
): void {
  const head: string[] = [];
  for (const name in lines.headers) head.push(name, lines.headers[name] as string);
  if (ex.expectContinue) head.push("connection", "close");
  if (ex.closed || method === "HEAD" || NO_BODY_STATUS.has(lines.status)) {
    lines.stop();
    if (!ex.closed) {
      res.writeHead(lines.status, head);
      res.end();
    }
    return;
  }
  ex.lines = lines;
  res.writeHead(lines.status, head);
  const pump = (): void => {
    try {
      const batch: Uint8Array[] = [];
      let batched = 0;
      for (;;) {
        if (ex.closed) return;
        const line = lines.next();
        if (line === null) {
          ex.lines = null;
          if (batch.length > 0) res.end(concat(batch));
          else res.end();
          return;
        }
        batch.push(line);
        batched += line.byteLength;
        // Past a slice's worth, written now; a socket that is full says when to go on.
        if (batched >= STREAM_BATCH_BYTES) {
          const more = res.write(concat(batch.splice(0)));
          batched = 0;
          if (!more) {
            res.once("drain", pump);
            return;
          }
        }
      }
    } catch (error) {
      ex.lines = null;
      lines.stop();
      if (ex.closed) return;
      onError(error, { method, path });
      res.destroy();
    }
  };
  pump();
}

/** A Response, as it streams. */
export async function send(
  method: string,
  res: ServerResponse,
  response: Response,
  ex: InFlight,
  onError: (error: unknown, where: { method: string; path: string }) => void,
  path: string,
): Promise<void> {
  const status = response.status;
  const head = rawHeaders(response.headers);
  // Answered before the client was told to send its body: the connection cannot carry another request.
  if (ex.expectContinue) head.push("connection", "close");
  const body = response.body;
  if (ex.closed) {
    body?.cancel().catch(noop);
    return;
  }
  if (body === null || method === "HEAD" || NO_BODY_STATUS.has(status)) {
    body?.cancel().catch(noop);
    res.writeHead(status, head);
    res.end();
    return;
  }
  const reader = body.getReader();
  ex.reader = reader;
  try {
    const first = await reader.read();
    if (ex.closed) return;
    if (first.done) {
      res.writeHead(status, head);
      res.end();
      return;
    }
    // A body that is complete already goes out in one write with a Content-Length; anything still being
    // produced (a fetch handler's stream) is sent as it comes.
    let next: Promise<ReadableStreamReadResult<Uint8Array>> = reader.read();
    const ready = await Promise.race<ReadableStreamReadResult<Uint8Array> | typeof PENDING>([next, PENDING]);
    if (ex.closed) return;
    if (ready !== PENDING && ready.done) {
      if (!hasHeader(head, "content-length")) head.push("content-length", String(first.value.byteLength));
      res.writeHead(status, head);
      res.end(first.value);
      return;
    }
    res.writeHead(status, head);
    // The chunks a stream has ready in one turn of the event loop leave in one write, not a syscall each.
    const batch: Uint8Array[] = [first.value];
    let batched = first.value.byteLength;
    let r: ReadableStreamReadResult<Uint8Array> | typeof PENDING = ready;
    for (;;) {
      if (r === PENDING) r = await thisTurn(next);
      if (ex.closed) return;
      // A stream that always has more ready is still written (and held back by the socket) in slices.
      if (r === PENDING || batched >= STREAM_BATCH_BYTES) {
        const flushed = batch.length === 0 || res.write(concat(batch.splice(0)));
        batched = 0;
        if (!flushed) await drained(res);
        if (ex.closed) return;
      }
      if (r === PENDING) {
        r = await next;
        if (ex.closed) return;
      }
      if (r.done) break;
      batch.push(r.value);
      batched += r.value.byteLength;
      next = reader.read();
      r = await Promise.race<ReadableStreamReadResult<Uint8Array> | typeof PENDING>([next, PENDING]);
    }
    // The last lines and the chunked terminator go in one write too.
    if (batch.length > 0) res.end(concat(batch));
    else res.end();
  } catch (error) {
    if (ex.closed) return;
    onError(error, { method, path });
    if (res.headersSent) res.destroy();
    else writeEnvelope(res, 500, "Internal Server Error", path.split("?", 1)[0]);
  } finally {
    ex.reader = null;
    if (ex.closed) reader.cancel().catch(noop);
  }
}

/** `p`'s value if it settles in this turn of the event loop (its microtasks included), else PENDING. */
function thisTurn<T>(p: Promise<T>): Promise<T | typeof PENDING> {
  return new Promise((resolve, reject) => {
    const timer = setImmediate(resolve, PENDING);
    p.then((v) => {
      clearImmediate(timer);
      resolve(v);
    }, reject);
  });
}

function concat(chunks: Uint8Array[]): Uint8Array {
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Flat `[name, value, ...]` for `writeHead`, which keeps repeated names (every Set-Cookie) apart. */
function rawHeaders(headers: Headers): string[] {
  const out: string[] = [];
  // Iteration yields each Set-Cookie separately and every other name once, values combined.
  for (const [name, value] of headers) out.push(name, value);
  return out;
}

function hasHeader(flat: string[], name: string): boolean {
  for (let i = 0; i < flat.length; i += 2) if (flat[i] === name) return true;
  return false;
}

/** The API's error envelope; `path` is empty where HTTP itself failed before a path was known. */
export function envelope(status: number, message: string, path = ""): string {
  return JSON.stringify(new ApiError(status, message).toEnvelope(path));
}

export function writeEnvelope(
  res: ServerResponse,
  status: number,
  message: string,
  path = "",
  extra: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const body = envelope(status, message, path);
  res.writeHead(status, {
    ...extra,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}
