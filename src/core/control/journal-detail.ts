/**
 * What the journal keeps of an exchange besides its summary: headers and the head of each body, for the
 * newest `DETAIL_CAPACITY` requests only, each body cut at `BODY_LIMIT` bytes and each side's headers at
 * `HEADER_LIMIT`.
 *
 * Why an arena: keeping a reference to each request's headers and body (or a copy in an object of its own)
 * holds per-request objects long enough for the garbage collector to promote them to the old generation,
 * which cost the auth/me benchmark 6 µs of CPU a request (17 against 23 µs). Here every exchange is copied,
 * as UTF-8, into a slot of its own (20 KiB, allocated when first used and written over after); nothing of
 * a request outlives it, and a world that serves few requests (a sandbox) holds only the slots it used. Decoding, and the
 * redaction of keys and tokens, happen when an entry is read.
 */
import { Answer, type HeaderReader, LineStream, type Outcome } from "../request/exchange.ts";

/** Requests (newest first) whose headers and bodies the journal keeps. */
export const DETAIL_CAPACITY = 100;
/** Bytes kept of each body; the rest is cut, and the view says so. */
export const BODY_LIMIT = 8 * 1024;
/** Bytes kept of each side's headers (as `name: value` lines). */
export const HEADER_LIMIT = 2 * 1024;

/** One side of an exchange as the journal shows it: the body as text, keys and tokens redacted. */
export interface SideView {
  headers: Record<string, string>;
  body: string | null;
  /** The whole body's size: UTF-16 characters of a text body, bytes of a binary one. */
  size: number | null;
  /** The body was longer than the journal keeps: `body` is its head. */
  cut: boolean;
  note?: string;
}

const SLOT = 2 * (HEADER_LIMIT + BODY_LIMIT);
/** Per slot: request headers, request body, response headers, response body (bytes written of each). */
const PARTS = 4;
const utf8 = new TextEncoder();
const text = new TextDecoder();

/** A view of each part of a slot's bytes, made once: a view per write was garbage per request. */
interface Slot {
  requestHead: Uint8Array;
  requestBody: Uint8Array;
  responseHead: Uint8Array;
  responseBody: Uint8Array;
}

function newSlot(): Slot {
  const bytes = new Uint8Array(SLOT);
  const part = (at: number, size: number): Uint8Array => bytes.subarray(at, at + size);
  return {
    requestHead: part(0, HEADER_LIMIT),
    requestBody: part(HEADER_LIMIT, BODY_LIMIT),
    responseHead: part(HEADER_LIMIT + BODY_LIMIT, HEADER_LIMIT),
    responseBody: part(2 * HEADER_LIMIT + BODY_LIMIT, BODY_LIMIT),
  };
}

export class DetailArena {
  /** Each slot's bytes, allocated when first written and written over after: a world that serves few
   * requests (a sandbox) holds only what it used. */
  private readonly slots: (Slot | undefined)[];
  private readonly lengths: Int32Array;
  /** Whole body sizes (request, response); -1 for no body. */
  private readonly sizes: Float64Array;
  private readonly notes: (string | undefined)[];
  /** 1 where a body was longer than BODY_LIMIT. */
  private readonly cut: Uint8Array;

  readonly capacity: number;
  constructor(capacity = DETAIL_CAPACITY) {
    this.capacity = capacity;
    this.slots = new Array(capacity);
    this.lengths = new Int32Array(capacity * PARTS);
    this.cut = new Uint8Array(capacity * PARTS);
    this.sizes = new Float64Array(capacity * 2);
    this.notes = new Array(capacity);
  }

  /** Copies an exchange into `slot`, over whatever it held. */
  write(slot: number, headers: HeaderReader, body: string | null, response: Outcome): void {
    let parts = this.slots[slot];
    if (!parts) {
      parts = newSlot();
      this.slots[slot] = parts;
    }
    const n = slot * PARTS;
    this.lengths[n] = utf8.encodeInto(requestLines(headers), parts.requestHead).written;
    this.sizes[slot * 2] = this.body(parts.requestBody, body, n + 1);
    const out = response instanceof Answer || response instanceof LineStream ? response.headers : null;
    const lines = out ? objectLines(out) : pairLines((response as Response).headers);
    this.lengths[n + 2] = utf8.encodeInto(lines, parts.responseHead).written;
    const kept = response instanceof Answer ? response.body : null;
    this.sizes[slot * 2 + 1] = this.body(parts.responseBody, kept, n + 3);
    this.notes[slot] =
      response instanceof LineStream
        ? "a stream, not kept"
        : response instanceof Answer
          ? undefined
          : "not kept";
  }

  read(slot: number): { request: SideView; response: SideView } {
    const parts = this.slots[slot] ?? newSlot();
    const n = slot * PARTS;
    const side = (
      head: Uint8Array,
      into: Uint8Array,
      part: number,
      size: number,
      note?: string,
    ): SideView => {
      const headers = redactHeaders(text.decode(head.subarray(0, this.lengths[part] ?? 0)));
      const written = this.lengths[part + 1] ?? 0;
      const whole = this.sizes[size] ?? -1;
      const body = whole < 0 ? null : redact(text.decode(into.subarray(0, written)));
      const cut = this.cut[part + 1] === 1;
      return { headers, body, size: whole < 0 ? null : whole, cut, ...(note ? { note } : {}) };
    };
    return {
      request: side(parts.requestHead, parts.requestBody, n, slot * 2),
      response: side(parts.responseHead, parts.responseBody, n + 2, slot * 2 + 1, this.notes[slot]),
    };
  }

  /**
   * Writes the head of a body into its part; answers its whole size, or -1 without one. (A side's headers
   * are one text, encoded at once: one encoding a header cost the auth/me benchmark a fifth of its CPU.)
   */
  private body(into: Uint8Array, body: string | Uint8Array | null, part: number): number {
    if (body === null) {
      this.lengths[part] = 0;
      this.cut[part] = 0;
      return -1;
    }
    if (typeof body === "string") {
      const r = utf8.encodeInto(body, into);
      this.lengths[part] = r.written;
      this.cut[part] = r.read < body.length ? 1 : 0;
      return body.length;
    }
    const head = body.byteLength <= BODY_LIMIT ? body : body.subarray(0, BODY_LIMIT);
    into.set(head);
    this.lengths[part] = head.byteLength;
    this.cut[part] = head.byteLength < body.byteLength ? 1 : 0;
    return body.byteLength;
  }
}

/** A request's headers as `name: value` lines, names in lower case (a reader that lists none: none). */
function requestLines(h: HeaderReader): string {
  if (h.lines) return h.lines();
  return h.entries ? pairLines(h.entries()) : "";
}

function pairLines(pairs: Iterable<[string, string]>): string {
  let lines = "";
  for (const [k, v] of pairs) lines += `${k.toLowerCase()}: ${v}\n`;
  return lines;
}

function objectLines(headers: Record<string, string>): string {
  let lines = "";
  for (const name in headers) lines += `${name}: ${headers[name]}\n`;
  return lines;
}

/** API keys, wherever they appear in what is shown. */
const SECRET = /service_[A-Za-z0-9]{8,}/g;
const SECRET_HEADERS = new Set(["x-sim-control-token", "cookie", "proxy-authorization"]);
const redact = (s: string): string => s.replace(SECRET, "service_<redacted>");

function redactHeaders(lines: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines.split("\n")) {
    const colon = line.indexOf(": ");
    if (colon < 0) continue;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 2);
    out[name] = SECRET_HEADERS.has(name) ? "<redacted>" : redact(value);
  }
  return out;
}
