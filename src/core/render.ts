/** Turning replies and errors into answers with the headers every answer of an operation carries. */
import { ApiError } from "./errors.ts";
import { Answer, type Outcome } from "./exchange.ts";
import type { Reply } from "./route.ts";

const JSON_TYPE = "application/json; charset=utf-8";

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return new Answer(status, { "content-type": JSON_TYPE, ...headers }, JSON.stringify(body));
}

export function renderError(error: ApiError, path: string, headers: Record<string, string>): Answer {
  return json(error.status, error.toEnvelope(path), headers);
}

/** A Reply becomes JSON (or an empty 204); a Response from a streaming handler gets the headers added. */
export function renderReply(reply: Reply | Outcome, headers: Record<string, string>): Outcome {
  if (reply instanceof Answer) return reply.withHeaders(headers);
  if (reply instanceof Response) {
    for (const [k, v] of Object.entries(headers)) if (!reply.headers.has(k)) reply.headers.set(k, v);
    return reply;
  }
  const all = { ...headers, ...reply.headers };
  if (reply.status === 204 || reply.body === undefined) return new Answer(reply.status, all, null);
  return json(reply.status, reply.body, all);
}

export { ApiError };
