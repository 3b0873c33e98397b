/**
 * Reading request bodies safely: capped while streaming (the rest is never buffered), decoded as strict
 * UTF-8, parsed as JSON, and refused when nested deeper than any real payload, so that later recursive
 * work (validation, cloning) can never exhaust the stack.
 */
import { ApiError, badRequest } from "../errors.ts";
import type { SimRequest } from "./exchange.ts";

/** Applies where the contract sets no `x-max-body-bytes`: generous, but bounded. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const MAX_DEPTH = 64;

export type BodyResult = { present: false } | { present: true; text: string };

export async function readCapped(request: SimRequest, maxBytes: number): Promise<BodyResult> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  if (request.bodyBytes) {
    const bytes = await request.bodyBytes(maxBytes);
    if (bytes === "too large") throw tooLarge(maxBytes);
    return bytes === null || bytes.byteLength === 0 ? { present: false } : decoded(bytes);
  }
  if (!request.body) return { present: false };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      // Stop reading: the client is told at once and the rest never reaches memory.
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  if (size === 0) return { present: false };
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  return decoded(bytes);
}

/** Decodes whole texts only (never streams), so one decoder serves every request. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function decoded(bytes: Uint8Array): BodyResult {
  try {
    return { present: true, text: utf8.decode(bytes) };
  } catch {
    throw badRequest("Invalid JSON body", { reason: "Body is not valid UTF-8" });
  }
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, "Request body too large", { maxBytes });
}

/** `application/json` or a `+json` type, parameters (a charset) aside: what a JSON operation accepts. */
export function isJsonType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const type = contentType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/** Parses JSON text; any failure is the description's 400 `Invalid JSON body`. */
export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("Invalid JSON body");
  }
  if (depthExceeds(value, MAX_DEPTH))
    throw badRequest("Invalid JSON body", { reason: `Nested deeper than ${MAX_DEPTH} levels` });
  return value;
}

/** Iterative, so that measuring a hostile value cannot itself overflow the stack. */
function depthExceeds(root: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== "object") continue;
    if (d > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === "object") stack.push([child, d + 1]);
    }
  }
  return false;
}
