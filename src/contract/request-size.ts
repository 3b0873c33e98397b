/**
 * How long a request's head may be, derived from the contract so that every request it allows is served
 * however its characters encode. The longest valid request target is a prefix and a path with every path
 * and query parameter at its maximum length, each character percent-encoded in the worst case. Twice that
 * is accepted: a value just past its maximum (a fuzzer's favourite) must reach validation and get the 400
 * the contract names for it, not a refusal by size. Beside the target go the header fields the document
 * allows (`x-max-header-bytes`). Longer targets are 414 and longer heads 431, both in the envelope (the
 * contract's `UriTooLong` and `HeaderFieldsTooLarge`).
 */
import { openapi } from "./document.ts";
import { type Operation, operations, type ParameterSpec } from "./operations.ts";

/** A code point is at most four UTF-8 bytes, each `%XX` in a URL. */
const WORST_ENCODED_CHARS_PER_CHAR = 12;
/** A string the contract gives no maximum length (a free-form ID) is allowed this many characters. */
const UNBOUNDED_STRING = 256;
/** An integer with no bounds: sign and digits of the largest safe integer, with room to spare. */
const UNBOUNDED_INTEGER = 24;

function longestValue(p: ParameterSpec): number {
  const s = p.schema as {
    type?: string;
    enum?: unknown[];
    maxLength?: number;
    format?: string;
    maximum?: number;
  };
  if (Array.isArray(s.enum))
    return Math.max(...s.enum.map((v) => String(v).length)) * WORST_ENCODED_CHARS_PER_CHAR;
  if (s.type === "integer" || s.type === "number") {
    return typeof s.maximum === "number" ? String(s.maximum).length + 1 : UNBOUNDED_INTEGER;
  }
  if (s.format === "uuid") return 36;
  return (s.maxLength ?? UNBOUNDED_STRING) * WORST_ENCODED_CHARS_PER_CHAR;
}

function longestTarget(op: Operation): number {
  const prefix = Math.max(...op.prefixes.map((p) => p.length));
  let path = prefix + op.path.replace(/\{[^}]+\}/g, "").length;
  let query = 0;
  for (const p of op.parameters) {
    if (p.in === "path") path += longestValue(p);
    // `&name=value` (the first is `?`): names are plain ASCII.
    else if (p.in === "query") query += 2 + p.name.length + longestValue(p);
  }
  return path + query;
}

export interface RequestSizes {
  /** The longest valid request target (path and query) of any operation of the contract, in bytes. */
  longestValidTarget: number;
  /** The longest request target served: room for every valid one, and for invalid ones to get their 400. */
  maxTarget: number;
  /** The header fields allowed beside the request line (`x-max-header-bytes`). */
  maxHeaders: number;
  /** The whole request head: request line and header fields. */
  maxHead: number;
}

/** The request sizes a document and its operations allow. */
export function requestSizes(document: object, ops: readonly Operation[]): RequestSizes {
  const longestValidTarget = Math.max(...ops.map(longestTarget));
  const maxHeaders = (document as { "x-max-header-bytes": number })["x-max-header-bytes"];
  return {
    longestValidTarget,
    maxTarget: 2 * longestValidTarget,
    maxHeaders,
    maxHead: 2 * longestValidTarget + maxHeaders,
  };
}

/** This package's own description's sizes (the simulator's host reads them). */
export const ownSizes: RequestSizes = requestSizes(openapi, operations);
export const LONGEST_VALID_TARGET_BYTES: number = ownSizes.longestValidTarget;
export const MAX_REQUEST_TARGET_BYTES: number = ownSizes.maxTarget;
export const MAX_HEADER_BYTES: number = ownSizes.maxHeaders;
export const MAX_REQUEST_HEAD_BYTES: number = ownSizes.maxHead;
