/** Turning replies and errors into answers with the headers every answer of an operation carries. */

import { ApiError } from "../errors.ts";
import type { Reply } from "../resource.ts";
import { encodeJson } from "./encoded-json.ts";
import { Answer, LineStream, type Outcome } from "./exchange.ts";

const JSON_TYPE = "application/json; charset=utf-8";

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return new Answer(status, { "content-type": JSON_TYPE, ...headers }, encodeJson(body));
}

/** An error as the envelope, with the operation's `headers` and the error's own (Allow, Retry-After, Vary). */
export function renderError(error: ApiError, path: string, headers: Record<string, string>): Answer {
  return json(error.status, error.toEnvelope(path), { ...headers, ...error.headers });
}

/** A Reply becomes JSON (or an empty 204); a Response from a streaming handler gets the headers added. */
export function renderReply(reply: Reply | Outcome, headers: Record<string, string>): Outcome {
  if (reply instanceof Answer || reply instanceof LineStream) return reply.withHeaders(headers);
  if (isResponse(reply)) {
    for (const [k, v] of Object.entries(headers)) if (!reply.headers.has(k)) reply.headers.set(k, v);
    return reply;
  }
  const all = { ...headers, ...reply.headers };
  if (reply.status === 204 || reply.body === undefined) return new Answer(reply.status, all, null);
  return json(reply.status, reply.body, all);
}

/**
 * Told apart without naming the global `Response`: in Node its first use loads undici, which no JSON
 * answer needs (about 70 ms of start-up and 5 MB).
 */
export function isResponse(reply: Reply | Response): reply is Response {
  return "bodyUsed" in reply && typeof (reply as Response).clone === "function";
}

export { ApiError };
