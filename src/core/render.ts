/** Turning replies and errors into Responses with the headers every answer of an operation carries. */
import { ApiError } from "./errors.ts";
import type { Reply } from "./route.ts";

const JSON_TYPE = "application/json; charset=utf-8";

/** The bodies of the JSON Responses made here, which are complete from the start (see `completeBody`). */
const completeBodies = new WeakMap<Response, string>();

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const text = JSON.stringify(body);
  const response = new Response(text, { status, headers: { "content-type": JSON_TYPE, ...headers } });
  completeBodies.set(response, text);
  return response;
}

/**
 * The whole body of a JSON Response made by `json`, while nobody has read it: a host may write it out as is
 * instead of reading the Response's stream chunk by chunk (it then leaves the stream unread). Undefined for
 * every other Response, including a copy made from this one.
 */
export function completeBody(response: Response): string | undefined {
  return response.bodyUsed ? undefined : completeBodies.get(response);
}

export function renderError(error: ApiError, path: string, headers: Record<string, string>): Response {
  return json(error.status, error.toEnvelope(path), headers);
}

/** A Reply becomes JSON (or an empty 204); a Response from a streaming handler gets the headers added. */
export function renderReply(reply: Reply | Response, headers: Record<string, string>): Response {
  if (reply instanceof Response) {
    for (const [k, v] of Object.entries(headers)) if (!reply.headers.has(k)) reply.headers.set(k, v);
    return reply;
  }
  const all = { ...headers, ...reply.headers };
  if (reply.status === 204 || reply.body === undefined)
    return new Response(null, { status: reply.status, headers: all });
  return json(reply.status, reply.body, all);
}

export { ApiError };
