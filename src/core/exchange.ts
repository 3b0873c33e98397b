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
}

/** The part of a web `Request` the core reads. */
export interface SimRequest {
  readonly method: string;
  /** Absolute: `http://host:port/path?query`. */
  readonly url: string;
  readonly headers: HeaderReader;
  readonly body: ReadableStream<Uint8Array> | null;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
}

/**
 * A complete answer made without a web `Response`: status, headers and the whole body. Streams (NDJSON,
 * file downloads) and pages stay `Response`s; everything JSON is an Answer.
 */
export class Answer {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    /** Text, or bytes already encoded (answers kept for reuse are encoded once). */
    readonly body: string | Uint8Array | null,
  ) {}

  /** The same answer with more headers; the answer's own win. */
  withHeaders(extra: Record<string, string>): Answer {
    return new Answer(this.status, { ...extra, ...this.headers }, this.body);
  }

  /** The same answer without its body, for HEAD. */
  withoutBody(): Answer {
    return this.body === null ? this : new Answer(this.status, this.headers, null);
  }

  toResponse(): Response {
    return new Response(this.body as BodyInit | null, { status: this.status, headers: this.headers });
  }
}

/** What the core answers a host: a complete Answer or, for streams and pages, a web Response. */
export type Outcome = Answer | Response;

export function toResponse(outcome: Outcome): Response {
  return outcome instanceof Answer ? outcome.toResponse() : outcome;
}
