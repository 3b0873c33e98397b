/**
 * A request's body as the node:http host hands it to the simulator: whole and capped (`readWhole`), or as a
 * web stream for a fetch handler (`bodyStream`); either way read from the socket only once the simulator
 * asks, so that a client that sent `Expect: 100-continue` is told to go on only then. What nobody read is
 * drained after the answer, boundedly (`linger`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { InFlight } from "./respond.ts";

/** A request body still arriving after its response was sent is drained at most this long... */
const LINGER_MS = 2_000;
/** ...and at most this much of it, then the connection is closed. */
const LINGER_MAX_BYTES = 1024 * 1024;
/** The request body is read ahead of the simulator by at most this much. */
const BODY_HIGH_WATER_MARK = 64 * 1024;

/**
 * The request body as a web stream. Nothing is read from the socket until the simulator first reads (so a
 * request refused by its headers alone, say a declared Content-Length over the cap, never has its body
 * sent when the client asked `Expect: 100-continue`); after that the socket is read as fast as the
 * simulator consumes, at most BODY_HIGH_WATER_MARK ahead.
 */
export function bodyStream(
  req: IncomingMessage,
  res: ServerResponse,
  ex: InFlight,
): ReadableStream<Uint8Array> {
  let flowing = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (flowing) {
          req.resume();
          return;
        }
        flowing = true;
        startBody(res, ex);
        let ended = false;
        req.on("data", (chunk: Buffer) => {
          if (ex.bodyAbandoned) return;
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) < -BODY_HIGH_WATER_MARK) req.pause();
        });
        req.once("end", () => {
          ended = true;
          if (!ex.bodyAbandoned) controller.close();
        });
        const aborted = (): void => {
          if (ended || ex.bodyAbandoned) return;
          ex.bodyAbandoned = true;
          controller.error(clientAborted());
        };
        req.once("error", aborted);
        req.once("close", aborted);
      },
      cancel() {
        // Stop reading; the socket applies backpressure until the response is out (see `linger`).
        ex.bodyAbandoned = true;
        req.pause();
      },
    },
    // No read-ahead before the first read; `pull` then runs whenever the reader waits on an empty queue.
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
}

/** The body is about to be read: a client that sent `Expect: 100-continue` is told to go on now. */
function startBody(res: ServerResponse, ex: InFlight): void {
  if (ex.expectContinue) {
    ex.expectContinue = false;
    res.writeContinue();
  }
}

/** The client went away mid-body; to the simulator that is an aborted request, not a bug. */
function clientAborted(): DOMException {
  return new DOMException("The client aborted the request body", "AbortError");
}

/**
 * The whole request body, read only now that the simulator asks (so, as with `bodyStream`, a request refused
 * by its headers alone never has its body sent after `Expect: 100-continue`), and no further than `maxBytes`:
 * past it, reading stops and the rest is drained once the answer is out (`linger`).
 */
export function readWhole(
  req: IncomingMessage,
  res: ServerResponse,
  ex: InFlight,
  maxBytes: number,
): Promise<Uint8Array | "too large"> {
  startBody(res, ex);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const onData = (chunk: Buffer): void => {
      size += chunk.byteLength;
      if (size > maxBytes) {
        settled = true;
        ex.bodyAbandoned = true;
        req.pause();
        req.off("data", onData);
        resolve("too large");
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => {
      if (settled) return;
      settled = true;
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    });
    const aborted = (): void => {
      if (settled) return;
      settled = true;
      ex.bodyAbandoned = true;
      reject(clientAborted());
    };
    req.once("error", aborted);
    req.once("close", aborted);
  });
}

/**
 * The response went out before the request body was in. Drain what still comes (briefly, boundedly), so
 * that the client reads the response instead of a reset and the connection can be reused; else close it.
 */
export function linger(req: IncomingMessage, ex: InFlight): void {
  ex.bodyAbandoned = true;
  const socket = req.socket;
  let drained = 0;
  const cut = (): void => {
    clearTimeout(timer);
    if (!socket.destroyed) socket.destroy();
  };
  const timer = setTimeout(cut, LINGER_MS);
  timer.unref();
  req.on("data", (chunk: Buffer) => {
    drained += chunk.byteLength;
    if (drained > LINGER_MAX_BYTES) cut();
  });
  req.once("end", () => clearTimeout(timer));
  req.once("close", () => clearTimeout(timer));
  req.resume();
}
