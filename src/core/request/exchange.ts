/**
 * What passes between a host and the core. A web `Request` is a `SimRequest` as it is, and `sim.fetch`
 * answers web `Response`s, so MSW and tests need nothing else. The node:http host passes something
 * lighter and calls `sim.handle`: building a `Request` (with `Headers` and a signal) and a `Response`
 * (with a web stream, its text encoded once more) for every call cost more CPU than serving `auth/me`.
 */

/** The part of `Headers` the core reads. */
export interface HeaderReader {
  get(name: string): string | null;
  has(name: string): boolean;
  /** Every header (names in lower case), for the journal; a reader without it shows none. */
  entries?(): IterableIterator<[string, string]> | [string, string][];
  /** The same as `name: value` lines (names in lower case), for a reader that has them cheaper than pairs. */
  lines?(): string;
}

const utf8 = new TextEncoder();

/** The part of a web `Request` the core reads. */
export interface SimRequest {
  readonly method: string;
  /** Absolute: `http://host:port/path?query`. */
  readonly url: string;
  readonly headers: HeaderReader;
  readonly body: ReadableStream<Uint8Array> | null;
  /**
   * The whole body at once, for a host that reads it more cheaply than through `body`: null when there is
   * none, `"too large"` as soon as more than `maxBytes` arrived (the rest is then never read). Either this
   * or `body` is read, never both.
   */
  readonly bodyBytes?: (maxBytes: number) => Promise<Uint8Array | null | "too large">;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
}

/**
 * A complete answer made without a web `Response`: status, headers and the whole body. Streams (NDJSON,
 * file downloads) and pages stay `Response`s; everything JSON is an Answer.
 */
export class Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Text, or bytes already encoded (answers kept for reuse are encoded once). */
  readonly body: string | Uint8Array | null;
  constructor(status: number, headers: Record<string, string>, body: string | Uint8Array | null) {
    this.status = status;
    this.headers = headers;
    this.body = body;
  }

  /** The same answer with more headers; the answer's own win. */
  withHeaders(extra: Record<string, string>): Answer {
    return this.withHeaderSet({ ...extra, ...this.headers });
  }

  /** The same answer under exactly these headers. */
  withHeaderSet(headers: Record<string, string>): Answer {
    return new Answer(this.status, headers, this.body);
  }

  /** The same answer with its body as bytes: what is kept to be sent again is encoded once. */
  encoded(): Answer {
    return typeof this.body === "string"
      ? new Answer(this.status, this.headers, utf8.encode(this.body))
      : this;
  }

  /** The same answer without its body, for HEAD. */
  withoutBody(): Answer {
    return this.body === null ? this : new Answer(this.status, this.headers, null);
  }

  toResponse(): Response {
    return new Response(this.body as BodyInit | null, { status: this.status, headers: this.headers });
  }
}

/** Where a LineStream's lines come from. */
export interface LineSource {
  /** The next line, made now that it is asked for; null when there are no more. */
  next(): Uint8Array | null;
  /** Nobody will ask again (the reader went away, or a HEAD wants no body). */
  stop(): void;
}

/**
 * A body made line by line, each line when its reader asks for it (the NDJSON preview). The node:http
 * host pulls the lines itself as fast as the socket takes them; everyone else reads a web Response over
 * them. A web stream costs promises and queues per line, a fifth of what the preview cost in all.
 */
export class LineStream {
  readonly status: number;
  readonly headers: Record<string, string>;
  private readonly source: LineSource;
  constructor(status: number, headers: Record<string, string>, source: LineSource) {
    this.status = status;
    this.headers = headers;
    this.source = source;
  }

  next(): Uint8Array | null {
    return this.source.next();
  }

  stop(): void {
    this.source.stop();
  }

  /** The same lines with more headers; the stream's own win. */
  withHeaders(extra: Record<string, string>): LineStream {
    return this.withHeaderSet({ ...extra, ...this.headers });
  }

  /** The same lines under exactly these headers: the object is handed on, never read twice. */
  withHeaderSet(headers: Record<string, string>): LineStream {
    return new LineStream(this.status, headers, this.source);
  }

  toResponse(): Response {
    const source = this.source;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          const line = source.next();
          if (line === null) controller.close();
          else controller.enqueue(line);
        },
        cancel: () => source.stop(),
      },
      // Nothing is made before it is read.
      { highWaterMark: 0 },
    );
    return new Response(body, { status: this.status, headers: this.headers });
  }
}

/** What the core answers a host: a complete Answer, lines made as they are read, or a web Response. */
export type Outcome = Answer | LineStream | Response;

export function toResponse(outcome: Outcome): Response {
  return outcome instanceof Answer || outcome instanceof LineStream ? outcome.toResponse() : outcome;
}

/**
 * What `respond(request)` gives, always as a promise: its answer, its answer's promise, or what it throws,
 * rejected. For `handle`, whose callers may `.then` it; hosts that write an answer at once take `respond`.
 */
export function promised(
  respond: (request: SimRequest) => Outcome | Promise<Outcome>,
  request: SimRequest,
): Promise<Outcome> {
  try {
    return Promise.resolve(respond(request));
  } catch (error) {
    return Promise.reject(error);
  }
}
